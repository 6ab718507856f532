"""ASC-FW-002: driver and firmware accept each other, judged as Huawei's DCMI judges them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, Mapping, Optional

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import N_, _

from ._context import HostCheckContext
from ._dcmi import NOK, OK, dcmi_compatibility, ranges_text
from ._hdk import align_hdk, hdk_of_firmware, ranges_of
from ._support import in_scope, verdict_finding

if TYPE_CHECKING:
    from ._dcmi import Range

CHECK = CheckSpec(
    id="ASC-FW-002",
    title="Driver and firmware versions are within each other's range",
    requires=("fact:stack",),
    what=("Reads Huawei's own verdict where the NPUs give it (npu-smi info -t board -i N, Compatibility: OK / NOK / "
          "UNKNOWN, computed by DCMI on the running driver and firmware); otherwise applies DCMI's rule itself: "
          "firmware below 6.4 is NOK; OK when the driver's compatible_version_fw holds the firmware or the "
          "firmware's compatible_version_drv holds the driver (string comparison, prefix bounds), on the running "
          "versions when known and the installed ones otherwise."),
    why=("Out-of-range firmware is the classic result of upgrading one half of the HDK. Symptoms range from "
         "'Failed to start the device' (507033) to devices missing from npu-smi. Judging files on disk instead of "
         "what runs gives the wrong answer right after an upgrade without a reboot, or with two stacks installed."),
    fix=("Bring both halves to one HDK release, upgrading the older half (firmware first, then driver, for an "
         "overwrite install), then reboot the host. `ascend-doctor matrix lookup --driver <version> --chip <chip>` "
         "names the files of each release; a firmware rollback is done the same way as an upgrade."),
)


def _board_verdicts(ctx: HostCheckContext) -> Dict[str, List[int]]:
    boards = ctx.facts.maybe(Facts.npu_boards)
    if boards is None:
        return {}
    out: Dict[str, List[int]] = {}
    for verdict, ids in boards.compatibility().items():
        mine = [i for i in ids if in_scope(ctx, i, None)]
        if mine and verdict != "NOT SUPPORT":
            out[verdict] = mine
    return out


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    running = ctx.facts.running_stack
    drv_file, fw_file = running.driver_file, running.firmware_file
    driver = running.driver.effective
    firmware = running.firmware.effective
    if not driver or not firmware:
        yield Finding.skip(_("needs the driver and the firmware version (ASC-DRV-001 / ASC-FW-001 say what is "
                             "missing)"))
        return
    drv_info = drv_file.info if drv_file is not None else None
    fw_info = fw_file.info if fw_file is not None else None
    fw_ranges = ranges_of(drv_info, "compatible_version_fw")
    # DCMI reads the firmware's driver list from the card's flash: the installed file's list is the running
    # firmware's only when it is the same version.
    fw_record_runs = fw_info is not None and getattr(fw_info, "version", None) == firmware
    drv_ranges = ranges_of(fw_info, "compatible_version_drv") if fw_record_runs else None
    computed = dcmi_compatibility(firmware, driver, fw_ranges, drv_ranges)
    # English in the evidence (machines read it), translated in the messages.
    basis = (N_("the running versions (npu-smi)") if running.driver.running and running.firmware.running else
             N_("the installed versions (version.info)") if not running.driver.running and not running.firmware.running
             else N_("the running driver and the installed firmware") if running.driver.running else
             N_("the installed driver and the running firmware"))
    shown_basis = _(basis)
    evidence = {"driver": driver, "firmware": firmware, "basis": basis, "dcmi_rule": computed.result,
                "by": computed.by, "compatible_version_fw": ranges_text(fw_ranges),
                "compatible_version_drv": ranges_text(drv_ranges or [])}
    fw_hdk = (getattr(fw_info, "package_version", None) if fw_record_runs else None) or hdk_of_firmware(ctx, firmware)
    verdicts = _board_verdicts(ctx)
    if verdicts:
        yield from _from_boards(ctx, verdicts, driver, firmware, fw_hdk, computed.by, fw_ranges, evidence)
        return
    if computed.result == OK:
        yield Finding.passed(_("firmware {firmware} and driver {driver} are compatible ({basis}): {why}").format(
            firmware=firmware, driver=driver, basis=shown_basis, why=_why_ok(computed.by, fw_ranges, fw_hdk)),
            **evidence)
        return
    if computed.result == NOK:
        text, actions = align_hdk(ctx, driver, fw_hdk)
        message = (_("firmware below 6.4 is refused by every driver (DCMI) ({basis}): npu-smi would print "
                     "Compatibility NOK.") if "6.4" in computed.by else
                   _("firmware {firmware} is outside driver {driver}'s range {ranges} and the firmware's driver list "
                     "{drivers} does not hold {driver} ({basis}): npu-smi would print Compatibility NOK."))
        yield Finding.fail(message.format(firmware=firmware, driver=driver, basis=shown_basis,
                                          ranges=ranges_text(fw_ranges) or _("(none)"),
                                          drivers=ranges_text(drv_ranges or []) or _("(none)")), text,
                           **evidence).with_actions(*actions)
        return
    if not fw_ranges and drv_ranges is None:
        # Neither side's list is readable here: only the matrix can say.
        verdict = ctx.matrix.driver_vs_firmware(driver, firmware)
        text, actions = align_hdk(ctx, driver, fw_hdk)
        finding = verdict_finding(verdict, _("driver {driver} + firmware {firmware} ({basis})").format(
            driver=driver, firmware=firmware, basis=shown_basis), text)
        yield finding.with_actions(*actions) if finding.status.value in ("FAIL",) else finding
        return
    yield Finding.warn(
        _("driver {driver}'s range {ranges} does not hold firmware {firmware}, and the firmware's own driver list "
          "cannot be read here ({basis}): DCMI would answer UNKNOWN.").format(
              driver=driver, ranges=ranges_text(fw_ranges) or _("(none)"), firmware=firmware, basis=shown_basis),
        _("Read Huawei's verdict on the host: {command}   (Compatibility: OK / NOK)").format(
            command="npu-smi info -t board -i 0"), **evidence)


def _why_ok(by: str, fw_ranges: List[Range], fw_hdk: Optional[str]) -> str:
    if "compatible_version_drv" in by:
        return (_("accepted only by the firmware's driver list (HDK {hdk}); the driver's own range {ranges} does not "
                  "hold it") if fw_hdk else
                _("accepted only by the firmware's driver list; the driver's own range {ranges} does not hold "
                  "it")).format(hdk=fw_hdk, ranges=ranges_text(fw_ranges) or _("(none)"))
    return _("the firmware is in the driver's range {ranges}").format(ranges=ranges_text(fw_ranges))


def _from_boards(ctx: HostCheckContext, verdicts: Dict[str, List[int]], driver: str, firmware: str,
                 fw_hdk: Optional[str], by: str, fw_ranges: List[Range],
                 evidence: Mapping[str, object]) -> Iterator[Finding]:
    def ids(key: str) -> str:
        return ", ".join(str(i) for i in verdicts.get(key, []))

    evidence = dict(evidence, board_compatibility={k: list(v) for k, v in verdicts.items()})
    if NOK in verdicts:
        text, actions = align_hdk(ctx, driver, fw_hdk)
        yield Finding.fail(_("npu-smi reports Compatibility NOK on NPU {ids}: Huawei's own verdict on the running "
                             "driver {driver} and firmware {firmware}.").format(ids=ids(NOK), driver=driver,
                                                                                firmware=firmware),
                           text, **evidence).with_actions(*actions)
        return
    if "UNKNOWN" in verdicts:
        yield Finding.warn(_("npu-smi reports Compatibility UNKNOWN on NPU {ids}: DCMI could not read the firmware's "
                             "driver list from the card.").format(ids=ids("UNKNOWN")),
                           _("Reboot the host if firmware was installed since the last boot; if it stays UNKNOWN, "
                             "reinstall the firmware of the driver's HDK release (--full) and reboot."), **evidence)
        return
    count = len(verdicts.get(OK, []))
    if "compatible_version_drv" in by:
        text = _("npu-smi reports Compatibility OK on {count} NPU(s): the running driver {driver} and firmware "
                 "{firmware} work together ({why})")
    else:
        text = _("npu-smi reports Compatibility OK on {count} NPU(s): the running driver {driver} and firmware "
                 "{firmware} work together")
    yield Finding.passed(text.format(count=count, driver=driver, firmware=firmware,
                                     why=_why_ok(by, fw_ranges, fw_hdk)), **evidence)
