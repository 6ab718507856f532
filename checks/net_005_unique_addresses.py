"""ASC-NET-005: no two NPUs of this node share an address."""

from __future__ import annotations

from typing import Dict, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._network import SRC_TOOLBOX, conf, devices, ids, system_fix

CHECK = CheckSpec(
    id="ASC-NET-005",
    title="NPU addresses unique on the node",
    what=("Compares the addresses `hccn_tool -i N -ip -g` reports, and the address_N lines of /etc/hccn.conf: "
          "two devices with one address FAIL, naming both."),
    why=("Two devices with one address answer for each other: HCCL links the wrong pair, traffic for one rank "
         "lands on another, and the job hangs or reports a wrong topology. Source: " + SRC_TOOLBOX),
    fix="Give one of the devices its own address: hccn_tool -i N -ip -s address <address> netmask <netmask>",
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.facts.network import set_ip_command
    from ascend_doctor.parsers.hccn import is_ipv4

    reported = {d.device_id: d.ip.address for d in devices(ctx)
                if d.ip is not None and not d.ip.missing and is_ipv4(d.ip.address)}
    plan = conf(ctx)
    planned = plan.addresses() if plan is not None else {}
    if not reported and not planned:
        raise NotApplicable(_("no device reports an address (see ASC-NET-004)"))
    clean = True
    for where, addresses in (("hccn_tool", reported), ("/etc/hccn.conf", planned)):
        by_address: Dict[str, List[int]] = {}
        for device_id, address in addresses.items():
            if address:
                by_address.setdefault(address, []).append(device_id)
        for address, owners in sorted(by_address.items()):
            if len(owners) < 2:
                continue
            clean = False
            keep, move = owners[0], owners[1:]
            text = _("devices {devices} all have address {address}").format(devices=ids(owners), address=address) \
                if where == "hccn_tool" else \
                _("/etc/hccn.conf gives address {address} to devices {devices} ({keys})").format(
                    address=address, devices=ids(owners), keys=", ".join(f"address_{i}" for i in owners))
            commands = [set_ip_command(i, None, None) for i in move]
            yield Finding.fail(text, _("Keep {address} on device {keep} and give device(s) {devices} their own "
                                       "address from the network plan: {commands}").format(
                                           address=address, keep=keep, devices=ids(move),
                                           commands="; ".join(f"`{c}`" for c in commands)),
                               address=address, devices=owners, source=where).with_actions(
                system_fix(_("Give device(s) {devices} an address of their own").format(devices=ids(move)), commands,
                           direction="set"))
    if clean:
        yield Finding.passed(_("{count} device address(es), all different").format(
            count=len(reported) or len(planned)))
