"""ASC-DRV-002: the driver that runs is the driver that is installed."""

from __future__ import annotations

from typing import Iterator, Optional

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.versions import AscendVersion

CHECK = CheckSpec(
    id="ASC-DRV-002",
    title="Installed driver is the one running",
    requires=("npu_devices",),
    what=("Compares the version npu-smi reports (the running driver, or the npu-smi tool when the header "
          "has no Version field) with the installed driver's version.info."),
    why=("After a driver upgrade the old kernel module keeps running until a reboot or reload. Until then "
         "CANN and torch_npu are matched against a driver that is not the one answering, and the errors "
         "look like version mismatches that the installed files do not show."),
    fix="Reboot the server (or reload the driver modules) so the installed driver is the one running.",
)


def _same(a: str, b: str) -> Optional[bool]:
    """Equal versions, or one a shortened spelling of the other.

    npu-smi's banner may print only the release (``24.1.rc2``) while version.info carries the
    patch (``24.1.rc2.2``); that is the same driver, not a pending reboot.
    """
    va, vb = AscendVersion.try_parse(a), AscendVersion.try_parse(b)
    if va is None or vb is None:
        return None
    if va == vb:
        return True
    return bool(va.same_release(vb) and (not va.extra or not vb.extra))


def run(ctx: CheckContext) -> Iterator[Finding]:
    smi = ctx.facts.get("npu_smi")
    stack = ctx.facts.get("stack")
    installed = stack.driver_version
    if not installed:
        raise NotApplicable("no readable driver version.info to compare with (see ASC-DRV-001)")
    running = smi.driver_version
    tool = smi.version
    if running:
        same = _same(running, installed)
        if same is False:
            yield Finding.fail(
                f"npu-smi reports driver {running} running, but version.info says {installed} is installed: "
                "the new driver is not active yet.",
                "Reboot so the installed driver is loaded: reboot\n"
                "(after the reboot, `npu-smi info` must show Version: " + installed + ")",
                running=running, installed=installed)
            return
        same_text = "=" if running == installed else "is the same release as"
        yield Finding.passed(f"running driver {running} {same_text} installed {installed}")
        return
    if tool:
        same = _same(tool, installed)
        if same is False:
            yield Finding.warn(
                f"npu-smi {tool} differs from the installed driver {installed}: either a reboot is pending "
                "after a driver change, or npu-smi comes from another package (e.g. mounted from a different "
                "host path).",
                "If the driver was changed since the last boot: reboot. In a container, mount npu-smi from the "
                "same host driver: -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi",
                npu_smi=tool, installed=installed)
            return
        yield Finding.passed(f"npu-smi {tool} matches installed driver {installed}")
        return
    raise NotApplicable("npu-smi printed no version banner to compare")
