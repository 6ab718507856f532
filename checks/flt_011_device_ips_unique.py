"""ASC-FLT-011: no two NPU devices of the fleet have the same IP address."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.i18n import _

from ._fleet import SET_IP_SOURCE, count, fleet_facts, set_ip_command

CHECK = CheckSpec(
    id="ASC-FLT-011",
    title="No two NPU devices of the fleet have the same IP address",
    suite="fleet",
    what=("Collects the address every node's `hccn_tool -i N -ip -g` reports for each device and looks for an address "
          "held by two devices, on one node or on two."),
    why=("HCCL addresses every rank by its device IP (the rank table's device_ip): two devices with one address "
         "make RoCE traffic for one rank arrive at the other, and HCCL refuses the rank table ('The IP is used "
         "repeatedly', EI0014)."),
    fix=("Give one of the two devices a free address of the plan: `hccn_tool -i N -ip -s address ADDR netmask MASK` "
         f"({SET_IP_SOURCE}), then update /etc/hccn.conf and the rank table."),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    holders: Dict[str, List[Tuple[str, str, str]]] = {}
    devices = 0
    for node in facts.readable():
        if node.net is None:
            continue
        for address in node.net.addresses:
            devices += 1
            holders.setdefault(address.address, []).append((node.name, address.device_id, address.netmask or ""))
    if not devices:
        raise NotApplicable(_("no node report carries its devices' addresses (hccn_tool -ip -g)"))
    shared = {ip: who for ip, who in holders.items() if len(who) > 1}
    if not shared:
        nodes = sum(1 for n in facts.readable() if n.net is not None and n.net.addresses)
        yield Finding.passed(_("{devices} on {nodes} each have their own address").format(
            devices=count(devices, 'device'), nodes=count(nodes)))
        return
    for ip, who in sorted(shared.items()):
        # "node03 device 5": a name for the device, the same in every language
        places = ", ".join(f"{node} device {device}" for node, device, _mask in who)
        keep_node = who[0][0]
        moves = who[1:]
        lines = [f"# on {node}: a free address of the plan for device {device}\n"
                 f"{set_ip_command(device, None, mask or None)}" for node, device, mask in moves]
        yield Finding(Status.FAIL, _("{address} is held by {places}").format(address=ip, places=places), (
            _("Keep {address} on {node} and readdress the other device(s), then update /etc/hccn.conf "
              "(address_N=...) and the rank table:").format(address=ip, node=keep_node) + "\n" + "\n".join(lines)),
            {"address": ip, "devices": [{"node": n, "device_id": d} for n, d, _m in who]}, ip,
            tuple(FixAction("system", _("On {node}: give device {device} its own address (not {address})").format(
                                node=node, device=device, address=ip),
                            (set_ip_command(device, None, mask or None),), where="host", subject=f"{node}:{device}")
                  for node, device, mask in moves))
