"""ASC-MIX-002: /etc/ascend_install.info names the root where the driver really is."""

from __future__ import annotations

import posixpath
import re
from typing import Iterator, List, Optional

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import cleanup_sequence
from ._support import in_container

INSTALL_INFO = "/etc/ascend_install.info"

CHECK = CheckSpec(
    id="ASC-MIX-002",
    title="/etc/ascend_install.info points at the installed driver",
    what=("Reads Driver_Install_Path_Param and Firmware_Install_Path_Param from /etc/ascend_install.info and "
          "checks that <that root>/driver/version.info (and firmware/version.info) exist there, and not only "
          "under another root."),
    why=("set_env.sh, the CANN runtime (aclInit) and torch_npu take the driver root from this file and load "
         "<root>/driver/lib64. When it names a root the driver is not in -- a second stack installed elsewhere, "
         "an uninstall that left the file, or a container given another host's file -- the runtime loads a "
         "different driver than the one npu-smi and the version files describe."),
    fix=("If two stacks are installed, clean up to one (see ASC-MIX-001). Otherwise reinstall the driver so it "
         "rewrites the file, or in a container mount the host's file: "
         "-v /etc/ascend_install.info:/etc/ascend_install.info"),
)


def _found_root(files: List[object], sub: str) -> List[str]:
    return [posixpath.dirname(posixpath.dirname(getattr(f, "path", ""))) for f in files
            if getattr(f, "path", "").endswith(f"/{sub}/version.info")]


def _check(kind: str, recorded: Optional[str], roots: List[str], key: str, cleanup: str,
           in_container: bool) -> Optional[Finding]:
    if not roots:
        return None
    driver = kind == "driver"
    if not recorded:
        return Finding.warn(
            (_("/etc/ascend_install.info has no {key} line, but a driver is installed under {root}: scripts that read "
               "the root from this file (set_env.sh, the runtime) fall back or break.") if driver else
             _("/etc/ascend_install.info has no {key} line, but a firmware is installed under {root}: scripts that "
               "read the root from this file (set_env.sh, the runtime) fall back or break.")).format(
                key=key, root=roots[0]),
            (_("Add the line: {command}   (or reinstall the driver, which writes it)") if driver else
             _("Add the line: {command}   (or reinstall the firmware, which writes it)")).format(
                command=shellcmd.argv("echo", f"{key}={roots[0]}") + " >> " + INSTALL_INFO),
            recorded=recorded, found=roots)
    recorded = recorded.rstrip("/") or "/"
    if recorded in roots:
        return None
    message = (_("/etc/ascend_install.info says {key}={recorded}, but there is no driver there; the driver is "
                 "installed under {roots}. set_env.sh and the runtime will look for {recorded}/driver/lib64 and not "
                 "find the driver you installed.") if driver else
               _("/etc/ascend_install.info says {key}={recorded}, but there is no firmware there; the firmware is "
                 "installed under {roots}. Firmware upgrades and version reads will look in "
                 "{recorded}/firmware.")).format(key=key, recorded=recorded, roots=", ".join(roots))
    if in_container:
        mount = ("-v", f"{INSTALL_INFO}:{INSTALL_INFO}")
        return Finding.fail(message, _("Re-create the container with the host's file mounted: {command}").format(
                                command=shellcmd.argv("docker", "run", *mount, "...")),
                            recorded=recorded, found=roots).with_actions(
            FixAction("container", _("Mount the host's /etc/ascend_install.info into the container"),
                      (shellcmd.argv("docker", "run", *mount, shellcmd.Placeholder("image"), "..."),), where="host"))
    # the path goes inside a sed expression: only a plain path (no '#', quote or newline) may; else a placeholder
    root = roots[0] if re.fullmatch(r"/[A-Za-z0-9/._+-]*", roots[0]) else "<install root>"
    sed = shellcmd.argv("sed", "-i", f"s#^{key}=.*#{key}={root}#", INSTALL_INFO)
    fix = (_("Point the file at the installed driver:") if driver else
           _("Point the file at the installed firmware:")) + f"\n  {sed}"
    if cleanup:
        fix += "\n" + _("Several stacks are installed (ASC-MIX-001): clean up to one first:") + "\n" + cleanup
    return Finding.fail(message, fix, recorded=recorded, found=roots).with_actions(
        FixAction("hdk", (_("Point /etc/ascend_install.info at the installed driver") if driver else
                          _("Point /etc/ascend_install.info at the installed firmware")), (sed,), where="host",
                  subject=f"install info {kind}"))


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    parsed = stack.install_info
    if parsed is None:
        yield Finding.skip(_("/etc/ascend_install.info is absent (a missing driver is ASC-DRV-001's finding)"))
        return
    if parsed.info is None:
        yield Finding.fail(_("{path} cannot be read: {error}").format(path=INSTALL_INFO, error=parsed.error),
                           _("Reinstall the driver (it rewrites /etc/ascend_install.info), or in a container mount "
                             "the host's: -v /etc/ascend_install.info:/etc/ascend_install.info"))
        return
    info = parsed.info
    driver_roots = _found_root(list(stack.drivers), "driver")
    firmware_roots = _found_root(list(stack.firmwares), "firmware")
    if not driver_roots and not firmware_roots:
        yield Finding.skip(_("no driver or firmware installed to compare with (ASC-DRV-001 says what to install)"))
        return
    recorded_fw = info.firmware_install_path
    all_roots = sorted(set(driver_roots + firmware_roots + [r for r in (info.driver_install_path,) if r]))
    several = len(stack.drivers) > 1 or len(stack.firmwares) > 1
    cleanup = cleanup_sequence(ctx, all_roots, getattr(stack, "driver_version", None)) if several else ""
    container = in_container(ctx)
    running = ctx.facts.running_stack
    if running.driver.running and running.driver_file is not None and running.stale_drivers:
        # Two stacks: the file must name the one the kernel runs, not merely one that exists.
        keep = posixpath.dirname(posixpath.dirname(running.driver_file.path))
        recorded = (info.driver_install_path or "").rstrip("/") or "/"
        if recorded != keep:
            yield Finding.fail(
                _("/etc/ascend_install.info says Driver_Install_Path_Param={recorded}, a stale stack; the running "
                  "driver {running} is installed under {keep}. set_env.sh and the runtime load "
                  "{recorded}/driver/lib64, the libraries of a driver that is not loaded.").format(
                      recorded=recorded, running=running.driver.running, keep=keep),
                _("Remove the stale stack and point the file at {keep} (ASC-MIX-001 gives the whole sequence):").format(
                    keep=keep) + "\n"
                "  " + shellcmd.argv("sed", "-i", "s#^Driver_Install_Path_Param=.*#Driver_Install_Path_Param="
                                     + (keep if re.fullmatch(r"/[A-Za-z0-9/._+-]*", keep) else "<install root>") + "#",
                                     INSTALL_INFO),
                recorded=recorded, running_root=keep)
            return
    findings = [f for f in (
        _check("driver", info.driver_install_path, driver_roots, "Driver_Install_Path_Param", cleanup, container),
        _check("firmware", recorded_fw, firmware_roots, "Firmware_Install_Path_Param", cleanup, container)
        if recorded_fw else None,
    ) if f is not None]
    yield from findings
    if not findings:
        yield Finding.passed(_("/etc/ascend_install.info names {path}, where the driver is installed").format(
            path=info.driver_install_path))
