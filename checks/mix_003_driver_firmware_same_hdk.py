"""ASC-MIX-003: driver and firmware come from the same Ascend HDK release."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.versions import AscendVersion

from ._context import HostCheckContext
from ._hdk import align_hdk

CHECK = CheckSpec(
    id="ASC-MIX-003",
    title="Driver and firmware are from the same HDK release",
    what=("Compares the HDK release the driver was shipped in (package_version, else Version, of "
          "driver/version.info) with the firmware's package_version; WARNs when the release families differ "
          "(24.1 vs 25.0)."),
    why=("Driver and firmware are published together as one Ascend HDK. A firmware from another HDK family is "
         "the trace of two installations laid over each other, even when the version ranges still "
         "accept each other -- whether they do is ASC-FW-002's finding."),
    fix=("Bring both halves to one HDK release by upgrading the older one: when the firmware is newer, upgrade the "
         "driver to the firmware's HDK (if your CANN supports it); when the driver is newer, install its HDK's "
         "firmware (Ascend-hdk-910b-npu-firmware_<number>.run on A2, Atlas-A3-hdk-npu-firmware_<number>.run on A3) "
         "with --full. Reboot the host once. A rollback of the newer half is done the same way, as the alternative."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    running = ctx.facts.running_stack
    drv = running.driver_file.info if running.driver_file else None
    fw = running.firmware_file.info if running.firmware_file else None
    if drv is None or fw is None:
        yield Finding.skip(_("needs a readable driver and firmware version.info (ASC-DRV-001 / ASC-FW-001 say "
                             "why)"))
        return
    drv_pkg = getattr(drv, "package_version", None) or getattr(drv, "version", None)
    fw_pkg = getattr(fw, "package_version", None)
    if not fw_pkg:
        yield Finding.skip(_("firmware version.info ({version}) records no package_version (HDK release)").format(
            version=fw.version))
        return
    dv, fv = AscendVersion.try_parse(drv_pkg or ""), AscendVersion.try_parse(fw_pkg)
    if dv is None or fv is None:
        yield Finding.skip(_("cannot compare HDK releases {driver} and {firmware}").format(driver=repr(drv_pkg),
                                                                                           firmware=repr(fw_pkg)))
        return
    if dv.family != fv.family:
        # One direction for the whole report: upgrade the older half (ASC-FW-002 and ASC-CANN-002 pull the
        # same way); the rollback is only the stated alternative (advice review §1 R1).
        text, actions = align_hdk(ctx, drv_pkg or "", fw_pkg)
        yield Finding.warn(
            _("driver {driver} is from HDK {driver_family}, firmware {firmware} is from HDK {hdk} ({firmware_family}): "
              "the two were installed from different HDK packages.").format(
                  driver=drv_pkg, driver_family=dv.family, firmware=fw.version, hdk=fw_pkg, firmware_family=fv.family),
            text, driver_package=drv_pkg, firmware_package=fw_pkg).with_actions(*actions)
        return
    text = (_("driver {driver} and firmware {firmware} (HDK {hdk}) are from one HDK") if dv.same_release(fv) else
            _("driver {driver} and firmware {firmware} (HDK {hdk}) are from one HDK (same {family} family, releases "
              "{driver_release} / {firmware_release})"))
    yield Finding.passed(text.format(driver=drv_pkg, firmware=fw.version, hdk=fw_pkg, family=dv.family,
                                     driver_release=dv.release, firmware_release=fv.release))
