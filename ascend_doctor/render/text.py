"""The human report: rich text, grouped by area, worst first within a group.

Everything that came from the machine (messages quote tool output) is added as
``rich.text.Text`` so a ``[red]`` in an npu-smi line is printed, not interpreted.
"""

from __future__ import annotations

import io
import os
import re
import textwrap
from typing import IO, Any, Dict, List, Optional

from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import N_, get_language, ngettext
from ascend_doctor.i18n import gettext as _
from ascend_doctor.render.plainconsole import PlainConsole, Text, is_a_terminal
from ascend_doctor.render.sanitize import visible, visible_lines
from ascend_doctor.report import Report, Result

STATUS_STYLE = {
    Status.PASS: "green",
    Status.INFO: "blue",
    Status.WARN: "yellow",
    Status.FAIL: "bold red",
    Status.SKIP: "dim",
    Status.ERROR: "magenta",
}
# Areas in the order a person fixes them: devices and driver first, the model last.
# English here; shown through _() (area_title), so every format prints them in the chosen language.
AREA_TITLES = {
    "CORE": N_("ascend-doctor itself"), "SMI": "npu-smi", "DEV": N_("Devices"), "CTR": N_("Containers"),
    "DRV": N_("Driver"), "FW": N_("Firmware"), "MIX": N_("Mixed installations"), "CANN": N_("CANN toolkit"),
    "OPS": N_("Kernels / ops package"), "NNAL": "NNAL / ATB", "ARCH": N_("Architecture"),
    "PY": N_("Python, torch and torch_npu"), "ENG": N_("Serving engines"), "ENV": N_("Environment"),
    "SYS": N_("Host resources"), "LOG": N_("Logs"), "MDL": N_("Model weights"), "CFG": N_("Serving configuration"),
    "SRV": N_("Serving endpoint"), "FLT": N_("Fleet"),
}


def clean(text: str) -> str:
    """Untrusted text of several lines with every terminal control made visible (render/sanitize.py);
    the console makes any newline left in a printed line visible too (plainconsole.py)."""
    return visible_lines(text)


def make_console(file: Optional[IO[str]] = None, color: Optional[bool] = None, width: Optional[int] = None
                 ) -> PlainConsole:
    """The report's console: rich's, imported only for a line a file or a pipe would not get as it is
    (render/plainconsole.py: the same bytes)."""

    def make_rich() -> Any:
        from rich.console import Console

        no_color = bool(os.environ.get("NO_COLOR")) if color is None else not color
        console = Console(file=file, no_color=no_color, highlight=False, emoji=False, soft_wrap=False,
                          force_terminal=True if color else None, width=width,
                          color_system=None if no_color else "auto")
        if width is None and not console.is_terminal:
            # Piped into a file or a ticket: rich's 80-column default would wrap every remediation.
            console.width = 120
        return console

    plain = not color and not is_a_terminal(file)
    return PlainConsole(make_rich, file, 120 if width is None else width, plain)


def render_text(report: Report, console: PlainConsole, verbose: bool = False) -> None:
    host = report.host
    header = Text()
    header.append("ascend-doctor ", style="bold")
    header.append(f"{report.tool_version}  ")
    origin = host.get("origin")
    header.append(_("host:") + f" {visible(host.get('hostname') or '?')} ({visible(host.get('arch') or '?')}, "
                  f"{visible(host.get('source'))}" + (f": {visible(origin)}" if origin else "") + ")")
    console.print(header)
    matrix = report.matrix
    if matrix:
        console.print(Text(_("compatibility matrix {version} ({origin})").format(
            version=visible(matrix.get("version", "?")), origin=visible(matrix.get("origin", "?"))), style="dim"))
    _print_facts_line(report, console)
    for note in report.notes:
        console.print(Text(_("note:") + f" {clean(note)}", style="yellow"))
    _print_nodes(report, console)

    groups: Dict[str, List[Result]] = {}
    folded = [r for r in report.results if not verbose and _not_asked_for(r)]
    # `result in folded`, looked up among the folded results of the same check id only (equal results
    # have equal ids): comparing every result with every folded one field by field took ~1 ms.
    folded_by_id: Dict[str, List[Result]] = {}
    for r in folded:
        folded_by_id.setdefault(r.id, []).append(r)
    for result in report.results:
        if folded and result in folded_by_id.get(result.id, ()):
            continue
        groups.setdefault(_area(result), []).append(result)
    order = list(AREA_TITLES)
    for area, results in sorted(groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99):
        console.print()
        console.print(Text(_(AREA_TITLES.get(area, area)), style="bold underline"))
        for result in results:
            _print_result(result, console, verbose)
    if folded:
        inputs = sorted({str(r.evidence.get("precondition")) for r in folded})
        flags = ", ".join(_PRECONDITION_FLAGS.get(i, i) for i in inputs)
        console.print()
        count = len(folded)
        console.print(Text(ngettext("{count} check not run: it needs {flags}, which was not given (-v lists it).",
                                    "{count} checks not run: they need {flags}, which was not given (-v lists "
                                    "them).", count).format(count=count, flags=flags), style="dim"))
    if report.fix_plan:
        console.print()
        _print_fix_plan(report, console)
    console.print()
    _print_summary(report, console)


