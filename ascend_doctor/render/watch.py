"""``watch``: how samples and alerts are shown (docs/watch.md; JSON contract: docs/watch-schema.json).

* plain (text format, not a terminal, or ``-o FILE``): one line per chip per sample;
* JSON (``--format json``): one object per line, ``"type": "sample"`` or ``"type": "alert"``;
* table (text format on a terminal): one rich table per chip row, redrawn at each sample.

Alerts always go to stderr as one human line each, whatever the format, and to ``--on-alert CMD``
as one JSON object on its stdin (``alert_payload``). The ``--prometheus`` textfile is
render/prometheus.py's.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Sequence

from ascend_doctor.i18n import N_, _
from ascend_doctor.render import JSON, TEXT, unknown_format
from ascend_doctor.render.sanitize import visible
from ascend_doctor.watch.alerts import EVENT_RAISE, Alert
from ascend_doctor.watch.model import ChipSample, Sample

MAX_PROCESSES_SHOWN = 3


def _num(value: Optional[float], unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "-"
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"
    return f"{text}{unit}"


def clock_text(epoch: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def memory_text(chip: ChipSample) -> str:
    if chip.memory_used_mb is None or chip.memory_total_mb is None:
        return "-"
    kind = chip.memory_kind.upper()
    pct = chip.memory_used_pct
    share = "" if pct is None else f" ({pct:.1f}%)"
    return f"{kind} {chip.memory_used_mb}/{chip.memory_total_mb} MB{share}"


def processes_text(chip: ChipSample) -> str:
    if not chip.process_table:
        return _("processes ?")
    if not chip.processes:
        return _("no processes")
    shown = [f"{p.pid} {p.name or '?'} {_num(p.memory_mb, ' MB', 0)}" for p in chip.processes[:MAX_PROCESSES_SHOWN]]
    more = len(chip.processes) - MAX_PROCESSES_SHOWN
    if more > 0:
        shown.append(_("+{count} more").format(count=more))
    return ", ".join(shown)


def sample_lines(sample: Sample) -> List[str]:
    """Plain lines for one sample: one per chip, or one saying why the sample is stale."""
    head = f"{clock_text(sample.time)} #{sample.seq}"
    if sample.stale:
        return [f"{head} STALE {sample.reason}"]
    lines = []
    for chip in sample.chips:
        lines.append(
            f"{head} NPU {chip.npu_id} chip {chip.chip_id} {chip.name} {chip.health_printed} "
            f"{_num(chip.temp_c, 'C')} {_num(chip.power_w, 'W')} AICore {_num(chip.aicore_pct, '%')} "
            f"{memory_text(chip)} | {processes_text(chip)}"
        )
    if not lines:
        lines.append(f"{head} " + _("npu-smi info lists no chip"))
    # npu-smi's text (process names any local user chooses, chip names) reaches a terminal: each
    # line is made visible as one line (render/sanitize.py).
    return [visible(line) for line in lines]


def alert_line(alert: Alert) -> str:
    word = "ALERT" if alert.event == EVENT_RAISE else "CLEAR"
    return visible(f"{clock_text(alert.time)} #{alert.seq} {word} {alert.level} {alert.kind}: {alert.message}")


def render_watch_sample(sample: Sample, events: Sequence[Alert], fmt: str) -> str:
    """What the sample stream (stdout or -o FILE) gets for one sample: one line per chip (text), or
    the sample and the alert events it raised or cleared, one JSON object a line; newline-ended."""
    if fmt == JSON:
        from ascend_doctor.render.json import json_line

        lines = [json_line(sample.to_dict())] + [json_line(event.to_dict()) for event in events]
    elif fmt == TEXT:
        lines = sample_lines(sample)
    else:
        raise unknown_format(fmt)
    return "".join(line + "\n" for line in lines)


def alert_payload(alert: Alert) -> str:
    """What ``--on-alert CMD`` reads on its stdin: the alert's JSON object on one line, as in the
    stream but with the default separators (docs/watch.md)."""
    from ascend_doctor.render.json import json_payload

    return json_payload(alert.to_dict())


def build_table(sample: Sample, last_fresh: Optional[Sample], active: Sequence[Alert]) -> Any:
    """A rich Table of the latest readable sample, titled with the state of the latest one."""
    from rich.table import Table
    from rich.text import Text

    shown = last_fresh if sample.stale else sample
    title = Text(f"ascend-doctor watch  {visible(sample.host)}  {clock_text(sample.time)}  "
                 + _("sample #{seq}").format(seq=sample.seq))
    if sample.stale:
        title.append(f"  STALE: {visible(sample.reason)}", style="bold red")
    table = Table(title=title, title_justify="left", expand=False)
    for header, justify in (("NPU", "right"), (N_("Chip"), "right"), (N_("Name"), "left"), (N_("Health"), "left"),
                            (N_("Temp"), "right"), (N_("Power"), "right"), ("AICore", "right"),
                            (N_("Memory"), "left"), (N_("Processes"), "left"), (N_("Alerts"), "left")):
        table.add_column(_(header), justify=justify)  # type: ignore[arg-type]
    by_chip: Dict[Any, List[Alert]] = {}
    for alert in active:
        by_chip.setdefault((alert.npu_id, alert.chip_id), []).append(alert)
    dim = "dim" if sample.stale else ""
    for chip in shown.chips if shown is not None else ():
        alerts = by_chip.get((chip.npu_id, chip.chip_id), [])
        alert_text = Text()
        for index, alert in enumerate(alerts):
            if index:
                alert_text.append(", ")
            alert_text.append(visible(alert.kind), style="red" if alert.level == "FAIL" else "yellow")
        health_style = "green" if chip.health == "OK" else "bold red"
        table.add_row(
            visible(chip.npu_id), visible(chip.chip_id), Text(visible(chip.name)),
            Text(visible(chip.health_printed), style=health_style), _num(chip.temp_c, " C"), _num(chip.power_w, " W"),
            _num(chip.aicore_pct, " %"), Text(visible(memory_text(chip))), Text(visible(processes_text(chip))),
            alert_text, style=dim,
        )
    return table
