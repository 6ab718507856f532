"""ASC-NET-001: hccn_tool is there and answers for every NPU."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._network import SRC_MINDIE_RANKTABLE, SRC_VLLM_MULTINODE, scope, system_fix

# Queries every other network check depends on; the others only add detail.
CORE_QUERIES = ("link", "net_health", "ip", "route", "tls", "fec")
MOUNTS = ("-v /usr/local/Ascend/driver/tools/hccn_tool:/usr/local/Ascend/driver/tools/hccn_tool "
          "-v /etc/hccn.conf:/etc/hccn.conf")

CHECK = CheckSpec(
    id="ASC-NET-001",
    title="hccn_tool answers for every NPU",
    what=("Looks for hccn_tool (on PATH, /usr/local/Ascend/driver/tools/hccn_tool, /usr/local/bin/hccn_tool) and "
          "runs its queries (-link, -net_health, -ip, -route, -tls, -fec, -lldp, -optical, -link_stat, -status) "
          "for every NPU; names each device whose query failed, hung or printed something else. A missing "
          "hccn_tool WARNs when a rank table says the node is part of a multi-node job (SKIP otherwise: one node "
          "serving alone does not use the NPU network)."),
    why=("Every other network check reads hccn_tool. Multi-node DeepSeek (2 to 4 Atlas 800 nodes) talks over the "
         "NPUs' own RoCE ports; a container without hccn_tool or /etc/hccn.conf cannot be checked, and a device "
         "whose queries fail or hang usually has a driver or network fault. Sources: " + SRC_VLLM_MULTINODE + "; "
         + SRC_MINDIE_RANKTABLE),
    fix=("On the host hccn_tool is installed with the NPU driver (/usr/local/Ascend/driver/tools/hccn_tool); in a "
         f"container mount it: docker run ... {MOUNTS} ..."),
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.facts.ranktable import rank_table_location

    hccn = ctx.facts.hccn
    if hccn.binary is None:
        container = getattr(ctx.facts.maybe(Facts.container), "in_container", False)
        multi_node = rank_table_location(ctx.options, ctx.facts.maybe(Facts.env) or {}) is not None
        where = (_("mount it into the container: {command}").format(command="docker run ... " + MOUNTS + " ...")
                 if container else
                 _("it is installed with the NPU driver as /usr/local/Ascend/driver/tools/hccn_tool: if the driver "
                   "lives elsewhere, put its tools folder on PATH"))
        searched = ", ".join(hccn.searched)
        if not multi_node:
            raise NotApplicable(_("hccn_tool was not found ({searched}); it is needed once this node serves with "
                                  "others: {where}").format(searched=searched, where=where))
        yield Finding(Status.WARN, _("hccn_tool was not found ({searched}): the NPU network cannot be checked; this "
                                     "node has a rank table, so it is part of a multi-node job.").format(
                                         searched=searched),
                      _("hccn_tool is needed to check and configure the NPU network: {where}.").format(where=where),
                      {"searched": list(hccn.searched)}).with_actions(
            system_fix(_("Make hccn_tool available in the container") if container else
                       _("Make hccn_tool available on the host"),
                       (f"docker run ... {MOUNTS} ...",) if container else ()))
        return
    bad = 0
    for device_id, device in sorted(hccn.devices.items()):
        failed = dict(device.errors)
        if not failed:
            continue
        bad += 1
        core = [name for name in failed if name in CORE_QUERIES]
        status = Status.WARN if core else Status.INFO
        first = failed[core[0]] if core else next(iter(failed.values()))
        names = ", ".join(f"-{n}" for n in failed)
        yield Finding(status, _("hccn_tool queries {queries} gave nothing usable for device {device}: {error}").format(
                          queries=names, device=device_id, error=first),
                      _("Run `{command}` by hand on the host; a hang or an error there points at the driver "
                        "(`npu-smi info`, dmesg) or at this device's port.").format(
                          command=device.commands.get(core[0] if core else next(iter(failed)), 'hccn_tool')),
                      {"errors": dict(failed)}, scope(device_id))
    if not bad:
        yield Finding.passed(_("{binary} answered every query on {count} device(s)").format(
                                 binary=hccn.binary, count=len(hccn.devices)),
                             binary=hccn.binary, devices=sorted(hccn.devices))
