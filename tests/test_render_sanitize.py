"""Nothing reaches the terminal raw: one sanitizer (render/sanitize.py) at the render boundary,
fed a hostile report and hostile input through every text renderer.

Findings of ../shared/research/hostile_inputs_2.md: defect 10 (raw ESC/OSC from an npu-smi process
name in ``watch``'s plain lines, live table and Prometheus labels; from a report's host name,
messages and facts in ``report render``; from a host name in the ``fleet`` Fix plan "fixes:" line),
the minor findings "a value with a newline forges report lines" and "bidi override and zero-width
characters pass into text".
"""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path
from typing import Iterator, List

import pytest

from ascend_doctor.cli import main
from ascend_doctor.render.sanitize import is_safe, visible, visible_lines

from .clirunner import make_runner
from .samples_util import sample_body

REPO = Path(__file__).resolve().parent.parent
NODE = REPO / "fixtures" / "fleet-16" / "node03"
GPUSTAT = "npu-smi-info/gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt"

# What the review planted: a clear-screen, a window title (OSC ... BEL), colours, the 8-bit CSI,
# a bidi override, a zero-width space, a carriage return, and a newline that starts a fake line.
HOSTILE = "x\x1b[2J\x1b]0;PWNT\x07\x1b[31m\x9b2J\u202eevil\u200b\r\nFAKE: PASS"
# A message may have paragraphs: the renderer indents every line of it, so a newline inside a
# message stays under the message. A line of the report's own (a result, a step, the summary)
# starts at the margin or at a step number: that is where a forged line must never appear.
FORGED = re.compile(r"^(?:FAKE|\s*\d+\. FAKE)", re.MULTILINE)


def invoke(*args: str, stdin: str = ""):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), input=stdin, catch_exceptions=False)


def assert_shown_not_obeyed(output: str) -> None:
    assert is_safe(output), [c for c in output if not is_safe(c)]
    assert "^[" in output  # the escape is shown, not dropped: what was tried is evidence
    assert FORGED.search(output) is None, output


