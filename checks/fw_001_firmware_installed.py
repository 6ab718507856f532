"""ASC-FW-001: the NPU firmware is installed and its version is readable."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.facts.origin import require_stated

from ._stack_help import firmware_file
from ._support import driver_install_hint, in_container

CHECK = CheckSpec(
    id="ASC-FW-001",
    title="NPU firmware installed",
    what="Reads firmware/version.info next to the driver (Version = firmware number, package_version = HDK).",
    why=("Firmware and driver ship together in one HDK release; a driver running with firmware of another "
         "release fails at device start (507033) or behaves erratically."),
    fix="Install the firmware of the same HDK release as the driver (driver first), then reboot.",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.get("stack")
    if stack.driver is None:
        raise NotApplicable("no driver installed, so no firmware to check (see ASC-DRV-001)")
    firmware = stack.firmware
    if firmware is None:
        if in_container(ctx):
            raise NotApplicable("firmware lives on the host and is not mounted into containers; "
                                "check it on the host")
        require_stated(ctx.facts, "the firmware's version.info")
        driver_version = getattr(stack, "driver_version", None)
        fw_file = firmware_file(ctx, driver_version)
        fix = ("The firmware lives in the card's flash: `npu-smi info -t board -i 0` shows the running Firmware "
               f"Version. To reinstall only the firmware of driver {driver_version}'s HDK:\n"
               f"  ./{fw_file} --full\n  reboot"
               if fw_file else driver_install_hint(ctx))
        yield Finding.fail(f"no firmware version.info under {stack.driver_root}/firmware", fix)
        return
    if firmware.info is None:
        fw_file = firmware_file(ctx, getattr(stack, "driver_version", None))
        yield Finding.fail(f"{firmware.path} cannot be read: {firmware.error}",
                           f"Reinstall the firmware of your HDK release: ./{fw_file} --full, then reboot." if fw_file
                           else "Reinstall the firmware of your HDK release with --full, then reboot (`ascend-doctor "
                                "matrix lookup --driver <driver version> --chip <chip>` names the file).")
        return
    info = firmware.info
    hdk = f" (HDK {info.package_version})" if info.package_version else ""
    yield Finding.passed(f"firmware {info.version}{hdk}", version=info.version, hdk=info.package_version)
