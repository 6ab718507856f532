"""ASC-DEV-001: every NPU reports Health OK."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, Status
from ascend_doctor.i18n import _

from ._support import in_scope, scope_reason

CHECK = CheckSpec(
    id="ASC-DEV-001",
    title="NPU health is OK",
    requires=("npu_devices",),
    what="Reads the Health column of `npu-smi info` for every chip.",
    why=("A chip in Warning, Alarm or Critical state has a hardware or driver fault; jobs that use it crash "
         "or hang (HCCL timeouts, heartbeat lost) in ways that look like software bugs."),
    fix=("Read the alarm codes: `npu-smi info -t health -i <NPU> -c <chip>`; check `dmesg` for driver errors; "
         "reset the chip (`npu-smi set -t reset -i <NPU> -c <chip>`) or reboot; persistent alarms need "
         "hardware service. Keep the faulty NPU out of ASCEND_RT_VISIBLE_DEVICES meanwhile."),
)

_SEVERITY = {"WARNING": Status.FAIL, "ALARM": Status.FAIL, "CRITICAL": Status.FAIL, "UNKNOWN": Status.WARN}


def run(ctx: CheckContext) -> Iterator[Finding]:
    info = ctx.facts.npu_smi
    bad = 0
    for dev in info.devices:
        health = dev.health_status
        if health == "OK":
            continue
        scope = f"NPU {dev.npu_id} chip {dev.chip_id}"
        if not in_scope(ctx, dev.npu_id, dev.chip_id):
            yield Finding(Status.PASS, _("NPU {npu} chip {chip} reports {health}, but it is not one of the NPUs this "
                                         "run is about ({reason}): for information only.").format(
                              npu=dev.npu_id, chip=dev.chip_id, health=dev.health, reason=scope_reason(ctx)),
                          "", {"health": dev.health}, scope)
            continue
        bad += 1
        status = _SEVERITY.get(health, Status.WARN)
        yield Finding(status, _("NPU {npu} chip {chip} ({name}) reports Health {health}.").format(
                          npu=dev.npu_id, chip=dev.chip_id, name=dev.name, health=dev.health),
                      f"npu-smi info -t health -i {dev.npu_id} -c {dev.chip_id}   # alarm codes\n"
                      "dmesg | grep -i -E 'davinci|heart|pcie' | tail -50\n"
                      + _("If the alarm stays after a reboot, take NPU {npu} out of service (leave it out of "
                          "ASCEND_RT_VISIBLE_DEVICES) and open a hardware case.").format(npu=dev.npu_id),
                      {"health": dev.health, "npu_id": dev.npu_id, "chip_id": dev.chip_id}, scope)
    if not bad:
        count = len(info.devices)
        yield Finding.passed(_("all {count} chips report Health OK").format(count=count) if count > 1 else
                             _("the chip reports Health OK"))
