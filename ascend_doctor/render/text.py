"""The human report: rich text, grouped by area, worst first within a group.

Everything that came from the machine (messages quote tool output) is added as
``rich.text.Text`` so a ``[red]`` in an npu-smi line is printed, not interpreted.
"""

from __future__ import annotations

import io
import os
import textwrap
from typing import IO, Any, Dict, List, Optional, Set

from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import N_, get_language, joiner, labelled, ngettext
from ascend_doctor.i18n import gettext as _
from ascend_doctor.lazy import lazy_re
from ascend_doctor.render.common import AREA_TITLES
from ascend_doctor.render.lines import Console, Text, is_a_terminal
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


def clean(text: str) -> str:
    """Untrusted text of several lines with every terminal control made visible (render/sanitize.py);
    the console makes any newline left in a printed line visible too (render/lines.py)."""
    return visible_lines(text)


def make_console(file: Optional[IO[str]] = None, color: Optional[bool] = None, width: Optional[int] = None
                 ) -> Console:
    """The report's console: rich's on a terminal or with colours, else the lines as they are
    (render/lines.py)."""

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
    return Console(make_rich, file, 120 if width is None else width, plain)


def render_text(report: Report, console: Console, verbose: bool = False) -> None:
    """The report for a person. By default the problems on one screen (brew doctor, flutter
    doctor): the header, the stack in one line, every FAIL, WARN and ERROR, the recommendations in
    one line, PASS and SKIP as counts per area, the fix plan, what could be judged and the verdict.
    ``verbose``: every result, with its evidence."""
    _print_header(report, console)
    for note in report.notes:
        _print_prose(console, _("note:") + f" {clean(note)}", style="yellow")
    _print_nodes(report, console)
    from ascend_doctor.rootcause import find_root_cause

    cause = find_root_cause(report)
    if cause is not None:
        console.print()
        _print_prose(console, cause.sentence(report), style="bold")
        if cause.follows and not verbose:
            _print_prose(console, _("Follows from it (-v shows them): {names}").format(
                names=", ".join(clean(name) for name in cause.follows)), style="dim")
    from ascend_doctor.coverage import MACHINE_SOURCES

    if verbose or report.host.get("source") not in MACHINE_SOURCES:
        # -v, and a probe's or a fleet's report (their PASS lines are the measurements): every result.
        _print_every_result(report, console, verbose)
    else:
        _print_problems(report, console, set(cause.follows) if cause is not None else set())
    if report.fix_plan:
        console.print()
        _print_fix_plan(report, console, verbose)
    console.print()
    _print_coverage(report, console, verbose)
    _print_summary(report, console)


def _print_header(report: Report, console: Console) -> None:
    host = report.host
    origin = host.get("origin")
    where = (_("host:") + f" {visible(host.get('hostname') or '?')} ({visible(host.get('arch') or '?')}, "
             f"{visible(host.get('source'))}" + (f": {visible(origin)}" if origin else "") + ")")
    first = f"ascend-doctor {report.tool_version}  "
    if _cells(first + where) <= _width(console):
        header = Text()
        header.append("ascend-doctor ", style="bold")
        header.append(f"{report.tool_version}  ")
        header.append(where)
        console.print(header)
    else:  # a long snapshot or paste path: its own line, wrapped where a path allows
        console.print(Text("ascend-doctor ", style="bold").append(report.tool_version))
        _print_prose(console, where)
    matrix = report.matrix
    if matrix:
        console.print(Text(_("compatibility matrix {version} ({origin})").format(
            version=visible(matrix.get("version", "?")), origin=visible(matrix.get("origin", "?"))), style="dim"))
    _print_facts_line(report, console)


def _print_every_result(report: Report, console: Console, verbose: bool) -> None:
    """Every result grouped by area; with ``verbose`` their evidence too, else the SKIPs of inputs
    that were not given folded into one line."""
    from ascend_doctor.render.common import folded_line

    groups: Dict[str, List[Result]] = {}
    folded = []
    for result in report.results:
        if not verbose and _not_asked_for(result):
            folded.append(result)
            continue
        groups.setdefault(_area(result), []).append(result)
    for area, results in _by_area(groups):
        console.print()
        console.print(Text(_(AREA_TITLES.get(area, area)), style="bold underline"))
        for result in results:
            _print_result(result, console, verbose)
    if folded:
        console.print()
        _print_prose(console, folded_line(folded), style="dim")


