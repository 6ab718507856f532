"""ASC-FLT-006: every node has the same Python, torch and torch_npu."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, comment, fits, shaped

from ._fleet import (
    FleetCheckContext,
    action,
    direction_to,
    drift_findings,
    fleet_facts,
    label_of,
    majority_value,
    pip_pin,
    require_nodes,
    values_of,
)

CHECK = CheckSpec(
    id="ASC-FLT-006",
    title="Every node has the same Python, torch and torch_npu",
    suite="fleet",
    what=("Compares the Python minor version and the torch and torch_npu distributions of the checked interpreter "
          "of every node with the fleet's majority (a node without one of them counts as different)."),
    why=("Distributed torch_npu ranks must run one torch/torch_npu release: the collective calls, the graph mode "
         "and the HCCL bindings change between releases, and a mismatch shows up as a hang or an HCCL error on "
         "one rank, far from its cause."),
    fix="On the odd node: pip install torch==<majority> torch-npu==<majority> (in the serving environment).",
)


def _severity(view: DriftView) -> Status:
    return Status.WARN if view.spec.key == "python" else Status.FAIL


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    from ascend_doctor.matrix.pip import torch_pair

    facts = ctx.facts
    key = view.spec.key
    if key == "python":
        text = _("The other nodes run Python {target}: torch and torch_npu wheels are built per Python version. On "
                 "{nodes} create the serving environment with Python {target} and install the fleet's torch and "
                 "torch_npu into it (`ascend-doctor check --python PATH` checks that interpreter).").format(
                     target=target, nodes=", ".join(odd))
        return text, (action(view, target, odd, _("serve from a Python {target} environment").format(target=target),
                             (), where="either"),)
    if target == drift.NOT_INSTALLED:
        lines = [argv("pip", "uninstall", "-y", shaped(view.spec.subject, "package", "package"))]
        summary = _("remove {fact} (no other node has it)").format(fact=label_of(view))
    else:
        torch = majority_value(ctx, "package:torch")
        torch_npu = majority_value(ctx, "package:torch-npu")
        if torch and torch_npu and fits(torch, "version") and fits(torch_npu, "version"):
            advice = torch_pair(ctx.matrix, torch, torch_npu, facts.majority_of("arch"))
            lines = advice.lines + [comment(note) for note in advice.notes]
            summary = _("install torch {torch} and torch_npu {torch_npu} like the rest of the fleet").format(
                torch=torch, torch_npu=torch_npu)
        else:
            lines = [pip_pin(view.spec.subject, target)]
            summary = _("install {fact} {target} like the rest of the fleet").format(fact=label_of(view),
                                                                                      target=target)
    text = "\n".join([comment(f"on {', '.join(odd)}, in the serving environment:"), *lines])
    return text, (action(view, target, odd, summary, [line for line in lines if not line.startswith("#")],
                         where="either", direction=direction_to(target, values_of(view, odd))),)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = [v for v in facts.group(drift.PYTHON) if set(v.groups) != {drift.NOT_INSTALLED}]
    if not views:
        raise NotApplicable(_("no node report names its Python environment"))
    yield from drift_findings(ctx, views, _severity, _fix)
