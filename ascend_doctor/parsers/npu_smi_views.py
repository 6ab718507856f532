"""The per-NPU ``npu-smi`` views besides the table, board and ECC queries (pure: text in, records out).

========================================  ==========================================================
view                                      record
========================================  ==========================================================
``npu-smi info -m``                       :class:`NpuMapping`: NPU id, chip id, chip logic id (``-``
                                          for the ``Mcu`` rows, which are not compute chips), the
                                          chip's Phy-ID where printed (A3), its name
``npu-smi info -t health -i N``           :class:`HealthReport`: ``Chip ID`` / ``Health`` blocks
``npu-smi info -t health -i N -c C``      :class:`HealthReport` of one chip: ``Health Status``,
                                          ``Error Code`` (``NA`` or codes), ``Error Information``
``npu-smi info -t common|usages|memory|   :class:`NpuReadings`: per chip, HBM and AICore use (%),
temp|power -i N``                         HBM capacity, temperatures, power (``mcu`` blocks left out)
========================================  ==========================================================

Layouts as printed in public samples (tests/samples/npu-smi-other/): the Huawei npu-smi reference
(hiascend npusmi_027 "查询所有芯片健康状态", npusmi_028 "查询指定芯片健康状态"), MindCluster
collection docs, and users' pastes. A value printed as ``NA`` is left out (None), never read as 0.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers.npu_smi import NpuSmiParseError, _keyvalue_lines, normalize_health

MAX_ROWS = 512  # an 8-NPU A3 prints 24 rows; a pasted -m bigger than this is not one machine
_NOT_VALUES = ("", "NA", "N/A", "-")


# --------------------------------------------------------------------------- npu-smi info -m


class ChipMapping(Struct, frozen=True):
    """One row of ``npu-smi info -m``; ``logic_id`` None on the rows printed with ``-`` (the MCU)."""

    npu_id: int
    chip_id: int
    logic_id: Optional[int]
    phy_id: Optional[int]
    name: str

    @property
    def is_compute(self) -> bool:
        """A chip the runtime can use: it has a logic id (the ``Mcu`` rows print ``-``)."""
        return self.logic_id is not None

    def to_dict(self) -> Dict[str, Any]:
        return {"npu_id": self.npu_id, "chip_id": self.chip_id, "logic_id": self.logic_id,
                "phy_id": self.phy_id, "name": self.name}


class NpuMapping(Struct, frozen=True):
    chips: Tuple[ChipMapping, ...]

    @property
    def compute_chips(self) -> Tuple[ChipMapping, ...]:
        return tuple(c for c in self.chips if c.is_compute)

    @property
    def npu_ids(self) -> List[int]:
        return sorted({c.npu_id for c in self.compute_chips})

    @property
    def logic_ids(self) -> List[int]:
        return sorted({c.logic_id for c in self.compute_chips if c.logic_id is not None})

    def chips_per_npu(self) -> Dict[int, int]:
        out: Dict[int, int] = {}
        for chip in self.compute_chips:
            out[chip.npu_id] = out.get(chip.npu_id, 0) + 1
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {"chips": [c.to_dict() for c in self.chips]}


_MAPPING_HEADER = lazy_re(r"^NPU ID\s+Chip ID\s+Chip Logic ID(?P<phy>\s+Chip Phy-ID)?\s+Chip Name\s*$")


def is_mapping_header(line: str) -> bool:
    return _MAPPING_HEADER.match(line.strip()) is not None


def _id(word: str) -> Optional[int]:
    if word in _NOT_VALUES:
        return None
    if not word.isdigit() or len(word) > 9:
        raise ValueError(word)
    return int(word)


def parse_npu_smi_mapping(text: str) -> NpuMapping:
    """Parse ``npu-smi info -m``. Rows are read by words (the name may hold a blank:
    ``Ascend 910B3``); NpuSmiParseError when there is no header or a row does not fit it."""
    if not isinstance(text, str):
        raise NpuSmiParseError(f"expected text, got {type(text).__name__}")
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if is_mapping_header(line)), None)
    if start is None:
        raise NpuSmiParseError("no 'NPU ID  Chip ID  Chip Logic ID ... Chip Name' header")
    header = _MAPPING_HEADER.match(lines[start].strip())
    with_phy = bool(header and header.group("phy"))
    numbers = 4 if with_phy else 3
    chips: List[ChipMapping] = []
    for index in range(start + 1, len(lines)):
        words = lines[index].split()
        if not words:
            continue
        if len(words) <= numbers or not words[0].isdigit():
            if chips:
                break  # the listing ended (a prompt, the next output)
            raise NpuSmiParseError("not a chip row", index + 1, lines[index])
        try:
            npu, chip, logic = _id(words[0]), _id(words[1]), _id(words[2])
            phy = _id(words[3]) if with_phy else None
        except ValueError as exc:
            raise NpuSmiParseError("an id column holds something else", index + 1, lines[index]) from exc
        if npu is None or chip is None:
            raise NpuSmiParseError("a row without its NPU or chip id", index + 1, lines[index])
        chips.append(ChipMapping(npu, chip, logic, phy, " ".join(words[numbers:])))
        if len(chips) >= MAX_ROWS:
            break
    if not chips:
        raise NpuSmiParseError("the chip mapping lists no chip")
    return NpuMapping(tuple(chips))


# --------------------------------------------------------------------------- npu-smi info -t health


class ChipHealth(Struct, frozen=True):
    """One chip's health: ``health`` as printed, ``error_codes`` () when ``NA`` or not printed."""

    chip_id: Optional[int]
    health: str
    error_codes: Tuple[str, ...] = ()
    error_information: Optional[str] = None

    @property
    def status(self) -> str:
        """OK, WARNING, ALARM, CRITICAL or UNKNOWN."""
        return normalize_health(self.health)

    def to_dict(self) -> Dict[str, Any]:
        return {"chip_id": self.chip_id, "health": self.health, "error_codes": list(self.error_codes),
                "error_information": self.error_information}