def _print_problems(report: Report, console: Console, folded: Set[str]) -> None:
    """FAIL, WARN and ERROR in full, grouped by area (those that follow from the root cause
    ``folded`` under it); INFO in one line; PASS and SKIP counted."""
    from ascend_doctor.rootcause import name_of

    steps = _plan_steps(report)
    groups: Dict[str, List[Result]] = {}
    for result in report.results:
        if result.status in (Status.FAIL, Status.WARN, Status.ERROR) and name_of(result) not in folded:
            groups.setdefault(_area(result), []).append(result)
    for area, results in _by_area(groups):
        console.print()
        console.print(Text(_(AREA_TITLES.get(area, area)), style="bold underline"))
        for result in results:
            _print_result(result, console, False, steps.get(name_of(result)))
    # Recommendations: one line here, unless the plan's tuning block ends the report with their commands.
    tuned = {name for step in _tuning_steps(report) for name in step.fixes}
    recommendations = [r for r in report.results if r.status is Status.INFO and name_of(r) not in tuned]
    if recommendations or any(r.status in (Status.PASS, Status.SKIP) for r in report.results):
        console.print()
    if recommendations:
        ids = ", ".join(dict.fromkeys(r.id for r in recommendations))
        _print_prose(console, ngettext(
            "{count} recommendation (INFO, tuning): {ids}; its step ends the fix plan (-v shows it).",
            "{count} recommendations (INFO, tuning): {ids}; their steps end the fix plan (-v shows them).",
            len(recommendations)).format(count=len(recommendations), ids=ids), style="blue")
    quiet = _quiet_counts(report)
    if quiet:
        _print_prose(console, labelled(_("Passed/skipped per area (-v lists them):")) + " · ".join(quiet), style="dim")


def _quiet_counts(report: Report) -> List[str]:
    """"Devices 5 passed, 2 skipped" for every area with PASS or SKIP results (SKIPs of inputs that
    were not given left out: the coverage line counts them)."""
    per_area: Dict[str, Dict[Status, int]] = {}
    for result in report.results:
        if result.status is Status.PASS or (result.status is Status.SKIP and not _not_asked_for(result)):
            counts = per_area.setdefault(_area(result), {})
            counts[result.status] = counts.get(result.status, 0) + 1
    parts = []
    for area, counts in _by_area(per_area):
        parts.append(f"{_(AREA_TITLES.get(area, area))} {counts.get(Status.PASS, 0)}/{counts.get(Status.SKIP, 0)}")
    return parts


def _by_area(groups: Dict[str, Any]) -> List[Any]:
    order = list(AREA_TITLES)
    return sorted(groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else 99)


def _print_coverage(report: Report, console: Console, verbose: bool = False) -> None:
    """How much could be judged, and (pasted text, snapshots) what to ask for to judge the rest."""
    from ascend_doctor.render.common import coverage_sentence, questions

    asks = questions(report)
    sentence = coverage_sentence(report)
    if asks and report.host.get("source") == "snapshot" and not verbose:  # a new capture records them all
        sentence += ("" if sentence.endswith("。") else " ") + ngettext(
            "Not recorded in this snapshot: {count} command (-v lists it).",
            "Not recorded in this snapshot: {count} commands (-v lists them).",
            len(asks) - 1).format(count=len(asks) - 1)
        asks = []
    _print_prose(console, sentence)
    if not asks:
        return
    *commands, snapshot = asks
    if report.host.get("source") == "snapshot":
        _print_prose(console, _("Not recorded in this snapshot: {commands}; capture it again with `{snapshot}`."
                                ).format(commands=", ".join(f"`{c}`" for c in commands), snapshot=snapshot),
                     style="dim")
        return
    _print_prose(console, _("To judge more, ask for the output of these commands (or, best, of `{snapshot}`):"
                            ).format(snapshot=snapshot))
    for command in commands:
        console.print(Text("      " + clean(command), style="cyan"), soft_wrap=True)


