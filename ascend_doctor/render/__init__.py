"""Renderers: a ``Report`` in, text out. They know nothing of checks.

``emit_report`` is the one place a command turns a report into its chosen format, so that every
command that prints results (check, probe, fleet, report render...) offers the same formats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ascend_doctor.report import Report

# Formats every report-printing command accepts (``--format``), with the one-line help of each.
REPORT_FORMATS = ("text", "json", "markdown", "junit", "html")
FORMAT_HELP = {
    "text": "for people",
    "json": "for scripts",
    "markdown": "for tickets",
    "junit": "for CI (JUnit XML: Jenkins, GitLab)",
    "html": "as one self-contained page",
}


def emit_report(report: Report, fmt: str, output: Optional[str], verbose: bool = False) -> None:
    """Print ``report`` in ``fmt`` to standard output, or write it atomically to ``output``."""
    from ascend_doctor.redaction.secrets import redact_report

    report = redact_report(report)  # no secret reaches any format (docs/redaction.md)
    from ascend_doctor.render.localize import localize_report

    report = localize_report(report)  # human text in the chosen language (--lang), ids and statuses unchanged
    from ascend_doctor.cli._common import write_output

    if fmt != "text":
        write_output(render_report(report, fmt, verbose), output)
        return
    from ascend_doctor.render.text import make_console, render_text, report_to_text

    if output and output != "-":
        write_output(report_to_text(report, color=False, verbose=verbose), output)
        return
    render_text(report, make_console(), verbose=verbose)


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
    raise ValueError(f"unknown report format {fmt!r} (choose from {', '.join(REPORT_FORMATS)})")
