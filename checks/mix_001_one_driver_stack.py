"""ASC-MIX-001: one driver and one firmware installation, not two stacks side by side."""

from __future__ import annotations

import posixpath
from typing import Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._stack_help import cleanup_sequence

CHECK = CheckSpec(
    id="ASC-MIX-001",
    title="Only one driver/firmware stack is installed",
    what=("Looks for driver/version.info and firmware/version.info under every Ascend install root "
          "(Driver_Install_Path_Param of /etc/ascend_install.info, /usr/local/Ascend, ~/Ascend and the roots "
          "named by ASCEND_HOME_PATH) and FAILs when more than one driver or firmware installation is found."),
    why=("A field report (seed 003 §5.1): an inference-server driver installed, then a training-card driver "
         "laid over it on another path; graph compilation later died with 'Memory Alloc Failed' because the two "
         "stacks mapped AICore resources differently. Ascend stacks do not coexist the way CUDA versions do. "
         "Related: ASC-DRV-002 compares the running driver with the installed one (a pending reboot)."),
    fix=("Uninstall every driver and firmware completely (<root>/driver/script/uninstall.sh --force, "
         "<root>/firmware/script/uninstall.sh), reboot, install the one driver+firmware pair of the HDK release "
         "your CANN pairs with, reboot, then rebuild the graphs (clear ~/atc_data and kernel_meta)."),
)


def _describe(kind: str, files: List[object]) -> str:
    parts = []
    for index, parsed in enumerate(files):
        info = getattr(parsed, "info", None)
        version = getattr(info, "package_version", None) if kind == "firmware" else None
        version = version or getattr(info, "version", None) or f"unreadable: {getattr(parsed, 'error', '?')}"
        role = "in use" if index == 0 else "leftover"
        parts.append(f"{getattr(parsed, 'path', '?')} ({version}, {role})")
    return "; ".join(parts)


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.get("stack")
    drivers, firmwares = list(stack.drivers), list(stack.firmwares)
    if not drivers and not firmwares:
        raise NotApplicable("no driver or firmware version.info found (see ASC-DRV-001)")
    roots = [posixpath.dirname(posixpath.dirname(f.path)) for f in drivers + firmwares]
    fix = cleanup_sequence(ctx, roots, getattr(stack, "driver_version", None))
    mixed = False
    for kind, files in (("driver", drivers), ("firmware", firmwares)):
        if len(files) > 1:
            mixed = True
            yield Finding.fail(
                f"{len(files)} {kind} installations found: {_describe(kind, files)}. Two Ascend stacks on one "
                "machine is how 'Memory Alloc Failed' during graph compilation happens (seed 003 §5.1).",
                fix, kind=kind, paths=[f.path for f in files])
    if not mixed:
        where = ", ".join(f.path for f in drivers + firmwares)
        yield Finding.passed(f"one driver and one firmware installation ({where})")
