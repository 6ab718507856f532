"""ASC-DEV-004: all NPUs are of one model."""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding
from ascend_doctor.i18n import _

CHECK = CheckSpec(
    id="ASC-DEV-004",
    title="All NPUs are of one model",
    requires=("npu_devices",),
    what="Compares the Name column of every chip in `npu-smi info`.",
    why=("Tensor and expert parallelism assume identical cards: memory plans, operator kernels (per SoC) and "
         "HCCL topology all break or degrade when a job spans different chips."),
    fix="Run each job on NPUs of one model only (ASCEND_RT_VISIBLE_DEVICES), or move the odd cards.",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    info = ctx.facts.npu_smi
    names = Counter(d.name for d in info.devices)
    if len(names) <= 1:
        count = len(info.devices)
        name = next(iter(names), "?")
        yield Finding.passed((_("all {count} chips are {name}") if count > 1 else _("one chip: {name}")).format(
            count=count, name=name))
        return
    by_name = {name: sorted({d.npu_id for d in info.devices if d.name == name}) for name in names}
    detail = "; ".join(f"{name}: NPU {', '.join(map(str, ids))}" for name, ids in by_name.items())
    yield Finding.warn(_("this host mixes NPU models ({models}).").format(models=detail),
                       _("Keep each job on one model: export ASCEND_RT_VISIBLE_DEVICES=<ids of one model>."),
                       models=by_name)
