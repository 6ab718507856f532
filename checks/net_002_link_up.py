"""ASC-NET-002: the RoCE link of every NPU is UP."""

from __future__ import annotations

from typing import Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._network import SRC_MINDCLUSTER, SRC_MINDIE_RANKTABLE, SRC_VLLM_MULTINODE, devices, ids, scope, system_fix

CHECK = CheckSpec(
    id="ASC-NET-002",
    title="NPU network link UP on every device",
    what=("Reads `hccn_tool -i N -link -g` for every NPU; each device whose link is not UP FAILs, named with the "
          "switch port it is cabled to (LLDP) and how often the link came up (-link_stat)."),
    why=("A DOWN link leaves that rank unreachable: HCCL hangs at the first collective and ends with EI0006 "
         "'Getting socket times out'. Sources: " + SRC_VLLM_MULTINODE + "; " + SRC_MINDIE_RANKTABLE + "; "
         + SRC_MINDCLUSTER),
    fix=("Check the cable or optical module of that NPU's port and the switch port it goes to "
         "(`hccn_tool -i N -lldp -g`, `hccn_tool -i N -optical -g`), then `hccn_tool -i N -link -g` again."),
    requires=("npus", "family:A2,A3,910", "fact:hccn"),
    tags=("network",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    answered = [d for d in devices(ctx) if d.link is not None]
    if not answered:
        raise NotApplicable("no device answered `hccn_tool -i N -link -g` (see ASC-NET-001)")
    down: List[int] = []
    for device in answered:
        if (device.link or "").upper() == "UP":
            continue
        down.append(device.device_id)
        port = device.lldp.port_ifname if device.lldp else None
        flaps = device.link_stat.link_up_count if device.link_stat else None
        where = f"switch port {port}" if port else "its switch port (LLDP gave none)"
        yield Finding.fail(
            f"device {device.device_id}: link {device.link}" + (f" (came up {flaps} times so far)" if flaps else ""),
            f"Check the cable or optical module of NPU {device.device_id}'s port and {where}; then run "
            f"`hccn_tool -i {device.device_id} -link -g` again (`hccn_tool -i {device.device_id} -optical -g` shows "
            "the module).", link=device.link, switch_port=port, link_up_count=flaps,
        ).scoped(scope(device.device_id)).with_actions(system_fix(
            f"Bring up the link of NPU {device.device_id} (cable, optical module, switch port {port or '?'})",
            (f"hccn_tool -i {device.device_id} -link -g",), subject=f"npu {device.device_id}"))
    if not down:
        yield Finding.passed(f"link UP on {len(answered)} device(s): {ids(d.device_id for d in answered)}")
