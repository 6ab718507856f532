"""ASC-DEV-002: no NPU runs hot before the job starts."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding
from ascend_doctor.i18n import _

from ._support import in_scope

# Above this an idle or lightly loaded chip points at cooling trouble; the chips throttle
# further up. The field report (seed 000) monitors temperature with npu-smi for the same reason.
HOT_C = 85.0

CHECK = CheckSpec(
    id="ASC-DEV-002",
    title=f"NPU temperature below {HOT_C:g} °C",
    requires=("npu_devices",),
    what=f"Reads the Temp(C) column of `npu-smi info`; WARN above {HOT_C:g} °C.",
    why="A chip that is already hot throttles under a DeepSeek load, and long runs then slow down or fail.",
    fix="Check fans and airflow (`ipmitool sdr` / the BMC), the server's fan policy, and dust filters; "
        "look at `npu-smi info -t temp -i <NPU>` under load.",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    info = ctx.facts.npu_smi
    hot = [d for d in info.devices if d.temp_c is not None and d.temp_c > HOT_C and in_scope(ctx, d.npu_id, d.chip_id)]
    for dev in hot:
        yield Finding.warn(_("NPU {npu} chip {chip} is at {temp} °C (> {limit} °C).").format(
                               npu=dev.npu_id, chip=dev.chip_id, temp=f"{dev.temp_c:g}", limit=f"{HOT_C:g}"),
                           _("Check cooling before a long job: fans, airflow, BMC fan policy (ipmitool sdr)."),
                           temp_c=dev.temp_c).scoped(f"NPU {dev.npu_id} chip {dev.chip_id}")
    if not hot:
        temps = [d.temp_c for d in info.devices if d.temp_c is not None]
        yield Finding.passed((_("no chip above {limit} °C; hottest {hottest} °C") if temps else
                              _("no chip above {limit} °C (no temperature printed)")).format(
            limit=f"{HOT_C:g}", hottest=f"{max(temps):g}" if temps else ""))