_WHERE_LABEL = {"host": N_("on the host"), "container": N_("in the container"), "either": ""}
_VERDICT_STYLE = {"READY": "green", "NOT READY": "bold red", "INCOMPLETE": "magenta", "UNREADABLE": "magenta"}


def _print_nodes(report: Report, console: PlainConsole) -> None:
    """A fleet report's table of nodes: one line each, worst finding last (cut, never wrapped)."""
    from ascend_doctor.render.common import node_row, nodes

    rows = [node_row(n) for n in nodes(report)]
    if not rows:
        return
    heads = (_("Node"), _("Devices"), _("Health"), _("Verdict"), _("Differs from the fleet in"), _("Worst finding"))
    widths = [max(_cells(r[i]) for r in [heads, *rows]) for i in range(5)]
    console.print()
    console.print(Text(_("Nodes ({count})").format(count=len(rows)), style="bold underline"))
    for number, row in enumerate([heads, *rows]):
        line = Text()
        for i, cell in enumerate(row[:5]):
            pad = " " * (widths[i] - _cells(cell) + 2)
            style = "bold" if number == 0 else _VERDICT_STYLE.get(cell, "") if i == 3 else ""
            line.append(cell + pad, style=style)
        line.append(row[5], style="bold" if number == 0 else "")
        console.print(line, no_wrap=True, overflow="ellipsis")



def _print_fix_plan(report: Report, console: PlainConsole) -> None:
    """Every remediation of the report as one ordered plan (never re-wrapped: commands are pasted)."""
    console.print(Text(_("Fix plan"), style="bold underline"))
    for step in report.fix_plan:
        head = Text(f"{step.order:>2}. ", style="bold")
        head.append(clean(step.summary))
        where = _WHERE_LABEL.get(step.where, "")
        if where:
            head.append(f" ({_(where)})", style="dim")
        console.print(head, soft_wrap=True)
        for command in step.commands:
            console.print(Text("      " + clean(command), style="cyan"), soft_wrap=True)
        if step.fixes:
            console.print(Text("      " + _("fixes:") + " " + ", ".join(visible(f) for f in step.fixes), style="dim"),
                          soft_wrap=True)
        if step.why:
            console.print(Text("      " + _("why:") + " " + clean(step.why), style="dim"), soft_wrap=True)
        if step.alternative:
            console.print(Text("      " + _("alternative:") + " " + clean(step.alternative), style="dim"),
                          soft_wrap=True)


_PRECONDITION_FLAGS = {"model": "--model DIR", "manifest": "--verify MANIFEST",
                       "serving_config": "--config FILE / --vllm-args"}


def _not_asked_for(result: Result) -> bool:
    """SKIPs for inputs the user did not give (--model, --config...): noise in a first read."""
    return result.status is Status.SKIP and "precondition" in result.evidence and \
        result.evidence.get("precondition") in _PRECONDITION_FLAGS


def _print_facts_line(report: Report, console: PlainConsole) -> None:
    facts = report.facts
    parts = []
    chip = facts.get("chip") or {}
    if chip:
        count = chip.get("chip_count")
        parts.append(f"{visible(count)}× {visible(chip.get('name'))}" if count else visible(chip.get("name")))
    for key, label in (("npu_smi_version", "npu-smi"), ("driver_version", N_("driver")),
                       ("firmware_version", N_("firmware"))):
        if facts.get(key):
            parts.append(f"{_(label)} {visible(facts[key])}")
    cann = [c for c in facts.get("cann") or [] if c.get("kind") == "toolkit"]
    if cann:
        parts.append("CANN " + ", ".join(visible(c.get("version")) for c in cann))
    py = facts.get("python") or {}
    pkgs = py.get("packages") or {}
    for name in ("torch", "torch-npu", "vllm-ascend"):
        if pkgs.get(name):
            parts.append(f"{name} {visible(pkgs[name])}")
    if parts:
        console.print(Text(" · ".join(parts), style="dim"), soft_wrap=True)


