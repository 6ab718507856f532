"""ASC-RT-004: every device_ip of the rank table is a real address, and no two devices share one."""

from __future__ import annotations

from typing import Dict, Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._rank_table import SRC_HCCL, SRC_MINDIE, config_fix, loaded

CHECK = CheckSpec(
    id="ASC-RT-004",
    title="Rank table device_ip valid and unique",
    what=("Every device_ip of the table is an IPv4 address (not a template's 'xx.xx.xx.xx'), and no address is "
          "given to two devices, on one node or across nodes; duplicates are named by their JSON paths."),
    why=("HCCL connects ranks at their device_ip: two ranks at one address connect to the same NPU port, and a "
         "placeholder copied from an example is never reachable. This is the rank table error of a fleet that "
         "merged tables by hand. Sources: " + SRC_HCCL + "; " + SRC_MINDIE),
    fix="Write each device's own address (`hccn_tool -i N -ip -g` on its node) into its device_ip.",
    requires=("input:rank_table", "fact:rank_table"),
    tags=("rank-table",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.hccn import is_ipv4

    facts, table = loaded(ctx)
    devices = [d for d in table.devices() if d.device_ip is not None]
    if not devices:
        raise NotApplicable(_("the {label} table names no device_ip").format(label=table.label))
    fix = config_fix(_("Correct the device_ip values of {path}").format(path=facts.path), facts.path)
    bad = 0
    by_ip: Dict[str, List[str]] = {}
    for device in devices:
        address = device.device_ip or ""
        if not is_ipv4(address):
            bad += 1
            command = f"hccn_tool -i {device.device_id or 'N'} -ip -g"
            yield Finding.fail(_("{json_path}.device_ip is {address}, not an IPv4 address").format(
                                   json_path=device.path, address=repr(address)),
                               (_("Write the address `{command}` reports on {node}.") if device.server_id else
                                _("Write the address `{command}` reports on its node.")).format(
                                   command=command, node=device.server_id),
                               path=device.path).with_actions(fix)
            continue
        by_ip.setdefault(address, []).append(device.path)
    for address, paths in sorted(by_ip.items()):
        if len(paths) > 1:
            bad += 1
            yield Finding.fail(_("device_ip {address} is given to {count} devices: {paths}").format(
                                   address=address, count=len(paths), paths=", ".join(paths)),
                               _("Each device has its own address: read them again with `hccn_tool -i N -ip -g` on "
                                 "each node and correct the duplicates."), address=address, paths=paths
                               ).with_actions(fix)
    if not bad:
        yield Finding.passed(_("{count} device_ip value(s), all valid and different").format(count=len(devices)))
