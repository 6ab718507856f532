"""Judging helpers shared by the log checks (ASC-LOG-*): one Finding per signature hit.

Grading rule (both checks): a signature marked ``fault`` (hardware/driver fault: device lost,
uncorrectable PCIe error, heartbeat lost ...) is FAIL; one marked ``harmless`` (a fallback the
runtime takes by itself) is INFO; anything else is WARN, because a log line says something went
wrong once, not that the machine is wrong now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterable, List

from ascend_doctor.checkapi import Finding, Status
from ascend_doctor.i18n import _

if TYPE_CHECKING:
    from ascend_doctor.logscan.scanner import SignatureHit

# More findings than this per check only repeat what the first ones say.
MAX_FINDINGS = 12


def hit_finding(hit: SignatureHit, where: str, note: str = "") -> Finding:
    """A finding for one ScanResult hit found at ``where`` (e.g. "dmesg" or a file path)."""
    sig = hit.signature
    status = Status.FAIL if sig.fault else Status.INFO if getattr(sig, "harmless", False) else Status.WARN
    # The signature database's titles, causes and "# ..." advice lines are in the catalogue
    # (tools/extract_messages.py DATA_MESSAGES); its commands and the evidence stay as written.
    if hit.count > 1:
        message = _("{title} [{id}] at {where}:{line} ({count} lines): \"{text}\". Likely cause: {cause}.").format(
            title=_(sig.title), id=sig.id, where=where, line=hit.first_line, count=hit.count, text=hit.first_text,
            cause=_(sig.causes[0]))
    else:
        message = _("{title} [{id}] at {where}:{line}: \"{text}\". Likely cause: {cause}.").format(
            title=_(sig.title), id=sig.id, where=where, line=hit.first_line, text=hit.first_text,
            cause=_(sig.causes[0]))
    if note:
        message += f" {note}"
    remediation = "\n".join(_(line) if line.startswith("#") else line for line in sig.fix)
    if sig.check_next:
        remediation += "\n" + _("# to confirm first: {command}").format(command=sig.check_next[0])
    evidence: Dict[str, object] = {
        "signature": sig.id,
        "category": sig.category,
        "file": where,
        "line": hit.first_line,
        "last_line": hit.last_line,
        "count": hit.count,
        "text": hit.first_text,
        "meaning": sig.meaning,
        "causes": list(sig.causes),
        "check_next": list(sig.check_next),
        "source": list(sig.source),
    }
    return Finding(status, message, remediation, evidence)


def reportable(hits: Iterable[SignatureHit]) -> List[SignatureHit]:
    """The hits worth a finding: specific ones; generic wrappers only when nothing else matched."""
    hits = list(hits)
    specific = [h for h in hits if not h.signature.generic]
    return specific if specific else hits[:1]
