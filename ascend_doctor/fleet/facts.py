"""What the fleet checks (``checks/flt_*.py``, suite "fleet") get as ``ctx.facts``.

The digests of every node in input order (unreadable ones included), the distinct rank tables
the nodes hold, and the drift views computed from the digests: for each fact that must agree,
the value most nodes share and the nodes that differ. Checks compare; nothing here judges.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from msgspec import Struct, field

from ascend_doctor.fleet import drift
from ascend_doctor.fleet.digest import NodeDigest
from ascend_doctor.fleet.network import TableEntry, table_entries

MAX_DISTINCT_TABLES = 16  # rank tables whose entries are kept; more different tables is a finding anyway
# A fact held by ten thousand nodes is said with a count and examples, never with every name: the
# node table (facts.nodes) lists every node once, the drift and the findings name a few.
MAX_EXAMPLE_NODES = 20  # node names listed for one value of a fact
MAX_LISTED_VALUES = 50  # values of one fact listed (ten thousand distinct HCCL_IF_IP are counted)


class DriftView(Struct, frozen=True):
    """One fact across the fleet: the majority value and who holds what."""

    spec: drift.DriftKey
    majority: Optional[str]  # None: no value is held by more nodes than every other (a tie)
    groups: Dict[str, List[str]]  # value -> node names, in input order
    unknown: Tuple[str, ...] = ()  # readable nodes whose report does not state it

    @property
    def known(self) -> int:
        return sum(len(nodes) for nodes in self.groups.values())

    @property
    def differs(self) -> bool:
        return len(self.groups) > 1

    def odd(self) -> List[Tuple[str, str]]:
        """(node, value) of every node not on the majority value (all nodes on a tie)."""
        out = [(node, value) for value, nodes in self.groups.items() if value != self.majority for node in nodes]
        return out

    def ranked(self) -> List[Tuple[str, List[str]]]:
        return sorted(self.groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    def to_dict(self) -> Dict[str, Any]:
        """The view as JSON. The majority's nodes are counted, not listed (they are every node not
        listed elsewhere): a thousand names per fact would make the report mostly names. Other values
        list at most MAX_EXAMPLE_NODES of their nodes ("count" is the whole), and at most
        MAX_LISTED_VALUES values are listed ("values_not_listed" counts the rest)."""
        values: List[Dict[str, Any]] = []
        ranked = self.ranked()
        for value, nodes in ranked[:MAX_LISTED_VALUES]:
            entry: Dict[str, Any] = {"value": value, "count": len(nodes)}
            if value != self.majority:
                entry["nodes"] = list(nodes[:MAX_EXAMPLE_NODES])
            values.append(entry)
        data = {"fact": self.spec.key, "label": self.spec.label, "group": self.spec.group,
                "majority": self.majority, "agree": len(self.groups.get(self.majority, [])) if self.majority else 0,
                "known": self.known, "values": values, "unknown": list(self.unknown[:MAX_EXAMPLE_NODES])}
        if len(ranked) > MAX_LISTED_VALUES:
            data["values_not_listed"] = len(ranked) - MAX_LISTED_VALUES
        if len(self.unknown) > MAX_EXAMPLE_NODES:
            data["unknown_count"] = len(self.unknown)
        return data


class FleetFacts(Struct):
    nodes: List[NodeDigest] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)  # folder entries that were no node input
    duplicates: List[Tuple[str, str, str]] = field(default_factory=list)  # (host name, first source, again)
    tables: Dict[str, Tuple[TableEntry, ...]] = field(default_factory=dict)  # rank table digest -> entries
    _names: Dict[str, str] = field(default_factory=dict)
    _drift: Dict[str, DriftView] = field(default_factory=dict)

    # -- building ---------------------------------------------------------------------------------
    def add(self, node: NodeDigest) -> None:
        """Keep one node's digest (its rank table entries only if the table is new)."""
        first = self._names.get(node.name)
        if first is not None:
            if node.readable:
                self.duplicates.append((node.name, first, node.source))
            node.name = f"{node.name} ({os.path.basename(node.source.rstrip('/'))})"
        self._names.setdefault(node.name, node.source)
        net = node.net
        if net is not None and net.rank_table is not None and net.rank_table.digest:
            digest = net.rank_table.digest
            if digest not in self.tables and len(self.tables) < MAX_DISTINCT_TABLES:
                self.tables[digest] = table_entries(net.rank_table)
            node.net = net.without_entries()
        self.nodes.append(node)
        self._drift.clear()

    # -- reading ----------------------------------------------------------------------------------
    def readable(self) -> List[NodeDigest]:
        return [n for n in self.nodes if n.readable]

    def unreadable(self) -> List[NodeDigest]:
        return [n for n in self.nodes if not n.readable]

    def drift(self, spec: drift.DriftKey) -> DriftView:
        cached = self._drift.get(spec.key)
        if cached is not None:
            return cached
        pairs: List[Tuple[str, str]] = []
        unknown: List[str] = []
        for node in self.readable():
            value = node.values.get(spec.key) if not spec.key.startswith("env:") else self._env(node, spec.label)
            if value is None:
                unknown.append(node.name)
            else:
                pairs.append((node.name, value))
        majority, groups = drift.majority(pairs)
        view = DriftView(spec, majority, groups, tuple(unknown))
        self._drift[spec.key] = view
        return view

    @staticmethod
    def _env(node: NodeDigest, name: str) -> Optional[str]:
        if node.hccl_env is None:
            return None
        return node.hccl_env.get(name, drift.UNSET)

    def group(self, group: str) -> List[DriftView]:
        """The drift views of one group that at least one node states."""
        specs: Iterable[drift.DriftKey] = (
            [drift.env_key(name) for name in self.env_names()] if group == drift.HCCL_ENV
            else [k for k in drift.DRIFT_KEYS if k.group == group])
        views = [self.drift(spec) for spec in specs]
        return [v for v in views if v.known]

    def env_names(self) -> List[str]:
        """HCCL variables set on at least one node, in name order."""
        names: Set[str] = set()
        for node in self.readable():
            if node.hccl_env:
                names.update(n for n, v in node.hccl_env.items() if v != drift.UNSET)
        return sorted(names)

    def majority_of(self, attribute: str) -> Optional[str]:
        """The most common value of a digest attribute ("family", "arch") among readable nodes."""
        majority, _groups = drift.majority((n.name, str(getattr(n, attribute))) for n in self.readable()
                                           if getattr(n, attribute, None))
        return majority

    def source_of(self, name: str) -> str:
        for node in self.nodes:
            if node.name == name:
                return node.source
        return name

    def to_dict(self) -> Dict[str, Any]:
        views = [self.drift(spec) for spec in drift.DRIFT_KEYS]
        views += [self.drift(drift.env_key(name)) for name in self.env_names()
                  if name not in drift.UNIQUE_ENV]
        differs: Dict[str, List[str]] = {}
        for view in views:
            if view.majority is not None:
                for name, _value in view.odd():
                    differs.setdefault(name, []).append(view.spec.label)
        shared, index = self._shared_worst()
        nodes: List[Dict[str, Any]] = []
        for node in self.nodes:
            entry = {**node.to_dict(), "differs": differs.get(node.name, [])}
            worst = node.worst
            position = index.get(worst.to_key()) if worst is not None else None
            if worst is not None and position is not None:
                entry["worst"] = worst.to_reference(position)
            nodes.append(entry)
        return {
            "node_count": len(self.nodes),
            "unreadable": len(self.unreadable()),
            "nodes": nodes,
            "shared_worst": shared,
            "drift": [v.to_dict() for v in views if v.known],
            "rank_tables": sorted(self.tables),
            "skipped_inputs": len(self.skipped),
        }

    def _shared_worst(self) -> Tuple[List[Dict[str, Any]], Dict[Tuple[str, ...], int]]:
        """The worst findings several nodes share (nodes cloned from one image share all of them),
        each written once with its count; a node's entry refers to its own by position."""
        counts: Dict[Tuple[str, ...], int] = {}
        first: Dict[Tuple[str, ...], Any] = {}
        for node in self.nodes:
            if node.worst is not None:
                key = node.worst.to_key()
                counts[key] = counts.get(key, 0) + 1
                first.setdefault(key, node.worst)
        shared: List[Dict[str, Any]] = []
        index: Dict[Tuple[str, ...], int] = {}
        for key, total in counts.items():
            if total > 1:
                index[key] = len(shared)
                shared.append({**first[key].to_dict(), "nodes": total})
        return shared, index
