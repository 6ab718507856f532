"""``watch --prometheus FILE``: the node_exporter textfile metrics of the latest sample.

Exposition format (https://prometheus.io/docs/instrumenting/exposition_formats/): ``# HELP`` and
``# TYPE`` per metric, then one line per label set. The collector refuses explicit timestamps, so
none are written; ``ascend_watch_last_sample_timestamp_seconds`` says when.

Labels on every chip metric: ``host``, ``npu`` (NPU id), ``chip`` (chip id), ``name`` (chip
name as printed, e.g. 910B4). A stale sample drops the chip metrics (old figures must not be
scraped as current) and sets ``ascend_watch_sample_fresh`` to 0. Writing the file atomically is
ascend_doctor/watch/prometheus.py's.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ascend_doctor.watch.alerts import Alert
from ascend_doctor.watch.leak import LeakReading, ProcKey
from ascend_doctor.watch.model import ChipSample, Sample

MB = 1024 * 1024  # npu-smi's "MB" are MiB (a 64 GB card prints 65536)

# Health word -> number, for alerting rules that compare.
HEALTH_CODES: Dict[str, int] = {"OK": 0, "WARNING": 1, "ALARM": 2, "CRITICAL": 3, "UNKNOWN": 4}

Labels = Sequence[Tuple[str, str]]


def _escape_label(value: str) -> str:
    """The exposition format's escapes, after every other control (an ESC from a process name) is made
    visible: the file is read by people too (render/sanitize.py)."""
    from ascend_doctor.render.sanitize import visible_lines

    return visible_lines(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


class _Metrics:
    def __init__(self) -> None:
        self.order: List[str] = []
        self.meta: Dict[str, Tuple[str, str]] = {}
        self.rows: Dict[str, List[str]] = {}

    def declare(self, name: str, kind: str, help_text: str) -> None:
        self.order.append(name)
        self.meta[name] = (kind, help_text)
        self.rows[name] = []

    def add(self, name: str, labels: Labels, value: Optional[float]) -> None:
        if value is None:
            return
        body = ",".join(f'{key}="{_escape_label(val)}"' for key, val in labels)
        self.rows[name].append(f"{name}{{{body}}} {_number(value)}")

    def text(self) -> str:
        lines: List[str] = []
        for name in self.order:
            kind, help_text = self.meta[name]
            lines.append(f"# HELP {name} {_escape_help(help_text)}")
            lines.append(f"# TYPE {name} {kind}")
            lines.extend(self.rows[name])
        return "\n".join(lines) + "\n"


def _declare_all(m: _Metrics) -> None:
    m.declare("ascend_watch_sample_fresh", "gauge",
              "1 when the last npu-smi info sample was read, 0 when it hung or could not be parsed.")
    m.declare("ascend_watch_last_sample_timestamp_seconds", "gauge",
              "When the last sample was taken (Unix time).")
    m.declare("ascend_watch_sample_duration_seconds", "gauge", "How long npu-smi info took for the last sample.")
    m.declare("ascend_npu_health_code", "gauge",
              "npu-smi health: 0 OK, 1 Warning, 2 Alarm, 3 Critical, 4 unknown.")
    m.declare("ascend_npu_temperature_celsius", "gauge", "Chip temperature from npu-smi info.")
    m.declare("ascend_npu_power_watts", "gauge", "Chip power from npu-smi info (absent where npu-smi prints -/NA).")
    m.declare("ascend_npu_aicore_utilization_ratio", "gauge",
              "AICore utilisation (NPU Util on Ascend 950), 0 to 1.")
    m.declare("ascend_npu_memory_used_bytes", "gauge",
              "Device memory in use: HBM, or DDR on chips without HBM (label memory).")
    m.declare("ascend_npu_memory_total_bytes", "gauge", "Device memory capacity (label memory: hbm or ddr).")
    m.declare("ascend_npu_processes", "gauge", "Processes npu-smi lists on the chip.")
    m.declare("ascend_npu_process_memory_bytes", "gauge", "Device memory a process holds on the chip.")
    m.declare("ascend_npu_process_memory_growth_bytes_per_second", "gauge",
              "Least-squares slope of a process's device memory over the leak window.")
    m.declare("ascend_watch_alert_active", "gauge",
              "1 for each alert raised and not yet cleared (labels kind, level; pid for leaks).")


def _chip_labels(host: str, chip: ChipSample) -> List[Tuple[str, str]]:
    return [("host", host), ("npu", str(chip.npu_id)), ("chip", str(chip.chip_id)), ("name", chip.name)]


def render_metrics(sample: Sample, active: Sequence[Alert],
                   leak_readings: Optional[Dict[ProcKey, LeakReading]] = None) -> str:
    """The whole textfile for the latest sample."""
    m = _Metrics()
    _declare_all(m)
    host_labels = [("host", sample.host)]
    m.add("ascend_watch_sample_fresh", host_labels, 0 if sample.stale else 1)
    m.add("ascend_watch_last_sample_timestamp_seconds", host_labels, round(sample.time, 3))
    m.add("ascend_watch_sample_duration_seconds", host_labels, round(sample.duration_s, 3))
    names = {}
    for chip in sample.chips:
        names[chip.key] = chip.name
        labels = _chip_labels(sample.host, chip)
        m.add("ascend_npu_health_code", labels, HEALTH_CODES.get(chip.health, 4))
        m.add("ascend_npu_temperature_celsius", labels, chip.temp_c)
        m.add("ascend_npu_power_watts", labels, chip.power_w)
        m.add("ascend_npu_aicore_utilization_ratio", labels,
              None if chip.aicore_pct is None else round(chip.aicore_pct / 100.0, 4))
        mem_labels = labels + [("memory", chip.memory_kind)]
        m.add("ascend_npu_memory_used_bytes", mem_labels,
              None if chip.memory_used_mb is None else chip.memory_used_mb * MB)
        m.add("ascend_npu_memory_total_bytes", mem_labels,
              None if chip.memory_total_mb is None else chip.memory_total_mb * MB)
        if chip.process_table:
            m.add("ascend_npu_processes", labels, len(chip.processes))
        seen = set()
        for proc in chip.processes:
            if proc.pid in seen:
                continue
            seen.add(proc.pid)
            proc_labels = labels + [("pid", str(proc.pid)), ("process", proc.name)]
            m.add("ascend_npu_process_memory_bytes", proc_labels,
                  None if proc.memory_mb is None else proc.memory_mb * MB)
            reading = (leak_readings or {}).get((chip.npu_id, chip.chip_id, proc.pid))
            if reading is not None:
                m.add("ascend_npu_process_memory_growth_bytes_per_second", proc_labels,
                      round(reading.rate_mb_h * MB / 3600.0, 3))
    for alert in active:
        labels = [("host", alert.host),
                  ("npu", "" if alert.npu_id is None else str(alert.npu_id)),
                  ("chip", "" if alert.chip_id is None else str(alert.chip_id)),
                  ("name", alert.chip_name or ""),
                  ("kind", alert.kind), ("level", alert.level),
                  ("pid", "" if alert.pid is None else str(alert.pid))]
        m.add("ascend_watch_alert_active", labels, 1)
    return m.text()
