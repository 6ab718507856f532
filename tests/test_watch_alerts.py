"""Alerts: one event per change of state, thresholds with a public source (or "ours"), per-chip samples from real
captures; memory judged against the level a chip settles at after its engine started, not a fixed ceiling."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from msgspec.structs import replace

from ascend_doctor.parsers.npu_smi import parse_npu_smi_info
from ascend_doctor.watch.alerts import EVENT_CLEAR, EVENT_RAISE, LEVEL_FAIL, LEVEL_WARN, Alert, AlertTracker
from ascend_doctor.watch.model import (
    MEMORY_DDR,
    MEMORY_HBM,
    ChipSample,
    EccSample,
    ProcessSample,
    Sample,
    chips_from_info,
)
from ascend_doctor.watch.thresholds import SOURCES, Thresholds

from .samples_util import sample_body

PROC = ProcessSample(33776, "VLLMWorker_TP", 31747)


def chip(npu: int = 0, **changes: object) -> ChipSample:
    base = ChipSample(npu_id=npu, chip_id=0, phy_id=None, name="910B2C", health="OK", health_printed="OK",
                      temp_c=50.0, power_w=300.0, aicore_pct=88.0, memory_kind=MEMORY_HBM,
                      memory_used_mb=35738, memory_total_mb=65536, processes=(PROC,), process_table=True)
    return replace(base, **changes)  # type: ignore[arg-type]


class Run:
    def __init__(self, thresholds: Optional[Thresholds] = None, step_s: float = 10.0) -> None:
        self.tracker = AlertTracker(thresholds or Thresholds(), "node-1")
        self.seq = 0
        self.step_s = step_s

    def step(self, *chips: ChipSample, stale: str = "", ecc: Tuple[EccSample, ...] = ()) -> List[Tuple[str, str, str]]:
        self.seq += 1
        elapsed = self.step_s * self.seq
        sample = Sample(self.seq, 1_700_000_000.0 + elapsed, elapsed, "node-1",
                        "timeout" if stale else "ok", stale, tuple(chips) if not stale else (), ecc=ecc)
        return [(a.event, a.kind, a.level) for a in self.tracker.update(sample)]

    def steps(self, chips_per_step: Sequence[Sequence[ChipSample]]) -> List[List[Tuple[str, str, str]]]:
        return [self.step(*chips) for chips in chips_per_step]


def test_every_default_threshold_says_where_it_comes_from() -> None:
    fields = set(Thresholds.__struct_fields__) - {"aicore_samples", "load_applied"}  # a count; a user's hint
    assert fields <= set(SOURCES)
    for name, text in SOURCES.items():
        assert text.startswith("ours") or "https://" in text, name  # a public source, or says it is ours
        assert "seed" not in text and "§" not in text, name
    t = Thresholds()
    assert (t.temp_max_c, t.memory_max_pct, t.aicore_min_pct, t.load_applied) == (85.0, None, 30.0, False)
    assert t.aicore_streak(10.0) == 30 and t.aicore_streak(300.0) == 1  # 5 minutes' worth


def test_a_hot_chip_is_a_warning_raised_once_and_cleared_once() -> None:
    run = Run()
    events = run.steps([[chip(temp_c=80.0)], [chip(temp_c=86.0)], [chip(temp_c=90.0)], [chip(temp_c=85.0)],
                        [chip(temp_c=84.0)]])
    assert events == [[], [(EVENT_RAISE, "temperature", LEVEL_WARN)], [], [(EVENT_CLEAR, "temperature", LEVEL_WARN)],
                      []]


def test_a_fixed_memory_ceiling_only_when_asked_and_ddr_chips_use_their_ddr() -> None:
    assert Run().step(chip(memory_used_mb=62938)) == []  # 96 % on a serving chip: the engine's reservation
    run = Run(Thresholds(memory_max_pct=95.0))
    assert run.step(chip(memory_used_mb=62938)) == [(EVENT_RAISE, "memory", LEVEL_WARN)]
    (alert,) = run.tracker.active_alerts()
    assert "HBM 96.0 % used (62938 / 65536 MB)" in alert.message and alert.value is not None
    ddr = Run(Thresholds(memory_max_pct=95.0))
    events = ddr.step(chip(memory_kind=MEMORY_DDR, memory_used_mb=43000, memory_total_mb=44278))
    assert events == [(EVENT_RAISE, "memory", LEVEL_WARN)]
    assert "device memory (DDR)" in ddr.tracker.active_alerts()[0].message


def test_a_serving_chip_at_93_percent_is_quiet_and_growth_beyond_its_baseline_is_not() -> None:
    run = Run()
    loading = [20000, 41000, 60948, 60950, 60949, 60951, 60950]  # weights, then KV cache, then steady at 93 %
    assert [run.step(chip(memory_used_mb=m, aicore_pct=0.0)) for m in loading] == [[]] * len(loading)
    state = run.tracker.baselines[(0, 0)]
    assert state.used_mb == 60949  # the third settled reading
    assert run.step(chip(memory_used_mb=62000)) == []  # +1051 MB: within 2 % of 65536 MB (1311 MB)
    assert run.step(chip(memory_used_mb=62400)) == [(EVENT_RAISE, "memory_growth", LEVEL_WARN)]
    (alert,) = run.tracker.active_alerts()
    assert alert.value == 1451 and alert.unit == "MB" and "60949 MB" in alert.message
    assert run.step(chip(memory_used_mb=61800)) == []  # hysteresis: clears under half the margin
    assert run.step(chip(memory_used_mb=61500)) == [(EVENT_CLEAR, "memory_growth", LEVEL_WARN)]


def test_a_second_process_on_an_engines_chip_and_an_engine_restart() -> None:
    run = Run()
    for _ in range(3):
        assert run.step(chip()) == []
    joined = (PROC, ProcessSample(60575, "python", 2000))
    assert run.step(chip(processes=joined, memory_used_mb=37738)) == [
        (EVENT_RAISE, "memory_growth", LEVEL_WARN), (EVENT_RAISE, "second_process", LEVEL_WARN)]
    assert "60575 python (2000 MB)" in run.tracker.active["second_process", 0, 0, None].message
    assert run.step(chip()) == [(EVENT_CLEAR, "memory_growth", LEVEL_WARN), (EVENT_CLEAR, "second_process", LEVEL_WARN)]
    # The engine restarts with a new PID and more memory: a new baseline, not an alert.
    restarted = (ProcessSample(40001, "VLLMWorker_TP", 58000),)
    assert [run.step(chip(processes=restarted, memory_used_mb=60000)) for _ in range(4)] == [[]] * 4
    assert run.tracker.baselines[(0, 0)].used_mb == 60000


def test_ecc_growth_fails_and_corrected_errors_warn() -> None:
    run = Run()
    assert run.step(chip(), ecc=(EccSample(0, 0, 3, 1, 2),)) == []  # errors before the watch: ASC-DEV-005's
    assert run.step(chip(), ecc=(EccSample(0, 0, 5, 1, 2),)) == [(EVENT_RAISE, "ecc", LEVEL_WARN)]
    assert run.step(chip(), ecc=(EccSample(0, 0, 5, 2, 3),)) == [(EVENT_RAISE, "ecc", LEVEL_FAIL)]
    assert "npu-smi info -t ecc -i 0" in run.tracker.active_alerts()[0].message
    assert run.step(chip()) == []  # no reading this time: nothing changes


def test_idle_aicore_is_judged_only_under_load() -> None:
    idle = Run(Thresholds(aicore_samples=1))
    assert idle.step(chip(aicore_pct=0.0)) == []  # nobody said requests are being sent
    run = Run(Thresholds(aicore_samples=3, load_applied=True))
    low = chip(aicore_pct=5.0)
    assert run.steps([[low], [low], [chip()], [low], [low]]) == [[], [], [], [], []]  # never 3 in a row
    assert run.step(low) == [(EVENT_RAISE, "aicore", LEVEL_WARN)]
    assert run.step(chip(aicore_pct=5.0, processes=())) == [(EVENT_CLEAR, "aicore", LEVEL_WARN)]
    # No process table at all (a cut capture): nobody knows what holds the chip, so no alert.
    quiet = Run(Thresholds(aicore_samples=1, load_applied=True))
    assert quiet.step(chip(aicore_pct=0.0, processes=(), process_table=False)) == []
    assert quiet.step(chip(aicore_pct=0.0, processes=())) == []  # idle and empty is fine


def test_health_levels_and_a_change_of_level_is_a_new_event() -> None:
    run = Run()
    assert run.step(chip(health="WARNING", health_printed="Warning")) == [(EVENT_RAISE, "health", LEVEL_WARN)]
    assert "npu-smi info -t health -i 0 -c 0" in run.tracker.active_alerts()[0].message
    assert run.step(chip(health="ALARM", health_printed="Alarm")) == [(EVENT_RAISE, "health", LEVEL_FAIL)]
    assert run.step(chip(health="ALARM", health_printed="Alarm")) == []
    assert run.step(chip()) == [(EVENT_CLEAR, "health", LEVEL_FAIL)]


def test_a_chip_that_vanishes_is_an_alert_and_coming_back_clears_it() -> None:
    run = Run()
    assert run.step(chip(0), chip(1)) == []
    assert run.step(chip(0)) == [(EVENT_RAISE, "missing", LEVEL_FAIL)]
    assert "NPU 1 chip 0" in run.tracker.active_alerts()[0].message
    assert run.step(chip(0), chip(1)) == [(EVENT_CLEAR, "missing", LEVEL_FAIL)]


def test_a_stale_sample_raises_its_own_alert_and_leaves_the_others_alone() -> None:
    run = Run()
    assert run.step(chip(temp_c=90.0)) == [(EVENT_RAISE, "temperature", LEVEL_WARN)]
    assert run.step(stale="`npu-smi info` did not answer within 10 s") == [(EVENT_RAISE, "sample", LEVEL_FAIL)]
    assert run.step(stale="still hung") == []
    kinds = sorted(a.kind for a in run.tracker.active_alerts())
    assert kinds == ["sample", "temperature"]  # nothing cleared for lack of news
    assert run.step(chip(temp_c=90.0)) == [(EVENT_CLEAR, "sample", LEVEL_FAIL)]


def test_leak_raises_with_the_rate_and_clears_when_the_process_ends() -> None:
    run = Run(Thresholds(leak_window_s=600), step_s=100)
    events: List[Tuple[str, str, str]] = []
    for index in range(8):  # 100 s apart, 10 MB each: 360 MB/h
        events += run.step(chip(processes=(ProcessSample(9, "python", 1000 + 10 * index),)))
    assert events == [(EVENT_RAISE, "leak", LEVEL_WARN)]
    (alert,) = run.tracker.active_alerts()
    assert alert.pid == 9 and alert.unit == "MB/h" and alert.value is not None and round(alert.value) == 360
    assert "360 MB/h" in alert.message and "a leak" in alert.message
    assert run.step(chip(processes=())) == [(EVENT_CLEAR, "leak", LEVEL_WARN)]


def test_memory_that_follows_the_load_is_not_a_leak() -> None:
    run = Run(Thresholds(leak_window_s=600), step_s=100)
    events: List[Tuple[str, str, str]] = []
    for index in range(8):
        events += run.step(chip(aicore_pct=60.0 + 5 * index, processes=(ProcessSample(9, "p", 1000 + 10 * index),)))
    assert events == []


def test_one_jump_is_not_a_steady_leak() -> None:
    run = Run(Thresholds(leak_window_s=600), step_s=100)
    events: List[Tuple[str, str, str]] = []
    for memory in (1000, 1000, 1000, 1000, 1000, 1000, 1000, 1800):
        events += run.step(chip(processes=(ProcessSample(9, "p", memory),)))
    assert events == []  # R^2 of one step at the end is well under 0.8


def test_alert_json_has_the_documented_fields() -> None:
    run = Run()
    run.step(chip(temp_c=90.0))
    alert: Alert = run.tracker.active_alerts()[0]
    data = alert.to_dict()
    assert data["type"] == "alert" and data["event"] == "raise" and data["kind"] == "temperature"
    assert (data["npu"], data["chip"], data["name"], data["host"]) == (0, 0, "910B2C", "node-1")
    assert data["value"] == 90.0 and data["threshold"] == 85.0 and data["unit"] == "C"
    assert data["time"].endswith("Z")


def test_chips_from_real_captures_of_every_process_layout() -> None:
    gpustat = chips_from_info(parse_npu_smi_info(sample_body(
        "npu-smi-info/gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt")))
    assert [(c.npu_id, c.chip_id, [p.pid for p in c.processes]) for c in gpustat] == [
        (0, 0, [6513, 33776]), (1, 0, [33777])]
    assert gpustat[0].memory_kind == MEMORY_HBM and gpustat[0].memory_used_mb == 35738
    # Ascend 950: the process table has no Chip column; each NPU has one chip.
    a5 = chips_from_info(parse_npu_smi_info(sample_body(
        "npu-smi-info/fixture-7x950PR-25.7.rc1-npu-id-column-empty-procnames.txt")))
    assert any(c.processes for c in a5)
    # Atlas 300I Duo: two chips per NPU, DDR memory only.
    duo = chips_from_info(parse_npu_smi_info(sample_body(
        "npu-smi-info/vllm-ascend-6063-4x300IDuo-8chips-odd-ids-25.3.rc1.txt")))
    assert len(duo) == 8 and all(c.memory_kind == MEMORY_DDR for c in duo)
    # A3: the second die prints power "-".
    a3 = chips_from_info(parse_npu_smi_info(sample_body(
        "npu-smi-info/fixture-A3-26.0.rc1-VLLMWorker_PP-container-pid-NA.txt")))
    assert [c.power_w for c in a3][:2] == [204.0, None] and a3[1].phy_id == 1
