"""ASC-FLT-009: HCCL environment variables agree across nodes, and HCCL_IF_IP is each node's own."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import MAX_EXAMPLE_NODES, DriftView
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import Placeholder, comment, export, unset

from ._fleet import (
    INTRA_ROCE_SOURCE,
    FleetCheckContext,
    action,
    count,
    drift_findings,
    fleet_facts,
    names,
    require_nodes,
)

CHECK = CheckSpec(
    id="ASC-FLT-009",
    title="HCCL environment variables agree across nodes (HCCL_IF_IP differs)",
    suite="fleet",
    what=("Compares every HCCL_* variable the node reports carry (HCCL_CONNECT_TIMEOUT, HCCL_EXEC_TIMEOUT, "
          "HCCL_INTRA_ROCE_ENABLE, HCCL_BUFFSIZE...) with the fleet's majority; a variable set on some nodes only "
          "counts as different. HCCL_IF_IP, which names each node's own address, must instead differ on every "
          "node."),
    why=("Ranks with different HCCL settings disagree: one node giving up its connect after 120 s while the others "
         "wait 1800 s turns a slow start into EI0006 on one rank; HCCL_INTRA_ROCE_ENABLE must be the same on both "
         f"ends of a link ({INTRA_ROCE_SOURCE}). Two nodes with one HCCL_IF_IP both bind the same address: one "
         "rank's traffic goes to the other node."),
    fix=("Set the variable to the majority's value in the serving environment of the odd node (the launch script, "
         "the container's env); give each node its own HCCL_IF_IP (its host address on the HCCL network)."),
)

FAIL_ON_DIFFERENCE = frozenset({"HCCL_INTRA_ROCE_ENABLE"})


def _severity(view: DriftView) -> Status:
    return Status.FAIL if view.spec.label in FAIL_ON_DIFFERENCE else Status.WARN


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    name = view.spec.label
    # The value is the fleet's majority, read from node reports: quoted as one word.
    line = unset(name) if target == drift.UNSET else export(name, target)
    text = comment(f"on {', '.join(odd)}, in the serving environment (launch script, container env):") + "\n" + line
    summary = (_("unset {variable} like the rest of the fleet") if target == drift.UNSET else
               _("set {variable} like the rest of the fleet")).format(
                   variable=name if target == drift.UNSET else f"{name}={target}")
    return text, (action(view, target, odd, summary, (line,), where="either", direction="set"),)


def _unique(view: DriftView) -> Iterator[Finding]:
    name = view.spec.label
    shared: Dict[str, List[str]] = {value: nodes for value, nodes in view.groups.items()
                                    if value != drift.UNSET and len(nodes) > 1}
    set_on = sum(len(nodes) for value, nodes in view.groups.items() if value != drift.UNSET)
    if not shared:
        yield Finding.passed(_("{variable}: each of the {nodes} that set it has its own value").format(
                                 variable=name, nodes=count(set_on)),
                             **view.to_dict()).scoped(name)
        return
    for value, nodes in sorted(shared.items()):
        remediation = (_("{variable} is the address of the node itself on the HCCL network: set it on each of "
                         "{names} to that node's own address:").format(variable=name, names=names(nodes))
                       + f"\n  export {name}=$(hostname -I | awk '{{print $1}}')   # or the address of the "
                       "interface HCCL_SOCKET_IFNAME names")
        yield Finding(Status.FAIL, _("{setting} on {nodes}: {names}").format(
                          setting=f"{name}={value}", nodes=count(len(nodes)), names=names(nodes)),
                      remediation,
                      {"variable": name, "value": value, "nodes": nodes[:MAX_EXAMPLE_NODES], "node_count": len(nodes)},
                      name,
                      (FixAction("environment", _("On {nodes}: give each node its own {variable}").format(
                          nodes=names(nodes, 20), variable=name),
                          (export(name, Placeholder("address of this node")),), where="either", subject=name),))

def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = facts.group(drift.HCCL_ENV)
    if not views:
        raise NotApplicable(_("no node report carries HCCL environment variables (none set, or reports of an "
                              "older ascend-doctor)"))
    agree = [v for v in views if v.spec.label not in drift.UNIQUE_ENV]
    yield from drift_findings(ctx, agree, _severity, _fix)
    for view in views:
        if view.spec.label in drift.UNIQUE_ENV:
            yield from _unique(view)
