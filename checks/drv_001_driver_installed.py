"""ASC-DRV-001: the Ascend driver is installed and its version is readable."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding
from ascend_doctor.facts.origin import require_stated

from ._support import CONTAINER_DRIVER_MOUNTS, driver_install_hint, in_container

CHECK = CheckSpec(
    id="ASC-DRV-001",
    title="Ascend driver installed",
    what=("Finds the driver's version.info under the install root recorded in /etc/ascend_install.info "
          "(Driver_Install_Path_Param, default /usr/local/Ascend) and reads its Version and Innerversion."),
    why=("Every other layer (firmware, CANN, torch_npu, engines) is chosen to match the driver; without it "
         "no NPU can be opened. In a container the file must be mounted from the host, or torch_npu and "
         "CANN cannot tell which driver they talk to."),
    fix=("Install the driver and firmware of one HDK release (driver first), then reboot. In a container, "
         "mount /usr/local/Ascend/driver and /etc/ascend_install.info from the host."),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.get("stack")
    driver = stack.driver
    if driver is None:
        require_stated(ctx.facts, "the driver's version.info")  # pasted text that does not show it: SKIP
        fix = driver_install_hint(ctx)
        if in_container(ctx):
            fix = ("This is a container: mount the host's driver instead of installing one:\n  docker run "
                   + CONTAINER_DRIVER_MOUNTS + " ...")
        where = f"{stack.driver_root}/driver/version.info"
        yield Finding.fail(f"no Ascend driver found ({where} does not exist).", fix, looked_in=list(stack.roots)
                           or [stack.driver_root])
        return
    if driver.info is None:
        yield Finding.fail(f"{driver.path} cannot be read: {driver.error}",
                           f"Check the file (cat {driver.path}); if it is damaged, reinstall the driver.")
        return
    info = driver.info
    version = info.version or info.package_version
    inner = f", Innerversion {info.innerversion}" if getattr(info, "innerversion", None) else ""
    yield Finding.passed(f"driver {version}{inner} at {driver.path.rsplit('/', 1)[0]}",
                         version=version, path=driver.path)