class HealthReport(Struct, frozen=True):
    npu_id: Optional[int]
    chips: Tuple[ChipHealth, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {"npu_id": self.npu_id, "chips": [c.to_dict() for c in self.chips]}


_CODE = lazy_re(r"^[0-9A-Fa-fx]{4,16}$")


def _codes(value: str) -> Tuple[str, ...]:
    words = [w for w in re.split(r"[\s,;]+", value.strip()) if w]
    return tuple(w.upper() for w in words if w.upper() not in ("NA", "N/A") and _CODE.match(w))[:32]


def _number(value: str) -> Optional[int]:
    value = value.strip()
    return int(value) if value.isdigit() and len(value) <= 9 else None


def parse_npu_smi_health(text: str, chip_id: Optional[int] = None) -> HealthReport:
    """Parse either health query. ``chip_id`` is the ``-c`` the command named (the per-chip query
    does not print it). The NPU-wide query's ``Chip Name : MCU`` block is not a compute chip and is
    left out. NpuSmiParseError when no health line is there."""
    npu_id: Optional[int] = None
    chips: List[ChipHealth] = []
    block: Dict[str, str] = {}

    def close() -> None:
        health = block.get("health status", block.get("health"))
        if health is not None and "chip name" not in block:
            chip = _number(block["chip id"]) if "chip id" in block else chip_id
            chips.append(ChipHealth(chip, health.strip() or "UNKNOWN", _codes(block.get("error code", "")),
                                    _text(block.get("error information"))))
        block.clear()

    for key, value in _keyvalue_lines(text):
        if key is None:
            close()
            continue
        name = " ".join(key.split()).lower()
        if name == "npu id":
            npu_id = _number(value)
            continue
        if name == "chip count":
            continue
        if name in block and name in ("health", "health status", "chip id"):
            close()  # the next chip's block without a blank line between
        block[name] = value
    close()
    if not chips:
        raise NpuSmiParseError("the health query printed no 'Health' or 'Health Status' line")
    return HealthReport(npu_id, tuple(chips[:MAX_ROWS]))


def _text(value: Optional[str]) -> Optional[str]:
    if value is None or value.strip().upper() in _NOT_VALUES:
        return None
    return value.strip()[:500]


# --------------------------------------------------------------------------- readings (-t common ...)


class ChipReading(Struct, frozen=True):
    """What one chip's block of ``-t common|usages|memory|temp|power`` prints (None: not printed)."""

    chip_id: Optional[int]
    hbm_usage_pct: Optional[float] = None
    aicore_usage_pct: Optional[float] = None
    memory_usage_pct: Optional[float] = None  # "Memory Usage Rate(%)" / "DDR Usage Rate(%)"
    hbm_capacity_mb: Optional[int] = None
    ddr_capacity_mb: Optional[int] = None
    temperature_c: Optional[float] = None
    hbm_temperature_c: Optional[float] = None
    power_w: Optional[float] = None
    aicore_count: Optional[int] = None

    @property
    def hbm_used_mb(self) -> Optional[int]:
        if self.hbm_usage_pct is None or not self.hbm_capacity_mb:
            return None
        return round(self.hbm_capacity_mb * self.hbm_usage_pct / 100.0)

    def to_dict(self) -> Dict[str, Any]:
        return {name: getattr(self, name) for name in _READING_FIELDS}


_READING_FIELDS = ("chip_id", "hbm_usage_pct", "aicore_usage_pct", "memory_usage_pct", "hbm_capacity_mb",
                   "ddr_capacity_mb", "temperature_c", "hbm_temperature_c", "power_w", "aicore_count")
# Printed key (lower case, single blanks) -> field. "Temperature(C)" of an "mcu" block is the board
# controller's, not the chip's: such blocks are dropped whole.
_READING_KEYS = {
    "hbm usage rate(%)": "hbm_usage_pct",
    "aicore usage rate(%)": "aicore_usage_pct",
    "memory usage rate(%)": "memory_usage_pct",
    "ddr usage rate(%)": "memory_usage_pct",
    "hbm capacity(mb)": "hbm_capacity_mb",
    "ddr capacity(mb)": "ddr_capacity_mb",
    "temperature(c)": "temperature_c",
    "npu temperature (c)": "temperature_c",
    "hbm temperature(c)": "hbm_temperature_c",
    "npu real-time power(w)": "power_w",
    "aicore count": "aicore_count",
}
_INT_FIELDS = ("hbm_capacity_mb", "ddr_capacity_mb", "aicore_count")


class NpuReadings(Struct, frozen=True):
    npu_id: Optional[int]
    chips: Tuple[ChipReading, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {"npu_id": self.npu_id, "chips": [c.to_dict() for c in self.chips]}


def _float(value: str) -> Optional[float]:
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if 0 <= number < 1e9 else None


def parse_npu_smi_readings(text: str, chip_id: Optional[int] = None) -> NpuReadings:
    """Parse one ``-t common|usages|memory|temp|power`` output into per-chip readings. A block is
    the lines between blank lines; ``Chip ID`` may come first (common) or last (usages). Blocks
    naming a ``Chip Name`` (the MCU's sensors) are left out. NpuSmiParseError when no chip reading
    is there (an error message, another query's output)."""
    npu_id: Optional[int] = None
    chips: List[ChipReading] = []
    values: Dict[str, Any] = {}
    block_chip: List[Optional[int]] = [None]
    mcu = [False]

    def close() -> None:
        if values and not mcu[0]:
            chip = block_chip[0] if block_chip[0] is not None else chip_id
            chips.append(ChipReading(chip, **values))
        values.clear()
        block_chip[0] = None
        mcu[0] = False

    for key, value in _keyvalue_lines(text):
        if key is None:
            close()
            continue
        name = " ".join(key.split()).lower()
        if name == "npu id":
            npu_id = _number(value)
            continue
        if name == "chip id":
            if block_chip[0] is not None and values:
                close()
            block_chip[0] = _number(value)
            continue
        if name == "chip name":
            mcu[0] = True
            continue
        field_name = _READING_KEYS.get(name)
        if field_name is None:
            continue
        number = _float(value)
        if number is None:
            continue
        if field_name in values:  # the same reading again: the next chip's block
            close()
        values[field_name] = int(number) if field_name in _INT_FIELDS else number
        if len(chips) >= MAX_ROWS:
            break
    close()
    if not chips:
        raise NpuSmiParseError("the query printed no chip reading (usage, capacity, temperature or power)")
    return NpuReadings(npu_id, tuple(chips))


__all__ = ["ChipHealth", "ChipMapping", "ChipReading", "HealthReport", "NpuMapping", "NpuReadings",
           "is_mapping_header", "parse_npu_smi_health", "parse_npu_smi_mapping", "parse_npu_smi_readings"]
