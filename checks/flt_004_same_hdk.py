"""ASC-FLT-004: every node runs the same driver and firmware (one HDK release)."""

from __future__ import annotations

from typing import Iterator, List, Optional, Sequence, Tuple

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
    fleet_family,
    majority_value,
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
    fix=("On the odd node, install the majority's driver and firmware: firmware, then driver, as an overwrite install "
         "(Huawei's upgrade order), then reboot. The report names the package files for the fleet's chip family "
         "and architecture."),
)


def _differs(ctx: FleetCheckContext, key: str, target: Optional[str], nodes: Sequence[str]) -> bool:
    """Whether any of ``nodes`` is not on ``target`` for ``key`` (unknown counts as differing)."""
    if target is None:
        return True
    view = fleet_facts(ctx).drift(drift.KEYS_BY_NAME[key])
    return not set(nodes) <= set(view.groups.get(target, []))


def _hdk_lines(ctx: FleetCheckContext, driver: Optional[str], firmware: Optional[str]) -> Tuple[List[str], str]:
    """Install lines (Huawei's upgrade order: firmware, then driver, then one reboot) for what differs."""
    from ascend_doctor.matrix.packages import UPGRADE, convention_flags, convention_order

    pk = package_set(ctx)
    lines: List[str] = []
    for part in convention_order(ctx.matrix, UPGRADE):
        if part == "driver" and driver:
            # Versions are the fleet's majority, read from node reports: only versions name files.
            name = pk.hdk_driver(driver) if pk is not None and fits(driver, "version") else None
            lines.append(argv("./" + name, *convention_flags(ctx.matrix, 'driver').split()) if name else
                         comment(f"the driver {shaped(driver, 'version')} package for this chip family: " + argv(
                             "ascend-doctor", "matrix", "lookup", "--driver", shaped(driver, "version"),
                             "--chip", shaped(fleet_family(ctx), "package", "chip"))))
        elif part == "firmware" and firmware:
            name = pk.hdk_firmware(firmware) if pk is not None and fits(firmware, "version") else None
            lines.append(argv("./" + name, *convention_flags(ctx.matrix, 'firmware').split()) if name else
                         comment(f"the firmware {shaped(firmware, 'version')} package for this chip family: " + argv(
                             "ascend-doctor", "matrix", "lookup", "--chip",
                             shaped(fleet_family(ctx), "package", "chip"))))
    lines.append("reboot")
    if firmware and driver:
        summary = _("install firmware {firmware} and driver {driver} (overwrite order, one reboot) like the rest of "
                    "the fleet")
    elif firmware:
        summary = _("install firmware {firmware} (overwrite order, one reboot) like the rest of the fleet")
    else:  # a view of the driver or the firmware always has that one to install
        summary = _("install driver {driver} (overwrite order, one reboot) like the rest of the fleet")
    return lines, summary.format(firmware=firmware, driver=driver)


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    # The same step for both findings when a node differs in both: one HDK install, one reboot.
    driver = target if view.spec.key == "driver" else majority_value(ctx, "driver")
    firmware = target if view.spec.key == "firmware" else majority_value(ctx, "firmware")
    lines, summary = _hdk_lines(ctx, driver if _differs(ctx, "driver", driver, odd) else None,
                                firmware if _differs(ctx, "firmware", firmware, odd) else None)
    text = "\n".join([on_nodes(odd), *lines])
    return text, (action(view, target, odd, summary, lines, where="host",
                         direction=direction_to(target, values_of(view, odd))),)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = facts.group(drift.HDK)
    if not views:
        raise NotApplicable(_("no node report names its driver or firmware"))
    yield from drift_findings(ctx, views, lambda _view: Status.FAIL, _fix)
