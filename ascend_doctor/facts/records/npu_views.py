"""The records of the ``npu_views`` facts, apart from their providers (ascend_doctor/facts/npu_views.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct, field


class NpuChipNames(Struct, frozen=True):
    """(NPU id, name as printed) of every compute chip, and what showed them."""

    chips: Tuple[Tuple[int, str], ...]
    source: str

    def to_dict(self) -> Dict[str, object]:
        return {"chips": [list(c) for c in self.chips], "source": self.source}


class NpuIds(Struct, frozen=True):
    """The NPU ids to ask per-NPU queries about, and what showed them."""

    ids: Tuple[int, ...]
    source: str  # "npu-smi info", "npu-smi info -m", "npu-smi info -l", "recorded queries"

    def to_dict(self) -> Dict[str, object]:
        return {"ids": list(self.ids), "source": self.source}


class ChipHealthState(Struct, frozen=True):
    """One chip's health from the table and/or a health query (``source`` names where it was read)."""

    npu_id: int
    chip_id: Optional[int]
    health: str
    name: Optional[str] = None
    error_codes: Tuple[str, ...] = ()
    error_information: Optional[str] = None
    source: str = "npu-smi info"

    @property
    def status(self) -> str:
        from ascend_doctor.parsers.npu_smi import normalize_health

        return normalize_health(self.health)

    def to_dict(self) -> Dict[str, object]:
        return {"npu_id": self.npu_id, "chip_id": self.chip_id, "health": self.health, "name": self.name,
                "error_codes": list(self.error_codes), "error_information": self.error_information,
                "source": self.source}


class NpuHealthStates(Struct, frozen=True):
    chips: Tuple[ChipHealthState, ...]
    failures: Dict[str, str] = field(default_factory=dict)  # command line -> why it gave nothing usable

    def to_dict(self) -> Dict[str, object]:
        return {"chips": [c.to_dict() for c in self.chips], "failures": dict(self.failures)}


class ChipReadingState(Struct, frozen=True):
    """One chip's temperature and memory use, from the table or from the per-NPU queries."""

    npu_id: int
    chip_id: Optional[int]
    temperature_c: Optional[float] = None
    hbm_temperature_c: Optional[float] = None
    memory_pct: Optional[float] = None  # HBM (or device memory) in use, percent
    used_mb: Optional[int] = None
    capacity_mb: Optional[int] = None
    aicore_pct: Optional[float] = None
    power_w: Optional[float] = None
    source: str = "npu-smi info"

    def to_dict(self) -> Dict[str, object]:
        return {name: getattr(self, name) for name in
                ("npu_id", "chip_id", "temperature_c", "hbm_temperature_c", "memory_pct", "used_mb", "capacity_mb",
                 "aicore_pct", "power_w", "source")}


class NpuChipReadings(Struct, frozen=True):
    chips: Tuple[ChipReadingState, ...]
    source: str  # "npu-smi info" (the table) or "npu-smi info -t ..." (the per-NPU queries)

    def to_dict(self) -> Dict[str, object]:
        return {"chips": [c.to_dict() for c in self.chips], "source": self.source}
