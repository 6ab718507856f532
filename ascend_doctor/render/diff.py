"""``report diff`` output: text for people, Markdown for tickets, JSON (docs/report-diff-schema.json)."""

from __future__ import annotations

from typing import Any, Dict, List

from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n import translate
from ascend_doctor.i18n_text import Text, localized
from ascend_doctor.render.common import clean
from ascend_doctor.render.markdown import cell, escape, fence
from ascend_doctor.render.sanitize import visible
from ascend_doctor.reportdiff import ReportDiff

DIFF_FORMATS = ("text", "json", "markdown")


def render_diff(diff: ReportDiff, fmt: str) -> str:
    if fmt == "json":
        from ascend_doctor.render.json import json_document

        return json_document(diff.to_dict())
    if fmt == "markdown":
        return diff_to_markdown(diff)
    if fmt == "text":
        return diff_to_text(diff)
    from ascend_doctor.render import unknown_format

    raise unknown_format(fmt, DIFF_FORMATS)


def _shown(text: str) -> str:
    """A note of the diff (a ``Text``: English data in the JSON) in the current language."""
    return localized(text) if isinstance(text, Text) else translate(text)


def _name(record: Dict[str, Any]) -> str:
    return f"{record['id']} [{record['scope']}]" if record.get("scope") else str(record["id"])


def _side(side: Dict[str, Any]) -> str:
    return _("{host}, run {time}, ascend-doctor {version}, matrix {matrix}, exit code {code}").format(
        host=side.get("hostname") or "?", time=side.get("started_at") or "?", version=side.get("tool_version") or "?",
        matrix=side.get("matrix_version") or "?", code=side.get("exit_code"))


def _verdict(diff: ReportDiff) -> str:
    count = len(diff.regressions)
    if count:
        return _("REGRESSION: {count} result(s) got worse (exit code 1)").format(count=count)
    if not diff.changed:
        return _("no changes (exit code 0)")
    return _("no regression (exit code 0)")


def diff_to_text(diff: ReportDiff) -> str:
    out: List[str] = [f"ascend-doctor report diff  ({_verdict(diff)})",
                      f"  {_('old:')} {clean(_side(diff.old))}", f"  {_('new:')} {clean(_side(diff.new))}"]
    out.extend(f"{_('note:')} {clean(_shown(n))}" for n in diff.notes)
    if diff.versions:
        out += ["", _("Versions")]
        out += [f"  {clean(translate(v['name']))}: {clean(v['old'] or '-')} -> {clean(v['new'] or '-')}"
                for v in diff.versions]
    device_lines = _device_lines(diff)
    if device_lines:
        out += ["", _("Devices")] + [f"  {clean(line)}" for line in device_lines]
    if diff.results_changed or diff.results_appeared or diff.results_disappeared:
        out += ["", _("Results")]
        for change in diff.results_changed:
            mark = "  REGRESSION" if change["regression"] else ""
            out.append(f"  {change['old_status']} -> {change['new_status']}  {clean(_name(change))}: "
                       f"{clean(change['title'])}{mark}")
            out.append(f"      {_('now:')} {clean(change['new_message'])}")
        for record in diff.results_appeared:
            mark = "  REGRESSION" if record["regression"] else (f"  {_('(new check)')}" if record["new_check"] else "")
            out.append(f"  {_('new')} {record['status']}  {clean(_name(record))}: {clean(record['title'])}{mark}")
            out.append(f"      {clean(record['message'])}")
        for record in diff.results_disappeared:
            out.append(f"  {_('gone')} {record['status']}  {clean(_name(record))}: {clean(record['title'])}")
    out.append("  " + _("{count} result(s) unchanged").format(count=diff.results_unchanged))
    if diff.plan_appeared or diff.plan_disappeared:
        out += ["", _("Fix plan")]
        out += [f"  + {clean(s['summary'])}" for s in diff.plan_appeared]
        out += [f"  - {clean(s['summary'])}" for s in diff.plan_disappeared]
    # Every line is one line, nothing in it a terminal acts on (render/sanitize.py): a message with a
    # newline cannot start a line of its own.
    return "\n".join(visible(line) for line in out) + "\n"


def _device_lines(diff: ReportDiff) -> List[str]:
    lines = [f"+ {d['device']}: {d.get('name')} ({d.get('health')})" for d in diff.devices_appeared]
    lines += [f"- {d['device']}: {d.get('name')} ({d.get('health')})" for d in diff.devices_disappeared]
    lines += [f"~ {c['device']} {c['field']}: {c['old']} -> {c['new']}" for c in diff.devices_changed]
    return lines


def diff_to_markdown(diff: ReportDiff) -> str:
    out: List[str] = ["# ascend-doctor report diff", "", f"**{escape(_verdict(diff))}**", "",
                      "| | |", "|---|---|", f"| {_('old')} | {cell(_side(diff.old))} |",
                      f"| {_('new')} | {cell(_side(diff.new))} |", ""]
    for note in diff.notes:
        out += [f"> **{_('note:')}** {escape(_shown(note))}", ""]
    if diff.versions:
        out += ["## " + _("Versions"), "", f"| {_('Component')} | {_('Old')} | {_('New')} |", "|---|---|---|"]
        out += [f"| {cell(translate(v['name']))} | {cell(v['old'] or '-')} | {cell(v['new'] or '-')} |"
                for v in diff.versions]
        out.append("")
    device_lines = _device_lines(diff)
    if device_lines:
        out += ["## " + _("Devices"), ""] + [f"- {cell(line)}" for line in device_lines] + [""]
    out += ["## " + _("Results"), ""]
    rows = []
    for change in diff.results_changed:
        rows.append(f"| {change['old_status']} → {change['new_status']} | {cell(_name(change))} "
                    f"| {cell(change['title'])} | {'**' + _('yes') + '**' if change['regression'] else ''} "
                    f"| {cell(change['new_message'])} |")
    for record in diff.results_appeared:
        rows.append(f"| {_('new')} {record['status']} | {cell(_name(record))} | {cell(record['title'])} "
                    f"| {'**' + _('yes') + '**' if record['regression'] else ''} | {cell(record['message'])} |")
    for record in diff.results_disappeared:
        rows.append(f"| {_('gone')} ({record['status']}) | {cell(_name(record))} | {cell(record['title'])} | "
                    f"| {cell(record['message'])} |")
    if rows:
        heads = (_("Change"), _("Check"), _("Title"), _("Regression"), _("Now"))
        out += ["| " + " | ".join(heads) + " |", "|---|---|---|---|---|"] + rows + [""]
    out += [_("{count} result(s) unchanged.").format(count=diff.results_unchanged), ""]
    if diff.plan_appeared or diff.plan_disappeared:
        out += ["## " + _("Fix plan"), ""]
        for step in diff.plan_appeared:
            out.append("- " + _("new step:") + f" **{escape(step['summary'])}**")
            if step["commands"]:
                out += [""] + ["  " + line for line in fence("\n".join(step["commands"]))] + [""]
        out += ["- " + _("step no longer needed:") + f" {escape(s['summary'])}" for s in diff.plan_disappeared]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
