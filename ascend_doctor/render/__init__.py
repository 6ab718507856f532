"""Renderers: a ``Report`` in, text out. They know nothing of checks.

``emit_report`` is the one place a command turns a report into its chosen format, so that every
command that prints results (check, probe, fleet, report render...) offers the same formats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ascend_doctor.report import Report

# Formats every report-printing command accepts (``--format``).
REPORT_FORMATS = ("text", "json")


def emit_report(report: Report, fmt: str, output: Optional[str], verbose: bool = False) -> None:
    """Print ``report`` in ``fmt`` to standard output, or write it atomically to ``output``."""
    from ascend_doctor.cli._common import write_output

    if fmt == "json":
        from ascend_doctor.render.json import report_to_json

        write_output(report_to_json(report), output)
        return
    from ascend_doctor.render.text import make_console, render_text, report_to_text

    if output and output != "-":
        write_output(report_to_text(report, color=False, verbose=verbose), output)
        return
    render_text(report, make_console(), verbose=verbose)
