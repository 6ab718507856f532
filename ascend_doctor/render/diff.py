"""``report diff`` output: text for people, Markdown for tickets, JSON (docs/report-diff-schema.json)."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from ascend_doctor.render.common import clean
from ascend_doctor.render.markdown import cell, escape, fence
from ascend_doctor.reportdiff import ReportDiff

DIFF_FORMATS = ("text", "json", "markdown")


def render_diff(diff: ReportDiff, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(diff.to_dict(), indent=2, ensure_ascii=False)
    if fmt == "markdown":
        return diff_to_markdown(diff)
    if fmt == "text":
        return diff_to_text(diff)
    raise ValueError(f"unknown diff format {fmt!r} (choose from {', '.join(DIFF_FORMATS)})")


def _name(record: Dict[str, Any]) -> str:
    return f"{record['id']} [{record['scope']}]" if record.get("scope") else str(record["id"])


def _side(side: Dict[str, Any]) -> str:
    return (f"{side.get('hostname') or '?'}, run {side.get('started_at') or '?'}, ascend-doctor "
            f"{side.get('tool_version') or '?'}, matrix {side.get('matrix_version') or '?'}, "
            f"exit code {side.get('exit_code')}")


def _verdict(diff: ReportDiff) -> str:
    count = len(diff.regressions)
    if count:
        return f"REGRESSION: {count} result(s) got worse (exit code 1)"
    if not diff.changed:
        return "no changes (exit code 0)"
    return "no regression (exit code 0)"


def diff_to_text(diff: ReportDiff) -> str:
    out: List[str] = [f"ascend-doctor report diff  ({_verdict(diff)})",
                      f"  old: {clean(_side(diff.old))}", f"  new: {clean(_side(diff.new))}"]
    out.extend(f"note: {clean(n)}" for n in diff.notes)
    if diff.versions:
        out += ["", "Versions"]
        out += [f"  {clean(v['name'])}: {clean(v['old'] or '-')} -> {clean(v['new'] or '-')}" for v in diff.versions]
    device_lines = _device_lines(diff)
    if device_lines:
        out += ["", "Devices"] + [f"  {clean(line)}" for line in device_lines]
    if diff.results_changed or diff.results_appeared or diff.results_disappeared:
        out += ["", "Results"]
        for change in diff.results_changed:
            mark = "  REGRESSION" if change["regression"] else ""
            out.append(f"  {change['old_status']} -> {change['new_status']}  {clean(_name(change))}: "
                       f"{clean(change['title'])}{mark}")
            out.append(f"      now: {clean(change['new_message'])}")
        for record in diff.results_appeared:
            mark = "  REGRESSION" if record["regression"] else ("  (new check)" if record["new_check"] else "")
            out.append(f"  new {record['status']}  {clean(_name(record))}: {clean(record['title'])}{mark}")
            out.append(f"      {clean(record['message'])}")
        for record in diff.results_disappeared:
            out.append(f"  gone {record['status']}  {clean(_name(record))}: {clean(record['title'])}")
    out.append(f"  {diff.results_unchanged} result(s) unchanged")
    if diff.plan_appeared or diff.plan_disappeared:
        out += ["", "Fix plan"]
        out += [f"  + {clean(s['summary'])}" for s in diff.plan_appeared]
        out += [f"  - {clean(s['summary'])}" for s in diff.plan_disappeared]
    return "\n".join(out) + "\n"


def _device_lines(diff: ReportDiff) -> List[str]:
    lines = [f"+ {d['device']}: {d.get('name')} ({d.get('health')})" for d in diff.devices_appeared]
    lines += [f"- {d['device']}: {d.get('name')} ({d.get('health')})" for d in diff.devices_disappeared]
    lines += [f"~ {c['device']} {c['field']}: {c['old']} -> {c['new']}" for c in diff.devices_changed]
    return lines


def diff_to_markdown(diff: ReportDiff) -> str:
    out: List[str] = ["# ascend-doctor report diff", "", f"**{escape(_verdict(diff))}**", "",
                      "| | |", "|---|---|", f"| old | {cell(_side(diff.old))} |",
                      f"| new | {cell(_side(diff.new))} |", ""]
    for note in diff.notes:
        out += [f"> **note:** {escape(note)}", ""]
    if diff.versions:
        out += ["## Versions", "", "| Component | Old | New |", "|---|---|---|"]
        out += [f"| {cell(v['name'])} | {cell(v['old'] or '-')} | {cell(v['new'] or '-')} |" for v in diff.versions]
        out.append("")
    device_lines = _device_lines(diff)
    if device_lines:
        out += ["## Devices", ""] + [f"- {cell(line)}" for line in device_lines] + [""]
    out += ["## Results", ""]
    rows = []
    for change in diff.results_changed:
        rows.append(f"| {change['old_status']} → {change['new_status']} | {cell(_name(change))} "
                    f"| {cell(change['title'])} | {'**yes**' if change['regression'] else ''} "
                    f"| {cell(change['new_message'])} |")
    for record in diff.results_appeared:
        rows.append(f"| new {record['status']} | {cell(_name(record))} | {cell(record['title'])} "
                    f"| {'**yes**' if record['regression'] else ''} | {cell(record['message'])} |")
    for record in diff.results_disappeared:
        rows.append(f"| gone ({record['status']}) | {cell(_name(record))} | {cell(record['title'])} | "
                    f"| {cell(record['message'])} |")
    if rows:
        out += ["| Change | Check | Title | Regression | Now |", "|---|---|---|---|---|"] + rows + [""]
    out += [f"{diff.results_unchanged} result(s) unchanged.", ""]
    if diff.plan_appeared or diff.plan_disappeared:
        out += ["## Fix plan", ""]
        for step in diff.plan_appeared:
            out.append(f"- new step: **{escape(step['summary'])}**")
            if step["commands"]:
                out += [""] + ["  " + line for line in fence("\n".join(step["commands"]))] + [""]
        out += [f"- step no longer needed: {escape(s['summary'])}" for s in diff.plan_disappeared]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
