"""``ascend-doctor diagnose FILE|-``: explain the Ascend errors in a log, traceback or ticket paste."""

from __future__ import annotations

import os
import sys
from typing import BinaryIO, Optional

import click

from ascend_doctor.cli._common import fail, guard_output, handle_errors, output_options, write_output
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.i18n import gettext as _


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
    code = ExitCode.FINDINGS if result.found else ExitCode.OK
    from ascend_doctor.options import read_environment
    from ascend_doctor.render.diagnose import Diagnosis, render_diagnose

    color = output in (None, "-") and fmt == "text" and sys.stdout.isatty() and not read_environment().no_color
    write_output(render_diagnose(Diagnosis(result, scanner.db, int(code)), fmt, color=color), output)
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