def _print_result(result: Result, console: PlainConsole, verbose: bool) -> None:
    line = Text()
    line.append(f"{result.status.value:<5} ", style=STATUS_STYLE[result.status])
    line.append(f"{visible(result.id)} ", style="bold")
    line.append(visible(result.title))
    if result.scope:
        line.append(f" [{visible(result.scope)}]", style="dim")
    console.print(line)
    width = max(40, (console.width or 100) - 6)
    wrap = _english_wrap if get_language() == "en" else _wide_wrap
    for paragraph in clean(result.message).split("\n"):
        for piece in wrap(paragraph, width) or [""]:
            console.print(Text("      " + piece))
    if result.remediation and result.status in (Status.FAIL, Status.WARN, Status.INFO, Status.ERROR, Status.SKIP):
        # Remediation is never re-wrapped: a command broken over two lines cannot be pasted.
        label = "      " + _("fix:") + " "
        continuation = " " * _cells(label)
        for number, fix_line in enumerate(clean(result.remediation).split("\n")):
            fix_text = Text(label if number == 0 else continuation, style="cyan")
            fix_text.append(fix_line, style="")
            console.print(fix_text, soft_wrap=True)
    if verbose and result.evidence:
        for key, value in result.evidence.items():
            console.print(Text(f"      {visible(key)}: {visible(str(value)[:500])}", style="dim"), soft_wrap=True)


def _print_summary(report: Report, console: PlainConsole) -> None:
    summary = report.summary()
    line = Text(_("Summary:") + " ", style="bold")
    for status in (Status.FAIL, Status.WARN, Status.ERROR, Status.INFO, Status.PASS, Status.SKIP):
        if status is Status.INFO and not summary[status.value]:
            continue  # most reports have no recommendation: keep the familiar summary line
        line.append(f"{summary[status.value]} {status.value}", style=STATUS_STYLE[status])
        line.append("  ")
    line.append(_("(exit code {code})").format(code=int(report.exit_code)), style="dim")
    console.print(line)
    # Problems further down often follow from the first one (no driver -> no CANN pairing...):
    # point at where to start, in the order areas are printed.
    failures = [r for r in report.results if r.status is Status.FAIL]
    if failures:
        order = list(AREA_TITLES)
        first = min(failures, key=lambda r: order.index(_area(r)) if _area(r) in order else 99)
        console.print(Text(_("Start with {id}: {title} (`ascend-doctor explain {id}`)").format(
            id=visible(first.id), title=visible(first.title)), style="bold"), soft_wrap=True)


# What textwrap changes in a line that already fits: these characters (tabs expanded, the others
# made spaces) and whitespace at either end (str.strip's, dropped at the end, kept at the start).
_TEXTWRAP_WHITESPACE = re.compile(r"[\t\n\x0b\x0c\r]")


def _english_wrap(text: str, width: int) -> List[str]:
    """``textwrap.wrap(text, width)``; a line that already fits and that textwrap would not change
    is returned as it is without it (85 of the 99 message lines of a healthy report, ~0.6 ms of
    a text report). tests/test_render_text_wrap.py holds the two side by side."""
    if text and len(text) <= width and text == text.strip() and _TEXTWRAP_WHITESPACE.search(text) is None:
        return [text]
    return textwrap.wrap(text, width)


def _wide_wrap(text: str, width: int) -> List[str]:
    """Chinese text wrapped by terminal cells (textwrap counts characters and needs spaces)."""
    from ascend_doctor.widewrap import wrap

    return wrap(text, width) if text.strip() else []


def _cells(text: str) -> int:
    if get_language() == "en":
        return len(text)
    from ascend_doctor.widewrap import cell_width

    return cell_width(text)


def _area(result: Result) -> str:
    return result.id.split("-")[1] if "-" in result.id else "?"


def report_to_text(report: Report, color: bool = False, width: int = 100, verbose: bool = False) -> str:
    buf = io.StringIO()
    console = make_console(file=buf, color=color, width=width)
    render_text(report, console, verbose=verbose)
    return buf.getvalue()
