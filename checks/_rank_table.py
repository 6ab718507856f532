"""Helpers shared by the rank table checks (ASC-RT-*); not a check."""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import TYPE_CHECKING, Dict, Optional, Set, Tuple

from ascend_doctor.checkapi import FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext

if TYPE_CHECKING:
    from ascend_doctor.facts.ranktable import NodeMatch
    from ascend_doctor.facts.records.ranktable import RankTableFacts
    from ascend_doctor.parsers.rank_table import RankTable

SRC_HCCL = ("hiascend CANN HCCL guide 'ranktable文件配置资源信息' (hcclug_000014): status completed, version 1.0 / "
            "1.2, server_count, server_list[].device[] of device_id / device_ip / rank_id as strings, rank_id from 0; "
            "remove the comments of its examples before use")
SRC_MINDIE = ("Ascend/MindIE-LLM docs/en/user_guide/user_manual/rank_table_file_configuration.md: server_id is the "
              "node's IP, device_ip from `hccn_tool -i N -ip -g`, rank_id unique in [0, number of cards), "
              "chmod 640 the file (a wider mode is refused at start-up)")
SRC_VLLM_PD = ("vllm-ascend examples/disaggregate_prefill_v1/gen_ranktable.py and vllm-ascend#2498: prefill/decode "
               "device lists of server_id, device_id, device_ip, cluster_id")


def loaded(ctx: HostCheckContext) -> Tuple[RankTableFacts, RankTable]:
    facts = ctx.facts.rank_table
    if facts.table is None:
        raise NotApplicable(_("the rank table could not be read (see ASC-RT-001): {error}").format(error=facts.error))
    return facts, facts.table


def config_fix(summary: str, path: str, commands: Tuple[str, ...] = (), direction: str = "set") -> FixAction:
    return FixAction(component="config", summary=summary, commands=commands, where="either", direction=direction,
                     subject=path)


def local_addresses(ctx: HostCheckContext) -> Dict[int, str]:
    """Device id -> the address hccn_tool reports here (valid IPv4 only); {} when not known."""
    from ascend_doctor.parsers.hccn import is_ipv4

    hccn = ctx.facts.maybe(Facts.hccn)
    out: Dict[int, str] = {}
    for device_id, device in (getattr(hccn, "devices", None) or {}).items():
        ip = device.ip
        if ip is not None and not ip.missing and is_ipv4(ip.address):
            out[device_id] = ip.address
    return out


def local_networks(ctx: HostCheckContext) -> Dict[int, IPv4Network]:
    """Device id -> the subnet of the address hccn_tool reports here (address and netmask valid)."""
    from ascend_doctor.parsers.hccn import network_of

    hccn = ctx.facts.maybe(Facts.hccn)
    out: Dict[int, IPv4Network] = {}
    for device_id, device in (getattr(hccn, "devices", None) or {}).items():
        ip = device.ip
        network = network_of(ip.address, ip.netmask) if ip is not None and not ip.missing else None
        if network is not None:
            out[device_id] = network
    return out


# The device ids a rank table may give a server of each family: 8 NPUs on an A2 server, 16 dies on
# an A3 server (SRC_HCCL; MindCluster hccl.json A3 template).
DEVICE_ID_RANGE = {"A2": 8, "A3": 16}
# What npu-smi, hccn_tool and the rank table show for a device whose NPU network was never set.
UNCONFIGURED_IP = "-.-.-.-"


def local_device_ids(ctx: HostCheckContext) -> Optional[Set[int]]:
    """The device ids a rank table may name on this node: the NPU ids (one chip per NPU), else the
    chips' physical ids (A3: 0-15); None when npu-smi does not say."""
    smi = ctx.facts.maybe(Facts.npu_smi)
    devices = list(getattr(smi, "devices", None) or [])
    if not devices:
        return None
    npu_ids = [d.npu_id for d in devices]
    if len(set(npu_ids)) == len(npu_ids):
        return set(npu_ids)
    phy = [d.chip_phy_id for d in devices]
    if all(p is not None for p in phy):
        return {int(p) for p in phy if p is not None}
    return None


def this_node(ctx: HostCheckContext, table: RankTable) -> NodeMatch:
    """This node's servers in the table (ascend_doctor/facts/ranktable.py match_node)."""
    from ascend_doctor.facts.ranktable import match_node, node_names

    info = ctx.facts.maybe(Facts.host_info)
    names = node_names(ctx.facts.maybe(Facts.env) or {}, getattr(info, "hostname", None))
    return match_node(table, names, set(local_addresses(ctx).values()))
