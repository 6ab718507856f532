"""ASC-CANN-002: the CANN toolkit works with the installed driver."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._support import code_text, verdict_finding

CHECK = CheckSpec(
    id="ASC-CANN-002",
    title="CANN and driver are compatible",
    what=("Judges the active CANN toolkit against the driver twice: by the release codes both sides carry "
          "(driver Innerversion/compatible_version vs toolkit innerversion/compatible_version) and by the "
          "compatibility matrix (release notes, installer and quick-install pairings)."),
    why=("A CANN newer than the driver supports is the most common broken stack: installs succeed, then "
         "device start or the first operator fails (507033, 561103, EZ9999...)."),
    fix=("Upgrade the driver and firmware to the HDK release paired with your CANN (or install the CANN "
         "paired with your driver). `ascend-doctor matrix lookup --cann <version>` lists the pairings."),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    stack = ctx.facts.get("stack")
    env = ctx.facts.try_get("env") or {}
    toolkit = stack.active_toolkit(env)
    drv = stack.driver
    if toolkit is None or drv is None or drv.info is None:
        raise NotApplicable("needs both a driver and a CANN toolkit (see ASC-DRV-001, ASC-CANN-001)")
    driver_version = drv.info.version or drv.info.package_version
    codes = [code_text(c) for c in toolkit.compatible_version or ()]
    driver_codes = [code_text(c) for c in drv.info.compatible_version or ()]
    verdict = ctx.matrix.cann_vs_driver(
        toolkit.version or "", driver_version or "",
        cann_innerversion=toolkit.innerversion, cann_compatible=codes,
        driver_innerversion=drv.info.innerversion, driver_compatible=driver_codes)
    yield verdict_finding(
        verdict, f"CANN {toolkit.version} with driver {driver_version}",
        f"Align the stack: install the HDK (driver + firmware) paired with CANN {toolkit.version}, or the CANN "
        f"release paired with driver {driver_version}:\n  ascend-doctor matrix lookup --cann {toolkit.version}"
        f"    # the driver/firmware for this CANN\n  ascend-doctor matrix lookup --driver {driver_version}"
        f"   # the CANN releases for this driver")
