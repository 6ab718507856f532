"""Leak detection: memory a process holds, growing steadily while the chip's load does not.

For every (NPU, chip, PID) the detector keeps a ring buffer of (time, process memory MB, chip
AICore %) over the last ``leak_window_s`` seconds and fits a least-squares line to each. The
verdict (in ``alerts``) uses the memory slope in MB/h, how well the line fits (R^2) and how much
AICore rose over the window.

Memory is bounded however long the watch runs: at most ``MAX_POINTS`` points per series (points
closer together than window / MAX_POINTS are skipped, so the buffer always spans the whole
window), at most ``MAX_SERIES`` series, and a series is dropped as soon as its process is gone.
"""

from __future__ import annotations

from collections import deque
from typing import Deque, Dict, List, Optional, Sequence, Set, Tuple

from msgspec import Struct

from ascend_doctor.watch.model import Sample

ProcKey = Tuple[int, int, int]  # (NPU id, chip id, PID)

MAX_POINTS = 720  # per series: 1 h at a 5 s interval without skipping a sample
MAX_SERIES = 4096  # processes tracked at once (16 chips x 256 processes)
MIN_POINTS = 6  # fewer points than this are not a trend
MIN_SPAN_FRACTION = 0.5  # the points must cover half the window before anything is said


class Fit(Struct, frozen=True):
    slope: float  # y units per x unit
    intercept: float
    r2: float  # coefficient of determination; 0 when y does not vary


def least_squares(xs: Sequence[float], ys: Sequence[float]) -> Optional[Fit]:
    """Ordinary least-squares line through (xs, ys); None with fewer than 2 distinct xs."""
    n = len(xs)
    if n < 2 or n != len(ys):
        return None
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    if sxx <= 0:
        return None
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    syy = sum((y - mean_y) ** 2 for y in ys)
    slope = sxy / sxx
    r2 = 0.0 if syy <= 0 else min(1.0, (sxy * sxy) / (sxx * syy))
    return Fit(slope, mean_y - slope * mean_x, r2)


class LeakReading(Struct, frozen=True):
    """The trend of one process's memory over the window."""

    key: ProcKey
    process: str
    chip_name: str
    rate_mb_h: float
    r2: float
    load_rise_pct: Optional[float]  # fitted AICore change over the span; None when not reported
    points: int
    span_s: float
    memory_mb: float  # latest
    chip_free_mb: Optional[float]  # what is left on the chip at the latest sample


class _Series:
    def __init__(self, name: str) -> None:
        self.name = name
        self.points: Deque[Tuple[float, float, Optional[float]]] = deque(maxlen=MAX_POINTS)


class LeakDetector:
    def __init__(self, window_s: float) -> None:
        self.window_s = float(window_s)
        self.min_spacing_s = self.window_s / MAX_POINTS
        self.series: Dict[ProcKey, _Series] = {}
        self.untracked = 0  # processes not tracked because MAX_SERIES was reached

    def observe(self, sample: Sample) -> Tuple[Dict[ProcKey, LeakReading], Set[ProcKey]]:
        """Add a fresh sample; return the readings with enough history, and the series dropped
        because their process is gone. A stale sample changes nothing."""
        if sample.stale:
            return {}, set()
        now = sample.elapsed_s
        present: Set[ProcKey] = set()
        readings: Dict[ProcKey, LeakReading] = {}
        for chip in sample.chips:
            free = None
            if chip.memory_total_mb is not None and chip.memory_used_mb is not None:
                free = float(max(chip.memory_total_mb - chip.memory_used_mb, 0))
            for proc in chip.processes:
                key = (chip.npu_id, chip.chip_id, proc.pid)
                if proc.memory_mb is None or key in present:
                    continue  # no figure, or the same PID listed twice on one chip
                present.add(key)
                series = self._series_for(key, proc.name)
                if series is None:
                    continue
                self._add(series, now, float(proc.memory_mb), chip.aicore_pct)
                reading = self._reading(key, series, chip.name, free)
                if reading is not None:
                    readings[key] = reading
        gone = set(self.series) - present
        for key in gone:
            del self.series[key]
        return readings, gone

    def _series_for(self, key: ProcKey, name: str) -> Optional[_Series]:
        series = self.series.get(key)
        if series is not None and series.name != name:
            series = None  # the PID was reused by another program: a new history
        if series is None:
            if len(self.series) >= MAX_SERIES and key not in self.series:
                self.untracked += 1
                return None
            series = _Series(name)
            self.series[key] = series
        return series

    def _add(self, series: _Series, now: float, memory_mb: float, aicore: Optional[float]) -> None:
        points = series.points
        if points and now - points[-1][0] < self.min_spacing_s:
            return
        points.append((now, memory_mb, aicore))
        while points and points[0][0] < now - self.window_s:
            points.popleft()

    def _reading(self, key: ProcKey, series: _Series, chip_name: str,
                 free: Optional[float]) -> Optional[LeakReading]:
        points = list(series.points)
        if len(points) < MIN_POINTS:
            return None
        span = points[-1][0] - points[0][0]
        if span < self.window_s * MIN_SPAN_FRACTION:
            return None
        start = points[0][0]
        xs = [(p[0] - start) for p in points]
        memory = least_squares(xs, [p[1] for p in points])
        if memory is None:
            return None
        load_rise: Optional[float] = None
        loads: List[Tuple[float, float]] = [(x, p[2]) for x, p in zip(xs, points) if p[2] is not None]
        if len(loads) >= MIN_POINTS:
            load = least_squares([x for x, _ in loads], [y for _, y in loads])
            if load is not None:
                load_rise = load.slope * span
        return LeakReading(
            key=key, process=series.name, chip_name=chip_name, rate_mb_h=memory.slope * 3600.0,
            r2=memory.r2, load_rise_pct=load_rise, points=len(points), span_s=span,
            memory_mb=points[-1][1], chip_free_mb=free,
        )
