"""ASC-RT-004: every device_ip of the rank table is a real address, and no two devices share one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Generator, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import Placeholder, argv, one_line, shaped

from ._context import HostCheckContext
from ._rank_table import SRC_HCCL, SRC_MINDIE, UNCONFIGURED_IP, config_fix, loaded

if TYPE_CHECKING:
    from ascend_doctor.parsers.rank_table import RankTable

CHECK = CheckSpec(
    id="ASC-RT-004",
    title="Rank table device_ip valid and unique",
    what=("Every device_ip of the table is an IPv4 address (not a template's 'xx.xx.xx.xx', not '-.-.-.-' of an "
          "NPU whose network was never configured), and no address is given to two devices, on one node or across "
          "nodes; no super_device_id is used twice in one super pod; duplicates are named by their JSON paths."),
    why=("HCCL connects ranks at their device_ip: two ranks at one address connect to the same NPU port, and a "
         "placeholder copied from an example is never reachable. This is the rank table error of a fleet that "
         "merged tables by hand. Sources: " + SRC_HCCL + "; " + SRC_MINDIE),
    fix="Write each device's own address (`hccn_tool -i N -ip -g` on its node) into its device_ip.",
    requires=("input:rank_table", "fact:rank_table"),
    tags=("rank-table",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.hccn import is_ipv4

    facts, table = loaded(ctx)
    shown = one_line(facts.path)  # the path in prose: a newline in it must not start a line of its own
    devices = [d for d in table.devices() if d.device_ip is not None]
    if not devices:
        raise NotApplicable(_("the {label} table names no device_ip").format(label=table.label))
    fix = config_fix(_("Correct the device_ip values of {path}").format(path=shown), facts.path)
    bad = 0
    by_ip: Dict[str, List[str]] = {}
    for device in devices:
        address = device.device_ip or ""
        if address.strip() == UNCONFIGURED_IP:
            bad += 1
            device_word = shaped(device.device_id, "device_id", "N")
            set_ip = argv("hccn_tool", "-i", device_word, "-ip", "-s", "address", Placeholder("address"),
                          "netmask", Placeholder("netmask"))
            yield Finding.fail(_("{json_path}.device_ip is {address}: the NPU network of device {device} is not "
                                 "configured on {node}, and MindIE and HCCL stop at start-up").format(
                                   json_path=device.path, address=address, device=device.device_id,
                                   node=device.server_id or _("its node")),
                               _("On that node, give the device its address (`{command}`, as in /etc/hccn.conf), "
                                 "then write it here.").format(command=set_ip),
                               path=device.path).with_actions(fix)
            continue
        if not is_ipv4(address):
            bad += 1
            command = argv("hccn_tool", "-i", shaped(str(device.device_id), "device_id", "N"), "-ip", "-g")
            yield Finding.fail(_("{json_path}.device_ip is {address}, not an IPv4 address").format(
                                   json_path=device.path, address=repr(address)),
                               (_("Write the address `{command}` reports on {node}.") if device.server_id else
                                _("Write the address `{command}` reports on its node.")).format(
                                   command=command, node=one_line(device.server_id or "")),
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
    bad += yield from _super_device_ids(table, fix)
    if not bad:
        yield Finding.passed(_("{count} device_ip value(s), all valid and different").format(count=len(devices)))


def _super_device_ids(table: RankTable, fix: FixAction) -> Generator[Finding, None, int]:
    """super_device_id addresses a die on the super pod's fabric: unique within each super pod
    (MindCluster hccl.json A3 version 1.2 template). Returns the number of FAIL findings."""
    pod_of = {server_id: pod for pod, server_id in table.super_pod_servers}
    by_pod: Dict[Tuple[str, str], List[str]] = {}
    for device in table.devices():
        if device.super_device_id is None:
            continue
        pod = pod_of.get(device.server_id or "", "")
        by_pod.setdefault((pod, device.super_device_id), []).append(device.path)
    bad = 0
    for (pod, value), paths in sorted(by_pod.items()):
        if len(paths) > 1:
            bad += 1
            yield Finding.fail((_("super_device_id {value} is used {count} times in super pod {pod}: {paths}") if pod
                                else _("super_device_id {value} is used {count} times: {paths}")).format(
                                   value=value, count=len(paths), pod=pod, paths=", ".join(paths)),
                               _("Each die of a super pod has its own super_device_id: take it from the node's "
                                 "npu-smi/hccn output (or let MindCluster's Ascend Operator write hccl.json)."),
                               super_device_id=value, paths=paths).with_actions(fix)
    return bad
