"""ASC-DEV-002: no NPU runs hot before the job starts."""

from __future__ import annotations

from typing import Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._support import in_scope

# Above this an idle or lightly loaded chip points at cooling trouble; the chips throttle
# further up. The field report (seed 000) monitors temperature with npu-smi for the same reason.
HOT_C = 85.0

CHECK = CheckSpec(
    id="ASC-DEV-002",
    title=f"NPU temperature below {HOT_C:g} °C",
    requires=("fact:npu_chip_readings",),
    what=(f"Reads the Temp(C) column of `npu-smi info` (in a snapshot or a paste without the table: the "
          f"Temperature of `npu-smi info -t common|temp -i N`, and the HBM Temperature of `-t memory`); WARN above "
          f"{HOT_C:g} °C."),
    why="A chip that is already hot throttles under a DeepSeek load, and long runs then slow down or fail.",
    fix="Check fans and airflow (`ipmitool sdr` / the BMC), the server's fan policy, and dust filters; "
        "look at `npu-smi info -t temp -i <NPU>` under load.",
)


def _where(npu: int, chip: Optional[int]) -> str:
    return f"NPU {npu}" if chip is None else f"NPU {npu} chip {chip}"


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    readings = ctx.facts.npu_chip_readings
    hot = 0
    temps = []
    for chip in readings.chips:
        for what, value in ((_("the chip"), chip.temperature_c), (_("its HBM"), chip.hbm_temperature_c)):
            if value is None:
                continue
            temps.append(value)
            if value <= HOT_C or not in_scope(ctx, chip.npu_id, chip.chip_id):
                continue
            hot += 1
            yield Finding.warn(_("{where}: {what} is at {temp} °C (> {limit} °C).").format(
                                   where=_where(chip.npu_id, chip.chip_id), what=what, temp=f"{value:g}",
                                   limit=f"{HOT_C:g}"),
                               _("Check cooling before a long job: fans, airflow, BMC fan policy (ipmitool sdr)."),
                               temp_c=value, read_from=chip.source).scoped(_where(chip.npu_id, chip.chip_id))
    if not hot:
        yield Finding.passed((_("no chip above {limit} °C; hottest {hottest} °C") if temps else
                              _("no chip above {limit} °C (no temperature printed)")).format(
            limit=f"{HOT_C:g}", hottest=f"{max(temps):g}" if temps else ""))
