"""ASC-MIX-002: /etc/ascend_install.info names the root where the driver really is."""

from __future__ import annotations

import posixpath
from typing import Iterator, List, Optional

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction

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
    if not recorded:
        return Finding.warn(
            f"{INSTALL_INFO} has no {key} line, but a {kind} is installed under {roots[0]}: scripts that read "
            "the root from this file (set_env.sh, the runtime) fall back or break.",
            f"Add the line: echo '{key}={roots[0]}' >> {INSTALL_INFO}   (or reinstall the {kind}, which writes it)",
            recorded=recorded, found=roots)
    recorded = recorded.rstrip("/") or "/"
    if recorded in roots:
        return None
    message = (f"{INSTALL_INFO} says {key}={recorded}, but there is no {kind} there; the {kind} is installed under "
               f"{', '.join(roots)}. "
               + (f"set_env.sh and the runtime will look for {recorded}/driver/lib64 and not find the driver you "
                  "installed." if kind == "driver" else
                  f"Firmware upgrades and version reads will look in {recorded}/firmware."))
    if in_container:
        mount = f"-v {INSTALL_INFO}:{INSTALL_INFO}"
        return Finding.fail(message, f"Re-create the container with the host's file mounted: docker run {mount} ...",
                            recorded=recorded, found=roots).with_actions(
            FixAction("container", "Mount the host's /etc/ascend_install.info into the container",
                      (f"docker run {mount} <image> ...",), where="host"))
    sed = f"sed -i 's#^{key}=.*#{key}={roots[0]}#' {INSTALL_INFO}"
    fix = f"Point the file at the installed {kind}:\n  {sed}"
    if cleanup:
        fix += "\nSeveral stacks are installed (ASC-MIX-001): clean up to one first:\n" + cleanup
    return Finding.fail(message, fix, recorded=recorded, found=roots).with_actions(
        FixAction("hdk", f"Point {INSTALL_INFO} at the installed {kind}", (sed,), where="host",
                  subject=f"install info {kind}"))


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    parsed = stack.install_info
    if parsed is None:
        yield Finding.skip(f"{INSTALL_INFO} is absent (a missing driver is ASC-DRV-001's finding)")
        return
    if parsed.info is None:
        yield Finding.fail(f"{INSTALL_INFO} cannot be read: {parsed.error}",
                           f"Reinstall the driver (it rewrites {INSTALL_INFO}), or in a container mount the host's: "
                           f"-v {INSTALL_INFO}:{INSTALL_INFO}")
        return
    info = parsed.info
    driver_roots = _found_root(list(stack.drivers), "driver")
    firmware_roots = _found_root(list(stack.firmwares), "firmware")
    if not driver_roots and not firmware_roots:
        yield Finding.skip("no driver or firmware installed to compare with (ASC-DRV-001 says what to install)")
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
                f"{INSTALL_INFO} says Driver_Install_Path_Param={recorded}, a stale stack; the running driver "
                f"{running.driver.running} is installed under {keep}. set_env.sh and the runtime load "
                f"{recorded}/driver/lib64, the libraries of a driver that is not loaded.",
                f"Remove the stale stack and point the file at {keep} (ASC-MIX-001 gives the whole sequence):\n"
                f"  sed -i 's#^Driver_Install_Path_Param=.*#Driver_Install_Path_Param={keep}#' {INSTALL_INFO}",
                recorded=recorded, running_root=keep)
            return
    findings = [f for f in (
        _check("driver", info.driver_install_path, driver_roots, "Driver_Install_Path_Param", cleanup, container),
        _check("firmware", recorded_fw, firmware_roots, "Firmware_Install_Path_Param", cleanup, container)
        if recorded_fw else None,
    ) if f is not None]
    yield from findings
    if not findings:
        yield Finding.passed(f"{INSTALL_INFO} names {info.driver_install_path}, where the driver is installed")
