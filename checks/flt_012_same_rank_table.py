"""ASC-FLT-012: every node holds the same rank table."""

from __future__ import annotations

from typing import Dict, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.i18n import _

from ._fleet import FleetCheckContext, count, fleet_facts, names

CHECK = CheckSpec(
    id="ASC-FLT-012",
    title="Every node holds the same rank table",
    suite="fleet",
    what=("Compares the digest of the rank table each node would start with (`check --rank-table FILE`, or the file "
          "RANK_TABLE_FILE names) across the fleet: the parsed JSON, so whitespace and key order do not count."),
    why=("HCCL builds one communicator from the rank table on every node: nodes started with different tables "
         "(one edited, one stale copy) wait for ranks that do not exist or assign one rank twice, and the job "
         "hangs until the connect timeout."),
    fix=("Generate the rank table once and copy the same file to every node (the same path RANK_TABLE_FILE names), "
         "then re-run the check."),
)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    by_digest: Dict[str, List[str]] = {}
    paths: Dict[str, str] = {}
    without: List[str] = []
    unreadable: List[str] = []
    for node in facts.readable():
        table = node.net.rank_table if node.net is not None else None
        if table is None:
            without.append(node.name)
        elif table.error or not table.digest:
            unreadable.append(node.name)
        else:
            by_digest.setdefault(table.digest, []).append(node.name)
            paths.setdefault(table.digest, table.path or "?")
    if not by_digest:
        raise NotApplicable(_("no node report carries a rank table (give `check --rank-table FILE` or set "
                              "RANK_TABLE_FILE on the nodes)"))
    ranked = sorted(by_digest.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    reference, majority_nodes = ranked[0]
    source = facts.source_of(majority_nodes[0])
    copy = (f"# copy the table of {majority_nodes[0]} ({paths[reference]}) to the same path on every node, e.g.\n"
            f"scp {majority_nodes[0]}:{paths[reference]} <node>:{paths[reference]}")
    if len(ranked) == 1 and not without:
        yield Finding.passed(_("all {nodes} hold one rank table ({path}, digest {digest}…)").format(
                                 nodes=count(len(majority_nodes)), path=paths[reference], digest=reference[:12]),
                             digest=reference, nodes=len(majority_nodes))
    elif len(ranked) > 1:
        groups = "; ".join(f"{names(nodes)}: {digest[:12]}… ({paths[digest]})" for digest, nodes in ranked)
        odd = [n for _digest, nodes in ranked[1:] for n in nodes]
        remediation = _("{nodes} share one table; {odd} hold another. Use one file everywhere:").format(
            nodes=count(len(majority_nodes)), odd=names(odd)) + "\n" + copy
        yield Finding(Status.FAIL, _("{count} different rank tables: {groups}").format(count=len(ranked),
                                                                                       groups=groups),
                      remediation, {"tables": [{"digest": d, "path": paths[d], "nodes": n} for d, n in ranked],
                                    "reference_source": source}, "rank table",
                      (FixAction("config", _("On {nodes}: use the fleet's rank table").format(nodes=names(odd, 20)),
                                 (copy.split("\n")[-1],), where="host", subject="rank table"),))
    if without:
        yield Finding(Status.WARN, (_("{nodes} holds no rank table while {others} do") if len(without) == 1 else
                                    _("{nodes} hold no rank table while {others} do")).format(
                          nodes=names(without), others=count(sum(len(n) for n in by_digest.values()))), (
                          _("Start every node with the same rank table (set RANK_TABLE_FILE to the same path, or give "
                            "`check --rank-table FILE`) and check again:") + "\n" + copy),
                      {"nodes": without}, "rank table missing")
    if unreadable:
        yield Finding(Status.ERROR, _("the rank table of {nodes} could not be read (see the node's own rank table "
                                      "results)").format(nodes=names(unreadable)),
                      _("Fix the file on that node (its own report says why), then re-run."),
                      {"nodes": unreadable}, "rank table unreadable")
