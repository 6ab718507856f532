"""ASC-RT-005: this node's entries of the rank table name its NPUs and their real addresses."""

from __future__ import annotations

from typing import Dict, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, one_line, shaped

from ._context import HostCheckContext
from ._rank_table import SRC_MINDIE, SRC_VLLM_PD, config_fix, loaded, local_addresses, local_device_ids, this_node

CHECK = CheckSpec(
    id="ASC-RT-005",
    title="Rank table entries of this node match its NPUs and addresses",
    what=("Finds this node's entries (server_id / host_ip / container_ip equal to MIES_CONTAINER_IP, HOST_IP, "
          "HCCL_IF_IP or the host name, or holding one of this node's device addresses); each of their device_id "
          "must be an NPU npu-smi lists here, and each device_ip the address `hccn_tool -i <device_id> -ip -g` "
          "reports for that device."),
    why=("A rank table written from another node's output, or with two devices swapped, sends HCCL to addresses "
         "that are not this NPU's: the job hangs at start-up (EI0006) on every node. Sources: " + SRC_MINDIE + "; "
         + SRC_VLLM_PD),
    fix="Rewrite this node's entries from `hccn_tool -i N -ip -g` of each of its NPUs (device_id N, device_ip).",
    requires=("input:rank_table", "fact:rank_table", "npus"),
    tags=("rank-table", "network"),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.rank_table import as_int

    facts, table = loaded(ctx)
    shown = one_line(facts.path)  # the path in prose: a newline in it must not start a line of its own
    match = this_node(ctx, table)
    if not match.devices:
        raise NotApplicable(_("this node's entries of the rank table are not known (see ASC-RT-006)"))
    local_ids = local_device_ids(ctx)
    addresses: Dict[int, str] = local_addresses(ctx)
    owner = {ip: device_id for device_id, ip in addresses.items()}
    family = getattr(ctx.facts.maybe(Facts.npu_chip), "family", None)
    compare_ips = bool(addresses) and not (table.kind == "vllm-pd" and family == "A3")
    fix = config_fix(_("Correct this node's entries in {path}").format(path=shown), facts.path)
    bad = 0
    for device in match.devices:
        device_id = as_int(device.device_id)
        if device_id is None:
            continue  # ASC-RT-001 names it
        if local_ids is not None and device_id not in local_ids:
            bad += 1
            yield Finding.fail(_("{json_path}: device_id {device} is not an NPU of this node (npu-smi lists "
                                 "{ids})").format(json_path=device.path, device=device_id,
                                                   ids=", ".join(map(str, sorted(local_ids)))),
                               _("Use the ids npu-smi lists for this node."), path=device.path).with_actions(fix)
            continue
        if not compare_ips:
            continue
        actual = addresses.get(device_id)
        if actual is None or device.device_ip == actual:
            continue
        bad += 1
        other = owner.get(device.device_ip or "")
        command = argv("hccn_tool", "-i", shaped(str(device_id), "device_id", "N"), "-ip", "-g")
        yield Finding.fail((_("{json_path}: device_ip {table_ip}, but `{command}` reports "
                              "{actual} on this node ({table_ip} is device {other}'s address here)")
                            if other is not None else
                            _("{json_path}: device_ip {table_ip}, but `{command}` reports {actual} on this node")
                            ).format(json_path=device.path, device=device_id, table_ip=device.device_ip,
                                     command=command, actual=actual, other=other),
                           _("Set {json_path}.device_ip to \"{actual}\" (and check the same entry on every node's "
                             "copy of the table).").format(json_path=device.path, actual=actual),
                           path=device.path, table_ip=device.device_ip, device_ip=actual).with_actions(fix)
    if bad:
        return
    if compare_ips:
        text = _("{count} entr(ies) of this node match its NPU ids and addresses: {how}")
    elif addresses:
        text = _("{count} entr(ies) of this node match its NPU ids (addresses not compared: vLLM-Ascend takes A3 "
                 "device addresses from `hccn_tool -vnic -g`, which is not read): {how}")
    else:
        text = _("{count} entr(ies) of this node match its NPU ids (addresses not compared: hccn_tool gave none "
                 "here): {how}")
    yield Finding.passed(text.format(count=len(match.devices), how="; ".join(match.how)))
