"""``diagnose``: the signatures found in a log, for people (text) or scripts (docs/diagnose-schema.json).

The quoted log lines may hold tokens or passwords: both formats go through the redaction rules
(docs/redaction.md) before they are returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List

from msgspec import Struct

from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n import ngettext
from ascend_doctor.render import JSON, TEXT, unknown_format

if TYPE_CHECKING:
    from ascend_doctor.logscan.scanner import ScanResult
    from ascend_doctor.logscan.signatures import SignatureDB


class Diagnosis(Struct, frozen=True):
    """What ``diagnose`` found: the scan of one input, the database it used, and its exit code."""

    scan: ScanResult
    signatures: SignatureDB
    exit_code: int


def render_diagnose(diagnosis: Diagnosis, fmt: str, color: bool = False) -> str:
    """``diagnosis`` in ``fmt``, redacted; ``color``: ANSI styles in the text (a terminal)."""
    if fmt == JSON:
        from ascend_doctor.redaction.secrets import redact_json
        from ascend_doctor.render.json import json_document

        return json_document(redact_json(_as_json(diagnosis)))
    if fmt == TEXT:
        from ascend_doctor.redaction.secrets import redact_text

        return redact_text(diagnosis_to_text(diagnosis.scan, color=color))
    raise unknown_format(fmt)


def scan_notes(scan: ScanResult) -> List[str]:
    """What the reader should know about the input itself (empty, binary, cut, stopped early)."""
    notes: List[str] = []
    if scan.bytes_read == 0:
        notes.append(_("the input is empty"))
    if scan.binary:
        notes.append(_("the input contains NUL bytes: is it really a text log? (scanned anyway)"))
    if scan.long_lines:
        notes.append(_("{count} line(s) longer than 1 MiB were scanned in pieces").format(count=scan.long_lines))
    if not scan.complete:
        notes.append(_("scan stopped early ({reason})").format(reason=scan.stop_reason))
    return notes


def _as_json(diagnosis: Diagnosis) -> Dict[str, Any]:
    from ascend_doctor import __version__

    scan, db = diagnosis.scan, diagnosis.signatures
    data: Dict[str, Any] = {
        "tool": "ascend-doctor",
        "version": __version__,
        "command": "diagnose",
        "signatures": {"version": db.version, "date": db.date, "count": len(db)},
        # `input` and `source` hold the same name: both are in docs/diagnose-schema.json (required),
        # `input` for readers of the first JSON version, `source` as the scan names it.
        "input": scan.source,
    }
    data.update(scan.to_dict())
    data["notes"] = scan_notes(scan)
    data["exit_code"] = diagnosis.exit_code
    return data


def diagnosis_to_text(result: ScanResult, color: bool = False) -> str:
    """People-facing report. Log text is passed as plain Text, never parsed as rich markup."""
    import io

    from ascend_doctor.render.lines import Console, Text

    notes = scan_notes(result)
    buffer = io.StringIO()

    def make_rich() -> Any:
        from rich.console import Console

        return Console(file=buffer, force_terminal=color, color_system="standard" if color else None,
                       highlight=False, markup=False, emoji=False, width=100)

    console = Console(make_rich, buffer, 100, plain=not color)  # rich only for colours

    def out(*parts: Any) -> None:
        line = Text()
        for part in parts:
            if isinstance(part, tuple):
                line.append(part[0], style=part[1])
            else:
                line.append(str(part))
        console.print(line, soft_wrap=True)

    def headed(text: str, head: str, style: str) -> None:
        """``text`` with its first words ``head`` in ``style`` (the whole line when the translation
        does not start with them)."""
        if text.startswith(head):
            out((head, style), text[len(head):])
        else:
            out((text, style))

    size = _human_bytes(result.bytes_read)
    hits = list(result.hits)
    if not hits:
        headed(_("No known Ascend error signature in {source} ({lines} lines, {size}).").format(
            source=result.source, lines=result.lines, size=size), _("No known Ascend error signature"), "bold green")
    else:
        headed(ngettext("Diagnosis of {source} ({lines} lines, {size}): {count} signature found, most specific first.",
                        "Diagnosis of {source} ({lines} lines, {size}): {count} signatures found, most specific "
                        "first.", len(hits)).format(source=result.source, lines=result.lines, size=size,
                                                    count=len(hits)), _("Diagnosis"), "bold")
    for note in notes:
        out((_("Note: "), "yellow"), note)
    incidents = list(result.incidents)
    if len(incidents) > 1:
        out((_("The input holds {count} separate incidents; each has its own cause.").format(count=len(incidents)),
             "bold"))
        for incident in incidents:
            out("")
            why = {"section": _("a new section"), "time gap": _("a gap of more than 30 minutes"),
                   "reboot": _("the host booted again")}.get(incident.starts_because, "")
            head = _("Incident {number}: lines {first}-{last}").format(
                number=incident.number, first=incident.first_line, last=incident.last_line)
            if incident.label:
                head += " " + _("under \"{label}\"").format(label=incident.label)
            if why:
                head += " (" + why + ")"
            out(("== " + head, "bold"))
            _print_hits(out, headed, list(incident.hits))
    else:
        _print_hits(out, headed, hits)
    return buffer.getvalue()


def _print_hits(out: Any, headed: Any, hits: List[Any]) -> None:
    """The causes of one incident (or of the whole input) with their details, then its
    secondary symptoms."""
    specific = [h for h in hits if not h.secondary]
    generic = [h for h in hits if h.secondary]
    shown = specific if specific else generic[:1]
    for number, hit in enumerate(shown, 1):
        sig = hit.signature
        out("")
        label_style = "bold red" if sig.fault else "bold"
        out((f"{number}. {_(sig.title)}", label_style), f"  [{sig.id}, {sig.category}]")
        if hit.count == 1:
            where = _("line {line}: ").format(line=hit.first_line)
        else:
            where = _("line {line} ({count} lines, last {last}): ").format(
                line=hit.first_line, count=hit.count, last=hit.last_line)
        out("   ", (where, "cyan"), hit.first_text)
        out("   ", (_("What it means: "), "bold"), _(sig.meaning))
        out("   ", (_("Likely causes:"), "bold"))
        for i, cause in enumerate(sig.causes, 1):
            out(f"     {i}. {_(cause)}")
        out("   ", (_("Check next:"), "bold"))
        for cmd in sig.check_next:
            out("     ", cmd)
        out("   ", (_("Fix:"), "bold"))
        for cmd in sig.fix:  # the "# ..." advice lines are translated (the catalogue has them), commands never
            out("     ", _(cmd) if cmd.startswith("#") else cmd)
        out("   ", (_("Source: "), "dim"), "; ".join(sig.source))
    rest = [h for h in generic if h not in shown]
    if rest:
        out("")
        headed(_("Secondary symptoms (generic wrappers; the cause is the signature above):"),
               _("Secondary symptoms"), "bold")
        for hit in rest:
            if hit.secondary_of:
                see = _("secondary symptom: see {id}").format(id=hit.secondary_of)
            else:
                see = _("generic wrapper")
            out("   - " + _("{id} {title}, line {line}: ").format(
                id=hit.signature.id, title=_(hit.signature.title), line=hit.first_line), (see, "dim"))


def _human_bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} bytes"  # pragma: no cover