def _print_prose(console: Console, text: str, style: str = "", indent: str = "") -> None:
    """A paragraph wrapped to the console by words (cells for Chinese), no line ending in a space."""
    width = max(40, _width(console) - _cells(indent))
    # One paragraph: a newline inside a value is shown (^J), never a line of the report (sanitize.py).
    for piece in _prose_lines(visible(text), width) or [""]:
        console.print(Text(indent + piece.rstrip(), style=style), soft_wrap=True)


def _has_wide(text: str) -> bool:
    """Characters a terminal may draw two cells wide (CJK in an English report's quoted log line)."""
    return not text.isascii() and max(text) > "\u00ff"


def _prose_lines(paragraph: str, width: int) -> List[str]:
    if get_language() == "en" and not _has_wide(paragraph):
        # words and paths kept whole ("ascend-toolkit" is no place to break)
        return textwrap.wrap(paragraph, width, break_on_hyphens=False, break_long_words=False)
    return _wide_wrap(paragraph, width)


def _width(console: Console) -> int:
    return console.width or 100


_WHERE_LABEL = {"host": N_("on the host"), "container": N_("in the container"), "either": ""}
_VERDICT_STYLE = {"READY": "green", "NOT READY": "bold red", "INCOMPLETE": "magenta", "UNREADABLE": "magenta",
                  "NOT ENOUGH TO JUDGE": "magenta"}


def _print_nodes(report: Report, console: Console) -> None:
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



def _print_fix_plan(report: Report, console: Console, verbose: bool = False) -> None:
    """Every remediation of the report as one ordered plan (commands never re-wrapped: they are
    pasted). By default the steps that only tune (INFO) are one block of commands at the end."""
    console.print(Text(_("Fix plan"), style="bold underline"))
    tuning = [] if verbose else _tuning_steps(report)
    for step in report.fix_plan:
        if step in tuning:
            continue
        head = Text(f"{step.order:>2}. ", style="bold")
        head.append(clean(step.summary))
        where = _WHERE_LABEL.get(step.where, "")
        if where:
            head.append(joiner("open") + _(where) + joiner("close"), style="dim")
        console.print(head, soft_wrap=True)
        for command in step.commands:
            console.print(Text("      " + clean(command), style="cyan"), soft_wrap=True)
        if step.fixes and verbose:
            console.print(Text("      " + _("fixes:") + " " + ", ".join(visible(f) for f in step.fixes), style="dim"),
                          soft_wrap=True)
        if step.why:
            _print_prose(console, labelled(_("why:")) + clean(step.why), style="dim", indent="      ")
        if step.alternative:
            _print_prose(console, labelled(_("alternative:")) + clean(step.alternative), style="dim", indent="      ")
    if tuning:
        numbers = f"{tuning[0].order}-{tuning[-1].order}" if len(tuning) > 1 else str(tuning[0].order)
        ids = list(dict.fromkeys(visible(name.split(" ")[0]) for step in tuning for name in step.fixes))
        console.print(Text(f"{numbers:>2}. ", style="bold").append(
            _("Recommended tuning ({ids}; -v explains each step):").format(ids=", ".join(ids))), soft_wrap=True)
        from ascend_doctor.shellcmd import chain

        # One pasteable line: each step is a variable or two for the engine's environment.
        commands = [command for step in tuning for command in step.commands]
        # Chained only when no command carries a comment: a "#" would swallow the commands after it.
        lines = [chain(*commands)] if commands and not any("#" in c for c in commands) else commands
        for line in lines:
            console.print(Text("      " + clean(line), style="cyan"), soft_wrap=True)


def _tuning_steps(report: Report) -> List[Any]:
    """The steps at the end of the plan that fix only recommendations (rootcause.py puts them last)."""
    from ascend_doctor.rootcause import only_tunes

    tail: List[Any] = []
    for step in reversed(report.fix_plan):
        if not only_tunes(step, report.results):
            break
        tail.insert(0, step)
    return tail


def _plan_steps(report: Report) -> Dict[str, int]:
    """The first fix-plan step that fixes each result (by its name, "ASC-DEV-010 [NPU 0 chip 0]")."""
    steps: Dict[str, int] = {}
    for step in report.fix_plan:
        for name in step.fixes:
            steps.setdefault(name, step.order)
    return steps


def _not_asked_for(result: Result) -> bool:
    """SKIPs for inputs the user did not give (--model, --config...): noise in a first read."""
    from ascend_doctor.render.common import not_asked_for

    return not_asked_for(result)


