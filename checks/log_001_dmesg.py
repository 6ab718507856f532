"""ASC-LOG-001: no Ascend driver or hardware errors in the kernel log since boot."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext
from ._logs import MAX_FINDINGS, hit_finding, reportable

ROOT_ADVICE = "run as root: sudo ascend-doctor check --select ASC-LOG"

CHECK = CheckSpec(
    id="ASC-LOG-001",
    title="Kernel log has no Ascend driver or hardware errors",
    what=("Scans `dmesg` (the kernel ring buffer, i.e. since the last boot) for the known Ascend error signatures "
          "of compat_matrix/signatures.yaml: driver error codes, device faults, PCIe AER errors, lost heartbeats. "
          "Hardware/driver faults are FAIL, other signatures WARN."),
    why=("A card that fell off the PCIe bus, lost its heartbeat or reports uncorrectable errors makes every later "
         "step fail with a generic runtime error; the kernel log names the real cause, and it only holds events "
         "since the last boot, so what it shows is current. The Ascend driver modules log there too: a device the "
         "driver marks abnormal ('[ascend] [drv_pcie] ... Device is abnormal') is a FAIL even when npu-smi still "
         "lists it, and any '[ascend] ... [ERROR]' line at least a WARN, never a PASS."),
    fix=("Follow the fix printed with each signature (`ascend-doctor diagnose` explains a saved log the same way). "
         "On hosts where dmesg is restricted, " + ROOT_ADVICE + "."),
    tags=("logs",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    scan = ctx.facts.dmesg
    if scan.status == "permission_denied":
        yield Finding.skip(_("dmesg is restricted for this user ({detail}); the kernel log was not checked").format(
                               detail=localized(scan.detail)),
                           _("run as root: {command}   (or: {alternative})").format(
                               command="sudo ascend-doctor check --select ASC-LOG",
                               alternative="sudo sysctl kernel.dmesg_restrict=0"),
                           status=scan.status)
        return
    if scan.status != "ok" or scan.result is None:
        raise NotApplicable(_("kernel log not available: {detail}").format(
            detail=localized(scan.detail or scan.status)))
    result = scan.result
    # Faults first (stable, so most specific first within each group): a lost NPU is never among
    # the signatures cut by MAX_FINDINGS.
    hits = sorted(reportable(result.hits), key=lambda hit: not hit.signature.fault)
    if not hits:
        yield Finding.passed(_("dmesg ({lines} lines since boot) shows no known Ascend error signatures").format(
                                 lines=result.lines),
                             lines=result.lines)
        return
    for hit in hits[:MAX_FINDINGS]:
        yield hit_finding(hit, "dmesg").scoped(hit.signature.id)
    if len(hits) > MAX_FINDINGS:
        more = ", ".join(h.signature.id for h in hits[MAX_FINDINGS:])
        yield Finding.warn(_("{count} more signatures in dmesg: {ids}").format(count=len(hits) - MAX_FINDINGS,
                                                                               ids=more),
                           "dmesg -T > dmesg.txt && ascend-doctor diagnose dmesg.txt")
