"""Helpers shared by every command: output options, writing output, one-line errors."""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any, Callable, Iterable, NoReturn, Optional, Tuple, TypeVar

import click

from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.i18n import gettext as _

if TYPE_CHECKING:
    from ascend_doctor.options import OutputOptions
    from ascend_doctor.redaction.identity import IdentityRedactor

F = TypeVar("F", bound=Callable[..., Any])

FORMAT_CHOICES = ("text", "json")


def output_options(func: F, formats: tuple[str, ...] = FORMAT_CHOICES) -> F:
    """Add ``--format text|json`` (or ``formats``) and ``-o/--output FILE`` to a command."""
    func = click.option(
        "-o",
        "--output",
        "output",
        metavar="FILE",
        default=None,
        help="Write the result to FILE (atomically; only a new file or over a regular file). "
             "-o - or /dev/stdout: standard output.",
    )(func)
    func = click.option(
        "--format",
        "fmt",
        type=click.Choice(formats),
        default="text",
        show_default=True,
        help="text for people, json for scripts (JSON goes to stdout or -o FILE)." if formats == FORMAT_CHOICES
        else _formats_help(formats),
    )(func)
    return func


def report_output_options(func: F) -> F:
    """``output_options`` for commands that print a report: every format of ascend_doctor.render."""
    from ascend_doctor.render import REPORT_FORMATS

    return output_options(func, REPORT_FORMATS)


def _formats_help(formats: tuple[str, ...]) -> str:
    from ascend_doctor.render import FORMAT_HELP

    return ", ".join(f"{name} {FORMAT_HELP.get(name, '')}".strip() for name in formats) + \
        " (to stdout or -o FILE)."


def write_output(text: str, output: Optional[str]) -> None:
    """Write the final result to standard output, or atomically to -o FILE (see safeio: a device,
    FIFO, socket or folder is refused; a failed write leaves neither a partial nor a temp file)."""
    from ascend_doctor import safeio

    if not text.endswith("\n"):
        text += "\n"
    stream = safeio.output_stream(output)
    if stream is not None:
        target = sys.stderr if stream == "stderr" else sys.stdout
        target.write(text)
        target.flush()
        return
    assert output is not None
    try:
        with safeio.atomic_output(output) as fh:
            fh.write(text.encode("utf-8", errors="replace"))
    except safeio.OutputRefused as exc:
        fail(str(exc), ExitCode.USAGE)
    except OSError as exc:
        fail(_("cannot write {path}: {error}; nothing was written").format(
            path=output, error=safeio.describe_os_error(exc)), ExitCode.INCOMPLETE)
    # One line on stderr, so that a run with -o does not look like a run that did nothing.
    click.echo(_("wrote {path} ({size} bytes)").format(path=output, size=len(text.encode("utf-8"))), err=True)


def emit_report(report: Any, output: OutputOptions, identities: Optional[IdentityRedactor] = None) -> None:
    """The output step of a run: print a report in ``output.format`` (coloured text on a terminal) or
    write it atomically to ``output.output``.

    The one redaction of the run happens here, before any format sees the report: secrets always,
    identities too with ``output.redact`` (``--redact``: a fresh ``IdentityRedactor``, or
    ``identities`` when the command has taught one names first, as fleet does); then the human text
    in the chosen language (render.prepare_report)."""
    from ascend_doctor.redaction.output import redact_for_output
    from ascend_doctor.render import prepare_report, report_as_text, report_for_terminal

    if output.redact and identities is None:
        from ascend_doctor.redaction.identity import IdentityRedactor

        identities = IdentityRedactor()
    report = prepare_report(redact_for_output(report, identities if output.redact else None))
    if output.format == "text" and not (output.output and output.output != "-"):
        report_for_terminal(report, output.verbose)
        return
    write_output(report_as_text(report, output.format, output.verbose), output.output)


