"""ASC-DEV-003: NPU memory is not already full."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding
from ascend_doctor.i18n import _

from ._support import in_scope

FULL_PCT = 95.0

CHECK = CheckSpec(
    id="ASC-DEV-003",
    title=f"NPU memory use below {FULL_PCT:g} %",
    requires=("npu_devices",),
    what=f"Reads HBM (or device memory) use per chip from `npu-smi info`; WARN above {FULL_PCT:g} %.",
    why=("Weights and the KV cache need nearly the whole HBM of every card; memory already taken by another "
         "job means the deployment fails with EL0004 'Memory Allocation Failure' or 'NPU out of memory'."),
    fix="Find what holds the memory (`npu-smi info` process table, `ps -fp <pid>`), stop it, or choose free "
        "NPUs with ASCEND_RT_VISIBLE_DEVICES.",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    info = ctx.facts.npu_smi
    full = []
    for dev in info.devices:
        used, cap = dev.in_use_mb, dev.capacity_mb
        if not used or not cap or not in_scope(ctx, dev.npu_id, dev.chip_id):
            continue
        pct = 100.0 * used / cap
        if pct > FULL_PCT:
            full.append(dev)
            procs = [p for p in info.processes if p.npu_id == dev.npu_id]
            who = ", ".join(f"pid {p.pid}{' ' + p.name if p.name else ''}" for p in procs) or _("no process listed")
            yield Finding.warn(
                _("NPU {npu} chip {chip}: {used} of {capacity} MB in use ({percent} %), {processes}.").format(
                    npu=dev.npu_id, chip=dev.chip_id, used=used, capacity=cap, percent=f"{pct:.0f}", processes=who),
                _("Free it before deploying: kill <pid> (see `npu-smi info`), or pick other NPUs with "
                  "export ASCEND_RT_VISIBLE_DEVICES=<free ids>."),
                used_mb=used, total_mb=cap, pct=round(pct, 1)).scoped(f"NPU {dev.npu_id} chip {dev.chip_id}")
    if not full:
        yield Finding.passed(_("every chip has more than {percent} % of its memory free").format(
            percent=f"{100 - FULL_PCT:g}"))
