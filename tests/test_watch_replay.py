"""`ascend-doctor watch --replay` end to end on the planted sequence (tests/samples/watch/planted,
real 2x 910B2C captures with values changed by build_planted.py): exactly the planted alerts,
valid JSON lines, a Prometheus file that the Prometheus parser reads, the --on-alert hook."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ascend_doctor.cli import main

from .clirunner import make_runner

SAMPLES = Path(__file__).resolve().parent / "samples"
PLANTED = SAMPLES / "watch" / "planted"
GPUSTAT = SAMPLES / "npu-smi-info" / "gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt"

# (sample number, event, kind, level, NPU, PID): what build_planted.py planted, nothing else.
# The idle chip (AICore 4, 2, 0, 0 %) is not planted by default: nobody said load was applied.
PLANTED_ALERTS: List[Tuple[int, str, str, str, int, Any]] = [
    (4, "raise", "temperature", "WARN", 1, None),
    (5, "raise", "health", "WARN", 0, None),
    (6, "clear", "temperature", "WARN", 1, None),
    (7, "clear", "health", "WARN", 0, None),
    (7, "raise", "leak", "WARN", 1, 33777),
    (8, "raise", "memory_growth", "WARN", 0, None),
    (8, "raise", "second_process", "WARN", 0, None),
    (10, "clear", "memory_growth", "WARN", 0, None),
    (10, "clear", "second_process", "WARN", 0, None),
]


def watch(*args: str) -> Any:
    runner = make_runner()
    return runner.invoke(main, ["watch", *args], catch_exceptions=False)


def json_lines(text: str) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_replay_raises_exactly_the_planted_alerts_in_json() -> None:
    result = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json")
    assert result.exit_code == 1, result.stderr  # the leak is still raised at the end
    records = json_lines(result.stdout)
    samples = [r for r in records if r["type"] == "sample"]
    alerts = [r for r in records if r["type"] == "alert"]
    assert [s["seq"] for s in samples] == list(range(1, 15))
    assert len(records) == len(samples) + len(alerts)
    got = [(a["seq"], a["event"], a["kind"], a["level"], a["npu"], a["pid"]) for a in alerts]
    assert got == PLANTED_ALERTS
    leak = next(a for a in alerts if a["kind"] == "leak")
    assert leak["unit"] == "MB/h" and 280 <= leak["value"] <= 320 and "MB/h" in leak["message"]
    # Each alert follows the sample that caused it.
    order = [(r["type"], r["seq"]) for r in records]
    for alert in alerts:
        assert order.index(("alert", alert["seq"])) > order.index(("sample", alert["seq"]))


def test_json_samples_are_one_object_per_line_with_every_chip_field() -> None:
    result = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json", "--count", "8")
    samples = [r for r in json_lines(result.stdout) if r["type"] == "sample"]
    assert len(samples) == 8
    chip = samples[-1]["chips"][0]
    assert set(chip) >= {"npu", "chip", "name", "health", "temperature_c", "power_w", "aicore_pct",
                         "memory_used_mb", "memory_total_mb", "memory_used_pct", "processes"}
    assert chip["memory_used_pct"] == pytest.approx(96.04, abs=0.01)
    assert chip["processes"][2] == {"pid": 60575, "name": "python", "memory_mb": 27200}
    assert samples[0]["host"] == "planted" and samples[0]["stale"] is False
    assert samples[1]["elapsed_s"] - samples[0]["elapsed_s"] == 300


def test_text_mode_prints_plain_lines_and_alerts_on_stderr() -> None:
    result = watch("--replay", str(PLANTED), "--interval", "300")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 28  # 14 samples x 2 chips
    assert "NPU 1 chip 0 910B2C OK 86C" in lines[7] and "33777 VLLMWorker_TP" in lines[7]
    alert_lines = result.stderr.splitlines()
    assert len(alert_lines) == len(PLANTED_ALERTS)
    assert "ALERT WARN temperature: NPU 1 chip 0 (910B2C): temperature 86 C, above 85 C" in alert_lines[0]
    assert "CLEAR WARN memory_growth" in alert_lines[7]


def test_thresholds_are_overridable() -> None:
    result = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json", "--temp-max", "90",
                   "--hbm-growth", "50", "--leak-min-rate", "1000")
    kinds = [(r["seq"], r["kind"]) for r in json_lines(result.stdout) if r["type"] == "alert"]
    assert kinds == [(5, "health"), (7, "health"), (8, "second_process"), (10, "second_process")]
    assert result.exit_code == 0
    ceiling = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json", "--hbm-max", "95")
    memory = [(r["seq"], r["event"], r["level"]) for r in json_lines(ceiling.stdout) if r.get("kind") == "memory"]
    assert memory == [(8, "raise", "WARN"), (10, "clear", "WARN")]


def test_low_aicore_alerts_only_when_load_is_applied() -> None:
    idle = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json")
    assert "aicore" not in [r.get("kind") for r in json_lines(idle.stdout)]
    loaded = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json", "--load")
    aicore = [(r["seq"], r["event"], r["level"]) for r in json_lines(loaded.stdout) if r.get("kind") == "aicore"]
    assert aicore == [(11, "raise", "WARN")]  # 5 min below 30 % = one sample at a 300 s interval
    counted = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json", "--load",
                    "--aicore-samples", "3")
    assert [r["seq"] for r in json_lines(counted.stdout) if r.get("kind") == "aicore"] == [13]


def test_count_once_and_a_short_interval_that_hides_the_leak() -> None:
    once = watch("--replay", str(PLANTED), "--once", "--format", "json")
    assert once.exit_code == 0 and len(json_lines(once.stdout)) == 1
    # Captures 10 s apart: 14 of them span 130 s, far from half the 1 h window: no leak.
    fast = watch("--replay", str(PLANTED), "--format", "json")
    assert "leak" not in [r.get("kind") for r in json_lines(fast.stdout)]


def test_prometheus_file_parses_with_labels_for_every_chip(tmp_path: Path) -> None:
    prom = tmp_path / "ascend.prom"
    result = watch("--replay", str(PLANTED), "--interval", "300", "--count", "8", "--prometheus", str(prom),
                   "--hostname", "node-7")
    assert result.exit_code == 1
    text = prom.read_text()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for name in ("ascend_npu_temperature_celsius", "ascend_npu_health_code", "ascend_npu_power_watts",
                 "ascend_npu_aicore_utilization_ratio", "ascend_npu_memory_used_bytes",
                 "ascend_npu_process_memory_bytes", "ascend_watch_alert_active", "ascend_watch_sample_fresh"):
        assert name in families, name
        assert families[name].type == "gauge" and families[name].documentation
    temps = {(s.labels["npu"], s.labels["chip"]): s for s in families["ascend_npu_temperature_celsius"].samples}
    assert set(temps) == {("0", "0"), ("1", "0")}
    assert temps[("0", "0")].labels == {"host": "node-7", "npu": "0", "chip": "0", "name": "910B2C"}
    used = {s.labels["npu"]: s.value for s in families["ascend_npu_memory_used_bytes"].samples}
    assert used["0"] == 62938 * 1024 * 1024
    active = {(s.labels["kind"], s.labels["npu"]) for s in families["ascend_watch_alert_active"].samples}
    assert active == {("memory_growth", "0"), ("second_process", "0"), ("leak", "1")}
    assert "# HELP" in text and "# TYPE" in text
    assert sorted(os.listdir(tmp_path)) == ["ascend.prom"]  # no temporary file left behind


def test_prometheus_refuses_to_replace_anything_but_a_regular_file(tmp_path: Path) -> None:
    target = tmp_path / "metrics.prom"
    target.mkdir()
    result = watch("--replay", str(PLANTED), "--once", "--prometheus", str(target))
    assert result.exit_code == 2 and "not a regular file" in result.stderr
    link = tmp_path / "link.prom"
    os.symlink(tmp_path / "elsewhere", link)
    assert watch("--replay", str(PLANTED), "--once", "--prometheus", str(link)).exit_code == 2
    missing = watch("--replay", str(PLANTED), "--once", "--prometheus", str(tmp_path / "no" / "x.prom"))
    assert missing.exit_code == 2 and "does not exist" in missing.stderr


def test_on_alert_gets_each_alert_as_json_on_stdin(tmp_path: Path) -> None:
    got = tmp_path / "alerts.jsonl"
    hook = f"{sys.executable} -c \"import sys; open({str(got)!r}, 'a').write(sys.stdin.read())\""
    result = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json", "--on-alert", hook)
    assert result.exit_code == 1, result.stderr
    received = json_lines(got.read_text())
    assert [(a["seq"], a["event"], a["kind"]) for a in received] == [(s, e, k) for s, e, k, *_ in PLANTED_ALERTS]


def test_a_failing_or_hanging_hook_is_reported_and_never_blocks_the_loop(tmp_path: Path) -> None:
    failing = watch("--replay", str(PLANTED), "--interval", "300", "--count", "5", "--on-alert",
                    f"{sys.executable} -c \"import sys; sys.exit(3)\"")
    assert failing.exit_code == 1
    assert failing.stderr.count("exited with status 3") == 2  # two alerts by sample 5
    missing = watch("--replay", str(PLANTED), "--count", "5", "--interval", "300", "--on-alert",
                    str(tmp_path / "no-such-hook"))
    assert "command not found" in missing.stderr and missing.exit_code == 1
    hanging = watch("--replay", str(PLANTED), "--count", "4", "--interval", "300", "--on-alert-timeout", "0.3",
                    "--on-alert", f"{sys.executable} -c \"import time; time.sleep(30)\"")
    assert "no exit within 0.3 s, killed" in hanging.stderr and hanging.exit_code == 1
    bad = watch("--replay", str(PLANTED), "--once", "--on-alert", "unbalanced 'quote")
    assert bad.exit_code == 2 and "cannot split" in bad.stderr


def test_output_file_gets_the_stream(tmp_path: Path) -> None:
    out = tmp_path / "watch.jsonl"
    out.write_text("old content that must go\n")
    result = watch("--replay", str(PLANTED), "--interval", "300", "--format", "json", "-o", str(out))
    assert result.stdout == "" and result.exit_code == 1
    assert len(json_lines(out.read_text())) == 14 + len(PLANTED_ALERTS)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused = watch("--replay", str(PLANTED), "--once", "-o", str(fifo))
    assert refused.exit_code == 2 and "not a regular file" in refused.stderr


def test_a_replayed_hang_is_a_stale_sample_then_recovery(tmp_path: Path) -> None:
    replay = tmp_path / "replay"
    replay.mkdir()
    shutil.copy(GPUSTAT, replay / "0001.txt")
    (replay / "0002.timeout").write_text("10\n")
    shutil.copy(GPUSTAT, replay / "0003.txt")
    prom = tmp_path / "out.prom"  # not inside the replay folder: that is refused
    result = watch("--replay", str(replay), "--format", "json", "--aicore-min", "0", "--count", "2",
                   "--prometheus", str(prom))
    records = json_lines(result.stdout)
    stale = records[1]
    assert stale["type"] == "sample" and stale["stale"] is True and stale["status"] == "timeout"
    assert records[2]["kind"] == "sample" and records[2]["event"] == "raise"
    families = {f.name: f for f in text_string_to_metric_families(prom.read_text())}
    assert families["ascend_watch_sample_fresh"].samples[0].value == 0
    assert "ascend_npu_temperature_celsius" not in families or not families["ascend_npu_temperature_celsius"].samples
    assert result.exit_code == 1  # the stale-sample alert is still raised
    full = watch("--replay", str(replay), "--format", "json", "--aicore-min", "0")
    kinds = [(r["event"], r["kind"]) for r in json_lines(full.stdout) if r["type"] == "alert"]
    assert kinds == [("raise", "sample"), ("clear", "sample")] and full.exit_code == 0


def test_only_hung_captures_means_nothing_was_read(tmp_path: Path) -> None:
    (tmp_path / "0001.timeout").write_text("10\n")
    result = watch("--replay", str(tmp_path), "--format", "json")
    assert result.exit_code == 3


def test_usage_errors_are_one_line() -> None:
    both = watch("--replay", str(PLANTED), "--once", "--count", "2")
    assert both.exit_code == 2
    absent = watch("--replay", "/nonexistent/captures")
    assert absent.exit_code == 2 and absent.stderr.count("\n") == 1 and "no such directory" in absent.stderr


def test_docs_show_the_output_of_the_current_code() -> None:
    """docs/watch.md pastes a real run on the planted replay; times differ, the rest must not."""
    import re

    doc = (Path(__file__).resolve().parent.parent / "docs" / "watch.md").read_text(encoding="utf-8")
    result = watch("--replay", str(PLANTED), "--interval", "300")

    def untimed(text: str) -> List[str]:
        return [re.sub(r"^\d\d:\d\d:\d\d ", "", line) for line in text.splitlines()]

    doc_lines = set(untimed(doc))
    missing = [line for line in untimed(result.stdout) + untimed(result.stderr) if line not in doc_lines]
    assert not missing, f"docs/watch.md is stale (regenerate its examples): {missing[:2]}"


SERVING = SAMPLES / "watch" / "serving"
GROWING = SAMPLES / "watch" / "growing"


def test_a_healthy_serving_node_at_93_percent_hbm_raises_nothing() -> None:
    """tests/samples/watch/build_serving.py: an engine's reservation (93 %), idle AICore, ECC steady."""
    result = watch("--replay", str(SERVING), "--interval", "300", "--format", "json", "--ecc")
    records = json_lines(result.stdout)
    samples = [r for r in records if r["type"] == "sample"]
    assert len(samples) == 8 and samples[-1]["chips"][0]["memory_used_pct"] == pytest.approx(93.0, abs=0.01)
    assert samples[-1]["ecc"] == [{"npu": 0, "chip": 0, "single_bit": 0, "double_bit": 0, "retired_pages": 0},
                                  {"npu": 1, "chip": 0, "single_bit": 0, "double_bit": 0, "retired_pages": 0}]
    assert [r for r in records if r["type"] == "alert"] == [] and result.exit_code == 0


def test_a_growing_serving_node_raises_growth_and_ecc() -> None:
    result = watch("--replay", str(GROWING), "--interval", "300", "--format", "json", "--ecc")
    alerts = [(a["seq"], a["event"], a["kind"], a["level"], a["npu"]) for a in json_lines(result.stdout)
              if a["type"] == "alert"]
    assert (7, "raise", "memory_growth", "WARN", 0) in alerts
    assert (9, "raise", "ecc", "FAIL", 1) in alerts
    assert {kind for _, _, kind, _, _ in alerts} <= {"memory_growth", "leak", "ecc"}
    assert result.exit_code == 1
    without_ecc = watch("--replay", str(GROWING), "--interval", "300", "--format", "json")
    assert "ecc" not in [r.get("kind") for r in json_lines(without_ecc.stdout)]
