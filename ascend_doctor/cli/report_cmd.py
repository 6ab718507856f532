"""``ascend-doctor report render|diff``: reports received from elsewhere, in another format or compared."""

from __future__ import annotations

import sys
from typing import Any, List, NoReturn, Optional

import click

from ascend_doctor.cli._common import fail, handle_errors, output_options, report_output_options
from ascend_doctor.exitcodes import ExitCode

_DIFF_FORMATS = ("text", "json", "markdown")


def _diff_output_options(func: Any) -> Any:
    return output_options(func, _DIFF_FORMATS)


@click.group("report")
def report() -> None:
    """Render a saved JSON report in another format, or compare two reports.

    Reads reports of every schema version up to this ascend-doctor's (docs/report-schema.json).

    \b
    Examples:
      ascend-doctor report render report.json --format html -o report.html
      ascend-doctor report render report.json --format markdown --redact
      ascend-doctor report diff before-upgrade.json after-upgrade.json
    """


def _read(path: str) -> Any:
    from ascend_doctor.reportio import ReportReadError, read_report_file

    try:
        return read_report_file(path)
    except ReportReadError as exc:
        _unreadable(str(exc))


def _unreadable(message: str) -> NoReturn:
    fail(message, ExitCode.INCOMPLETE)


def _not_an_input(output: Optional[str], inputs: List[str]) -> None:
    """-o must not overwrite the report being read (a customer's only copy), nor be a link or a
    device: exit 2 before anything is read."""
    from ascend_doctor.cli._common import guard_output

    guard_output(output, files=[path for path in inputs if path != "-"])


@report.command("render")
@click.argument("report_file", metavar="REPORT.json|-")
@report_output_options
@click.option("--redact", is_flag=True,
              help="Replace host names, IP/MAC addresses, user names, home folders, serial numbers and PCIe bus "
                   "ids with placeholders (host-1, 192.0.2.1 ...; see docs/redaction.md).")
@click.option("-v", "--verbose", is_flag=True, help="Show evidence under each result (text, markdown).")
@handle_errors
def render(report_file: str, fmt: str, output: Optional[str], redact: bool, verbose: bool) -> None:
    """Print a JSON report (from `check --format json`) as text, json, markdown, junit or html.

    REPORT.json is a report written by ascend-doctor of any version up to this one; - reads it
    from standard input.

    \b
    Exit codes:
      0  rendered
      2  usage error
      3  the report cannot be used: missing, not a regular file, too large, not JSON, not an
         ascend-doctor report, or written by a newer ascend-doctor (upgrade to read it)
    \b
    Examples:
      ascend-doctor report render node07.json --format markdown -o ticket.md
      ascend-doctor report render node07.json --format junit -o ascend-doctor.xml
      ascend-doctor check --format json | ascend-doctor report render - --format html -o node07.html
    """
    _not_an_input(output, [report_file])
    loaded = _read(report_file)
    from ascend_doctor.cli._common import emit_report
    from ascend_doctor.options import OutputOptions

    emit_report(loaded, OutputOptions(format=fmt, output=output, verbose=verbose, redact=redact))


@report.command("diff")
@click.argument("old_file", metavar="OLD.json")
@click.argument("new_file", metavar="NEW.json")
@_diff_output_options
@handle_errors
def diff(old_file: str, new_file: str, fmt: str, output: Optional[str]) -> None:
    """What changed between two reports of a machine: versions, devices, results, fix plan.

    Results are matched by check id and scope. A regression is a result that got worse into
    WARN or FAIL (PASS, INFO or SKIP -> WARN or FAIL, WARN -> FAIL), or a new WARN/FAIL of a
    check that was clean in OLD; a check OLD did not run is listed as new, not as a regression.

    \b
    Exit codes:
      0  no regression
      1  at least one regression (use it as a gate after an upgrade)
      2  usage error
      3  a report cannot be used (missing, not JSON, not an ascend-doctor report, newer schema)
    \b
    Examples:
      ascend-doctor check --format json -o before.json
      # ... upgrade the driver, CANN, torch_npu ...
      ascend-doctor check --format json -o after.json
      ascend-doctor report diff before.json after.json || echo "the upgrade broke something"
      ascend-doctor report diff before.json after.json --format markdown -o ticket.md
    """
    if old_file == "-" and new_file == "-":
        raise click.UsageError("only one of OLD and NEW can be - (standard input)")
    _not_an_input(output, [old_file, new_file])
    from ascend_doctor.cli._common import write_output
    from ascend_doctor.render.diff import render_diff
    from ascend_doctor.render.localize import localize_report
    from ascend_doctor.reportdiff import diff_reports

    # Both in the chosen language first: a report written in Chinese and one in English compare by
    # meaning (fix-plan steps are matched by their summary), and the titles and messages shown
    # read in one language.
    old, new = localize_report(_read(old_file)), localize_report(_read(new_file))

    result = diff_reports(old, new)
    write_output(render_diff(result, fmt), output)
    sys.exit(result.exit_code)
