"""One watch sample: what ``npu-smi info`` said about every chip at one moment.

Built from the parser's ``NpuSmiInfo`` (``ascend_doctor.parsers.npu_smi``); nothing here reads
the machine. A sample whose command hung or could not be read is *stale*: it carries no chips,
only the reason, so nobody mistakes old figures for fresh ones.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.i18n import _
from ascend_doctor.parsers.npu_smi import NpuSmiInfo

STATUS_OK = "ok"
STATUS_TIMEOUT = "timeout"  # npu-smi did not answer within the host's command timeout
STATUS_ERROR = "error"  # it answered, but not with a table we can read (or could not be run)

MEMORY_HBM = "hbm"
MEMORY_DDR = "ddr"  # 310/310P/310B chips have no HBM column; their device memory is DDR

ChipKey = Tuple[int, int]  # (NPU id, chip id)


class ProcessSample(Struct, frozen=True):
    pid: int
    name: str  # "" when npu-smi prints no name
    memory_mb: Optional[int]

    def to_dict(self) -> Dict[str, Any]:
        return {"pid": self.pid, "name": self.name, "memory_mb": self.memory_mb}


class ChipSample(Struct, frozen=True):
    npu_id: int
    chip_id: int
    phy_id: Optional[int]
    name: str
    health: str  # normalized: OK, WARNING, ALARM, CRITICAL, UNKNOWN
    health_printed: str  # as npu-smi printed it
    temp_c: Optional[float]
    power_w: Optional[float]
    aicore_pct: Optional[float]  # "NPU Util(%)" on the Ascend 950 layout
    memory_kind: str  # MEMORY_HBM or MEMORY_DDR
    memory_used_mb: Optional[int]
    memory_total_mb: Optional[int]
    processes: Tuple[ProcessSample, ...]
    # npu-smi printed a process table (or "No running processes"): an empty ``processes`` then
    # means idle; without it (a cut capture) nobody knows what holds the chip.
    process_table: bool

    @property
    def key(self) -> ChipKey:
        return (self.npu_id, self.chip_id)

    @property
    def memory_used_pct(self) -> Optional[float]:
        if self.memory_used_mb is None or not self.memory_total_mb:
            return None
        return 100.0 * self.memory_used_mb / self.memory_total_mb

    @property
    def label(self) -> str:
        return _("NPU {npu} chip {chip} ({name})").format(npu=self.npu_id, chip=self.chip_id, name=self.name)

    def to_dict(self) -> Dict[str, Any]:
        pct = self.memory_used_pct
        return {
            "npu": self.npu_id,
            "chip": self.chip_id,
            "phy_id": self.phy_id,
            "name": self.name,
            "health": self.health,
            "health_printed": self.health_printed,
            "temperature_c": self.temp_c,
            "power_w": self.power_w,
            "aicore_pct": self.aicore_pct,
            "memory_kind": self.memory_kind,
            "memory_used_mb": self.memory_used_mb,
            "memory_total_mb": self.memory_total_mb,
            "memory_used_pct": None if pct is None else round(pct, 2),
            "process_table": self.process_table,
            "processes": [proc.to_dict() for proc in self.processes],
        }


class EccSample(Struct, frozen=True):
    """One chip's ECC counters at one sample (``npu-smi info -t ecc -i N``, with ``watch --ecc``)."""

    npu_id: int
    chip_id: int
    single_bit: int  # errors the hardware corrected, now
    double_bit: int  # errors it could not correct, now
    retired_pages: int  # pages isolated, plus those due at the next reset

    @property
    def key(self) -> ChipKey:
        return (self.npu_id, self.chip_id)

    def to_dict(self) -> Dict[str, Any]:
        return {"npu": self.npu_id, "chip": self.chip_id, "single_bit": self.single_bit,
                "double_bit": self.double_bit, "retired_pages": self.retired_pages}


class Sample(Struct, frozen=True):
    seq: int  # 1, 2, ... in the order taken
    time: float  # wall clock, seconds since the epoch (synthetic in a replay, see source.py)
    elapsed_s: float  # since the watch started
    host: str
    status: str  # STATUS_OK / STATUS_TIMEOUT / STATUS_ERROR
    reason: str  # why the sample is stale; "" when fresh
    chips: Tuple[ChipSample, ...] = ()
    duration_s: float = 0.0  # how long npu-smi took
    npu_smi_version: Optional[str] = None
    warnings: Tuple[str, ...] = ()  # the parser's notes (a cut table, ...)
    ecc: Tuple[EccSample, ...] = ()  # with --ecc: one per chip whose ECC query answered

    @property
    def stale(self) -> bool:
        return self.status != STATUS_OK

    def to_dict(self) -> Dict[str, Any]:
        return {
            "type": "sample",
            "seq": self.seq,
            "time": iso_time(self.time),
            "elapsed_s": round(self.elapsed_s, 3),
            "host": self.host,
            "stale": self.stale,
            "status": self.status,
            "reason": self.reason or None,
            "duration_s": round(self.duration_s, 3),
            "npu_smi_version": self.npu_smi_version,
            "chips": [chip.to_dict() for chip in self.chips],
            "warnings": list(self.warnings),
            **({"ecc": [e.to_dict() for e in self.ecc]} if self.ecc else {}),
        }


def iso_time(epoch: float) -> str:
    """UTC ISO 8601 with milliseconds: ``2025-07-17T08:00:05.000Z``."""
    whole = int(epoch)
    millis = round((epoch - whole) * 1000)
    if millis >= 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{millis:03d}Z"


def chips_from_info(info: NpuSmiInfo) -> Tuple[ChipSample, ...]:
    """Per-chip samples from a parsed ``npu-smi info`` table."""
    chips_per_npu: Dict[int, List[int]] = {}
    for dev in info.devices:
        chips_per_npu.setdefault(dev.npu_id, []).append(dev.chip_id)
    procs: Dict[ChipKey, List[ProcessSample]] = {}
    for proc in info.processes:
        chip = proc.chip_id
        if chip is None:
            # The Ascend 950 process table has no Chip column: one chip per NPU there.
            ids = chips_per_npu.get(proc.npu_id, [])
            if len(ids) != 1:
                continue
            chip = ids[0]
        procs.setdefault((proc.npu_id, chip), []).append(ProcessSample(proc.pid, proc.name, proc.memory_mb))
    out: List[ChipSample] = []
    for dev in info.devices:
        out.append(ChipSample(
            npu_id=dev.npu_id,
            chip_id=dev.chip_id,
            phy_id=dev.chip_phy_id,
            name=dev.name,
            health=dev.health_status,
            health_printed=dev.health,
            temp_c=dev.temp_c,
            power_w=dev.power_w,
            aicore_pct=dev.aicore_pct,
            memory_kind=MEMORY_HBM if dev.has_hbm else MEMORY_DDR,
            memory_used_mb=dev.in_use_mb,
            memory_total_mb=dev.capacity_mb,
            processes=tuple(procs.get((dev.npu_id, dev.chip_id), ())),
            process_table=info.process_table_present,
        ))
    return tuple(out)
