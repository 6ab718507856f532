"""One node, reduced to what the fleet needs: its verdict, worst finding, drift facts and addresses.

A fleet of a thousand nodes is merged one node at a time: each report is read, digested here and
dropped, so memory grows with the digests (a few hundred bytes to a few KB a node), never with the
reports. Values are interned: a thousand nodes on one driver share one string.

The node report is untrusted JSON (it comes from another machine): every field is type-checked
before use and a report that is not one is refused with one line naming the field.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from msgspec import Struct, field

from ascend_doctor.checkapi import FIX_COMPONENTS, Status
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.fleet import drift, network
from ascend_doctor.i18n import N_, _
from ascend_doctor.report import REPORT_SCHEMA_VERSION, Result, exit_code_for

READY = "READY"
NOT_READY = "NOT READY"
INCOMPLETE = "INCOMPLETE"
UNREADABLE = "UNREADABLE"
VERDICTS = {int(ExitCode.OK): READY, int(ExitCode.FINDINGS): NOT_READY, int(ExitCode.INCOMPLETE): INCOMPLETE}

MAX_NAME_CHARS = 128
MAX_MESSAGE_CHARS = 240
MAX_RESULTS = 100_000  # a real report has about a hundred
MAX_FINDING_IDS = 32  # ids of FAIL/ERROR/WARN results kept per node
# Worst first; among equals the one fixed first (the fix plan's component order).
_STATUS_RANK = {"FAIL": 0, "ERROR": 1, "WARN": 2, "INFO": 3}
_NO_RESULTS = {s.value: 0 for s in Status}  # copied for each node: reading the enum again cost 4 us a node
_FOREIGN_SOURCES = {"endpoint": N_("{label} is a probe report (ascend-doctor probe), not a node report"),
                    "fleet": N_("{label} is a fleet report (ascend-doctor fleet), not a node report")}


class NodeReportError(ValueError):
    """A node input that is not a usable node report; ``str()`` is one line."""


class Finding(Struct, frozen=True):
    status: str
    id: str
    title: str
    scope: Optional[str]
    message: str

    def to_dict(self) -> Dict[str, Any]:
        return {"status": self.status, "id": self.id, "title": self.title, "scope": self.scope,
                "message": self.message}

    @property
    def name(self) -> str:
        return f"{self.id} [{self.scope}]" if self.scope else self.id

    def to_key(self) -> Tuple[str, ...]:
        return (self.status, self.id, self.title, self.scope or "", self.message)

    def to_reference(self, position: int) -> Dict[str, Any]:
        """The finding as a node's table entry gives it when other nodes share it: what the table
        shows (status, id, title, scope) and where the message is (facts.shared_worst[position])."""
        return {"status": self.status, "id": self.id, "title": self.title, "scope": self.scope,
                "shared": position}


class NodeDigest(Struct):
    name: str
    source: str  # the input it was read from
    kind: str  # "report" | "snapshot" | "unreadable"
    error: str = ""
    exit_code: int = int(ExitCode.INCOMPLETE)
    counts: Dict[str, int] = field(default_factory=dict)
    worst: Optional[Finding] = None
    findings: Tuple[str, ...] = ()  # ids of the node's FAIL, ERROR and WARN results (sorted, bounded)
    devices: Optional[int] = None
    health: str = "?"
    arch: Optional[str] = None
    family: Optional[str] = None
    values: Dict[str, str] = field(default_factory=dict)  # drift key -> value
    hccl_env: Optional[Dict[str, str]] = None
    net: Optional[network.NodeNetwork] = None

    @property
    def readable(self) -> bool:
        return not self.error

    @property
    def verdict(self) -> str:
        return VERDICTS.get(self.exit_code, INCOMPLETE) if self.readable else UNREADABLE

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "source": self.source, "kind": self.kind, "verdict": self.verdict,
                "exit_code": self.exit_code, "devices": self.devices, "health": self.health,
                "summary": dict(self.counts), "worst": self.worst.to_dict() if self.worst else None,
                "findings": list(self.findings),
                "error": self.error or None}


def unreadable(source: str, kind: str, message: str) -> NodeDigest:
    import os

    name = os.path.basename(source.rstrip("/")) or source
    return NodeDigest(name=_cut(name, MAX_NAME_CHARS), source=source, kind=kind, error=message)


def _cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _intern(value: str) -> str:
    return sys.intern(value)


def digest_report(data: Any, source: str, kind: str) -> NodeDigest:
    """The digest of a node report (the dict of ``check --format json``); raises NodeReportError."""
    label = source
    if not isinstance(data, dict):
        raise NodeReportError(_("{label} is JSON but not an ascend-doctor report (top level is not an "
                                "object)").format(label=label))
    tool = data.get("tool")
    if not isinstance(tool, dict) or tool.get("name") != "ascend-doctor":
        raise NodeReportError(_('{label} is JSON but not an ascend-doctor report (no {field})').format(
            label=label, field='"tool": {"name": "ascend-doctor"}'))
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise NodeReportError(_("{label}: schema_version {version} is not a report schema version").format(
            label=label, version=repr(version)))
    if version > REPORT_SCHEMA_VERSION:
        raise NodeReportError(_("{label} uses report schema {version}, newer than this ascend-doctor reads (1 to "
                                "{newest}): upgrade ascend-doctor on the machine running fleet").format(
                                    label=label, version=version, newest=REPORT_SCHEMA_VERSION))
    host = data.get("host")
    if not isinstance(host, dict):
        raise NodeReportError(_("{label} is not a valid ascend-doctor report: {problem}").format(
            label=label, problem=_("host is missing or not an object")))
    foreign = _FOREIGN_SOURCES.get(str(host.get("source")))
    if foreign:
        raise NodeReportError(_(foreign).format(label=label))
    facts = data.get("facts")
    if facts is None:
        facts = {}
    if not isinstance(facts, dict):
        raise NodeReportError(_("{label} is not a valid ascend-doctor report: {problem}").format(
            label=label, problem=_("facts is not an object")))
    fail_on = data.get("fail_on", "fail")
    if fail_on not in ("fail", "warn"):
        raise NodeReportError(_('{label}: fail_on must be "fail" or "warn", not {value}').format(
            label=label, value=repr(fail_on)))
    counts, worst, finding_ids = _results(data.get("results"), label)
    hostname = host.get("hostname")
    import os

    name = hostname if isinstance(hostname, str) and hostname.strip() else \
        os.path.basename(source.rstrip("/")).rsplit(".json", 1)[0]
    statuses = [Status(s) for s, n in counts.items() if n]
    code = exit_code_for([Result("", "", s, "") for s in statuses], fail_on)
    devices, health = _devices(facts)
    chip: Dict[str, Any] = facts["chip"] if isinstance(facts.get("chip"), dict) else {}
    arch = host.get("arch")
    return NodeDigest(
        name=_intern(_cut(name, MAX_NAME_CHARS)), source=source, kind=kind, exit_code=int(code), counts=counts,
        worst=worst, findings=finding_ids, devices=devices, health=health,
        arch=_intern(arch) if isinstance(arch, str) and arch else None,
        family=_intern(chip["family"]) if isinstance(chip.get("family"), str) else None,
        values={_intern(k): _intern(v) for k, v in drift.read_values(facts).items()},
        hccl_env=_env(facts), net=network.read_node_network(facts))


def _env(facts: Mapping[str, Any]) -> Optional[Dict[str, str]]:
    values = drift.env_values(facts)
    if values is None:
        return None
    return {_intern(k): _intern(v) for k, v in values.items()}


def _results(results: Any, label: str) -> Tuple[Dict[str, int], Optional[Finding], Tuple[str, ...]]:
    if not isinstance(results, list):
        raise NodeReportError(_("{label} is not a valid ascend-doctor report: {problem}").format(
            label=label, problem=_("results is missing or not a list")))
    if len(results) > MAX_RESULTS:
        raise NodeReportError(_("{label} holds {count} results, more than {limit}: not a node report").format(
            label=label, count=len(results), limit=MAX_RESULTS))
    counts = dict(_NO_RESULTS)
    best: Optional[Tuple[Tuple[int, int], Any]] = None
    ids: Set[str] = set()
    for index, item in enumerate(results):
        if not isinstance(item, dict):
            raise NodeReportError(_("{label} is not a valid ascend-doctor report: {problem}").format(
                label=label, problem=_("{field} is not an object").format(field=f"results[{index}]")))
        status = item.get("status")
        if status not in counts:
            raise NodeReportError(_("{label} is not a valid ascend-doctor report: {problem}").format(
                label=label, problem=_("{field} {value} is not a known status").format(
                    field=f"results[{index}].status", value=repr(status))))
        counts[status] += 1
        rank = _STATUS_RANK.get(status)
        if rank is None:
            continue
        if status != "INFO" and len(ids) < MAX_FINDING_IDS:
            ids.add(_intern(_cut(str(item.get("id") or "?"), 40)))
        key = (rank, _fix_order(item.get("id")))
        if best is None or key < best[0]:
            best = (key, item)
    worst = None
    if best is not None:
        item = best[1]
        scope = item.get("scope")
        worst = Finding(status=str(item.get("status")), id=_cut(str(item.get("id") or "?"), 40),
                        title=_cut(str(item.get("title") or ""), MAX_MESSAGE_CHARS),
                        scope=_cut(scope, 80) if isinstance(scope, str) and scope else None,
                        message=_cut(str(item.get("message") or ""), MAX_MESSAGE_CHARS))
    return counts, worst, tuple(sorted(ids))


def _fix_order(check_id: Any) -> int:
    from ascend_doctor.fixplan import AREA_COMPONENT

    text = str(check_id or "")
    area = text.split("-")[1] if text.count("-") >= 2 else ""
    component = AREA_COMPONENT.get(area, "other")
    return FIX_COMPONENTS.index(component) if component in FIX_COMPONENTS else len(FIX_COMPONENTS)


def _devices(facts: Mapping[str, Any]) -> Tuple[Optional[int], str]:
    found = facts.get("devices")
    devices: List[Mapping[str, Any]] = [d for d in found if isinstance(d, dict)] if isinstance(found, list) else []
    chip = facts.get("chip")
    count: Optional[int] = len(devices) if devices else None
    if count is None and isinstance(chip, dict) and isinstance(chip.get("chip_count"), int):
        count = int(chip["chip_count"])
    if not devices:
        return count, "?"
    health: Dict[str, int] = {}
    for device in devices:
        state = str(device.get("health") or "?").strip() or "?"
        health[state] = health.get(state, 0) + 1
    if list(health) == ["OK"]:
        return count, "OK"
    parts = sorted(health.items(), key=lambda kv: (kv[0] != "OK", -kv[1], kv[0]))
    return count, _intern(", ".join(f"{n} {_cut(state, 24)}" for state, n in parts))
