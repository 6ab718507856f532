"""What watch shows and writes: the live table, plain lines, the metrics file, the alert hook."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path
from typing import List

import pytest
from msgspec.structs import replace
from prometheus_client.parser import text_string_to_metric_families
from rich.console import Console

from ascend_doctor.parsers.npu_smi import parse_npu_smi_info
from ascend_doctor.render.prometheus import render_metrics
from ascend_doctor.render.watch import build_table, sample_lines
from ascend_doctor.watch.alerts import AlertTracker
from ascend_doctor.watch.model import Sample, chips_from_info
from ascend_doctor.watch.notify import AlertHook
from ascend_doctor.watch.prometheus import PrometheusFileError, write_atomically
from ascend_doctor.watch.thresholds import Thresholds

from .samples_util import sample_body


def real_sample(rel: str = "npu-smi-info/gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt") -> Sample:
    chips = chips_from_info(parse_npu_smi_info(sample_body(rel)))
    return Sample(1, 1_700_000_000.0, 0.0, "node-1", "ok", "", chips)


def stale_sample() -> Sample:
    return Sample(2, 1_700_000_010.0, 10.0, "node-1", "timeout", "`npu-smi info` did not answer within 10 s")


def render(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=200, force_terminal=False, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_table_shows_every_chip_and_marks_a_stale_sample() -> None:
    fresh = real_sample()
    tracker = AlertTracker(Thresholds(aicore_samples=1, load_applied=True), "node-1")
    tracker.update(fresh)  # AICore 6 % and 11 % with processes: two aicore alerts
    text = render(build_table(fresh, fresh, tracker.active_alerts()))
    assert "910B2C" in text and "33776 VLLMWorker_TP" in text and "HBM 35738/65536 MB (54.5%)" in text
    assert text.count("aicore") == 2
    stale = render(build_table(stale_sample(), fresh, []))
    assert "STALE" in stale and "did not answer" in stale and "910B2C" in stale  # last readable figures kept


def test_plain_lines_one_per_chip_or_one_for_a_stale_sample() -> None:
    lines = sample_lines(real_sample("npu-smi-info/vllm-ascend-4480-A3-16die-24.1.rc3.7.txt"))
    assert len(lines) == 16 and "processes ?" not in lines[0]
    assert sample_lines(stale_sample())[0].endswith("STALE `npu-smi info` did not answer within 10 s")
    cut = sample_lines(real_sample("npu-smi-info/ms-swift-8x910B3-24.1.rc1.b030-noproc-table.txt"))
    assert cut[0].endswith("processes ?")  # no process table: unknown, not "no processes"


def test_metrics_of_every_layout_parse_and_hostile_names_are_escaped() -> None:
    for rel in ("npu-smi-info/vllm-ascend-6063-4x300IDuo-8chips-odd-ids-25.3.rc1.txt",
                "npu-smi-info/fixture-7x950PR-25.7.rc1-npu-id-column-empty-procnames.txt",
                "npu-smi-info/fixture-A3-26.0.rc1-VLLMWorker_PP-container-pid-NA.txt"):
        families = list(text_string_to_metric_families(render_metrics(real_sample(rel), [])))
        assert families, rel
    sample = real_sample()
    chip = sample.chips[0]
    odd = replace(chip, name='9"10\\B\nx', processes=(replace(chip.processes[0], name='a"b\\c\nd'),))
    text = render_metrics(replace(sample, host='h"1', chips=(odd,)), [])
    families = {f.name: f for f in text_string_to_metric_families(text)}
    (proc,) = families["ascend_npu_process_memory_bytes"].samples
    assert proc.labels["process"] == 'a"b\\c\nd' and proc.labels["name"] == '9"10\\B\nx'
    assert proc.labels["host"] == 'h"1'


def test_metrics_file_is_replaced_atomically_and_only_over_a_regular_file(tmp_path: Path) -> None:
    target = tmp_path / "a.prom"
    write_atomically(str(target), "# first\n")
    inode = target.stat().st_ino
    write_atomically(str(target), render_metrics(real_sample(), []))
    assert target.stat().st_ino != inode  # a new file renamed over the old one, never rewritten in place
    assert os.listdir(tmp_path) == ["a.prom"]
    os.mkfifo(tmp_path / "fifo.prom")
    with pytest.raises(PrometheusFileError, match="not a regular file"):
        write_atomically(str(tmp_path / "fifo.prom"), "x\n")
    assert sorted(os.listdir(tmp_path)) == ["a.prom", "fifo.prom"]


def test_hook_never_blocks_the_caller_and_reports_failures() -> None:
    reports: List[str] = []
    hook = AlertHook([sys.executable, "-c", "import time; time.sleep(5)"], 0.5, reports.append)
    started = time.monotonic()
    for seq in range(3):
        hook.submit(f'{{"event": "raise", "kind": "temperature", "seq": {seq}}}\n', "raise temperature")
    assert time.monotonic() - started < 0.2  # submit returns at once
    assert hook.drain(0.1) is False  # still running
    hook.close()  # the watch ends: the running command is killed, the queued ones never run
    assert hook.drain(2.0)
    assert len(reports) == 1 and "stopped, the watch is ending" in reports[0]
    timing_out = AlertHook([sys.executable, "-c", "import time; time.sleep(5)"], 0.2, reports.append)
    timing_out.submit('{"event": "clear", "kind": "memory"}\n', "clear memory")
    assert timing_out.drain(5.0) and "(clear memory): no exit within 0.2 s, killed" in reports[-1]
