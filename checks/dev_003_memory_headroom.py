"""ASC-DEV-003: NPU memory is not already full."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._support import in_scope

FULL_PCT = 95.0

CHECK = CheckSpec(
    id="ASC-DEV-003",
    title=f"NPU memory use below {FULL_PCT:g} %",
    requires=("fact:npu_chip_readings",),
    what=(f"Reads HBM (or device memory) use per chip from `npu-smi info` (in a snapshot or a paste without the "
          f"table: the HBM Usage Rate(%) of `npu-smi info -t common|usages -i N`, with the HBM Capacity of "
          f"`-t usages|memory`); WARN above {FULL_PCT:g} %."),
    why=("Weights and the KV cache need nearly the whole HBM of every card; memory already taken by another "
         "job means the deployment fails with EL0004 'Memory Allocation Failure' or 'NPU out of memory'."),
    fix="Find what holds the memory (`npu-smi info` process table, `ps -fp <pid>`), stop it, or choose free "
        "NPUs with ASCEND_RT_VISIBLE_DEVICES.",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    readings = ctx.facts.npu_chip_readings
    info = ctx.facts.maybe(Facts.npu_smi)
    processes = list(info.processes) if info is not None else []
    full = 0
    for chip in readings.chips:
        pct = chip.memory_pct
        if pct is None or not in_scope(ctx, chip.npu_id, chip.chip_id):
            continue
        if pct <= FULL_PCT:
            continue
        full += 1
        where = f"NPU {chip.npu_id}" if chip.chip_id is None else f"NPU {chip.npu_id} chip {chip.chip_id}"
        procs = [p for p in processes if p.npu_id == chip.npu_id]
        who = (", ".join(f"pid {p.pid}{' ' + p.name if p.name else ''}" for p in procs) if info is not None else
               _("processes not shown (no `npu-smi info` table)"))
        who = who or _("no process listed")
        if chip.used_mb is not None and chip.capacity_mb:
            message = _("{where}: {used} of {capacity} MB in use ({percent} %), {processes}.").format(
                where=where, used=chip.used_mb, capacity=chip.capacity_mb, percent=f"{pct:.0f}", processes=who)
        else:
            message = _("{where}: {percent} % of its HBM in use, {processes}.").format(
                where=where, percent=f"{pct:.0f}", processes=who)
        yield Finding.warn(
            message,
            _("Free it before deploying: stop what holds it the way it was started (its container, its systemd "
              "unit, its job; ASC-DEV-010 shows how to find which), or pick other NPUs with "
              "export ASCEND_RT_VISIBLE_DEVICES=<free ids>."),
            used_mb=chip.used_mb, total_mb=chip.capacity_mb, pct=round(pct, 1), read_from=chip.source).scoped(where)
    if not full:
        yield Finding.passed(_("every chip has more than {percent} % of its memory free").format(
            percent=f"{100 - FULL_PCT:g}"))
