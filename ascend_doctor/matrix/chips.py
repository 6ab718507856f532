"""Chip lookups: any npu-smi / SoC spelling -> what the matrix knows about that chip."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.matrix.chip_records import (
    ChipEntry,
    ChipFamily,
    DtypeSupport,
    EngineSupport,
    KernelsPackage,
    Requirement,
    normalize_chip_name,
)


class ChipInfo(Struct, frozen=True):
    name: str  # the matrix's name for it (``910B3``, ``Ascend910``…)
    family: str  # A2, A3, 310P, 310B, 910, 950, 310
    memory_mb: Tuple[int, ...]  # per chip (per die on A3) as seen in the field; empty = not recorded
    dtypes: Dict[str, DtypeSupport]  # bf16 / fp16 / int8 / fp8 -> supported True/False/"partial"/None
    kernels_package: Optional[KernelsPackage]  # .legacy (CANN <= 8.3) / .ops (CANN >= 8.5) templates
    soc_version: Optional[str]
    vllm_ascend_support: str  # supported / experimental / unsupported / unknown
    mindie_support: str
    sources: Tuple[str, ...]
    description: str = ""
    matched_by: str = "name"  # name / alias / pattern (a pattern gives the family only)
    query: str = ""
    soc_enum: Optional[int] = None
    soc_version_default: Optional[str] = None
    image_flavor: Optional[str] = None
    engines: Dict[str, EngineSupport] = field(default_factory=dict)
    requirements: Tuple[Requirement, ...] = ()
    dies_per_npu: Optional[int] = None
    notes: Tuple[str, ...] = ()

    def dtype_supported(self, dtype: str) -> Any:
        entry = self.dtypes.get(dtype.lower())
        return entry.supported if entry is not None else None

    @property
    def is_family(self) -> bool:
        """The query named a whole family (``A3``), not one chip."""
        return self.matched_by == "family"


class ChipIndex:
    def __init__(self, chips: Sequence[ChipEntry], families: Sequence[ChipFamily]) -> None:
        self.families: Dict[str, ChipFamily] = {f.family: f for f in families}
        self.entries = list(chips)
        self._by_name: Dict[str, Tuple[ChipEntry, str]] = {}
        for entry in chips:
            self._by_name.setdefault(normalize_chip_name(entry.name), (entry, "name"))
            for alias in entry.aliases:
                self._by_name.setdefault(normalize_chip_name(alias), (entry, "alias"))
        # Compiled at the first name that is no chip's name or alias (the patterns come from the
        # data, so the package build cannot compile them; most runs never need them).
        self._patterns: Optional[List[Tuple[re.Pattern[str], ChipEntry]]] = None

    def _compiled_patterns(self) -> List[Tuple[re.Pattern[str], ChipEntry]]:
        if self._patterns is None:
            self._patterns = []
            for entry in self.entries:
                for pattern in entry.patterns:
                    try:
                        self._patterns.append((re.compile(pattern, re.IGNORECASE), entry))
                    except re.error:
                        continue  # reported by validation
        return self._patterns

    def lookup(self, name: str) -> Optional[ChipInfo]:
        """Any name ``matrix show chips`` prints: a chip (910B3, Ascend910, 910C1), a SoC
        (Ascend910_9392, Ascend910_93xx), or a family (A2, A3, 310P, 910, A5/950)."""
        query = (name or "").strip()
        key = normalize_chip_name(query)
        if not key:
            return None
        hit = self._by_name.get(key)
        if hit is not None:
            entry, how = hit
            return self._info(entry, how, query)
        for pattern, entry in self._compiled_patterns():
            if pattern.search(key):
                return self._info(entry, "pattern", query)
        family = self._family_named(query)
        if family is not None:
            return self._family_info(family, query)
        return None

    def _family_named(self, query: str) -> Optional[ChipFamily]:
        key = re.sub(r"\s+", "", query).lower()
        for family in self.families.values():
            if key == family.family.lower() or key in (a.lower() for a in family.aliases):
                return family
        return None

    def _family_info(self, family: ChipFamily, query: str) -> ChipInfo:
        """A family as a planning target: the memory of its first listed chip that records one."""
        members = [e for e in self.entries if e.family == family.family]
        sized = next((e for e in members if e.memory_mb), None)
        notes = [f"{query!r} names the {family.family} family: memory of {sized.name} ({sized.memory_mb[0]} MB) "
                 "assumed" if sized else f"{query!r} names the {family.family} family"]
        if family.note:
            notes.append(family.note)
        return ChipInfo(
            name=family.family,
            family=family.family,
            memory_mb=(sized.memory_mb[0],) if sized else (),
            dtypes=dict(family.dtypes),
            kernels_package=family.kernels_package,
            soc_version=None,
            vllm_ascend_support=_support(dict(family.engines), "vllm-ascend"),
            mindie_support=_support(dict(family.engines), "mindie"),
            sources=tuple(family.source),
            description=family.description,
            matched_by="family",
            query=query,
            soc_version_default=family.soc_version_default,
            image_flavor=family.image_flavor,
            engines=dict(family.engines),
            requirements=family.requirements,
            dies_per_npu=sized.dies_per_npu if sized else None,
            notes=tuple(notes),
        )

    def _info(self, entry: ChipEntry, how: str, query: str) -> ChipInfo:
        family = self.families.get(entry.family)
        engines = dict(family.engines) if family else {}
        notes = [n for n in (entry.note, family.note if family else None) if n]
        exact = how != "pattern"
        if not exact:
            notes.insert(0, f"{query!r} matched a pattern of {entry.name}: family only, memory not recorded")
        sources: List[str] = list(entry.source)
        if family:
            sources.extend(s for s in family.source if s not in sources)
        return ChipInfo(
            name=entry.name if exact else query,
            family=entry.family,
            memory_mb=entry.memory_mb if exact else (),
            dtypes=dict(family.dtypes) if family else {},
            kernels_package=family.kernels_package if family else None,
            soc_version=entry.soc_version if exact else None,
            vllm_ascend_support=_support(engines, "vllm-ascend"),
            mindie_support=_support(engines, "mindie"),
            sources=tuple(sources),
            description=family.description if family else "",
            matched_by=how,
            query=query,
            soc_enum=entry.soc_enum if exact else None,
            soc_version_default=family.soc_version_default if family else None,
            image_flavor=family.image_flavor if family else None,
            engines=engines,
            requirements=family.requirements if family else (),
            dies_per_npu=entry.dies_per_npu,
            notes=tuple(notes),
        )


def _support(engines: Dict[str, EngineSupport], engine: str) -> str:
    entry = engines.get(engine)
    return entry.support if entry is not None else "unknown"
