"""ASC-MIX-003: driver and firmware come from the same Ascend HDK release."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.versions import AscendVersion

from ._stack_help import firmware_file

CHECK = CheckSpec(
    id="ASC-MIX-003",
    title="Driver and firmware are from the same HDK release",
    what=("Compares the HDK release the driver was shipped in (package_version, else Version, of "
          "driver/version.info) with the firmware's package_version; WARNs when the release families differ "
          "(24.1 vs 25.0)."),
    why=("Driver and firmware are published together as one Ascend HDK. A firmware from another HDK family is "
         "the trace of two installations laid over each other (seed 003 §5.1), even when the version ranges still "
         "accept each other -- whether they do is ASC-FW-002's finding."),
    fix=("Install the firmware of the driver's HDK release (Ascend-hdk-910b-npu-firmware_<number>.run on A2, "
         "Atlas-A3-hdk-npu-firmware_<number>.run on A3; `ascend-doctor matrix lookup --driver <version> --chip <chip>` "
         "names it) with --full, then reboot."),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.get("stack")
    drv = stack.driver.info if stack.driver else None
    fw = stack.firmware.info if stack.firmware else None
    if drv is None or fw is None:
        raise NotApplicable("needs a readable driver and firmware version.info (see ASC-DRV-001 / ASC-FW-001)")
    drv_pkg = getattr(drv, "package_version", None) or getattr(drv, "version", None)
    fw_pkg = getattr(fw, "package_version", None)
    if not fw_pkg:
        raise NotApplicable(f"firmware version.info ({fw.version}) records no package_version (HDK release)")
    dv, fv = AscendVersion.try_parse(drv_pkg or ""), AscendVersion.try_parse(fw_pkg)
    if dv is None or fv is None:
        raise NotApplicable(f"cannot compare HDK releases {drv_pkg!r} and {fw_pkg!r}")
    if dv.family != fv.family:
        fw_file = firmware_file(ctx, drv_pkg)
        install = (f"  ./{fw_file} --full" if fw_file else
                   f"  # firmware of HDK {dv.release} for this chip: ascend-doctor matrix lookup --driver {drv_pkg}")
        yield Finding.warn(
            f"driver {drv_pkg} is from HDK {dv.family}, firmware {fw.version} is from HDK {fw_pkg} "
            f"({fv.family}): the two were installed from different HDK packages.",
            f"Install the firmware shipped with driver {drv_pkg} and reboot:\n"
            f"{install}\n"
            f"  reboot\n"
            f"(or install driver and firmware of the HDK your CANN pairs with)",
            driver_package=drv_pkg, firmware_package=fw_pkg)
        return
    note = "" if dv.same_release(fv) else f" (same {dv.family} family, releases {dv.release} / {fv.release})"
    yield Finding.passed(f"driver {drv_pkg} and firmware {fw.version} (HDK {fw_pkg}) are from one HDK{note}")
