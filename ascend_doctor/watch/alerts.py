"""From samples to alerts: one event when a condition starts (raise) and one when it ends (clear).

Each sample is turned into *conditions*, one per thing that can be wrong (a chip's temperature,
memory, AICore, health; a process's memory trend; a chip that vanished; the sample itself).
``AlertTracker`` remembers which are raised and emits an event only on a change of state or of
level, so a chip that stays hot for a day gives one alert and one clear, not 8640 lines.
What a sample cannot tell (a stale sample says nothing about temperatures) changes nothing.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Deque, Dict, FrozenSet, List, Optional, Set, Tuple

from msgspec import Struct

from ascend_doctor.i18n import _
from ascend_doctor.watch.leak import LeakDetector, LeakReading, ProcKey
from ascend_doctor.watch.model import MEMORY_HBM, ChipKey, ChipSample, EccSample, Sample, iso_time
from ascend_doctor.watch.thresholds import DEFAULT_INTERVAL_S, Thresholds

LEVEL_FAIL = "FAIL"
LEVEL_WARN = "WARN"

KIND_TEMPERATURE = "temperature"
KIND_MEMORY = "memory"
KIND_AICORE = "aicore"
KIND_HEALTH = "health"
KIND_LEAK = "leak"
KIND_MISSING = "missing"  # a chip npu-smi listed before and no longer lists
KIND_SAMPLE = "sample"  # npu-smi hung or its output could not be read
KIND_MEMORY_GROWTH = "memory_growth"  # used memory above the level the chip settled at after start
KIND_SECOND_PROCESS = "second_process"  # a process joined a chip that an engine already holds
KIND_ECC = "ecc"  # ECC counters grew since the watch started (with --ecc)

EVENT_RAISE = "raise"
EVENT_CLEAR = "clear"

MAX_KNOWN_CHIPS = 4096  # chips remembered for "missing" (a server has at most a few dozen)

# (kind, NPU id, chip id, PID); ids are None where they do not apply.
AlertKey = Tuple[str, Optional[int], Optional[int], Optional[int]]


class Condition(Struct, frozen=True):
    key: AlertKey
    active: bool
    level: str
    message: str
    value: Optional[float] = None
    threshold: Optional[float] = None
    unit: str = ""
    chip_name: Optional[str] = None
    process: Optional[str] = None
    sustain: int = 1  # consecutive active samples needed before raising


class Alert(Struct, frozen=True):
    event: str  # EVENT_RAISE or EVENT_CLEAR
    kind: str
    level: str
    host: str
    npu_id: Optional[int]
    chip_id: Optional[int]
    chip_name: Optional[str]
    pid: Optional[int]
    process: Optional[str]
    value: Optional[float]
    threshold: Optional[float]
    unit: str
    message: str
    seq: int
    time: float

    def to_dict(self) -> Dict[str, Any]:
        return {
            "type": "alert",
            "event": self.event,
            "kind": self.kind,
            "level": self.level,
            "host": self.host,
            "npu": self.npu_id,
            "chip": self.chip_id,
            "name": self.chip_name,
            "pid": self.pid,
            "process": self.process,
            "value": None if self.value is None else round(self.value, 3),
            "threshold": self.threshold,
            "unit": self.unit,
            "message": self.message,
            "seq": self.seq,
            "time": iso_time(self.time),
        }


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _memory_word(chip: ChipSample) -> str:
    return "HBM" if chip.memory_kind == MEMORY_HBM else _("device memory (DDR)")


class _Baseline:
    """What one chip settled at once its engine started: the processes and the memory in use.

    ``recent`` holds the last few (processes, used MB) readings; the baseline is taken when
    ``baseline_samples`` of them in a row have the same processes and memory within half the
    growth margin (weights loaded, KV cache allocated). It is dropped when none of its
    processes holds the chip any more (the engine stopped or restarted)."""

    def __init__(self, size: int) -> None:
        self.recent: Deque[Tuple[FrozenSet[int], int]] = deque(maxlen=max(1, size))
        self.pids: Optional[FrozenSet[int]] = None
        self.used_mb: Optional[int] = None


class AlertTracker:
    def __init__(self, thresholds: Thresholds, hostname: str, interval_s: float = DEFAULT_INTERVAL_S) -> None:
        self.thresholds = thresholds
        self.hostname = hostname
        self.aicore_streak = thresholds.aicore_streak(interval_s)
        self.baselines: Dict[ChipKey, _Baseline] = {}
        self.ecc_first: Dict[ChipKey, EccSample] = {}
        self.active: Dict[AlertKey, Alert] = {}
        self.streak: Dict[AlertKey, int] = {}
        self.known_chips: Dict[ChipKey, str] = {}
        self.leak = LeakDetector(thresholds.leak_window_s)
        self.leak_readings: Dict[ProcKey, LeakReading] = {}

    # -- public -------------------------------------------------------------------------
    def update(self, sample: Sample) -> List[Alert]:
        """The events this sample causes (raises and clears), in a stable order."""
        conditions = self._conditions(sample)
        events: List[Alert] = []
        for cond in conditions:
            event = self._apply(cond, sample)
            if event is not None:
                events.append(event)
        return events

    def active_alerts(self) -> List[Alert]:
        return [self.active[key] for key in sorted(self.active, key=_sort_key)]

    # -- conditions ---------------------------------------------------------------------
    def _conditions(self, sample: Sample) -> List[Condition]:
        conds = [self._sample_condition(sample)]
        if sample.stale:
            return conds
        present: Set[ChipKey] = set()
        for chip in sample.chips:
            present.add(chip.key)
            if chip.key not in self.known_chips and len(self.known_chips) < MAX_KNOWN_CHIPS:
                self.known_chips[chip.key] = chip.name
            conds.extend(self._chip_conditions(chip))
            conds.extend(self._baseline_conditions(chip))
        conds.extend(self._ecc_condition(reading) for reading in sample.ecc)
        for chip_key, name in self.known_chips.items():
            conds.append(self._missing_condition(chip_key, name, chip_key in present))
        readings, gone = self.leak.observe(sample)
        self.leak_readings = readings
        conds.extend(self._leak_condition(reading) for reading in readings.values())
        for npu, chip_id, pid in sorted(gone):
            leak_key: AlertKey = (KIND_LEAK, npu, chip_id, pid)
            if leak_key in self.active:
                conds.append(Condition(leak_key, False, LEVEL_WARN,
                                       _("NPU {npu} chip {chip}: process {pid} no longer holds the chip").format(
                                           npu=npu, chip=chip_id, pid=pid)))
        return conds

    def _sample_condition(self, sample: Sample) -> Condition:
        key: AlertKey = (KIND_SAMPLE, None, None, None)
        if sample.stale:
            return Condition(key, True, LEVEL_FAIL, _("stale sample: {reason}").format(reason=sample.reason))
        return Condition(key, False, LEVEL_FAIL, _("npu-smi info answers again"))

    def _chip_conditions(self, chip: ChipSample) -> List[Condition]:
        th = self.thresholds
        where = chip.label
        out: List[Condition] = []
        if chip.temp_c is not None:
            hot = chip.temp_c > th.temp_max_c
            text = (_("{where}: temperature {value} C, above {limit} C") if hot else
                    _("{where}: temperature {value} C, back at or below {limit} C")).format(
                        where=where, value=_fmt(chip.temp_c), limit=_fmt(th.temp_max_c))
            out.append(Condition((KIND_TEMPERATURE, chip.npu_id, chip.chip_id, None), hot, LEVEL_WARN, text,
                                 chip.temp_c, th.temp_max_c, "C", chip.name))
        pct = chip.memory_used_pct
        if pct is not None and th.memory_max_pct is not None:
            full = pct > th.memory_max_pct
            used = _("{memory} {pct} % used ({used} / {total} MB)").format(
                memory=_memory_word(chip), pct=f"{pct:.1f}", used=chip.memory_used_mb, total=chip.memory_total_mb)
            text = (_("{where}: {used}, above the --hbm-max ceiling of {limit} %") if full else
                    _("{where}: {used}, back at or below {limit} %")).format(
                        where=where, used=used, limit=_fmt(th.memory_max_pct))
            out.append(Condition((KIND_MEMORY, chip.npu_id, chip.chip_id, None), full, LEVEL_WARN, text,
                                 pct, th.memory_max_pct, "%", chip.name))
        aicore = self._aicore_condition(chip)
        if aicore is not None:
            out.append(aicore)
        healthy = chip.health == "OK"
        level = LEVEL_FAIL if chip.health in ("ALARM", "CRITICAL") else LEVEL_WARN
        text = (_("{where}: health {health} (details: {command})").format(
                    where=where, health=chip.health_printed,
                    command=f"npu-smi info -t health -i {chip.npu_id} -c {chip.chip_id}")
                if not healthy else _("{where}: health back to OK").format(where=where))
        out.append(Condition((KIND_HEALTH, chip.npu_id, chip.chip_id, None), not healthy, level, text,
                             chip_name=chip.name))
        return out

    def _aicore_condition(self, chip: ChipSample) -> Optional[Condition]:
        th = self.thresholds
        key: AlertKey = (KIND_AICORE, chip.npu_id, chip.chip_id, None)
        if not th.load_applied or chip.aicore_pct is None or not chip.process_table:
            # Without --load nobody knows whether requests are sent: an idle engine sits near 0 %.
            return None
        if not chip.processes:
            return Condition(key, False, LEVEL_WARN, _("{where}: no process holds the chip any more").format(
                                 where=chip.label),
                             chip.aicore_pct, th.aicore_min_pct, "%", chip.name)
        low = chip.aicore_pct < th.aicore_min_pct
        holders = ", ".join(f"{p.name or '?'} {p.pid}" for p in chip.processes[:4])
        if len(chip.processes) > 4:
            holders += ", " + _("+{count} more").format(count=len(chip.processes) - 4)
        if low:
            text = _("{where}: AICore {value} % for {samples} sample(s) under load while {count} process(es) hold "
                     "the chip ({holders}): below {limit} %, the requests do not reach this chip or are too few to "
                     "batch").format(where=chip.label, value=_fmt(chip.aicore_pct), samples=self.aicore_streak,
                                         count=len(chip.processes), holders=holders, limit=_fmt(th.aicore_min_pct))
        else:
            text = _("{where}: AICore {value} %, back at or above {limit} %").format(
                where=chip.label, value=_fmt(chip.aicore_pct), limit=_fmt(th.aicore_min_pct))
        return Condition(key, low, LEVEL_WARN, text, chip.aicore_pct, th.aicore_min_pct, "%", chip.name,
                         sustain=self.aicore_streak)

    def _baseline_conditions(self, chip: ChipSample) -> List[Condition]:
        """Memory growth beyond the post-start baseline, and a process that joined an engine's chip."""
        th = self.thresholds
        if chip.memory_used_mb is None or not chip.memory_total_mb or not chip.process_table:
            return []
        pids = frozenset(p.pid for p in chip.processes)
        state = self.baselines.get(chip.key)
        if state is None:
            if len(self.baselines) >= MAX_KNOWN_CHIPS:
                return []
            state = self.baselines[chip.key] = _Baseline(th.baseline_samples)
        margin_mb = chip.memory_total_mb * th.memory_growth_pct / 100.0
        if state.pids is not None and not (state.pids & pids):
            state.pids = state.used_mb = None  # the engine is gone: the next one gets a new baseline
            state.recent.clear()
        if state.pids is None:
            state.recent.append((pids, chip.memory_used_mb))
            settled = (pids and len(state.recent) == state.recent.maxlen
                       and all(r[0] == pids for r in state.recent)
                       and max(r[1] for r in state.recent) - min(r[1] for r in state.recent) <= margin_mb / 2)
            if settled:
                state.pids, state.used_mb = pids, chip.memory_used_mb
            return self._baseline_idle(chip)
        assert state.used_mb is not None
        growth_key: AlertKey = (KIND_MEMORY_GROWTH, chip.npu_id, chip.chip_id, None)
        grown = chip.memory_used_mb - state.used_mb
        limit = margin_mb / 2 if growth_key in self.active else margin_mb  # hysteresis
        growing = grown > limit
        where = chip.label
        if growing:
            text = _("{where}: {memory} in use {used} MB, {grown} MB above the {base} MB it settled at after its "
                     "engine started (more than {pct} % of {total} MB): an engine's pool is fixed once it has "
                     "started, so this is a leak or another allocation, and an OOM is coming").format(
                         where=where, memory=_memory_word(chip), used=chip.memory_used_mb, grown=grown,
                         base=state.used_mb, pct=_fmt(th.memory_growth_pct), total=chip.memory_total_mb)
        else:
            text = _("{where}: {memory} back within {pct} % of the {base} MB baseline").format(
                where=where, memory=_memory_word(chip), pct=_fmt(th.memory_growth_pct), base=state.used_mb)
        out = [Condition(growth_key, growing, LEVEL_WARN, text, float(grown), round(margin_mb, 1), "MB",
                         chip.name)]
        newcomers = [p for p in chip.processes if p.pid not in state.pids]
        extra_key: AlertKey = (KIND_SECOND_PROCESS, chip.npu_id, chip.chip_id, None)
        if newcomers:
            names = ", ".join(f"{p.pid} {p.name or '?'} ({p.memory_mb if p.memory_mb is not None else '?'} MB)"
                              for p in newcomers[:4])
            text = _("{where}: {count} process(es) joined a chip its engine already holds: {names}; a second job "
                     "on a serving chip takes the memory the engine counted on (find it: {command})").format(
                         where=where, count=len(newcomers), names=names, command="npu-smi info")
        else:
            text = _("{where}: only the engine's processes hold the chip again").format(where=where)
        out.append(Condition(extra_key, bool(newcomers), LEVEL_WARN, text, float(len(newcomers)), None, "",
                             chip.name))
        return out

    def _baseline_idle(self, chip: ChipSample) -> List[Condition]:
        """While no baseline is held, whatever was raised against the old one clears."""
        out = []
        for kind in (KIND_MEMORY_GROWTH, KIND_SECOND_PROCESS):
            key: AlertKey = (kind, chip.npu_id, chip.chip_id, None)
            if key in self.active:
                out.append(Condition(key, False, LEVEL_WARN, _("{where}: the engine that held the chip is gone; a "
                                                              "new baseline is taken once memory settles").format(
                                                                  where=chip.label), chip_name=chip.name))
        return out

    def _ecc_condition(self, reading: EccSample) -> Condition:
        """ECC counters that grew since the first reading of this watch (a chip that had errors
        before the watch started is ASC-DEV-005's business, not a change)."""
        first = self.ecc_first.setdefault(reading.key, reading)
        key: AlertKey = (KIND_ECC, reading.npu_id, reading.chip_id, None)
        double = reading.double_bit - first.double_bit
        pages = reading.retired_pages - first.retired_pages
        single = reading.single_bit - first.single_bit
        where = _("NPU {npu} chip {chip}").format(npu=reading.npu_id, chip=reading.chip_id)
        command = f"npu-smi info -t ecc -i {reading.npu_id}"
        if double > 0 or pages > 0:
            text = _("{where}: {double} new uncorrectable (double-bit) ECC error(s) and {pages} page(s) newly retired "
                     "since the watch started: the memory is failing; drain the chip and open a support case "
                     "(details: {command})").format(where=where, double=max(double, 0), pages=max(pages, 0),
                                                    command=command)
            return Condition(key, True, LEVEL_FAIL, text, float(max(double, 0) + max(pages, 0)), 0.0, "")
        if single > 0:
            text = _("{where}: {single} new corrected (single-bit) ECC error(s) since the watch started; corrected "
                     "by the hardware, a rising count is worth a support case (details: {command})").format(
                         where=where, single=single, command=command)
            return Condition(key, True, LEVEL_WARN, text, float(single), 0.0, "")
        return Condition(key, False, LEVEL_WARN, _("{where}: ECC counters steady").format(where=where))

    def _missing_condition(self, key: ChipKey, name: str, present: bool) -> Condition:
        npu, chip_id = key
        where = _("NPU {npu} chip {chip} ({name})").format(npu=npu, chip=chip_id, name=name)
        text = (_("{where}: listed again by npu-smi info") if present else
                _("{where}: no longer listed by npu-smi info (fell off the bus, or the driver lost it: check "
                  "dmesg)")).format(where=where)
        return Condition((KIND_MISSING, npu, chip_id, None), not present, LEVEL_FAIL, text, chip_name=name)

    def _leak_condition(self, reading: LeakReading) -> Condition:
        th = self.thresholds
        npu, chip_id, pid = reading.key
        key: AlertKey = (KIND_LEAK, npu, chip_id, pid)
        load_flat = reading.load_rise_pct is None or reading.load_rise_pct <= th.leak_max_load_rise_pct
        if key in self.active:  # hysteresis: stays raised until growth falls under half the rate
            leaking = load_flat and reading.rate_mb_h >= th.leak_min_rate_mb_h / 2
        else:
            leaking = load_flat and reading.rate_mb_h >= th.leak_min_rate_mb_h and reading.r2 >= th.leak_min_r2
        proc = _("process {pid} ({process}) on NPU {npu} chip {chip} ({name})").format(
            pid=pid, process=reading.process or '?', npu=npu, chip=chip_id, name=reading.chip_name)
        minutes = reading.span_s / 60.0
        if leaking:
            text = (_("{process}: memory growing {rate} MB/h over the last {minutes} min (R^2 {r2}, now {memory} "
                      "MB) AICore not reported: a leak") if reading.load_rise_pct is None else
                    _("{process}: memory growing {rate} MB/h over the last {minutes} min (R^2 {r2}, now {memory} "
                      "MB) while AICore changed {load} points: a leak")).format(
                        process=proc, rate=f"{reading.rate_mb_h:.0f}", minutes=f"{minutes:.0f}",
                        r2=f"{reading.r2:.2f}", memory=f"{reading.memory_mb:.0f}",
                        load=None if reading.load_rise_pct is None else f"{reading.load_rise_pct:+.1f}")
            if reading.chip_free_mb is not None and reading.rate_mb_h > 0:
                text += "; " + _("the chip's free {free} MB last about {hours} h at this rate").format(
                    free=f"{reading.chip_free_mb:.0f}", hours=f"{reading.chip_free_mb / reading.rate_mb_h:.1f}")
        elif not load_flat:
            text = _("{process}: memory follows the load (AICore {load} points), not a leak").format(
                process=proc, load=f"{reading.load_rise_pct:+.1f}")
        else:
            text = _("{process}: memory no longer growing steadily ({rate} MB/h)").format(
                process=proc, rate=f"{reading.rate_mb_h:.0f}")
        return Condition(key, leaking, LEVEL_WARN, text, reading.rate_mb_h, th.leak_min_rate_mb_h, "MB/h",
                         reading.chip_name, reading.process)

    # -- state machine ------------------------------------------------------------------
    def _apply(self, cond: Condition, sample: Sample) -> Optional[Alert]:
        key = cond.key
        previous = self.active.get(key)
        if not cond.active:
            self.streak.pop(key, None)
            if previous is None:
                return None
            del self.active[key]
            return self._alert(EVENT_CLEAR, cond, sample, level=previous.level)
        streak = self.streak.get(key, 0) + 1
        self.streak[key] = streak
        if streak < cond.sustain and previous is None:
            return None
        alert = self._alert(EVENT_RAISE, cond, sample)
        if previous is not None and previous.level == cond.level:
            self.active[key] = alert  # still raised: keep the figures current, say nothing
            return None
        self.active[key] = alert
        return alert

    def _alert(self, event: str, cond: Condition, sample: Sample, level: Optional[str] = None) -> Alert:
        kind, npu, chip, pid = cond.key
        return Alert(
            event=event, kind=kind, level=level or cond.level, host=self.hostname, npu_id=npu, chip_id=chip,
            chip_name=cond.chip_name, pid=pid, process=cond.process, value=cond.value,
            threshold=cond.threshold, unit=cond.unit, message=cond.message, seq=sample.seq, time=sample.time,
        )


def _sort_key(key: AlertKey) -> Tuple[int, int, int, str]:
    kind, npu, chip, pid = key
    return (-1 if npu is None else npu, -1 if chip is None else chip, -1 if pid is None else pid, kind)

