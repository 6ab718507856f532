"""ASC-FLT-005: every node has the same CANN toolkit, kernels/ops and NNAL release."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, fits

from ._fleet import (
    FleetCheckContext,
    action,
    direction_to,
    drift_findings,
    fleet_facts,
    label_of,
    lookup_hint,
    on_nodes,
    package_set,
    require_nodes,
    values_of,
)

CHECK = CheckSpec(
    id="ASC-FLT-005",
    title="Every node has the same CANN toolkit, kernels and NNAL release",
    suite="fleet",
    what=("Compares the CANN toolkit version(s), the kernels/ops package release and the NNAL (ATB) release of every "
          "node with the fleet's majority."),
    why=("HCCL is part of CANN: ranks built on different CANN releases exchange different collective algorithms and "
         "compile different graphs, and a model quantised or compiled on one release may not load on another. "
         "A multi-node job needs one CANN release everywhere."),
    fix=("On the odd node, install the majority's CANN release (toolkit, then the kernels/ops package of the chip, "
         "then NNAL), and `source /usr/local/Ascend/ascend-toolkit/set_env.sh` in the serving environment."),
)

SET_ENV = {"cann": "source /usr/local/Ascend/ascend-toolkit/set_env.sh",
           "nnal": "source /usr/local/Ascend/nnal/atb/set_env.sh"}


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    pk = package_set(ctx)
    key = view.spec.key
    versions = [v.strip() for v in target.split(",")]
    lines: List[str] = []
    for version in versions:
        if key == "cann":
            files = [("toolkit", pk.toolkit(version) if pk else None), ("kernels", pk.kernels(version) if pk else None)]
        elif key == "kernels":
            files = [("kernels", pk.kernels(version) if pk else None)]
        else:
            files = [("nnal", pk.nnal(version) if pk else None)]
        for what, name in files:
            # The version is the fleet's majority, read from node reports: a file name made from a version
            # that is not shaped like one is never printed.
            known = name if name and fits(version, "version") else None
            lines.append(argv("./" + known, "--install") if known else lookup_hint(what, version))
    if key in SET_ENV:
        lines.append(SET_ENV[key])
    summary = _("install {fact} {target} like the rest of the fleet").format(fact=label_of(view), target=target)
    text = "\n".join([on_nodes(odd), *lines])
    return text, (action(view, target, odd, summary, lines, where="either",
                         direction=direction_to(target, values_of(view, odd))),)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = facts.group(drift.CANN)
    if not views:
        raise NotApplicable(_("no node report names its CANN toolkit"))
    yield from drift_findings(ctx, views, lambda _view: Status.FAIL, _fix)