def test_the_sanitizer_shows_every_control() -> None:
    assert visible("a\x1b[2Jb") == "a^[[2Jb"
    assert visible("t\x1b]0;T\x07") == "t^[]0;T^G"
    assert visible("1\n2\r3\t4") == "1^J2^M3\t4"
    assert visible("\x7f\x9b\u202e\u200b\ufeff") == "^?<U+009B><U+202E><U+200B><U+FEFF>"
    assert visible_lines("one\ntwo\x1b") == "one\ntwo^["
    assert visible("中文 · ×") == "中文 · ×"  # printable text is untouched


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real report (node03 has findings and a fix plan) with hostile text in every text field."""
    folder = tmp_path_factory.mktemp("hostile")
    clean = folder / "clean.json"
    assert invoke("check", "--from", str(NODE), "--format", "json", "-o", str(clean)).exit_code == 1
    data = json.loads(clean.read_text())
    data["host"]["hostname"] = "node" + HOSTILE
    data["host"]["arch"] = HOSTILE
    data["facts"]["driver_version"] = "24.1" + HOSTILE
    data["notes"] = ["a note" + HOSTILE]
    for result in data["results"]:
        result["message"] += HOSTILE
        result["title"] += HOSTILE
        result["scope"] = "npu 0" + HOSTILE
        if result.get("remediation"):
            result["remediation"] += HOSTILE
        result["evidence"]["planted"] = HOSTILE
    for step in data["fix_plan"]:
        step["summary"] += HOSTILE
        step["fixes"] = [f + HOSTILE for f in step["fixes"]]
        step["commands"] = [c + HOSTILE for c in step["commands"]]
        step["why"] = HOSTILE
    hostile = folder / "hostile.json"
    hostile.write_text(json.dumps(data))
    return hostile


def test_F10_report_render_text_shows_escapes(hostile_report: Path) -> None:
    for extra in ((), ("-v",)):
        result = invoke("report", "render", str(hostile_report), *extra)
        assert result.exit_code == 0, result.output
        assert_shown_not_obeyed(result.output)


def test_F10_report_render_text_to_a_file_and_on_a_terminal(hostile_report: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.txt"
    assert invoke("report", "render", str(hostile_report), "-o", str(out)).exit_code == 0
    assert_shown_not_obeyed(out.read_text())
    # the coloured terminal path (rich): the report's own colours only, never the report's escapes
    from ascend_doctor.render import prepare_report
    from ascend_doctor.render.text import make_console, render_text
    from ascend_doctor.reportio import read_report_file

    buffer = io.StringIO()
    render_text(prepare_report(read_report_file(str(hostile_report))), make_console(buffer, color=True, width=100),
                verbose=True)
    shown = buffer.getvalue()
    assert "PWNT" in shown and "\x1b]" not in shown and "\x1b[2J" not in shown and "\u202e" not in shown
    assert FORGED.search(re.sub(r"\x1b\[[0-9;]*m", "", shown)) is None


def test_F10_fleet_text_shows_escapes_in_node_names_and_fixes(hostile_report: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    data = json.loads(hostile_report.read_text())
    data["host"]["hostname"] = "node\x1b]0;T\x07two"
    other.write_text(json.dumps(data))
    result = invoke("fleet", str(hostile_report), str(other))
    assert result.exit_code in (1, 3), result.output
    assert_shown_not_obeyed(result.output)
    assert "node^[]0;T^Gtwo" in result.output


def test_report_diff_text_shows_escapes(hostile_report: Path) -> None:
    clean = hostile_report.parent / "clean.json"
    result = invoke("report", "diff", str(clean), str(hostile_report))
    assert result.exit_code in (0, 1), result.output
    assert_shown_not_obeyed(result.output)


@pytest.mark.parametrize("fmt", ["markdown", "html", "junit"])
def test_other_formats_carry_no_raw_control_either(hostile_report: Path, fmt: str) -> None:
    result = invoke("report", "render", str(hostile_report), "--format", fmt)
    assert result.exit_code == 0
    assert "\x1b" not in result.output and "\x9b" not in result.output and "\u202e" not in result.output


def test_diagnose_text_shows_escapes_from_log_lines(tmp_path: Path) -> None:
    log = tmp_path / "plog.log"
    log.write_text("[ERROR] RUNTIME(1234) EI0002: The wait execution of the Notify register times out."
                   + HOSTILE + "\n")
    result = invoke("diagnose", str(log))
    assert result.exit_code in (0, 1), result.output
    assert is_safe(result.output) and FORGED.search(result.output) is None


# -- watch: a process name any local user gives their own process --------------------------------

@pytest.fixture
def hostile_replay(tmp_path: Path) -> Iterator[Path]:
    replay = tmp_path / "replay"
    replay.mkdir()
    body = sample_body(GPUSTAT)
    name = "r\x1b[2J\x1b]0;PWNT\x07X"
    # keep the table's column layout: replace the name in place, padded to the same width
    planted = body.replace("rayWorkerDict", name + " " * max(0, len("rayWorkerDict") - len(name)), 1)
    assert planted != body
    (replay / "0001.txt").write_text(planted)
    yield replay
    shutil.rmtree(replay)


def test_F10_watch_plain_lines_show_the_escape(hostile_replay: Path, tmp_path: Path) -> None:
    result = invoke("watch", "--replay", str(hostile_replay), "--once", "--aicore-min", "0")
    assert "PWNT" in result.output, result.output
    assert is_safe(result.output) and "^[]0;PWNT^G" in result.output


def test_F10_watch_live_table_and_prometheus_show_the_escape(hostile_replay: Path, tmp_path: Path) -> None:
    from rich.console import Console

    from ascend_doctor.parsers.npu_smi import parse_npu_smi_info
    from ascend_doctor.render.prometheus import render_metrics
    from ascend_doctor.render.watch import build_table
    from ascend_doctor.watch.model import Sample, chips_from_info

    text = (hostile_replay / "0001.txt").read_text()
    sample = Sample(1, 1_700_000_000.0, 0.0, "host\x1b]0;T\x07", "ok", "", chips_from_info(parse_npu_smi_info(text)))
    console = Console(file=io.StringIO(), width=250, force_terminal=True, color_system="standard")
    console.print(build_table(sample, sample, []))
    drawn: str = console.file.getvalue()  # type: ignore[attr-defined]
    assert "PWNT" in drawn and "\x1b]" not in drawn and "\x1b[2J" not in drawn
    metrics = render_metrics(sample, [])
    assert "PWNT" in metrics and is_safe(metrics)


# -- every text renderer at once: whatever a renderer prints passes the boundary -------------------

def _texts(hostile_report: Path) -> List[str]:
    from ascend_doctor.render import prepare_report, report_as_text
    from ascend_doctor.reportio import read_report_file

    report = prepare_report(read_report_file(str(hostile_report)))
    return [report_as_text(report, "text", verbose) for verbose in (False, True)]


def test_every_text_renderer_of_a_report_is_safe(hostile_report: Path) -> None:
    for text in _texts(hostile_report):
        assert_shown_not_obeyed(text)
