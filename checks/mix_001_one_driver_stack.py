"""ASC-MIX-001: one driver and one firmware installation, not two stacks side by side."""

from __future__ import annotations

import posixpath
from typing import Any, Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction
from ascend_doctor.i18n import _

from ._stack_help import cleanup_sequence, remove_stale_stacks

CHECK = CheckSpec(
    id="ASC-MIX-001",
    title="Only one driver/firmware stack is installed",
    what=("Looks for driver/version.info and firmware/version.info under every Ascend install root "
          "(Driver_Install_Path_Param of /etc/ascend_install.info, /usr/local/Ascend, ~/Ascend and the roots "
          "named by ASCEND_HOME_PATH) and FAILs when more than one driver or firmware installation is found."),
    why=("Huawei's install guides uninstall the old driver and firmware before installing another "
         "(/usr/local/Ascend/driver/script/uninstall.sh); a second installation laid over the first on another "
         "path leaves two driver trees of which only one runs, and which one a library loads depends on paths. "
         "Ascend stacks do not coexist the way CUDA versions do. "
         "Related: ASC-DRV-002 compares the running driver with the installed one (a pending reboot)."),
    fix=("Keep the stack the kernel runs (npu-smi's Version) and uninstall the others (<root>/driver/script/"
         "uninstall.sh --force, <root>/firmware/script/uninstall.sh), point /etc/ascend_install.info at the kept "
         "root, reboot, then rebuild the graphs (clear ~/atc_data and kernel_meta). When which stack runs is not "
         "known, uninstall every stack and install one driver+firmware pair of the HDK your CANN pairs with."),
)


def _root(path: str) -> str:
    return posixpath.dirname(posixpath.dirname(path))


def _describe(kind: str, files: List[Any], active: Any) -> str:
    parts = []
    for parsed in files:
        info = getattr(parsed, "info", None)
        version = getattr(info, "package_version", None) if kind == "firmware" else None
        version = version or getattr(info, "version", None) or _("unreadable: {error}").format(
            error=getattr(parsed, "error", "?"))
        text = (_("{path} ({version}, running)") if parsed is active and active is not None else
                _("{path} ({version}, stale)") if active is not None else "{path} ({version}, ?)")
        parts.append(text.format(path=getattr(parsed, "path", "?"), version=version))
    return "; ".join(parts)


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    running = ctx.facts.running_stack
    drivers, firmwares = list(stack.drivers), list(stack.firmwares)
    if not drivers and not firmwares:
        yield Finding.skip(_("no driver or firmware version.info found (ASC-DRV-001 says what to install)"))
        return
    mixed = False
    # What the kernel runs is the stack to keep (advice review row 5): only the others are removed.
    known_running = running.driver.running is not None and running.driver_file is not None
    for kind, files, active in (("driver", drivers, running.driver_file if known_running else None),
                                ("firmware", firmwares, running.firmware_file if known_running else None)):
        if len(files) <= 1:
            continue
        mixed = True
        if active is not None:
            keep = _root(active.path)
            stale_roots = sorted({_root(f.path) for f in files if f is not active})
            fix = remove_stale_stacks(ctx, stale_roots, keep)
            message = (_("{count} driver installations found: {found}. The kernel runs the one under {keep}; the "
                         "others are leftovers: a library may load the wrong one.") if kind == "driver" else
                       _("{count} firmware installations found: {found}. The kernel runs the one under {keep}; the "
                         "others are leftovers: a library may load the wrong one."))
            yield Finding.fail(
                message.format(count=len(files), found=_describe(kind, files, active), keep=keep),
                fix, kind=kind, paths=[f.path for f in files], keep=keep).with_actions(
                    FixAction("hdk", _("Remove the stale Ascend stack(s) under {roots}; keep {keep}").format(
                        roots=", ".join(stale_roots), keep=keep),
                              tuple(line for line in fix.split("\n") if line and not line.startswith("#")),
                              where="host", subject="stale stack"))
            continue
        roots = [_root(f.path) for f in drivers + firmwares]
        fix = cleanup_sequence(ctx, roots, getattr(stack, "driver_version", None))
        message = (_("{count} driver installations found: {found}; which one runs is not known here (npu-smi gave "
                     "no version). A library may load the wrong one.") if kind == "driver" else
                   _("{count} firmware installations found: {found}; which one runs is not known here (npu-smi gave "
                     "no version). A library may load the wrong one."))
        yield Finding.fail(
            message.format(count=len(files), found=_describe(kind, files, None)),
            fix, kind=kind, paths=[f.path for f in files])
    if not mixed:
        where = ", ".join(f.path for f in drivers + firmwares)
        yield Finding.passed(_("one driver and one firmware installation ({paths})").format(paths=where))
