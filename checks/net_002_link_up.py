"""ASC-NET-002: the RoCE link of every NPU is UP."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

if TYPE_CHECKING:
    from ascend_doctor.facts.records.network import HccnDevice

from ._context import HostCheckContext
from ._network import SRC_MINDCLUSTER, SRC_MINDIE_RANKTABLE, SRC_VLLM_MULTINODE, devices, ids, scope, system_fix

CHECK = CheckSpec(
    id="ASC-NET-002",
    title="NPU network link UP on every device",
    what=("Reads `hccn_tool -i N -link -g` for every NPU (where only `hccn_tool -i N -status -g` is at hand, as in a "
          "paste: its ethtool 'Link detected' line); each device whose link is not UP FAILs, named with the "
          "switch port it is cabled to (LLDP) and how often the link came up (-link_stat)."),
    why=("A DOWN link leaves that rank unreachable: HCCL hangs at the first collective and ends with EI0006 "
         "'Getting socket times out'. Sources: " + SRC_VLLM_MULTINODE + "; " + SRC_MINDIE_RANKTABLE + "; "
         + SRC_MINDCLUSTER),
    fix=("Check the cable or optical module of that NPU's port and the switch port it goes to "
         "(`hccn_tool -i N -lldp -g`, `hccn_tool -i N -optical -g`), then `hccn_tool -i N -link -g` again."),
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def _link(device: HccnDevice) -> Optional[str]:
    """``-link -g``'s word, else ``-status -g``'s "Link detected: yes|no" (ethtool) as UP/DOWN."""
    if device.link is not None:
        return device.link
    detected = device.status.link_detected if device.status is not None else None
    return None if detected is None else ("UP" if detected else "DOWN")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    answered = [d for d in devices(ctx) if _link(d) is not None]
    if not answered:
        raise NotApplicable(_("no device answered `hccn_tool -i N -link -g` (see ASC-NET-001)"))
    down: List[int] = []
    for device in answered:
        link = _link(device)
        if (link or "").upper() == "UP":
            continue
        down.append(device.device_id)
        n = device.device_id
        port = device.lldp.port_ifname if device.lldp else None
        flaps = device.link_stat.link_up_count if device.link_stat else None
        where = (_("switch port {port}").format(port=port) if port else
                 _("its switch port (LLDP gave none)"))
        yield Finding.fail(
            (_("device {device}: link {link} (came up {count} times so far)") if flaps else
             _("device {device}: link {link}")).format(device=n, link=link, count=flaps),
            _("Check the cable or optical module of NPU {device}'s port and {where}; then run `{link_command}` again "
              "(`{optical_command}` shows the module).").format(
                device=n, where=where, link_command=f"hccn_tool -i {n} -link -g",
                optical_command=f"hccn_tool -i {n} -optical -g"),
            link=link, switch_port=port, link_up_count=flaps,
            read_from="-link -g" if device.link is not None else "-status -g (Link detected)",
        ).scoped(scope(n)).with_actions(system_fix(
            _("Bring up the link of NPU {device} (cable, optical module, switch port {port})").format(
                device=n, port=port or '?'),
            (f"hccn_tool -i {n} -link -g",), subject=f"npu {n}"))
    if not down:
        yield Finding.passed(_("link UP on {count} device(s): {devices}").format(
            count=len(answered), devices=ids(d.device_id for d in answered)))
