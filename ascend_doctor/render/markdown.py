"""The report as Markdown, for ticket systems (GitLab, GitHub, Gitee, most issue trackers).

A header table (tool, matrix, run time, host), the summary, the devices, the findings worst
first with their fixes in fenced code blocks, the fix plan, then the checks that passed or were
skipped. Text from the machine is escaped, so an npu-smi line with ``|`` or ``<b>`` cannot break
a table or inject markup; fixes go into fences longer than any backtick run they contain.
"""

from __future__ import annotations

from typing import Iterable, List

from ascend_doctor.checkapi import CHECK_ID_RE
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n import labelled
from ascend_doctor.lazy import lazy_re
from ascend_doctor.render.common import (
    clean,
    coverage_sentence,
    device_label,
    devices,
    facts_parts,
    findings,
    folded_line,
    memory_of,
    number,
    questions,
    quiet_results,
    result_name,
    root_cause_sentence,
    run_header,
    split_remediation,
    start_with,
    summary_parts,
    verdict,
    where_label,
)
from ascend_doctor.report import Report, Result

_INLINE_SPECIAL = lazy_re(r"([\\`*_\[\]<>|~&])")
# At the start of a line these open a heading, list, quote or setext underline.
_LINE_START = lazy_re(r"^(\s*)(\d+)?([#+\-=>.)])")
_BACKTICKS = lazy_re(r"`+")


def escape(text: object) -> str:
    """Inline Markdown for untrusted text: every character that could format is escaped."""
    lines = []
    for line in clean(text).split("\n"):
        line = _INLINE_SPECIAL.sub(r"\\\1", line)
        # "# x", "- x", "1. x" at the start of a line: escape the punctuation that makes the block.
        line = _LINE_START.sub(lambda m: m.group(1) + (m.group(2) or "") + "\\" + m.group(3), line)
        lines.append(line)
    return "  \n".join(lines)  # two spaces: a hard line break


def cell(text: object) -> str:
    """A table cell: escaped, on one line (no block can start inside a cell)."""
    return _INLINE_SPECIAL.sub(r"\\\1", " ".join(clean(text).split()))


def fence(body: str) -> List[str]:
    """A fenced code block that the body cannot close (fence longer than its backtick runs)."""
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [ticks, *clean(body).rstrip("\n").split("\n"), ticks]


def report_to_markdown(report: Report, verbose: bool = False) -> str:
    out: List[str] = []
    host = (report.host or {}).get("hostname") or "?"
    out.append("# " + _("ascend-doctor report: {host}").format(host=escape(host)))
    out.append("")
    out.append("| | |")
    out.append("|---|---|")
    for label, value in run_header(report):
        out.append(f"| {label} | {cell(value)} |")
    out.append("")
    counts = " · ".join(f"{n} {status}" for status, n in summary_parts(report))
    out.append(f"**{verdict(report)}**: {counts} " + _("(exit code {code})").format(code=int(report.exit_code)))
    out.append("")
    sentence, follows = root_cause_sentence(report)
    if sentence:
        out.append(f"**{escape(sentence)}**")
        if follows:
            out.append(escape(_("Follows from it: {names}").format(names=", ".join(follows))))
        out.append("")
    first = start_with(report)
    if first is not None and CHECK_ID_RE.match(first.id):
        out.append(_("Start with {id}: {title} (`ascend-doctor explain {id}`)").format(
            id=first.id, title=escape(first.title)))
        out.append("")
    out.append(escape(coverage_sentence(report)))
    out.append("")
    asks = questions(report)
    if asks:
        out.append(escape(_("To judge more, ask for the output of these commands:")))
        out.append("")
        out.extend(fence("\n".join(asks)))
        out.append("")
    parts = facts_parts(report)
    if parts:
        out.append(labelled(_("Machine:")) + escape(' · '.join(parts)))
        out.append("")
    for note in report.notes:
        out.append(f"> **{_('note:')}** {escape(note)}")
        out.append("")
    out.extend(_summary_table(report))
    out.extend(_devices_table(report))
    out.extend(_nodes_table(report))
    out.extend(_findings(report, verbose))
    out.extend(_fix_plan(report))
    out.extend(_other_checks(report))
    return "\n".join(out).rstrip("\n") + "\n"


def _summary_table(report: Report) -> List[str]:
    lines = ["## " + _("Summary"), "", f"| {_('Status')} | {_('Results')} |", "|---|---:|"]
    lines.extend(f"| {status} | {n} |" for status, n in summary_parts(report))
    lines.append("")
    return lines