def _print_facts_line(report: Report, console: Console) -> None:
    facts = report.facts
    parts = []
    chip = facts.get("chip") or {}
    if chip:
        count = chip.get("chip_count")
        parts.append(f"{visible(count)}× {visible(chip.get('name'))}" if count else visible(chip.get("name")))
    for key, name in (("npu_smi_version", "npu-smi"), ("driver_version", N_("driver")),
                       ("firmware_version", N_("firmware"))):
        if facts.get(key):
            parts.append(f"{_(name)} {visible(facts[key])}")
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


def _print_result(result: Result, console: Console, verbose: bool, step: Optional[int] = None) -> None:
    line = Text()
    line.append(f"{result.status.value:<5} ", style=STATUS_STYLE[result.status])
    line.append(f"{visible(result.id)} ", style="bold")
    title = visible(result.title) + (f" [{visible(result.scope)}]" if result.scope else "")
    room = _width(console) - _cells(line.plain)
    if _cells(title) <= room:
        line.append(visible(result.title))
        if result.scope:
            line.append(f" [{visible(result.scope)}]", style="dim")
        console.print(line)
    else:  # wrapped by words here, the rest indented: no line ends in a space
        first, *rest = _prose_lines(title, max(20, room)) or [""]
        line.append(first)
        console.print(line)
        _print_prose(console, " ".join(rest), indent="      ")
    width = max(40, (console.width or 100) - 6)
    for paragraph in clean(result.message).split("\n"):
        wrap = _english_wrap if get_language() == "en" and not _has_wide(paragraph) else _wide_wrap
        for piece in wrap(paragraph, width) or [""]:
            console.print(Text("      " + piece))
    if step is not None and not verbose:  # the plan holds the commands, merged with the others': once
        console.print(Text("      " + labelled(_("fix:")), style="cyan").append(
            _("step {number} of the fix plan below").format(number=step)))
    elif result.remediation and result.status in (Status.FAIL, Status.WARN, Status.INFO, Status.ERROR, Status.SKIP):
        # Remediation is never re-wrapped: a command broken over two lines cannot be pasted.
        label_text = "      " + labelled(_("fix:"))
        continuation = " " * _cells(label_text)
        for number, fix_line in enumerate(clean(result.remediation).split("\n")):
            fix_text = Text(label_text if number == 0 else continuation, style="cyan")
            fix_text.append(fix_line, style="")
            console.print(fix_text, soft_wrap=True)
    if verbose and result.evidence:
        for key, value in result.evidence.items():
            shown = " ".join(visible_lines(value).split())[:500]  # one paragraph, however the value was laid out
            _print_prose(console, f"{visible(key)}: {shown}", style="dim", indent="      ")


def _print_summary(report: Report, console: Console) -> None:
    summary = report.summary()
    line = Text(labelled(_("Summary:")), style="bold")
    for status in (Status.FAIL, Status.WARN, Status.ERROR, Status.INFO, Status.PASS, Status.SKIP):
        if status is Status.INFO and not summary[status.value]:
            continue  # most reports have no recommendation: keep the familiar summary line
        line.append(f"{summary[status.value]} {status.value}", style=STATUS_STYLE[status])
        line.append("  ")
    line.append(_("(exit code {code})").format(code=int(report.exit_code)), style="dim")
    from ascend_doctor.render.common import verdict, verdict_key

    line.append(joiner("colon"), style="dim")
    line.append(verdict(report), style=_VERDICT_STYLE.get(verdict_key(report), "bold"))
    console.print(line)
    # The root cause when one explains the rest, else what step 1 of the plan fixes: never two answers.
    from ascend_doctor.rootcause import find_root_cause, start_with

    first = start_with(report, find_root_cause(report))
    if first is not None:
        console.print(Text(_("Start with {id}: {title} (`ascend-doctor explain {id}`)").format(
            id=visible(first.id), title=visible(first.title)), style="bold"), soft_wrap=True)


# What textwrap changes in a line that already fits: these characters (tabs expanded, the others
# made spaces) and whitespace at either end (str.strip's, dropped at the end, kept at the start).
_TEXTWRAP_WHITESPACE = lazy_re(r"[\t\n\x0b\x0c\r]")


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
