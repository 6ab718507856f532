"""ASC-FW-002: driver and firmware accept each other."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.versions import AscendVersion

from ._stack_help import firmware_file, hdk_commands
from ._support import verdict_finding

CHECK = CheckSpec(
    id="ASC-FW-002",
    title="Driver and firmware versions are within each other's range",
    what=("Checks the firmware version against the driver's compatible_version_fw range, the driver version "
          "against the firmware's compatible_version_drv list, and both against the compatibility matrix."),
    why=("Out-of-range firmware is the classic result of upgrading one half of the HDK. Symptoms range from "
         "'Failed to start the device' (507033) to devices missing from npu-smi."),
    fix=("Install the firmware from the same HDK package set as the driver (Ascend-hdk-910b-npu-firmware_<number>.run "
         "on A2, Atlas-A3-hdk-npu-firmware_<number>.run on A3) with --full, then reboot. "
         "`ascend-doctor matrix lookup --driver <version> --chip <chip>` names the file of each driver release."),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.driver_firmware_info import driver_accepts_firmware, firmware_accepts_driver

    stack = ctx.facts.get("stack")
    drv, fw = stack.driver, stack.firmware
    if drv is None or drv.info is None or fw is None or fw.info is None:
        raise NotApplicable("needs both driver and firmware version.info (see ASC-DRV-001, ASC-FW-001)")
    driver_version = drv.info.version or drv.info.package_version
    fw_version = fw.info.version
    by_driver = driver_accepts_firmware(drv.info, fw_version)
    by_firmware = firmware_accepts_driver(fw.info, driver_version)
    fw_range = ", ".join(f"[{lo},{hi}]" for lo, hi in (drv.info.compatible_version_fw or ()))
    evidence = {"driver": driver_version, "firmware": fw_version, "driver_accepts_firmware": by_driver,
                "firmware_accepts_driver": by_firmware, "compatible_version_fw": fw_range}
    if by_driver is False and by_firmware is not True:
        fw_file = firmware_file(ctx, driver_version)
        yield Finding(Status.FAIL,
                      f"firmware {fw_version} is outside driver {driver_version}'s range {fw_range}"
                      + (" and the firmware does not list this driver either" if by_firmware is False else ""),
                      f"Install firmware in {fw_range} — the one shipped with HDK {driver_version}:\n"
                      + (f"  ./{fw_file} --full && reboot" if fw_file else
                         f"  (ascend-doctor matrix lookup --driver {driver_version} --chip <chip> names it)"),
                      evidence)
        return
    if by_firmware is False and by_driver is not True:
        # one HDK release for both halves: the newer of the two (never a downgrade of the running half)
        newer = max((v for v in (AscendVersion.try_parse(driver_version or ""),
                                 AscendVersion.try_parse(fw.info.package_version or "")) if v is not None),
                    key=lambda v: v.sort_key, default=None)
        yield Finding(Status.FAIL, f"firmware {fw_version} (HDK {fw.info.package_version}) does not accept "
                      f"driver {driver_version}",
                      f"Install the driver and firmware of one HDK release ({newer.original}), then reboot (an "
                      "overwrite install: firmware first, then driver):\n"
                      + hdk_commands(ctx, newer.original, "upgrade")
                      if newer is not None else
                      f"Install the driver and firmware of one HDK release, then reboot "
                      f"(ascend-doctor matrix lookup --driver {driver_version}).", evidence)
        return
    if by_driver or by_firmware:
        # DCMI treats the pair as compatible when either side accepts the other.
        side = f"driver {driver_version}'s range {fw_range}" if by_driver else \
            f"firmware {fw_version}'s driver list (HDK {fw.info.package_version})"
        yield Finding(Status.PASS, f"firmware {fw_version} and driver {driver_version} are compatible: accepted by "
                      f"the {side}", "", evidence)
        return
    # Neither file states a range: only the matrix can say.
    verdict = ctx.matrix.driver_vs_firmware(driver_version, fw_version)
    yield verdict_finding(verdict, f"driver {driver_version} + firmware {fw_version}",
                          f"Install the firmware of HDK {driver_version}, then reboot.")
