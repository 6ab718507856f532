"""ASC-FLT-013: the devices' addresses follow one plan (one netmask, subnets shared between nodes)."""

from __future__ import annotations

from typing import Dict, Iterator, List, Set, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.fleet.network import ipv4_text
from ascend_doctor.i18n import _

from ._fleet import FleetCheckContext, count, fleet_facts, names, require_nodes

CHECK = CheckSpec(
    id="ASC-FLT-013",
    title="NPU device addresses follow one addressing plan",
    suite="fleet",
    what=("From the address and netmask `hccn_tool -i N -ip -g` reports for every device: every device uses the "
          "fleet's netmask, and every device's subnet also holds a device of another node (the plan's planes, e.g. "
          "device N of every node in one subnet)."),
    why=("HCCL's RoCE links between nodes need the two devices to reach each other: a device configured in a subnet "
         "no other node uses (a typo in one octet, a node addressed from another plan) is unreachable without a "
         "gateway, and the job fails at connect time on that rank only."),
    fix=("Readdress the odd device inside the plan (`hccn_tool -i N -ip -s address ADDR netmask MASK`), or give it a "
         "gateway that routes to the other nodes' subnets (`hccn_tool -i N -gateway -s gateway GW`)."),
)

Network = Tuple[int, int]  # network number, mask
Device = Tuple[str, str, str, Network]  # node, device id, address, network


def mask_text(network: Network) -> str:
    return ipv4_text(network[1])


def subnet_text(network: Network) -> str:
    return f"{ipv4_text(network[0])}/{bin(network[1]).count('1')}"


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    devices: List[Device] = []
    for node in facts.readable():
        for address in node.net.addresses if node.net is not None else ():
            network = address.network()
            if network is not None:
                devices.append((node.name, address.device_id, address.address, network))
    if not devices:
        raise NotApplicable(_("no node report carries its devices' addresses with a netmask (hccn_tool -ip -g)"))
    by_mask: Dict[int, int] = {}
    for _n, _d, _a, net in devices:
        by_mask[net[1]] = by_mask.get(net[1], 0) + 1
    ranked = sorted(by_mask.items(), key=lambda kv: -kv[1])
    tie = len(ranked) > 1 and ranked[0][1] == ranked[1][1]
    masks = None if tie else ipv4_text(ranked[0][0])
    found = False
    if masks is not None:
        odd = [(n, d, a, net) for n, d, a, net in devices if net[1] != ranked[0][0]]
        if odd:
            found = True
            listed = ", ".join(f"{n} device {d} ({a}/{mask_text(net)})" for n, d, a, net in odd[:12])
            yield Finding(Status.WARN, _("{devices} use another netmask than the fleet's {netmask}: {listed}").format(
                              devices=count(len(odd), 'device'), netmask=masks, listed=listed), (
                              _("Set netmask {netmask} on them (with their address):").format(netmask=masks)
                              + "\n" + "\n".join(
                                  f"# on {n}\nhccn_tool -i {d} -ip -s address {a} netmask {masks}"
                                  for n, d, a, _net in odd[:12])),
                          {"netmask": masks, "devices": [f"{n}:{d}" for n, d, _a, _net in odd]}, "netmask")
    nodes_in: Dict[Network, Set[str]] = {}
    for name, _device, _address, network in devices:
        nodes_in.setdefault(network, set()).add(name)
    alone = [(n, d, a, net) for n, d, a, net in devices if nodes_in[net] == {n}]
    if alone and len({n for n, _d, _a, _net in devices}) > 1:
        found = True
        odd_nodes = sorted({n for n, _d, _a, _net in alone})
        listed = ", ".join(f"{n} device {d} ({a}, {subnet_text(net)})" for n, d, a, net in alone[:12])
        yield Finding(Status.WARN, _("{devices} of {nodes} sit in a subnet no other node uses: {listed}").format(
                          devices=count(len(alone), 'device'), nodes=names(odd_nodes), listed=listed), (
                          _("Readdress them inside the plan the other nodes use (`hccn_tool -i N -ip -s address ADDR "
                            "netmask MASK`, then /etc/hccn.conf and the rank table), or give them a gateway that "
                            "routes to the other subnets:") + "\n  hccn_tool -i N -gateway -s gateway <gateway>\n"
                          "  hccn_tool -i N -ping -g address <device IP of another node>   # then test the path"),
                      {"devices": [f"{n}:{d}" for n, d, _a, _net in alone]}, "subnets")
    if not found:
        subnets = len(nodes_in)
        text = (_("{devices} in {subnets} shared between nodes, netmask {netmask}") if masks else
                _("{devices} in {subnets} shared between nodes, netmask mixed"))
        yield Finding.passed(text.format(devices=count(len(devices), 'device'), subnets=count(subnets, 'subnet'),
                                         netmask=masks), subnets=[subnet_text(n) for n in sorted(nodes_in)])
