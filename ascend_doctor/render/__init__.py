"""Renderers: a command's result in, the text it prints out. They know nothing of checks.

Every command hands its result (a typed record, never a dict it built) to the renderer of that
command together with the ``--format`` chosen, and writes the string it gets back with
``cli._common.write_output``:

* reports (check, probe, fleet, report render), redacted once by the command (redaction/output.py):
  ``prepare_report`` (language) then
  ``render_report`` (one lookup in the format registry ``FORMATS``: text.py, json.py, markdown.py,
  junit.py, html.py) or ``report_for_terminal``; ``cli._common.emit_report`` strings these together;
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

from typing import TYPE_CHECKING, Callable, Dict, NamedTuple, Sequence

if TYPE_CHECKING:
    from ascend_doctor.report import Report

# The formats of the commands whose result is not a report (cli/_common.py output_options' default).
TEXT = "text"
JSON = "json"

# The report formats (``--format`` of every report-printing command): name -> its one-line help and
# its renderer. Adding a format is one entry here (and its module); the command line's choices, its
# help and the dispatch all read this table.
class ReportFormat(NamedTuple):
    help: str
    render: Callable[[Report, bool], str]  # (a prepared report, verbose) -> the document


def _text(report: Report, verbose: bool) -> str:
    from ascend_doctor.render.text import report_to_text

    return report_to_text(report, color=False, verbose=verbose)


def _json(report: Report, verbose: bool) -> str:
    from ascend_doctor.render.json import report_to_json

    return report_to_json(report)


def _markdown(report: Report, verbose: bool) -> str:
    from ascend_doctor.render.markdown import report_to_markdown

    return report_to_markdown(report, verbose=verbose)


def _junit(report: Report, verbose: bool) -> str:
    from ascend_doctor.render.junit import report_to_junit

    return report_to_junit(report)


def _html(report: Report, verbose: bool) -> str:
    from ascend_doctor.render.html import report_to_html

    return report_to_html(report)


FORMATS: Dict[str, ReportFormat] = {
    "text": ReportFormat("for people", _text),
    "json": ReportFormat("for scripts", _json),
    "markdown": ReportFormat("for tickets", _markdown),
    "junit": ReportFormat("for CI (JUnit XML: Jenkins, GitLab)", _junit),
    "html": ReportFormat("as one self-contained page", _html),
}
REPORT_FORMATS = tuple(FORMATS)
FORMAT_HELP = {name: spec.help for name, spec in FORMATS.items()}


def unknown_format(fmt: str, formats: Sequence[str] = (TEXT, JSON)) -> ValueError:
    """The error a renderer raises for a format it does not make (click's choices keep users from it)."""
    return ValueError(f"unknown format {fmt!r} (choose from {', '.join(formats)})")


def prepare_report(report: Report) -> Report:
    """What every format shows of ``report``: the human text in the chosen language (--lang; ids,
    statuses and evidence unchanged). ``report`` arrives redacted: the command redacts it once, where
    it produces it (redaction/output.py), however many formats it then renders."""
    from ascend_doctor.render.localize import localize_report

    return localize_report(report)


def report_for_terminal(report: Report, verbose: bool = False) -> None:
    """The text report on this terminal (rich: colours, width); a prepared report."""
    from ascend_doctor.render.text import make_console, render_text

    render_text(report, make_console(), verbose=verbose)


def render_report(report: Report, fmt: str, verbose: bool = False) -> str:
    """A prepared ``report`` as one string in ``fmt`` (plain text for ``text``: a file or a pipe)."""
    spec = FORMATS.get(fmt)
    if spec is None:
        raise unknown_format(fmt, REPORT_FORMATS)
    return spec.render(report, verbose)


report_as_text = render_report  # the name cli/_common.py and older callers use
