"""ASC-DEV-004: all NPUs are of one model."""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-DEV-004",
    title="All NPUs are of one model",
    requires=("fact:npu_chip_names",),
    what=("Compares the Name column of every chip in `npu-smi info` (in a snapshot or a paste without the table: "
          "the Chip Name of every compute chip in `npu-smi info -m`, whose Mcu rows are not chips)."),
    why=("Tensor and expert parallelism assume identical cards: memory plans, operator kernels (per SoC) and "
         "HCCL topology all break or degrade when a job spans different chips."),
    fix="Run each job on NPUs of one model only (ASCEND_RT_VISIBLE_DEVICES), or move the odd cards.",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    chips = ctx.facts.npu_chip_names.chips  # (NPU id, name) per chip
    names = Counter(name for _npu, name in chips)
    if len(names) <= 1:
        count = len(chips)
        name = next(iter(names), "?")
        yield Finding.passed((_("all {count} chips are {name}") if count > 1 else _("one chip: {name}")).format(
            count=count, name=name))
        return
    by_name = {name: sorted({npu for npu, n in chips if n == name}) for name in names}
    detail = "; ".join(f"{name}: NPU {', '.join(map(str, ids))}" for name, ids in by_name.items())
    yield Finding.warn(_("this host mixes NPU models ({models}).").format(models=detail),
                       _("Keep each job on one model: export ASCEND_RT_VISIBLE_DEVICES=<ids of one model>."),
                       models=by_name)
