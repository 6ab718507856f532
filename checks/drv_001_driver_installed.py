"""ASC-DRV-001: the Ascend driver is installed and its version is readable."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._hdk import cann_version, compatible_hdks, hdk_action
from ._support import container_mount_command, driver_install_hint, in_container

CHECK = CheckSpec(
    id="ASC-DRV-001",
    title="Ascend driver installed",
    requires=("fact:stack",),
    what=("Finds the driver's version.info under the install root recorded in /etc/ascend_install.info "
          "(Driver_Install_Path_Param, default /usr/local/Ascend) and reads its Version and Innerversion. A driver "
          "that answers npu-smi is installed even when its version.info cannot be read here."),
    why=("Every other layer (firmware, CANN, torch_npu, engines) is chosen to match the driver; without it "
         "no NPU can be opened. In a container the file must be mounted from the host, or torch_npu and "
         "CANN cannot tell which driver they talk to."),
    fix=("Install the driver and firmware of one HDK release (first install: driver, then firmware), then reboot. "
         "In a container, mount /usr/local/Ascend/driver and /etc/ascend_install.info from the host. When npu-smi "
         "answers, the driver runs: find its version.info (Driver_Install_Path_Param in /etc/ascend_install.info) "
         "instead of reinstalling."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    running = ctx.facts.running_stack
    driver = running.driver_file
    live_version = running.driver.running
    if driver is not None and driver.info is not None:
        info = driver.info
        version = info.version or info.package_version
        inner = getattr(info, "innerversion", None)
        folder = driver.path.rsplit('/', 1)[0]
        yield Finding.passed((_("driver {version}, Innerversion {inner} at {path}") if inner else
                              _("driver {version} at {path}")).format(version=version, inner=inner, path=folder),
                             version=version, path=driver.path)
        return
    if driver is not None:  # the file is there but unreadable
        if live_version:
            yield Finding.warn(
                _("the driver runs (npu-smi {running}) but {path} cannot be read: {error}. CANN's installers and "
                  "version checks read this file.").format(running=live_version, path=driver.path, error=driver.error),
                _("Look at the file: {command}").format(command=shellcmd.argv("cat", driver.path)) + "\n"
                + _("It is written by the driver installer; an overwrite install of the running release ({running}) "
                    "restores it.").format(running=live_version),
                path=driver.path, running=live_version)
            return
        yield Finding.fail(_("{path} cannot be read: {error}").format(path=driver.path, error=driver.error),
                           _("Check the file (cat {path}); if it is damaged, reinstall the driver.").format(
                               path=driver.path))
        return
    require_stated(ctx.facts, _("the driver's version.info"))  # pasted text that does not show it: SKIP
    where = f"{stack.driver_root}/driver/version.info"
    container = in_container(ctx)
    if live_version:
        # A loaded driver answers npu-smi: it IS installed (review row 3). Reinstalling it on a
        # production box is the wrong fix; say where the file should be.
        if container:
            mount = container_mount_command(ctx, ("version",))
            yield Finding.warn(
                _("the host's driver runs (npu-smi {running}), but its version.info is not mounted into this "
                  "container ({path} does not exist): CANN and torch_npu cannot tell which driver they talk "
                  "to.").format(running=live_version, path=where),
                _("Re-create the container with the driver's version.info mounted from the host:") + "\n  " + mount,
                running=live_version)
            return
        found = ctx.facts.maybe(Facts.stack)
        recorded = getattr(getattr(getattr(found, "install_info", None), "info", None), "driver_install_path", None)
        yield Finding.warn(
            (_("the driver runs (npu-smi {running}), but no version.info was found ({path} does not exist; "
               "/etc/ascend_install.info records Driver_Install_Path_Param={recorded}): the driver may be installed "
               "under another path, or the file was removed.") if recorded else
             _("the driver runs (npu-smi {running}), but no version.info was found ({path} does not exist): the "
               "driver may be installed under another path, or the file was removed.")).format(
                running=live_version, path=where, recorded=recorded),
            _("Find the driver's install root and its version.info:") + "\n"
            "  grep -i install_path /etc/ascend_install.info\n"
            "  ls /usr/local/Ascend/driver/version.info ~/Ascend/driver/version.info 2>/dev/null\n"
            + _("If it is gone, an overwrite install of the running release ({running}) restores it.").format(
                running=live_version),
            running=live_version, looked_in=list(stack.roots) or [stack.driver_root])
        return
    if container:
        yield Finding.fail(
            _("no Ascend driver is visible in this container ({path} does not exist, npu-smi does not answer).").format(
                path=where),
            _("The driver is installed on the host, never inside a container. Re-create the container with the "
              "host's driver mounted:") + "\n  " + container_mount_command(ctx, ("devices", "driver", "npu-smi")),
            looked_in=list(stack.roots) or [stack.driver_root]).with_actions(
                FixAction("container", _("Re-create the container with the host's driver mounted"),
                          (container_mount_command(ctx, ("devices", "driver", "npu-smi")),), where="host"))
        return
    cann = cann_version(ctx)
    candidates = compatible_hdks(ctx, cann)
    recommended = (ctx.matrix.recommended_for_cann(cann) or {}).get("driver") if cann else None
    finding = Finding.fail(_("no Ascend driver found ({path} does not exist, npu-smi does not answer).").format(
                               path=where),
                           driver_install_hint(ctx), looked_in=list(stack.roots) or [stack.driver_root])
    target = recommended or (candidates[-1] if candidates else None)
    if target:
        finding = finding.with_actions(hdk_action(
            ctx, target, (_("Install the HDK (driver, then firmware) {hdk} for CANN {cann}") if cann else
                          _("Install the HDK (driver, then firmware) {hdk}")).format(hdk=target, cann=cann),
            mode="first", accepts=candidates, direction="install"))
    yield finding
