"""ASC-FLT-001: every node report is readable and passes its own checks."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, Status
from ascend_doctor.fleet.digest import NodeDigest
from ascend_doctor.fleet.facts import MAX_EXAMPLE_NODES
from ascend_doctor.i18n import _, gettext
from ascend_doctor.shellcmd import argv

from ._fleet import FleetCheckContext, count, fleet_facts, names, plain_names

CHECK = CheckSpec(
    id="ASC-FLT-001",
    title="Every node report is readable and passes its own checks",
    suite="fleet",
    what=("Reads each node's report (or grades its snapshot as `check --from` does) and grades the node by its own "
          "exit code: FAIL for a node whose check found a FAIL (or a WARN under --fail-on warn), ERROR for a node "
          "whose check could not finish and for a report that cannot be read, WARN for a node with warnings only. "
          "Nodes whose worst finding is the same are one line; nodes that pass are counted on one line; the "
          "per-node table lists every node."),
    why=("The fleet is as ready as its worst node: one node that cannot start its NPUs stops a multi-node "
         "DeepSeek deployment as surely as all of them, and a node nobody could read is a node nobody checked."),
    fix=("Apply the failing node's own fix plan (`ascend-doctor report render REPORT.json` prints it), or run "
         "`ascend-doctor check` on the node; collect an unreadable report again."),
)

MAX_COMMANDS = 10  # per-node commands spelled out in one fix step


def _render_command(node: NodeDigest) -> str:
    if node.kind == "snapshot":
        return argv("ascend-doctor", "check", "--from", node.source)
    # A report's file name may come from a host name (`-o reports/%N.json`): quoted as one word.
    return argv("ascend-doctor", "report", "render", node.source)


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
    text = ", ".join(parts) or _("no FAIL, ERROR or WARN")
    return text + (f" ({', '.join(node.findings)})" if node.findings else "")


def _what(node: NodeDigest, status: Status) -> str:
    worst = node.worst
    if status is Status.ERROR and not (worst and worst.status == "ERROR"):
        return _("its check verified nothing (every result SKIP)")
    if not worst:
        return ""
    # The title is a check title of the catalogue (the node's report may be in either language).
    return _("worst: {status} {name} {title}: {message}").format(status=worst.status, name=worst.name,
                                                                  title=gettext(worst.title), message=worst.message)


def _scope(nodes: List[NodeDigest]) -> str:
    # A scope is the same in every language (reports are compared by id and scope).
    return f"node {nodes[0].name}" if len(nodes) == 1 else f"{len(nodes)} nodes: {plain_names([n.name for n in nodes])}"


def _unreadable(node: NodeDigest) -> Finding:
    return Finding(Status.ERROR, node.error, _(
        "Collect the report of {node} again (`ascend-doctor check --format json -o FILE` on the node) and re-run "
        "fleet; until then this node is not checked.").format(node=node.name), {"source": node.source},
        f"node {node.name}",
        (FixAction("other", _("Collect the report of {node} again").format(node=node.name),
                   ("ascend-doctor check --format json -o report.json   # on the node",), where="host"),))


def _group(status: Status, nodes: List[NodeDigest]) -> Finding:
    """One finding for nodes with the same worst finding (a rank table every node holds, one
    wrong package everywhere): the fleet's problem is said once, with every node it concerns."""
    first = nodes[0]
    what = _what(first, status)
    verdict = gettext(first.verdict)  # READY, NOT READY or INCOMPLETE: the renderers' words
    if len(nodes) == 1:
        head = f"{verdict}: {_counts(first)}"
    else:
        head = _("{nodes} {verdict} with {counts}: {names}").format(
            nodes=count(len(nodes)), verdict=verdict, counts=_counts(first), names=names([n.name for n in nodes]))
    message = head + (f"; {what}" if what else "")
    commands = [_render_command(n) for n in nodes[:MAX_COMMANDS]]
    if len(nodes) > MAX_COMMANDS:
        commands.append(f"# ... and the same for the other {len(nodes) - MAX_COMMANDS} nodes")
    if len(nodes) == 1:
        remediation = (_("Apply {node}'s own fix plan:").format(node=first.name) + "\n  " + "\n  ".join(commands)
                       + "\n" + _("(or run `ascend-doctor check` on it)"))
        summary = _("On {nodes}: apply its own fix plan ({counts})").format(nodes=names([n.name for n in nodes], 20),
                                                                           counts=_counts(first))
    else:
        remediation = (_("Apply the own fix plan of each of these nodes:") + "\n  " + "\n  ".join(commands)
                       + "\n" + _("(or run `ascend-doctor check` on each node)"))
        summary = _("On {nodes}: apply each node's own fix plan").format(nodes=names([n.name for n in nodes], 20))
    # Examples, not every node: the node table lists them all (ten thousand cloned nodes are one group).
    evidence = {"nodes": [{"name": n.name, "source": n.source, "summary": dict(n.counts), "exit_code": n.exit_code}
                          for n in nodes[:MAX_EXAMPLE_NODES]], "node_count": len(nodes),
                "worst": first.worst.to_dict() if first.worst else None}
    return Finding(status, message, remediation, evidence, _scope(nodes),
                   (FixAction("other", summary, tuple(c for c in commands if not c.startswith("#")), where="host"),))


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    clean: List[str] = []
    groups: Dict[Tuple[str, Tuple[str, ...], str, str, str], List[NodeDigest]] = {}
    for node in facts.nodes:
        status = _status_of(node)
        if status is Status.PASS:
            clean.append(node.name)
        elif not node.readable:
            yield _unreadable(node)
        else:
            worst = node.worst
            # Nodes alike: same verdict, same findings, same worst one (a rank table they all hold...).
            key = (status.value, node.findings, worst.id if worst else "", worst.scope or "" if worst else "",
                   worst.message if worst else "")
            groups.setdefault(key, []).append(node)
    for (status_text, *_rest), nodes in groups.items():
        yield _group(Status(status_text), nodes)
    if clean:
        yield Finding.passed(_("{nodes} pass their own checks: {names}").format(nodes=count(len(clean)),
                                                                                 names=names(clean)),
                             nodes=len(clean))
