"""ASC-FLT-004: every node runs the same driver and firmware (one HDK release)."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView

from ._fleet import (
    action,
    direction_to,
    drift_findings,
    fleet_facts,
    fleet_family,
    on_nodes,
    package_set,
    require_nodes,
    values_of,
)

CHECK = CheckSpec(
    id="ASC-FLT-004",
    title="Every node runs the same driver and firmware",
    suite="fleet",
    what=("Compares the installed driver (driver/version.info) and NPU firmware (firmware/version.info) of every "
          "node with the fleet's majority."),
    why=("HCCL links NPUs of different nodes directly; drivers of different HDK releases disagree on the "
         "collective-communication protocol and on which CANN they accept, so one node left on an older HDK "
         "makes a multi-node job fail at connect time or behave differently on one rank."),
    fix=("On the odd node, install the majority's HDK release: firmware, then driver, as an overwrite install "
         "(Huawei's upgrade order), then reboot. The report names the package files for the fleet's chip family "
         "and architecture."),
)


def _fix(ctx: CheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    from ascend_doctor.matrix.packages import UPGRADE, convention_flags, install_lines

    pk = package_set(ctx)
    direction = direction_to(target, values_of(view, odd))
    if view.spec.key == "driver":
        if pk is not None:
            lines = install_lines(ctx.matrix, pk.family, pk.arch, target, UPGRADE)
        else:
            lines = [f"# the HDK {target} files for this chip family: ascend-doctor matrix lookup --driver {target} "
                     f"--chip {fleet_family(ctx)}", "reboot"]
        summary = f"install HDK {target} (driver and firmware, overwrite order) like the rest of the fleet"
    else:
        name = pk.hdk_firmware(target) if pk is not None else None
        lines = [f"./{name} {convention_flags(ctx.matrix, 'firmware')}" if name else
                 f"# the firmware {target} package for this chip family: ascend-doctor matrix lookup --chip "
                 f"{fleet_family(ctx)}", "reboot"]
        summary = f"install firmware {target} like the rest of the fleet"
    text = "\n".join([on_nodes(odd), *lines])
    return text, (action(view, target, odd, summary, lines, where="host", direction=direction),)


def run(ctx: CheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = facts.group(drift.HDK)
    if not views:
        raise NotApplicable("no node report names its driver or firmware")
    yield from drift_findings(ctx, views, lambda _view: Status.FAIL, _fix)