def expand_node_pattern(output: Optional[str]) -> Optional[str]:
    """``-o reports/%N.json`` names one file per node, as Slurm's ``srun --output`` does: ``%N`` is this
    machine's short host name and ``%%`` a ``%``; any other ``%`` sequence is a usage error (exit 2).
    ``srun ... ascend-doctor check -o reports/%N.json`` hands the pattern to ascend-doctor unexpanded."""
    if not output or "%" not in output:
        return output
    import re
    import socket

    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code == "N":
            return _node_name(output, socket.gethostname())
        if code == "%":
            return "%"
        raise click.UsageError(_("-o {output}: %{code} is not a pattern ascend-doctor knows (%N is this host's "
                                 "name, %% a percent sign)").format(output=output, code=code))

    return re.sub(r"%(.?)", replace, output)


# A host name as RFC 1123 allows it (letters, digits, hyphens; dots only between labels, cut off
# before %N uses it). Anything else in a name that becomes a file name (a "/", "$(...)", a newline,
# an escape sequence: any local root can set the host name) is refused rather than written.
_HOST_LABEL = "^[A-Za-z0-9_-]{1,63}$"


def _node_name(output: str, hostname: str) -> str:
    import re

    short = hostname.split(".")[0]
    if not short:
        return "localhost"
    if re.match(_HOST_LABEL, short) is None:
        from ascend_doctor.render.sanitize import visible

        raise click.UsageError(_("-o {output}: this host's name {name} is not a host name (letters, digits and "
                                 "- only), so %N cannot make a file name of it; give the file name").format(
                                     output=output, name=visible(repr(short))))
    return short


def guard_output(output: Optional[str], files: Iterable[Optional[str]] = (),
                 folders: Iterable[Optional[str]] = (), option: str = "-o",
                 other_outputs: Iterable[tuple[str, Optional[str]]] = ()) -> None:
    """Before any work: refuse an output that cannot be written safely (a device, FIFO, folder,
    symbolic link...), that is one of the command's inputs (``files``, by inode or by name) or a
    file inside an input folder, or that names the same file as another output of the run
    (``other_outputs``: (option, path) pairs) (exit 2)."""
    from ascend_doctor import safeio

    if output is None or safeio.output_stream(output) is not None:
        return
    try:
        safeio.check_output_target(output, option)
        safeio.check_not_an_input(output, files, folders, option)
        safeio.check_distinct_outputs([(option, output), *other_outputs])
    except safeio.OutputRefused as exc:
        fail(str(exc), ExitCode.USAGE)


def check_selection(suite: str, select: Tuple[str, ...], ignore: Tuple[str, ...]) -> None:
    """A --select/--ignore that matches no check of ``suite``, or leaves none, is a usage error naming the
    closest ids, as `check` does: a typo must not make the gate pass by running nothing (exit 2)."""
    from ascend_doctor.registry import all_checks, closest_ids, matches, unmatched_prefixes

    ids = [c.spec.id for c in all_checks() if c.spec.suite == suite]
    for option, values in (("--select", select), ("--ignore", ignore)):
        for value in unmatched_prefixes(values, ids):
            near = closest_ids(value, ids)
            hint = f"; did you mean {' or '.join(near)}?" if near else ""
            raise click.UsageError(f"{option} {value} matches no {suite} check{hint} (`ascend-doctor checks` "
                                   "lists them)")
    if not [i for i in ids if (not select or matches(i, select)) and not (ignore and matches(i, ignore))]:
        raise click.UsageError(f"--select/--ignore leave no {suite} check to run")


def fail(message: str, code: int = ExitCode.USAGE) -> NoReturn:
    """Print one clear error line on stderr and exit with a documented code.

    A static message is shown in the chosen language (the catalogue has it); the "ascend-doctor:
    error:" prefix stays as it is, for scripts that look for it."""
    click.echo(f"ascend-doctor: error: {_(message)}", err=True)
    sys.exit(int(code))


def stderr_console() -> Any:
    """A rich console on stderr for progress and logs (never on stdout)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def handle_errors(func: F) -> F:
    """Turn unexpected exceptions in a command into one line + exit 3 (traceback with -v)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # pragma: no cover - exercised through CLI tests
            from ascend_doctor.options import read_environment

            if read_environment().debug:
                raise
            fail(_("internal error: {error} (set ASCEND_DOCTOR_DEBUG=1 for a traceback)").format(
                error=f"{type(exc).__name__}: {exc}"), ExitCode.INCOMPLETE)

    return wrapper  # type: ignore[return-value]
