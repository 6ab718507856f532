"""ASC-FLT-011: no two NPU devices of the fleet have the same IP address."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet.facts import MAX_EXAMPLE_NODES
from ascend_doctor.i18n import _

from ._fleet import SET_IP_SOURCE, FleetCheckContext, count, fleet_facts, names, set_ip_command

MAX_LISTED_ADDRESSES = 16  # addresses spelled out in one message

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


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
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
    # Addresses held by the same nodes are one finding: ten thousand nodes installed from one image
    # hold the same eight addresses, which is one problem said once, not eighty thousand.
    alike: Dict[Tuple[str, ...], List[str]] = {}
    for ip in sorted(shared):
        alike.setdefault(tuple(node for node, _device, _mask in shared[ip]), []).append(ip)
    for holders_of, ips in alike.items():
        if len(ips) == 1 and len(holders_of) <= MAX_EXAMPLE_NODES:
            yield _one_address(ips[0], shared[ips[0]])
        else:
            yield _many_addresses(ips, shared)


def _one_address(ip: str, who: List[Tuple[str, str, str]]) -> Finding:
    # "node03 device 5": a name for the device, the same in every language
    places = ", ".join(f"{node} device {device}" for node, device, _mask in who)
    keep_node = who[0][0]
    moves = who[1:]
    lines = [f"# on {node}: a free address of the plan for device {device}\n"
             f"{set_ip_command(device, None, mask or None)}" for node, device, mask in moves]
    return Finding(Status.FAIL, _("{address} is held by {places}").format(address=ip, places=places), (
        _("Keep {address} on {node} and readdress the other device(s), then update /etc/hccn.conf "
          "(address_N=...) and the rank table:").format(address=ip, node=keep_node) + "\n" + "\n".join(lines)),
        {"address": ip, "devices": [{"node": n, "device_id": d} for n, d, _m in who]}, ip,
        tuple(FixAction("system", _("On {node}: give device {device} its own address (not {address})").format(
                            node=node, device=device, address=ip),
                        (set_ip_command(device, None, mask or None),), where="host", subject=f"{node}:{device}")
              for node, device, mask in moves))


def _many_addresses(ips: List[str], shared: Dict[str, List[Tuple[str, str, str]]]) -> Finding:
    """Addresses that the same nodes all hold (nodes cloned from one image): said once, with the
    number of nodes, a few of them by name and the commands for those few."""
    holders = shared[ips[0]]
    # In order, each once (dict keys: ten thousand cloned nodes made a list's `in` quadratic).
    nodes = list(dict.fromkeys(node for node, _device, _mask in holders))
    keep_node, others = nodes[0], nodes[1:]
    devices: Dict[str, List[Tuple[str, str]]] = {}  # node -> (device, netmask) to readdress
    for ip in ips:
        for node, device, mask in shared[ip][1:]:
            devices.setdefault(node, []).append((device, mask))
    shown = others[:MAX_EXAMPLE_NODES]
    lines: List[str] = []
    for node in shown:
        lines.append(f"# on {node}: a free address of the plan for each of these devices")
        lines.extend(set_ip_command(device, None, mask or None) for device, mask in devices.get(node, []))
    if len(others) > len(shown):
        lines.append(f"# ... and the same on the other {len(others) - len(shown)} nodes")
    addresses = ", ".join(ips[:MAX_LISTED_ADDRESSES]) + (" ..." if len(ips) > MAX_LISTED_ADDRESSES else "")
    message = _("{count} addresses ({addresses}) are each held by {nodes}: {names} (nodes installed from one "
                "image?)").format(count=len(ips), addresses=addresses, nodes=count(len(nodes)), names=names(nodes))
    remediation = (_("Keep these addresses on {node} and give the devices of every other node addresses of their "
                     "own, then update /etc/hccn.conf (address_N=...) and the rank table:").format(node=keep_node)
                   + "\n" + "\n".join(lines))
    evidence = {"addresses": ips, "node_count": len(nodes), "nodes": nodes[:MAX_EXAMPLE_NODES],
                "devices": [{"node": n, "device_id": d} for n, d, _m in holders[:MAX_EXAMPLE_NODES]]}
    scope = ips[0] if len(ips) == 1 else f"{len(ips)} addresses from {ips[0]}"
    return Finding(Status.FAIL, message, remediation, evidence, scope, tuple(
        FixAction("system", _("On {node}: give devices {devices} their own addresses (not those of {first})").format(
                      node=node, devices=", ".join(d for d, _m in devices.get(node, [])), first=keep_node),
                  tuple(set_ip_command(device, None, mask or None) for device, mask in devices.get(node, [])),
                  where="host", subject=f"{node}:addresses")
        for node in shown))
