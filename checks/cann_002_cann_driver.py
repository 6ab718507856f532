"""ASC-CANN-002: the CANN toolkit works with the installed driver."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, Status
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._hdk import compatible_hdks, hdk_action, reboot_action
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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    env = ctx.facts.maybe(Facts.env) or {}
    toolkit = stack.active_toolkit(env)
    running = ctx.facts.running_stack
    driver_version = running.driver.effective  # what runs; the files only when npu-smi says nothing
    # An opp/version.info alone is not a toolkit (advice review 2, P11): no verdict on that basis.
    opp_only = toolkit is not None and str(toolkit.info_file or "").endswith("/opp/version.info")
    if toolkit is None or opp_only or not driver_version:
        yield Finding.skip(_("needs a CANN toolkit and a known driver version (ASC-CANN-001 / ASC-DRV-001 say "
                             "why)"), toolkit_identified=toolkit is not None and not opp_only)
        return
    drv_info = running.driver_file.info if running.driver_file else None
    codes = [code_text(c) for c in toolkit.compatible_version or ()]
    driver_codes = [code_text(c) for c in getattr(drv_info, "compatible_version", None) or ()]
    verdict = ctx.matrix.cann_vs_driver(
        toolkit.version or "", driver_version,
        cann_innerversion=toolkit.innerversion, cann_compatible=codes,
        driver_innerversion=getattr(drv_info, "innerversion", None), driver_compatible=driver_codes)
    basis = "running" if running.driver.running and drv_info is None else running.driver.basis
    subject = (_("CANN {cann} with driver {driver} (running, from npu-smi: its version.info is not readable here)")
               if drv_info is None else _("CANN {cann} with driver {driver}")).format(cann=toolkit.version,
                                                                                     driver=driver_version)
    cann = toolkit.version or ""
    accepted = compatible_hdks(ctx, cann)
    recommended = (ctx.matrix.recommended_for_cann(cann) or {}).get("driver")
    target = recommended if recommended and (not accepted or recommended.lower() in (a.lower() for a in accepted)) \
        else (accepted[-1] if accepted else recommended)
    remediation = ((_("Align the stack: upgrade the HDK (driver + firmware) to a release CANN {cann} supports "
                      "({target}: firmware first, then driver, then reboot the host), or install the CANN release "
                      "that driver {driver} supports:") if target else
                    _("Align the stack: upgrade the HDK (driver + firmware) to a release CANN {cann} supports, or "
                      "install the CANN release that driver {driver} supports:")).format(
                        cann=cann, target=target, driver=driver_version) + "\n"
                   + "  " + shellcmd.with_comment(shellcmd.argv("ascend-doctor", "matrix", "lookup", "--cann", cann),
                                                  "the HDK releases for this CANN") + "\n"
                   + "  " + shellcmd.with_comment(shellcmd.argv("ascend-doctor", "matrix", "lookup", "--driver",
                                                                driver_version), "the CANN releases for this driver"))
    finding = verdict_finding(verdict, subject, remediation)
    finding = Finding(finding.status, finding.message, finding.remediation,
                      dict(finding.evidence, driver_basis=basis), finding.scope)
    if finding.status is Status.FAIL and target:
        finding = finding.with_actions(
            hdk_action(ctx, target, _("Upgrade the HDK (driver + firmware) to {target} for CANN {cann}").format(
                target=target, cann=cann), accepts=accepted,
                alternative=_("install the CANN release driver {driver} supports (ascend-doctor matrix lookup "
                              "--driver {driver})").format(driver=driver_version)),
            reboot_action(ctx, _("load the new driver and activate the firmware")))
    yield finding
