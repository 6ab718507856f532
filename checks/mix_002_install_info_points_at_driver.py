"""ASC-MIX-002: /etc/ascend_install.info names the root where the driver really is."""

from __future__ import annotations

import posixpath
from typing import Iterator, List, Optional

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._stack_help import cleanup_sequence

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


def _check(kind: str, recorded: Optional[str], roots: List[str], key: str, cleanup: str) -> Optional[Finding]:
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
    return Finding.fail(
        f"{INSTALL_INFO} says {key}={recorded}, but there is no {kind} there; the {kind} is installed under "
        f"{', '.join(roots)}. "
        + (f"set_env.sh and the runtime will look for {recorded}/driver/lib64 and not find the driver you installed."
           if kind == "driver" else
           f"Firmware upgrades and version reads will look in {recorded}/firmware."),
        f"If only one stack is installed, point the file at it:\n"
        f"  sed -i 's#^{key}=.*#{key}={roots[0]}#' {INSTALL_INFO}\n"
        f"In a container, mount the host's file instead: -v {INSTALL_INFO}:{INSTALL_INFO}\n"
        "If several stacks were installed (ASC-MIX-001), clean up to one:\n" + cleanup,
        recorded=recorded, found=roots)


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.get("stack")
    parsed = stack.install_info
    if parsed is None:
        raise NotApplicable(f"{INSTALL_INFO} is absent (a missing driver is ASC-DRV-001's finding)")
    if parsed.info is None:
        yield Finding.fail(f"{INSTALL_INFO} cannot be read: {parsed.error}",
                           f"Reinstall the driver (it rewrites {INSTALL_INFO}), or in a container mount the host's: "
                           f"-v {INSTALL_INFO}:{INSTALL_INFO}")
        return
    info = parsed.info
    driver_roots = _found_root(list(stack.drivers), "driver")
    firmware_roots = _found_root(list(stack.firmwares), "firmware")
    if not driver_roots and not firmware_roots:
        raise NotApplicable("no driver or firmware installed to compare with (see ASC-DRV-001)")
    recorded_fw = info.firmware_install_path
    all_roots = sorted(set(driver_roots + firmware_roots + [r for r in (info.driver_install_path,) if r]))
    cleanup = cleanup_sequence(ctx, all_roots, getattr(stack, "driver_version", None))
    findings = [f for f in (
        _check("driver", info.driver_install_path, driver_roots, "Driver_Install_Path_Param", cleanup),
        _check("firmware", recorded_fw, firmware_roots, "Firmware_Install_Path_Param", cleanup)
        if recorded_fw else None,
    ) if f is not None]
    yield from findings
    if not findings:
        yield Finding.passed(f"{INSTALL_INFO} names {info.driver_install_path}, where the driver is installed")
