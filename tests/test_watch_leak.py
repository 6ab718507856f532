"""Leak detection: the least-squares fit, the window, the bound on memory."""

from __future__ import annotations

import math
from typing import List, Optional, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.watch.leak import MAX_POINTS, MAX_SERIES, LeakDetector, least_squares
from ascend_doctor.watch.model import MEMORY_HBM, ChipSample, ProcessSample, Sample


def chip(processes: Sequence[ProcessSample], aicore: Optional[float] = 88.0, npu: int = 0) -> ChipSample:
    return ChipSample(npu_id=npu, chip_id=0, phy_id=None, name="910B3", health="OK", health_printed="OK",
                      temp_c=50.0, power_w=300.0, aicore_pct=aicore, memory_kind=MEMORY_HBM,
                      memory_used_mb=40000, memory_total_mb=65536, processes=tuple(processes),
                      process_table=True)


def sample(seq: int, elapsed: float, chips: Sequence[ChipSample], stale: bool = False) -> Sample:
    return Sample(seq=seq, time=1_700_000_000 + elapsed, elapsed_s=elapsed, host="h",
                  status="timeout" if stale else "ok", reason="hung" if stale else "", chips=tuple(chips))


def feed(detector: LeakDetector, memory: List[float], step_s: float, aicore: Optional[List[float]] = None) -> dict:
    readings: dict = {}
    for index, mb in enumerate(memory):
        load = None if aicore is None else aicore[index]
        proc = ProcessSample(4242, "python", int(mb))
        readings, _ = detector.observe(sample(index + 1, index * step_s, [chip([proc], aicore=load)]))
    return readings


def test_least_squares_recovers_a_line_and_r2() -> None:
    fit = least_squares([0, 1, 2, 3], [1, 3, 5, 7])
    assert fit is not None
    assert fit.slope == pytest.approx(2.0) and fit.intercept == pytest.approx(1.0) and fit.r2 == pytest.approx(1.0)
    flat = least_squares([0, 1, 2], [5, 5, 5])
    assert flat is not None and flat.slope == 0 and flat.r2 == 0.0
    assert least_squares([1, 1, 1], [1, 2, 3]) is None  # no spread in x: no line
    assert least_squares([1], [1]) is None


@settings(max_examples=60, deadline=None)
@given(slope=st.floats(-1000, 1000), intercept=st.floats(-1e6, 1e6),
       n=st.integers(2, 50))
def test_least_squares_is_exact_on_exact_lines(slope: float, intercept: float, n: int) -> None:
    xs = [float(i * 7) for i in range(n)]
    fit = least_squares(xs, [slope * x + intercept for x in xs])
    assert fit is not None
    assert math.isclose(fit.slope, slope, rel_tol=1e-6, abs_tol=1e-6)


def test_steady_growth_with_flat_load_gives_the_rate_in_mb_per_hour() -> None:
    detector = LeakDetector(window_s=3600)
    # 20 MB every 5 minutes = 240 MB/h, for an hour.
    readings = feed(detector, [30000 + 20 * i for i in range(13)], 300, aicore=[88, 90, 87, 89] * 3 + [88])
    (reading,) = readings.values()
    assert reading.rate_mb_h == pytest.approx(240.0)
    assert reading.r2 == pytest.approx(1.0)
    assert reading.load_rise_pct is not None and abs(reading.load_rise_pct) < 5
    assert reading.process == "python" and reading.chip_free_mb == 65536 - 40000


def test_nothing_is_said_before_half_the_window_is_covered() -> None:
    detector = LeakDetector(window_s=3600)
    assert feed(detector, [30000 + 20 * i for i in range(6)], 300) == {}  # 25 min of history
    assert feed(LeakDetector(window_s=3600), [1, 2, 3, 4, 5], 600) == {}  # too few points


def test_a_series_ends_with_its_process_and_restarts_when_the_pid_is_reused() -> None:
    detector = LeakDetector(window_s=600)
    for index in range(10):
        detector.observe(sample(index, index * 100.0, [chip([ProcessSample(7, "a", 100 + index)])]))
    assert list(detector.series) == [(0, 0, 7)]
    _, gone = detector.observe(sample(11, 1100.0, [chip([])]))
    assert gone == {(0, 0, 7)} and detector.series == {}
    detector.observe(sample(12, 1200.0, [chip([ProcessSample(8, "b", 1)])]))
    detector.observe(sample(13, 1300.0, [chip([ProcessSample(8, "other", 1)])]))
    assert len(detector.series[(0, 0, 8)].points) == 1  # another program under the same PID


def test_a_stale_sample_changes_nothing() -> None:
    detector = LeakDetector(window_s=600)
    detector.observe(sample(1, 0.0, [chip([ProcessSample(7, "a", 100)])]))
    assert detector.observe(sample(2, 10.0, [], stale=True)) == ({}, set())
    assert (0, 0, 7) in detector.series


def test_memory_is_bounded_however_long_it_runs() -> None:
    detector = LeakDetector(window_s=600)
    for index in range(3000):  # 2.5 windows at a 0.5 s interval: more points than the buffer holds
        detector.observe(sample(index, index / 2.0, [chip([ProcessSample(1, "p", 1000 + index // 100)])]))
    points = detector.series[(0, 0, 1)].points
    assert len(points) <= MAX_POINTS
    assert 590 <= points[-1][0] - points[0][0] <= 600  # the buffer spans the window, not more


def test_the_number_of_tracked_processes_is_bounded() -> None:
    detector = LeakDetector(window_s=60)
    many = [ProcessSample(pid, "w", 10) for pid in range(MAX_SERIES + 50)]
    detector.observe(sample(1, 0.0, [chip(many)]))
    assert len(detector.series) == MAX_SERIES and detector.untracked == 50
