"""ASC-FLT-003: every node has the same NPU model and the same number of NPUs."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView
from ascend_doctor.i18n import _

from ._fleet import FleetCheckContext, action, drift_findings, fleet_facts, names, require_nodes

CHECK = CheckSpec(
    id="ASC-FLT-003",
    title="Every node has the same NPU model and number of NPUs",
    suite="fleet",
    what=("Compares the NPU model (npu-smi's Name column) and the number of NPU chips of every node with the "
          "fleet's majority."),
    why=("One rank table, one parallel layout (tensor/expert parallel over 16 or 32 cards) assumes identical "
         "nodes: a node with another chip cannot join the same HCCL ranks, and a node that shows one NPU fewer "
         "usually lost a card (dropped off the bus, a failed chip, a container that does not see every device)."),
    fix=("On the node with fewer NPUs: `npu-smi info` and the kernel log (ASC-DEV-001, ASC-LOG-001 of its own "
         "report); a node with another chip model belongs in another cluster."),
)


def _severity(view: DriftView) -> Status:
    return Status.FAIL if view.spec.key == "chip_model" else Status.WARN


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    if view.spec.key == "chip_model":
        text = (_("{nodes} has another NPU model than {target}: such a node cannot take ranks of this deployment. "
                  "Take it out of the rank table and the inventory, or give the cluster identical nodes.")
                if len(odd) == 1 else
                _("{nodes} have another NPU model than {target}: such a node cannot take ranks of this deployment. "
                  "Take it out of the rank table and the inventory, or give the cluster identical nodes.")
                ).format(nodes=names(odd), target=target)
        return text, (action(view, target, odd, _("take out of this cluster (NPU model is not {target})").format(
                                 target=target), (), where="host"),)
    commands = ("npu-smi info", "dmesg | grep -iE 'davinci|pcie|ascend' | tail -n 50")
    text = (_("The other nodes have {target} NPU chips. On {nodes} look at what npu-smi lists and at the kernel log "
              "for a card that dropped off the bus or failed (that node's own report: ASC-DEV-001, ASC-LOG-001); in a "
              "container, check that every /dev/davinciN is passed in:").format(target=target, nodes=names(odd))
            + "\n  " + "\n  ".join(commands))
    return text, (action(view, target, odd, _("find why {target} NPUs are not all visible").format(target=target),
                         commands),)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = facts.group(drift.HARDWARE)
    if not views:
        raise NotApplicable(_("no node report names its NPUs (npu-smi did not answer anywhere)"))
    yield from drift_findings(ctx, views, _severity, _fix)
