"""ASC-NET-007: the NPUs' TLS switch is the same on every device."""

from __future__ import annotations

from typing import Dict, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._network import SRC_MINDIE_RANKTABLE, SRC_VLLM_MULTINODE, devices, ids, system_fix

RECOMMENDED = 0  # MindIE-LLM's rank table guide: set the TLS switch to 0 on every card

CHECK = CheckSpec(
    id="ASC-NET-007",
    title="NPU TLS switch equal on every device",
    what=("Reads the `tls switch[N]` of `hccn_tool -i N -tls -g` on every NPU; devices that differ FAIL with the "
          "command that sets them all to 0 (what MindIE-LLM's guide recommends). The value must also be equal "
          "on every node: the report's network facts carry it for `ascend-doctor fleet`."),
    why=("HCCL links two devices only when their TLS settings match: a node (or a device) with TLS on among "
         "others with it off fails at link set-up with TLS errors. Sources: " + SRC_MINDIE_RANKTABLE + "; "
         + SRC_VLLM_MULTINODE),
    fix=f"for i in <every device>; do hccn_tool -i $i -tls -s enable {RECOMMENDED}; done (on every node)",
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ._network import loop

    by_value: Dict[int, List[int]] = {}
    for device in devices(ctx):
        if device.tls is not None:
            by_value.setdefault(device.tls.switch, []).append(device.device_id)
    if not by_value:
        raise NotApplicable(_("no device answered `hccn_tool -i N -tls -g` (see ASC-NET-001)"))
    if len(by_value) == 1:
        value, owners = next(iter(by_value.items()))
        yield Finding.passed((_("TLS switch {value} (enabled) on {count} device(s): {devices}; it must be the same on "
                                "every node") if value else
                              _("TLS switch {value} (disabled) on {count} device(s): {devices}; it must be the same "
                                "on every node")).format(value=value, count=len(owners), devices=ids(owners)),
                             tls_switch=value)
        return
    odd = [d for v, devs in by_value.items() if v != RECOMMENDED for d in devs]
    command = loop(odd, f"hccn_tool -i $i -tls -s enable {RECOMMENDED}")
    detail = "; ".join(_("{value} on {devices}").format(value=v, devices=ids(devs))
                       for v, devs in sorted(by_value.items()))
    check = loop(sorted(d for devs in by_value.values() for d in devs), 'hccn_tool -i $i -tls -g') + " | grep switch"
    yield Finding.fail(_("the TLS switch differs between devices: {detail}").format(detail=detail),
                       _("Set it the same on every device (MindIE-LLM's guide: 0): `{command}`; then `{check_command}` "
                         "(and the same on every node).").format(command=command, check_command=check),
                       tls_switch={str(v): devs for v, devs in by_value.items()}).with_actions(
        system_fix(_("Set the TLS switch to {value} on device(s) {devices}").format(value=RECOMMENDED,
                                                                                     devices=ids(odd)),
                   (command,), direction="set", subject="tls"))
