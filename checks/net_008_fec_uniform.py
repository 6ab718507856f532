"""ASC-NET-008: the NPUs' FEC mode is the same on every device."""

from __future__ import annotations

from typing import Dict, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._network import SRC_MINDCLUSTER, devices, ids, system_fix

CHECK = CheckSpec(
    id="ASC-NET-008",
    title="NPU FEC mode equal on every device",
    what=("Reads `hccn_tool -i N -fec -g` (e.g. 'rs FEC mode') on every NPU; devices with another mode than "
          "the rest FAIL. The value also travels in the report's network facts for `ascend-doctor fleet`."),
    why=("Forward error correction must match on both ends of a link: a port whose FEC mode differs from its "
         "switch port (and, in one plan, from its neighbours) does not come up or drops errored frames. "
         "Source: " + SRC_MINDCLUSTER),
    fix=("Set every device to the FEC mode its switch ports use, with hccn_tool's FEC setting (the hccn_tool guide "
         "of your driver names the modes); `hccn_tool -i N -fec -g` shows the current one."),
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    by_mode: Dict[str, List[int]] = {}
    for device in devices(ctx):
        if device.fec is not None:
            by_mode.setdefault(device.fec, []).append(device.device_id)
    if not by_mode:
        raise NotApplicable(_("no device answered `hccn_tool -i N -fec -g` (see ASC-NET-001)"))
    if len(by_mode) == 1:
        mode, owners = next(iter(by_mode.items()))
        yield Finding.passed(_("FEC mode '{mode}' on {count} device(s): {devices}").format(
                                 mode=mode, count=len(owners), devices=ids(owners)), fec_mode=mode)
        return
    ranked = sorted(by_mode.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    common = ranked[0][0]
    odd = [d for mode, devs in ranked[1:] for d in devs]
    detail = "; ".join(_("'{mode}' on {devices}").format(mode=m, devices=ids(devs)) for m, devs in ranked)
    yield Finding.fail(_("the FEC mode differs between devices: {detail}").format(detail=detail),
                       _("Set device(s) {devices} to the FEC mode of their switch ports (most devices here use "
                         "'{common}'), with hccn_tool's FEC setting from the hccn_tool guide of your driver; check "
                         "with `hccn_tool -i N -fec -g`.").format(devices=ids(odd), common=common),
                       fec_modes={m: devs for m, devs in by_mode.items()}).with_actions(
        system_fix(_("Align the FEC mode of device(s) {devices} with their switch ports").format(devices=ids(odd)),
                   tuple(f"hccn_tool -i {d} -fec -g" for d in odd), direction="set", subject="fec"))
