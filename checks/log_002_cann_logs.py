"""ASC-LOG-002: no known errors in the newest CANN application and device logs."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._logs import MAX_FINDINGS, hit_finding, reportable

CHECK = CheckSpec(
    id="ASC-LOG-002",
    title="Newest CANN logs (plog, device logs) have no known errors",
    what=("Scans the newest plog and device log files (~/ascend/log/{debug,run}/plog and device-N of every user, "
          "$ASCEND_PROCESS_LOG_PATH, /var/log/npu/slog, the driver install log) for the known Ascend error "
          "signatures, newest file first, bounded to 20 files / 64 MiB / 20 s by default. "
          "Hardware/driver faults are FAIL, other signatures WARN."),
    why=("When a previous start of vLLM or MindIE failed, the plog holds the real error (driver code, HCCL "
         "timeout, missing kernels) that the Python traceback only wraps. These logs can be old: each finding "
         "says when the file was last written, so judge whether it still applies."),
    fix=("Follow the fix printed with each signature; to explain one file in full: "
         "ascend-doctor diagnose ~/ascend/log/debug/plog/<file>.log. Clean up old logs after fixing "
         "(rm -rf ~/ascend/log/debug/plog/*) so the next run starts fresh."),
    tags=("logs",),
)


def _run_as_root() -> str:
    return _("run as root: {command}").format(command="sudo ascend-doctor check --select ASC-LOG")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    scan = ctx.facts.log_files
    if not scan.files:
        if scan.denied and not scan.candidates:
            yield Finding.skip(_("could not list {paths}: permission denied").format(paths=", ".join(scan.denied[:3])),
                               _run_as_root(), denied=list(scan.denied))
            return
        raise NotApplicable(_("no CANN log files found (looked in {paths} ...)").format(
            paths=", ".join(scan.roots[:4])))
    # One finding per signature, at the newest file where it appears (files are newest first).
    seen: Dict[str, Tuple[Any, Any, int]] = {}
    order: List[str] = []
    unreadable = [f for f in scan.files if f.error]
    for entry in scan.files:
        if entry.result is None:
            continue
        for hit in reportable(entry.result.hits):
            if hit.signature.id in seen:
                first_hit, first_entry, files = seen[hit.signature.id]
                seen[hit.signature.id] = (first_hit, first_entry, files + 1)
            else:
                seen[hit.signature.id] = (hit, entry, 1)
                order.append(hit.signature.id)
    # Most specific first, as `diagnose` orders them.
    order.sort(key=lambda sid: -seen[sid][0].signature.specificity)
    for sig_id in order[:MAX_FINDINGS]:
        hit, entry, files = seen[sig_id]
        note = (_("File last written {time}; this may be from an earlier run.").format(time=entry.modified)
                if entry.modified else
                _("When this file was last written is not recorded in this snapshot; it may be from an earlier run."))
        if files > 1:
            note += " " + _("Seen in {count} of the {total} newest files.").format(count=files, total=len(scan.files))
        if entry.start_offset:
            note += " " + _("(Only the last part of this large file was read; line numbers count from byte "
                            "{offset}.)").format(offset=entry.start_offset)
        yield hit_finding(hit, entry.path, note).scoped(entry.path)
    if len(order) > MAX_FINDINGS:
        yield Finding.warn(_("{count} more signatures in the logs: {ids}").format(
                               count=len(order) - MAX_FINDINGS, ids=", ".join(order[MAX_FINDINGS:])),
                           _("{command} explains every signature of one file").format(
                               command="ascend-doctor diagnose <file>"))
    scanned_mb = scan.bytes_scanned / (1024 * 1024)
    limits = f" ({'; '.join(scan.limits_hit)})" if scan.limits_hit else ""
    if unreadable:
        yield Finding.skip(_("{count} log file(s) could not be read, e.g. {path}: {error}").format(
                               count=len(unreadable), path=unreadable[0].path, error=unreadable[0].error),
                           _run_as_root())
    if not order:
        yield Finding.passed(_("{count} newest log file(s) scanned ({size} MiB), no known error signatures").format(
                                 count=len(scan.files), size=f"{scanned_mb:.1f}") + limits,
                             files=len(scan.files), bytes=scan.bytes_scanned)
