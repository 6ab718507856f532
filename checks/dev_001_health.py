"""ASC-DEV-001: every NPU reports Health OK."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, Status
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, pipe, shaped, with_comment

from ._support import in_scope, scope_reason

HEALTH_SOURCE = ("https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html "
                 "(npu-smi info -t health: OK, Warning, Alarm, Critical)")

CHECK = CheckSpec(
    id="ASC-DEV-001",
    title="NPU health is OK",
    requires=("npu_devices",),
    what="Reads the Health column of `npu-smi info` for every chip.",
    why=("npu-smi's Health is OK, Warning (a minor alarm), Alarm (a major alarm) or Critical (a critical alarm) "
         f"({HEALTH_SOURCE}). A chip in Alarm or Critical state has a hardware or driver fault; jobs that use it crash "
         "or hang (HCCL timeouts, heartbeat lost) in ways that look like software bugs. A Warning is a minor alarm "
         "whose error code says whether it matters."),
    fix=("Read the error code: `npu-smi info -t health -i <NPU> -c <chip>`; check `dmesg` for driver errors; "
         "reset the chip (`npu-smi set -t reset -i <NPU> -c <chip>`) or reboot; persistent alarms need "
         "hardware service. Keep the faulty NPU out of ASCEND_RT_VISIBLE_DEVICES meanwhile."),
)

# npu-smi's Health states: Warning = minor alarm (WARN: read its code), Alarm = major, Critical = critical (FAIL).
_SEVERITY = {"WARNING": Status.WARN, "ALARM": Status.FAIL, "CRITICAL": Status.FAIL, "UNKNOWN": Status.WARN}
_LEVEL = {"WARNING": "minor", "ALARM": "major", "CRITICAL": "critical"}


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
        npu, chip = shaped(str(dev.npu_id), "device_id", "NPU"), shaped(str(dev.chip_id), "device_id", "chip")
        read_code = with_comment(argv("npu-smi", "info", "-t", "health", "-i", npu, "-c", chip),
                                 _("the error code of the alarm"))
        dmesg = pipe(argv("dmesg"), argv("grep", "-i", "-E", "davinci|heart|pcie"), argv("tail", "-50"))
        if status is Status.WARN and health == "WARNING":
            advice = _("A Warning is a minor alarm: read its error code first. If it persists, take NPU {npu} out "
                       "of service (leave it out of ASCEND_RT_VISIBLE_DEVICES) and open a hardware case.")
        else:
            advice = _("If the alarm stays after a reboot, take NPU {npu} out of service (leave it out of "
                       "ASCEND_RT_VISIBLE_DEVICES) and open a hardware case.")
        yield Finding(status, _("NPU {npu} chip {chip} ({name}) reports Health {health}.").format(
                          npu=dev.npu_id, chip=dev.chip_id, name=dev.name, health=dev.health),
                      f"{read_code}\n{dmesg}\n" + advice.format(npu=dev.npu_id),
                      {"health": dev.health, "npu_id": dev.npu_id, "chip_id": dev.chip_id,
                       "alarm_level": _LEVEL.get(health), "source": HEALTH_SOURCE}, scope)
    if not bad:
        count = len(info.devices)
        yield Finding.passed(_("all {count} chips report Health OK").format(count=count) if count > 1 else
                             _("the chip reports Health OK"))
