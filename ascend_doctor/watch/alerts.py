"""From samples to alerts: one event when a condition starts (raise) and one when it ends (clear).

Each sample is turned into *conditions*, one per thing that can be wrong (a chip's temperature,
memory, AICore, health; a process's memory trend; a chip that vanished; the sample itself).
``AlertTracker`` remembers which are raised and emits an event only on a change of state or of
level, so a chip that stays hot for a day gives one alert and one clear, not 8640 lines.
What a sample cannot tell (a stale sample says nothing about temperatures) changes nothing.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

from ascend_doctor.fastdataclass import dataclass
from ascend_doctor.i18n import _
from ascend_doctor.watch.leak import LeakDetector, LeakReading, ProcKey
from ascend_doctor.watch.model import MEMORY_HBM, ChipKey, ChipSample, Sample, iso_time
from ascend_doctor.watch.thresholds import Thresholds

LEVEL_FAIL = "FAIL"
LEVEL_WARN = "WARN"

KIND_TEMPERATURE = "temperature"
KIND_MEMORY = "memory"
KIND_AICORE = "aicore"
KIND_HEALTH = "health"
KIND_LEAK = "leak"
KIND_MISSING = "missing"  # a chip npu-smi listed before and no longer lists
KIND_SAMPLE = "sample"  # npu-smi hung or its output could not be read

EVENT_RAISE = "raise"
EVENT_CLEAR = "clear"

MAX_KNOWN_CHIPS = 4096  # chips remembered for "missing" (a server has at most a few dozen)

# (kind, NPU id, chip id, PID); ids are None where they do not apply.
AlertKey = Tuple[str, Optional[int], Optional[int], Optional[int]]


@dataclass(frozen=True)
class Condition:
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


@dataclass(frozen=True)
class Alert:
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


class AlertTracker:
    def __init__(self, thresholds: Thresholds, hostname: str) -> None:
        self.thresholds = thresholds
        self.hostname = hostname
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
            out.append(Condition((KIND_TEMPERATURE, chip.npu_id, chip.chip_id, None), hot, LEVEL_FAIL, text,
                                 chip.temp_c, th.temp_max_c, "C", chip.name))
        pct = chip.memory_used_pct
        if pct is not None:
            full = pct > th.memory_max_pct
            used = _("{memory} {pct} % used ({used} / {total} MB)").format(
                memory=_memory_word(chip), pct=f"{pct:.1f}", used=chip.memory_used_mb, total=chip.memory_total_mb)
            text = (_("{where}: {used}, above {limit} % (OOM is next)") if full else
                    _("{where}: {used}, back at or below {limit} %")).format(
                        where=where, used=used, limit=_fmt(th.memory_max_pct))
            out.append(Condition((KIND_MEMORY, chip.npu_id, chip.chip_id, None), full, LEVEL_FAIL, text,
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
        if chip.aicore_pct is None or not chip.process_table:
            return None  # no reading, or no way to know whether something holds the chip
        if not chip.processes:
            return Condition(key, False, LEVEL_WARN, _("{where}: no process holds the chip any more").format(
                                 where=chip.label),
                             chip.aicore_pct, th.aicore_min_pct, "%", chip.name)
        low = chip.aicore_pct < th.aicore_min_pct
        holders = ", ".join(f"{p.name or '?'} {p.pid}" for p in chip.processes[:4])
        if len(chip.processes) > 4:
            holders += ", " + _("+{count} more").format(count=len(chip.processes) - 4)
        if low:
            text = _("{where}: AICore {value} % for {samples} sample(s) while {count} process(es) hold the chip "
                     "({holders}): below {limit} %, the operators are not saturated (idle service, or too little "
                     "batching)").format(where=chip.label, value=_fmt(chip.aicore_pct), samples=th.aicore_samples,
                                         count=len(chip.processes), holders=holders, limit=_fmt(th.aicore_min_pct))
        else:
            text = _("{where}: AICore {value} %, back at or above {limit} %").format(
                where=chip.label, value=_fmt(chip.aicore_pct), limit=_fmt(th.aicore_min_pct))
        return Condition(key, low, LEVEL_WARN, text, chip.aicore_pct, th.aicore_min_pct, "%", chip.name,
                         sustain=max(1, th.aicore_samples))

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

