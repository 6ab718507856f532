"""``ascend-doctor diagnose FILE|-``: explain the Ascend errors in a log, traceback or ticket paste."""

from __future__ import annotations

import io
import os
import sys
from typing import Any, BinaryIO, Dict, List, Optional

import click

from ascend_doctor import __version__
from ascend_doctor.cli._common import dump_json, fail, guard_output, handle_errors, output_options, write_output
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n import ngettext


@click.command("diagnose")
@click.argument("source", metavar="FILE|-")
@output_options
@handle_errors
def diagnose(source: str, fmt: str, output: Optional[str]) -> None:
    """Explain the Ascend errors found in a log or a pasted traceback.

    Reads FILE (or standard input when FILE is -) as a stream, so a log of several GB is fine.
    It understands plog/device logs, dmesg, MindIE and vLLM logs and torch_npu tracebacks, also
    when pasted JSON-escaped, with [rank0]: / (VllmWorker rank=3 pid=123) / docker compose
    prefixes, or with colours. Each known signature is printed with the line it matched, what it
    means, the likely causes in order, what to check next and how to fix it; the most specific
    comes first, generic wrappers (ERR99999, EE1001 ...) last as secondary symptoms.

    \b
    Exit codes:
      0  no known signature found
      1  at least one signature found
      2  usage error
      3  the input could not be read
    \b
    Examples:
      ascend-doctor diagnose ~/ascend/log/debug/plog/plog-1234_20250101.log
      docker logs vllm 2>&1 | ascend-doctor diagnose -
      ascend-doctor diagnose ticket-attachment.txt --format json -o diagnosis.json
    """
    from ascend_doctor.logscan.scanner import default_scanner
    from ascend_doctor.logscan.signatures import SignatureDBError

    try:
        scanner = default_scanner()
    except SignatureDBError as exc:
        fail(_("the signature database is unusable: {problem}").format(problem=exc.problems[0]), ExitCode.INCOMPLETE)
    label = "<stdin>" if source == "-" else source
    guard_output(output, files=[source])
    stream = _open_input(source)
    try:
        result = scanner.scan_stream(stream, label)
    except OSError as exc:
        fail(_("cannot read {path}: {error}").format(path=label, error=exc.strerror or exc), ExitCode.INCOMPLETE)
    except MemoryError:
        fail(_("cannot read {path}: out of memory").format(path=label), ExitCode.INCOMPLETE)
    finally:
        if source != "-":
            stream.close()
    notes = _notes(result)
    code = ExitCode.FINDINGS if result.found else ExitCode.OK
    from ascend_doctor.redaction.secrets import redact_json, redact_text

    # The quoted log lines may hold tokens or passwords: never echo them (docs/redaction.md).
    if fmt == "json":
        text = dump_json(redact_json(_as_json(result, notes, scanner.db, int(code))))
    else:
        color = output in (None, "-") and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        text = redact_text(render_text(result, notes, color=color))
    write_output(text, output)
    sys.exit(int(code))


def _open_input(source: str) -> BinaryIO:
    """The log to scan. Streamed like grep reads it: a regular file, standard input, or a pipe
    (``diagnose <(docker logs vllm)``; a FIFO with no writer waits like ``cat`` would, and Ctrl-C
    ends the wait). Devices, sockets and /proc or /sys files are refused: reading them can block
    forever or consume data (``/proc/kmsg``)."""
    import stat

    from ascend_doctor import safeio

    if source == "-":
        stdin = sys.stdin
        if stdin is None or getattr(stdin, "buffer", None) is None:
            fail("cannot read standard input: it is closed (give a log file, or pipe one in)", ExitCode.INCOMPLETE)
        return stdin.buffer
    try:
        st = os.stat(source)
    except FileNotFoundError:
        fail(_("cannot read {path}: no such file").format(path=source), ExitCode.INCOMPLETE)
    except PermissionError:
        fail(_("cannot read {path}: permission denied (try sudo, or copy the file somewhere readable)").format(
            path=source), ExitCode.INCOMPLETE)
    except OSError as exc:
        fail(_("cannot read {path}: {error}").format(path=source, error=safeio.describe_os_error(exc)),
             ExitCode.INCOMPLETE)
    if stat.S_ISDIR(st.st_mode):
        fail(_("cannot read {path}: it is a directory (give a log file, or - for standard input)").format(
            path=source), ExitCode.INCOMPLETE)
    if stat.S_ISFIFO(st.st_mode):
        try:
            return open(source, "rb")
        except OSError as exc:
            fail(_("cannot read {path}: {error}").format(path=source, error=safeio.describe_os_error(exc)),
                 ExitCode.INCOMPLETE)
    try:
        return safeio.open_regular(source)
    except PermissionError:
        fail(_("cannot read {path}: permission denied (try sudo, or copy the file somewhere readable)").format(
            path=source), ExitCode.INCOMPLETE)
    except OSError as exc:
        fail(_("cannot read {path}: {error} (use - to read standard input)").format(
            path=source, error=safeio.describe_os_error(exc)), ExitCode.INCOMPLETE)


def _notes(result: Any) -> List[str]:
    notes: List[str] = []
    if result.bytes_read == 0:
        notes.append(_("the input is empty"))
    if result.binary:
        notes.append(_("the input contains NUL bytes: is it really a text log? (scanned anyway)"))
    if result.long_lines:
        notes.append(_("{count} line(s) longer than 1 MiB were scanned in pieces").format(count=result.long_lines))
    if not result.complete:
        notes.append(_("scan stopped early ({reason})").format(reason=result.stop_reason))
    return notes


def _as_json(result: Any, notes: List[str], db: Any, code: int) -> Dict[str, Any]:
    data: Dict[str, Any] = {
        "tool": "ascend-doctor",
        "version": __version__,
        "command": "diagnose",
        "signatures": {"version": db.version, "date": db.date, "count": len(db)},
        "input": result.source,
    }
    data.update(result.to_dict())
    data["notes"] = notes
    data["exit_code"] = code
    return data


def render_text(result: Any, notes: List[str], color: bool = False) -> str:
    """People-facing report. Log text is passed as plain Text, never parsed as rich markup."""
    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, color_system="standard" if color else None,
                      highlight=False, markup=False, emoji=False, width=100)

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
    specific = [h for h in hits if not h.signature.generic]
    generic = [h for h in hits if h.signature.generic]
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
    return buffer.getvalue()


def _human_bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} bytes"  # pragma: no cover
