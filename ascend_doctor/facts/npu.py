"""Facts from ``npu-smi``: the command result, the parsed table, and a chip summary."""

from __future__ import annotations

import re
from collections import Counter
from typing import Optional

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.records import ChipSummary
from ascend_doctor.host.base import CommandResult

NPU_SMI_INFO = ("npu-smi", "info")


@provider("npu_smi_result")
def npu_smi_result(facts: Facts) -> CommandResult:
    return facts.command(NPU_SMI_INFO)


@provider("npu_smi")
def npu_smi(facts: Facts) -> object:
    """The parsed ``npu-smi info`` table; FactUnavailable when npu-smi gave nothing usable."""
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_info

    result: CommandResult = facts.get("npu_smi_result")
    if not result.stdout.strip():
        raise FactUnavailable(result.describe_failure(), result)
    try:
        return parse_npu_smi_info(result.stdout)
    except NpuSmiParseError as exc:
        raise FactUnavailable(str(exc), result) from exc


# Fallback names -> families when the matrix cannot name a chip (kept minimal on purpose:
# the matrix's chips table is the reference; this only covers the npu-smi spellings).
_FAMILY_PATTERNS = (
    (re.compile(r"^(Ascend)?910B\d", re.I), "A2"),
    (re.compile(r"^(Ascend)?910_?93", re.I), "A3"),
    (re.compile(r"^(Ascend)?910C", re.I), "A3"),
    (re.compile(r"^Ascend910$", re.I), "A3"),
    (re.compile(r"^(Ascend)?310P", re.I), "310P"),
    (re.compile(r"^(Ascend)?310B", re.I), "310B"),
    (re.compile(r"^(Ascend)?950", re.I), "950"),
    (re.compile(r"^(Ascend)?910(A|ProB|B)?$", re.I), "910"),
)


def chip_family(name: str, matrix: object = None) -> Optional[str]:
    chip_lookup = getattr(matrix, "chip", None)
    if callable(chip_lookup):
        try:
            info = chip_lookup(name)
        except Exception:
            info = None
        family = getattr(info, "family", None)
        if family:
            return str(family)
    for pattern, family in _FAMILY_PATTERNS:
        if pattern.match(name.strip()):
            return family
    return None


@provider("npu_chip")
def npu_chip(facts: Facts) -> Optional[ChipSummary]:
    """The host's NPU kind, or None when npu-smi lists no device."""
    info = facts.try_get("npu_smi")
    devices = list(getattr(info, "devices", None) or [])
    if not devices:
        return None
    names = Counter(d.name for d in devices if d.name)
    name = names.most_common(1)[0][0] if names else "unknown"
    capacities = [d.capacity_mb for d in devices if d.name == name]
    capacities = [c for c in capacities if c]
    return ChipSummary(
        name=name,
        family=chip_family(name, facts.matrix),
        chip_count=len(devices),
        hbm_mb=min(capacities) if capacities else None,
        names=tuple(sorted(names)),
    )
