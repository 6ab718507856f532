"""Helpers shared by the NPU network checks (ASC-NET-*); not a check (the registry skips ``_`` modules)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, List, Optional, Sequence

from ascend_doctor.checkapi import FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext

if TYPE_CHECKING:
    from ascend_doctor.facts.records.network import HccnDevice, HccnFacts
    from ascend_doctor.parsers.hccn import HccnConf

# The documents the network checks cite (docs/network.md lists what each says).
SRC_TOOLBOX = ("hiascend MindCluster toolbox guide, 'Using hccn_tool to configure the IP address and subnet mask of "
               "the RoCE NIC' (toolboxug_0142): hccn_tool -i devid -ip -s address %s netmask %s; "
               "-netdetect -s address %s, the detection address being the segment's gateway")
SRC_MINDIE_RANKTABLE = ("Ascend/MindIE-LLM docs/en/user_guide/user_manual/rank_table_file_configuration.md: check "
                        "-lldp/-link/-net_health/-netdetect/-gateway/-tls on every card before writing the rank "
                        "table; set the TLS switch to 0 on every card; chmod 640 the rank table")
SRC_VLLM_MULTINODE = ("vllm-ascend installation guide, multi-node: link UP, net_health, netdetect, gateway, "
                      "/etc/hccn.conf mounted into the container, TLS settings consistent across all nodes")
SRC_MINDCLUSTER = ("MindCluster fault-diagnosis collection (npu_info_before.txt): -net_health, -link, -optical, "
                   "-tls, -fec, -ip, -link_stat per device")


def devices(ctx: HostCheckContext) -> List[HccnDevice]:
    """The devices hccn_tool answered for; NotApplicable when hccn_tool is not installed."""
    facts: HccnFacts = ctx.facts.hccn
    if facts.binary is None:
        raise NotApplicable(_("hccn_tool is not installed here (see ASC-NET-001)"))
    return [facts.devices[i] for i in sorted(facts.devices)]


def conf(ctx: HostCheckContext) -> Optional[HccnConf]:
    info = ctx.facts.maybe(Facts.hccn_conf)
    return getattr(info, "conf", None)


def scope(device_id: int) -> str:
    return f"npu {device_id}"


def ids(values: Iterable[int]) -> str:
    return ", ".join(str(v) for v in sorted(values))


def system_fix(summary: str, commands: Sequence[str] = (), direction: str = "run", subject: str = "") -> FixAction:
    """A fix step on the NPU network: run on the host, as root (hccn_tool needs both)."""
    return FixAction(component="system", summary=summary, commands=tuple(commands), where="host",
                     direction=direction, subject=subject)


def loop(device_ids: Sequence[int], command: str) -> str:
    """``command`` (with ``$i``) for every device, as one line a person pastes."""
    listed = " ".join(str(i) for i in sorted(device_ids))
    return f"for i in {listed}; do {command}; done"
