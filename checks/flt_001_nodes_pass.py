"""ASC-FLT-001: every node report is readable and passes its own checks."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction, Status
from ascend_doctor.fleet.digest import NodeDigest

from ._fleet import count, fleet_facts, names

CHECK = CheckSpec(
    id="ASC-FLT-001",
    title="Every node report is readable and passes its own checks",
    suite="fleet",
    what=("Reads each node's report (or grades its snapshot as `check --from` does) and grades the node by its own "
          "exit code: FAIL for a node whose check found a FAIL (or a WARN under --fail-on warn), ERROR for a node "
          "whose check could not finish and for a report that cannot be read, WARN for a node with warnings only. "
          "Nodes that pass are counted on one line; the per-node table lists every node."),
    why=("The fleet is as ready as its worst node: one node that cannot start its NPUs stops a multi-node "
         "DeepSeek deployment as surely as all of them, and a node nobody could read is a node nobody checked."),
    fix=("Apply the failing node's own fix plan (`ascend-doctor report render REPORT.json` prints it), or run "
         "`ascend-doctor check` on the node; collect an unreadable report again."),
)


def _render_command(node: NodeDigest) -> str:
    if node.kind == "snapshot":
        return f"ascend-doctor check --from {node.source}"
    return f"ascend-doctor report render {node.source}"


def _status_of(node: NodeDigest) -> Status:
    if not node.readable or node.exit_code == 3:
        return Status.ERROR
    if node.exit_code == 1:
        return Status.FAIL
    if node.counts.get("WARN"):
        return Status.WARN
    return Status.PASS


def _counts(node: NodeDigest) -> str:
    parts = [f"{node.counts.get(s, 0)} {s}" for s in ("FAIL", "ERROR", "WARN") if node.counts.get(s)]
    return ", ".join(parts) or "no FAIL, ERROR or WARN"


def run(ctx: CheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    clean = []
    for node in facts.nodes:
        status = _status_of(node)
        if status is Status.PASS:
            clean.append(node.name)
            continue
        scope = f"node {node.name}"
        if not node.readable:
            yield Finding(Status.ERROR, f"{node.error}", (
                f"Collect the report of {node.name} again (`ascend-doctor check --format json -o FILE` on the node) "
                "and re-run fleet; until then this node is not checked."), {"source": node.source}, scope,
                (FixAction("other", f"Collect the report of {node.name} again",
                           ("ascend-doctor check --format json -o report.json   # on the node",), where="host"),))
            continue
        worst = node.worst
        if status is Status.ERROR and not (worst and worst.status == "ERROR"):
            what = "its check verified nothing (every result SKIP)"
        else:
            what = f"worst: {worst.status} {worst.name} {worst.title}: {worst.message}" if worst else ""
        message = f"{node.verdict}: {_counts(node)}" + (f"; {what}" if what else "")
        command = _render_command(node)
        yield Finding(status, message, (
            f"Apply {node.name}'s own fix plan:\n  {command}\n(or run `ascend-doctor check` on {node.name})"),
            {"source": node.source, "summary": dict(node.counts), "exit_code": node.exit_code,
             "worst": worst.to_dict() if worst else None}, scope,
            (FixAction("other", f"On {node.name}: apply its own fix plan ({_counts(node)})", (command,),
                       where="host"),))
    if clean:
        yield Finding.passed(f"{count(len(clean))} pass their own checks: {names(clean)}", nodes=len(clean))
