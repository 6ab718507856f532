"""Renderers: a command's result in, the text it prints out. They know nothing of checks.

Every command hands its result (a typed record, never a dict it built) to the renderer of that
command together with the ``--format`` chosen, and writes the string it gets back with
``cli._common.write_output``:

* reports (check, probe, fleet, report render): ``prepare_report`` (redaction, language) then
  ``report_as_text`` / ``report_for_terminal`` below, in every format of ``REPORT_FORMATS`` (text.py,
  json.py, markdown.py, junit.py, html.py); ``cli._common.emit_report`` strings these together;
* ``report diff``: diff.py ``render_diff``;
* ``checks`` and ``explain``: catalogue.py; ``plan``: plan.py; ``diagnose``: diagnose.py;
* ``matrix show|lookup|plan|validate|bundle|update``: matrix.py;
* ``model inspect|manifest|verify``: model.py;
* ``watch`` (plain lines, JSON lines, the live table, the alert line and the ``--on-alert``
  payload): watch.py; its ``--prometheus`` textfile: prometheus.py.

Each ``render_<command>(result, fmt)`` is the one place that command's formats are told apart. A
renderer module imports only what every format needs; what one format needs (rich for text, the
redaction rules...) is imported inside that format's function, so a JSON run never loads rich.
JSON documents are made by json.py ``json_document``, one layout for all (the model manifest, a file
the tool also reads back, is written by model/manifest.py beside its parser; render/model.py picks it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from ascend_doctor.report import Report

# The formats of the commands whose result is not a report (cli/_common.py output_options' default).
TEXT = "text"
JSON = "json"

# Formats every report-printing command accepts (``--format``), with the one-line help of each.
REPORT_FORMATS = ("text", "json", "markdown", "junit", "html")
FORMAT_HELP = {
    "text": "for people",
    "json": "for scripts",
    "markdown": "for tickets",
    "junit": "for CI (JUnit XML: Jenkins, GitLab)",
    "html": "as one self-contained page",
}


def unknown_format(fmt: str, formats: Sequence[str] = (TEXT, JSON)) -> ValueError:
    """The error a renderer raises for a format it does not make (click's choices keep users from it)."""
    return ValueError(f"unknown format {fmt!r} (choose from {', '.join(formats)})")


def prepare_report(report: Report) -> Report:
    """What every format shows of ``report``: secrets redacted (docs/redaction.md) and the human text
    in the chosen language (--lang; ids, statuses and evidence unchanged)."""
    from ascend_doctor.redaction.secrets import redact_report
    from ascend_doctor.render.localize import localize_report

    return localize_report(redact_report(report))


def report_for_terminal(report: Report, verbose: bool = False) -> None:
    """The text report on this terminal (rich: colours, width); a prepared report."""
    from ascend_doctor.render.text import make_console, render_text

    render_text(report, make_console(), verbose=verbose)


def report_as_text(report: Report, fmt: str, verbose: bool = False) -> str:
    """A prepared report in ``fmt`` as one string (plain text for ``text``: a file or a pipe)."""
    if fmt != "text":
        return render_report(report, fmt, verbose)
    from ascend_doctor.render.text import report_to_text

    return report_to_text(report, color=False, verbose=verbose)


def render_report(report: Report, fmt: str, verbose: bool = False) -> str:
    """``report`` as a string in ``fmt`` (text without colours)."""
    if fmt == "json":
        from ascend_doctor.render.json import report_to_json

        return report_to_json(report)
    if fmt == "markdown":
        from ascend_doctor.render.markdown import report_to_markdown

        return report_to_markdown(report, verbose=verbose)
    if fmt == "junit":
        from ascend_doctor.render.junit import report_to_junit

        return report_to_junit(report)
    if fmt == "html":
        from ascend_doctor.render.html import report_to_html

        return report_to_html(report)
    if fmt == "text":
        from ascend_doctor.render.text import report_to_text

        return report_to_text(report, color=False, verbose=verbose)
    raise unknown_format(fmt, REPORT_FORMATS)
