"""ASC-DEV-001: every NPU reports Health OK."""

from __future__ import annotations

from typing import Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, Status
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, pipe, shaped, with_comment

from ._context import HostCheckContext
from ._support import in_scope, scope_reason

HEALTH_SOURCE = ("https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html "
                 "(npu-smi info -t health: OK, Warning, Alarm, Critical)")

CHECK = CheckSpec(
    id="ASC-DEV-001",
    title="NPU health is OK",
    requires=("fact:npu_health_states",),
    what=("Reads the Health column of `npu-smi info` for every chip, and the health queries "
          "(`npu-smi info -t health -i N [-c C]`: Health Status, Error Code, Error Information) where they are at "
          "hand: asked for every chip that is not OK, and read from a snapshot or a paste, also without the table."),
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
# hiascend npusmi_028: "若打印信息中提示有错误码,请参考对应产品的《黑匣子错误码信息列表》进行查看"
CODE_SOURCE = ("https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html "
               "(Error Code: look it up in the product's black-box error code list)")


def _where(npu: int, chip: Optional[int]) -> str:
    return f"NPU {npu}" if chip is None else f"NPU {npu} chip {chip}"


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    states = ctx.facts.npu_health_states
    bad = 0
    for state in states.chips:
        health = state.status
        if health == "OK":
            continue
        scope = _where(state.npu_id, state.chip_id)
        chip_id = state.chip_id if state.chip_id is not None else 0
        if not in_scope(ctx, state.npu_id, state.chip_id):
            yield Finding(Status.PASS, _("{where} reports {health}, but it is not one of the NPUs this run is about "
                                         "({reason}): for information only.").format(
                              where=scope, health=state.health, reason=scope_reason(ctx)),
                          "", {"health": state.health}, scope)
            continue
        bad += 1
        status = _SEVERITY.get(health, Status.WARN)
        npu, chip = shaped(str(state.npu_id), "device_id", "NPU"), shaped(str(chip_id), "device_id", "chip")
        dmesg = pipe(argv("dmesg"), argv("grep", "-i", "-E", "davinci|heart|pcie"), argv("tail", "-50"))
        lines = []
        if not state.error_codes:
            lines.append(with_comment(argv("npu-smi", "info", "-t", "health", "-i", npu, "-c", chip),
                                      _("the error code of the alarm")))
        lines.append(dmesg)
        if status is Status.WARN and health == "WARNING":
            advice = _("A Warning is a minor alarm: read its error code first. If it persists, take NPU {npu} out "
                       "of service (leave it out of ASCEND_RT_VISIBLE_DEVICES) and open a hardware case.")
        else:
            advice = _("If the alarm stays after a reboot, take NPU {npu} out of service (leave it out of "
                       "ASCEND_RT_VISIBLE_DEVICES) and open a hardware case.")
        if state.error_codes:
            advice += " " + _("Look the error code up in the product's black-box error code list ({source}) and give "
                              "it with the case.").format(source=CODE_SOURCE)
        name = f" ({state.name})" if state.name else ""
        message = _("{where}{name} reports Health {health}.").format(where=scope, name=name, health=state.health)
        if state.error_codes:
            message += " " + _("Error code {codes}{information}.").format(
                codes=", ".join(state.error_codes),
                information=f": {state.error_information}" if state.error_information else "")
        yield Finding(status, message, "\n".join(lines) + "\n" + advice.format(npu=state.npu_id),
                      {"health": state.health, "npu_id": state.npu_id, "chip_id": state.chip_id,
                       "alarm_level": _LEVEL.get(health), "error_codes": list(state.error_codes),
                       "error_information": state.error_information, "read_from": state.source,
                       "source": HEALTH_SOURCE}, scope)
    for command, why in sorted(states.failures.items()):
        yield Finding(Status.INFO, _("`{command}` gave nothing usable ({why}); the error code is not known.").format(
                          command=command, why=why), "", {"failure": why})
    if not bad:
        count = len(states.chips)
        yield Finding.passed(_("all {count} chips report Health OK").format(count=count) if count > 1 else
                             _("the chip reports Health OK"))