def _devices_table(report: Report) -> List[str]:
    found = devices(report)
    if not found:
        return []
    heads = ("NPU", _("Name"), _("Health"), _("Temp (°C)"), _("Power (W)"), _("Memory (MB)"), _("Bus"))
    lines = ["## " + _("Devices"), "", "| " + " | ".join(heads) + " |", "|---|---|---|---:|---:|---:|---|"]
    for device in found:
        used, total, label = memory_of(device)
        memory = f"{label} {_num(used)} / {_num(total)}" if total else "?"
        lines.append(f"| {cell(device_label(device))} | {cell(device.get('name') or '?')} "
                     f"| {cell(device.get('health') or '?')} | {_num(number(device.get('temp_c')))} "
                     f"| {_num(number(device.get('power_w')))} | {cell(memory)} "
                     f"| {cell(device.get('bus_id') or '')} |")
    lines.append("")
    return lines


def _nodes_table(report: Report) -> List[str]:
    """A fleet report's nodes, one row each."""
    from ascend_doctor.render.common import node_row, nodes

    rows = [node_row(n) for n in nodes(report)]
    if not rows:
        return []
    heads = (_("Node"), _("Devices"), _("Health"), _("Verdict"), _("Differs from the fleet in"), _("Worst finding"))
    lines = ["## " + _("Nodes ({count})").format(count=len(rows)), "", "| " + " | ".join(heads) + " |",
             "|---|---:|---|---|---|---|"]
    lines.extend("| " + " | ".join(cell(value) for value in row) + " |" for row in rows)
    lines.append("")
    return lines


def _num(value: object) -> str:
    if not isinstance(value, float):
        return "?"
    return f"{value:g}"


def _findings(report: Report, verbose: bool) -> List[str]:
    chosen = findings(report)
    if not chosen:
        return ["## " + _("Findings"), "", _("No FAIL, ERROR, WARN or INFO results."), ""]
    lines = ["## " + _("Findings"), ""]
    for result in chosen:
        lines.extend(_finding(result, verbose))
    return lines


def _finding(result: Result, verbose: bool) -> List[str]:
    lines = [f"### {result.status.value} {escape(result_name(result))}: {escape(result.title)}", ""]
    lines.append(escape(result.message))
    lines.append("")
    if result.remediation:
        # Prose as text, commands alone in the fence: what a fence holds can be pasted into a shell.
        prose, commands = split_remediation(result)
        lines.append(labelled(_("Fix:")) + escape("\n".join(prose)) if prose else _("Fix:"))
        lines.append("")
        if commands:
            lines.extend(fence("\n".join(commands)))
            lines.append("")
    if verbose and result.evidence:
        lines.append(_("Evidence:"))
        lines.append("")
        lines.extend(fence("\n".join(f"{k}: {clean(v)[:500]}" for k, v in result.evidence.items())))
        lines.append("")
    return lines


def _fix_plan(report: Report) -> List[str]:
    if not report.fix_plan:
        return []
    lines = ["## " + _("Fix plan"), "", _("Apply in this order:"), ""]
    for step in report.fix_plan:
        where = where_label(step.where)
        head = f"{step.order}. **{escape(step.summary)}**"
        if where:
            head += f" ({where})"
        lines.append(head)
        if step.commands:
            lines.append("")
            lines.extend("   " + line for line in fence("\n".join(step.commands)))
        for name, text in ((_("fixes:"), ", ".join(step.fixes)), (_("why:"), step.why),
                           (_("alternative:"), step.alternative)):
            if text:
                lines.append("")
                lines.append("   " + labelled(name) + escape(text))
        lines.append("")
    return lines


def _other_checks(report: Report) -> List[str]:
    shown, folded = quiet_results(report)
    if not shown and not folded:
        return []
    lines = ["## " + _("Passed and skipped"), ""]
    if shown:
        lines.extend([f"| {_('Status')} | {_('Check')} | {_('Title')} | {_('Result')} |", "|---|---|---|---|"])
        lines.extend(_rows(shown))
        lines.append("")
    if folded:
        lines.append(escape(folded_line(folded)))
        lines.append("")
    return lines


def _rows(results: Iterable[Result]) -> List[str]:
    return [f"| {r.status.value} | {cell(result_name(r))} | {cell(r.title)} | {cell(r.message)} |"
            for r in results]
