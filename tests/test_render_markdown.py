"""`--format markdown`: what ticket systems show (summary table, findings with fenced fixes, fix plan)."""

from __future__ import annotations

import re
from typing import List, Tuple

import pytest

from ascend_doctor.checkapi import Status
from ascend_doctor.render import render_report
from ascend_doctor.render.common import split_remediation
from ascend_doctor.render.markdown import escape, fence, report_to_markdown
from ascend_doctor.report import Report, Result
from ascend_doctor.reportio import report_from_dict

from .render_util import HOSTILE, SCENARIOS, downgrade_to_v1, every_status_report, report_dict, report_of


def fenced_blocks(markdown: str) -> List[Tuple[int, int, str]]:
    """(start line, end line, body) of each fenced code block, CommonMark-style (a closing fence is
    at least as long as the opening one); an unclosed fence fails the test."""
    lines = markdown.split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        opening = re.match(r"^ {0,3}(`{3,})\s*$", lines[i])
        if not opening:
            i += 1
            continue
        ticks = len(opening.group(1))
        for j in range(i + 1, len(lines)):
            closing = re.match(r"^ {0,3}(`{3,})\s*$", lines[j])
            if closing and len(closing.group(1)) >= ticks:
                blocks.append((i, j, "\n".join(line[3:] if line.startswith("   ") else line
                                               for line in lines[i + 1:j])))
                i = j + 1
                break
        else:
            raise AssertionError(f"fence opened at line {i + 1} is never closed")
    return blocks


def outside_fences(markdown: str) -> str:
    lines = markdown.split("\n")
    inside = set()
    for start, end, _ in fenced_blocks(markdown):
        inside.update(range(start, end + 1))
    return "\n".join(line for n, line in enumerate(lines) if n not in inside)


@pytest.mark.parametrize("fixture", SCENARIOS)
def test_markdown_of_every_scenario(fixture: str) -> None:
    report = report_of(fixture)
    text = report_to_markdown(report)
    assert text.startswith(f"# ascend-doctor report: {escape(report.host['hostname'])}\n")
    # tool and matrix versions and the time of the run
    assert f"| ascend-doctor | {report.tool_version} |" in text
    assert report.matrix["version"] in text and report.started_at in text
    # summary table with every status count
    for status, count in report.summary().items():
        if status != "INFO" or count:
            assert f"| {status} | {count} |" in text
    # each finding, worst first, with its fix in a fence
    blocks = [body for _, _, body in fenced_blocks(text)]
    positions = []
    for result in report.results:
        if result.status in (Status.FAIL, Status.ERROR, Status.WARN, Status.INFO):
            heading = f"### {result.status.value} {result.id}"
            assert heading in text, heading
            positions.append((result.status, text.index(heading)))
            commands = split_remediation(result)[1]
            if commands:  # the fence holds the commands, and nothing else of the remediation
                assert "\n".join(commands) in blocks, result.id
    rank = {Status.FAIL: 0, Status.ERROR: 1, Status.WARN: 2, Status.INFO: 3}
    ordered = [status for status, _ in sorted(positions, key=lambda p: p[1])]
    assert ordered == sorted(ordered, key=lambda s: rank[s])
    if report.facts.get("devices"):
        assert "## Devices" in text and text.count("| NPU ") >= len(report.facts["devices"]) + 1


def test_markdown_sections_come_in_order_and_fix_plan_has_commands() -> None:
    text = report_to_markdown(every_status_report())
    order = [text.index(h) for h in ("## Summary", "## Devices", "## Findings", "## Fix plan", "## Passed and skipped")]
    assert order == sorted(order)
    findings = [m.group(1) for m in re.finditer(r"^### (\w+) ", text, re.MULTILINE)]
    assert findings == ["FAIL", "ERROR", "WARN", "INFO"]
    plan = text[text.index("## Fix plan"):text.index("## Passed and skipped")]
    assert "1. **Install driver 24.1.rc3" in plan and "(in the container)" in plan
    plan_blocks = [body for _, _, body in fenced_blocks(plan)]
    assert "./Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run --full\nreboot" in plan_blocks
    assert "why: CANN 8.0.0 needs it" in plan and "alternative: install CANN 7.0 instead" in plan
    # SKIPs for inputs not given are one line, not a row each
    assert "1 check not run: it needs --model DIR" in text and "ASC-MDL-001" not in text


def _with_remediation(report: Report, remediation: str) -> Report:
    first = report.results[0]
    report.results[0] = Result(first.id, first.title, Status.FAIL, first.message, remediation)
    return report


def test_untrusted_text_cannot_format_or_inject_markup() -> None:
    text = report_to_markdown(every_status_report())
    prose = outside_fences(text)
    assert "<script>" not in prose and "\\<script\\>" in prose
    assert "**bold**" not in prose and "\\*\\*bold\\*\\*" in prose
    assert "[l](http" not in prose and "\x1b" not in text and "\x01" not in text
    # a remediation's prose with ``` inside cannot open a fence; its commands with ``` stay in one longer fence
    assert "\\`\\`\\`" in prose
    fenced = report_to_markdown(_with_remediation(every_status_report(), "Then run:\n  echo ```\n  echo done"))
    assert any(body == "echo ```\necho done" for _, _, body in fenced_blocks(fenced))
    # table cells cannot be split by a | from the machine
    for line in text.split("\n"):
        if line.startswith("| ") and "alert" in line:
            assert "\\|" in line


def test_escape_and_fence_rules() -> None:
    assert escape("# not a heading") == "\\# not a heading"
    assert escape("1. not a list") == "1\\. not a list"
    assert escape("a\nb") == "a  \nb"
    assert fence("x ```` y") == ["`````", "x ```` y", "`````"]
    assert escape(HOSTILE).count("<") == escape(HOSTILE).count("\\<")


def test_schema_v1_report_renders_as_markdown() -> None:
    old = report_from_dict(downgrade_to_v1(report_dict("cann-newer-than-driver")), "v1")
    text = render_report(old, "markdown")
    assert "## Findings" in text and "ASC-CANN-002" in text and "## Fix plan" not in text
