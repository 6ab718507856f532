"""ASC-NET-003: every NPU's network health is Success."""

from __future__ import annotations

from typing import Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, shaped

from ._context import HostCheckContext
from ._network import SRC_MINDIE_RANKTABLE, SRC_TOOLBOX, SRC_VLLM_MULTINODE, conf, devices, ids, scope, system_fix

HEALTHY = "success"
NOT_DETECTING = "init"  # what a device prints before any detection result (MindCluster collection sample)

CHECK = CheckSpec(
    id="ASC-NET-003",
    title="NPU network health Success on every device",
    what=("Reads `hccn_tool -i N -net_health -g`: Success PASSes; Init (no detection result yet, usually no "
          "detection address set) WARNs with the -netdetect command; any other state FAILs."),
    why=("net_health is the device's own probe of its detection address (normally the gateway of its segment). "
         "Anything but Success means the device cannot reach it, and collectives across nodes will hang. "
         "Sources: " + SRC_TOOLBOX + "; " + SRC_VLLM_MULTINODE + "; " + SRC_MINDIE_RANKTABLE),
    fix=("Set the detection address to the segment's gateway: hccn_tool -i N -netdetect -s address <gateway>; "
         "then check the link, address and gateway of the device (ASC-NET-002, 004, 006)."),
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def _gateway(ctx: HostCheckContext, device_id: int, route_gateway: Optional[str]) -> Optional[str]:
    configured = conf(ctx)
    if configured is not None:
        found = configured.gateway(device_id) or configured.get(device_id, "netdetect")
        if found:
            return found
    return route_gateway


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    answered = [d for d in devices(ctx) if d.net_health is not None]
    if not answered:
        raise NotApplicable(_("no device answered `hccn_tool -i N -net_health -g` (see ASC-NET-001)"))
    bad: List[int] = []
    for device in answered:
        state = device.net_health or ""
        if state.lower() == HEALTHY:
            continue
        bad.append(device.device_id)
        n = device.device_id
        gateway = _gateway(ctx, n, device.gateway)
        # The gateway may come from /etc/hccn.conf: only an IPv4 address goes into the command.
        detect = argv("hccn_tool", "-i", str(n), "-netdetect", "-s", "address",
                      shaped(gateway, "ipv4", "gateway of its segment"))
        if state.lower() == NOT_DETECTING:
            finding = Finding.warn(
                _("device {device}: net health {state}: it has no detection result (no detection address set, or "
                  "detection not yet run)").format(device=n, state=state),
                _("Set the detection address to the gateway of the device's segment: `{command}`, then "
                  "`{health_command}` should say Success.").format(
                    command=detect, health_command=f"hccn_tool -i {n} -net_health -g"),
                net_health=state, gateway=gateway)
        else:
            finding = Finding.fail(
                _("device {device}: net health {state}: the device cannot reach its detection address").format(
                    device=n, state=state),
                _("Check `{netdetect_command}` (the address it probes; set it with `{command}`), the link "
                  "(`{link_command}`), the address and the gateway of device {device}.").format(
                    netdetect_command=f"hccn_tool -i {n} -netdetect -g", command=detect,
                    link_command=f"hccn_tool -i {n} -link -g", device=n),
                net_health=state, gateway=gateway)
        yield finding.scoped(scope(n)).with_actions(system_fix(
            _("Set NPU {device}'s detection address and re-check its health").format(device=n),
            (detect, f"hccn_tool -i {n} -net_health -g"), direction="set", subject=f"npu {n}"))
    if not bad:
        yield Finding.passed(_("net health Success on {count} device(s): {devices}").format(
            count=len(answered), devices=ids(d.device_id for d in answered)))
