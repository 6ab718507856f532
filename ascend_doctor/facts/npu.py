"""Facts from ``npu-smi``: the command result, the parsed table, and a chip summary."""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records import ChipSummary
from ascend_doctor.facts.records.npu import NpuBoards
from ascend_doctor.host.base import CommandResult, CommandStatus

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.parsers.npu_smi import NpuSmiInfo
    from ascend_doctor.parsers.npu_smi_board import BoardInfo

NPU_SMI_INFO = ("npu-smi", "info")
# npu_smi_result is npu-smi's answer itself: CommandResult and CommandStatus are part of this module's API,
# so checks import them from here and never from the host layer.
__all__ = ["NPU_SMI_INFO", "CommandResult", "CommandStatus", "NpuBoards", "board_command", "chip_family", "npu_boards",
           "npu_chip", "npu_smi", "npu_smi_result"]


@provider("npu_smi_result", reads=Reads(commands=(NPU_SMI_INFO,)))
def npu_smi_result(facts: Facts) -> CommandResult:
    return facts.command(NPU_SMI_INFO)


@provider("npu_smi")
def npu_smi(facts: Facts) -> NpuSmiInfo:
    """The parsed ``npu-smi info`` table; FactUnavailable when npu-smi gave nothing usable."""
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_info

    result = facts.npu_smi_result
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


def chip_family(name: str, matrix: Optional[Matrix] = None) -> Optional[str]:
    if matrix is not None:
        try:
            info = matrix.chip(name)
        except Exception:  # a matrix that cannot index this name: the patterns below still can
            info = None
        if info is not None and info.family:
            return info.family
    for pattern, family in _FAMILY_PATTERNS:
        if pattern.match(name.strip()):
            return family
    return None


@provider("npu_chip")
def npu_chip(facts: Facts) -> Optional[ChipSummary]:
    """The host's NPU kind, or None when npu-smi lists no device."""
    info = facts.maybe(Facts.npu_smi)
    devices = list(info.devices) if info is not None else []
    if not devices:
        return _mapped_chip(facts) or _stated_chip(facts)
    names = Counter(d.name for d in devices if d.name)
    # most_common(1)'s answer (the first of the most frequent: heapq.nlargest(1) is max()) without
    # the heapq import most_common makes (start-up)
    name = max(names.items(), key=lambda item: item[1])[0] if names else "unknown"
    capacities = [d.capacity_mb for d in devices if d.name == name and d.capacity_mb]
    return ChipSummary(
        name=name,
        family=chip_family(name, facts.matrix),
        chip_count=len(devices),
        hbm_mb=min(capacities) if capacities else None,
        names=tuple(sorted(names)),
    )


def _mapped_chip(facts: Facts) -> Optional[ChipSummary]:
    """A snapshot or a paste without the table may hold ``npu-smi info -m``: its compute chips name the
    NPU kind and their count (``Ascend 910B3`` -> ``910B3``); the memory is not known from it."""
    from ascend_doctor.facts.origin import LIVE, origin_kind

    if origin_kind(facts) == LIVE:
        return None  # live, npu-smi info failed: its -m would not answer either
    mapping = facts.maybe(Facts.npu_mapping)
    chips = mapping.compute_chips if mapping is not None else ()
    names = Counter(re.sub(r"^Ascend\s+(?=\d)", "", c.name) for c in chips if c.name)
    if not names:
        return None
    name = max(names.items(), key=lambda item: item[1])[0]
    return ChipSummary(name=name, family=chip_family(name, facts.matrix), chip_count=len(chips), hbm_mb=None,
                       names=tuple(sorted(names)), stated_by="npu-smi info -m")


def _stated_chip(facts: Facts) -> Optional[ChipSummary]:
    """A pasted text without an NPU table may still name the chip: ``llamafactory-cli env`` prints
    ``NPU type: Ascend910B1``. The kind is then known, the count (``chip_count`` 0) and memory are not."""
    from ascend_doctor.facts.origin import PASTED_TEXT, origin_kind

    if origin_kind(facts) != PASTED_TEXT:
        return None
    pasted = facts.host.metadata.get("pasted")  # snapshot.json
    stated = pasted.get("facts", {}).get("npu_type") if isinstance(pasted, dict) else None
    if not isinstance(stated, str) or not re.match(r"^[A-Za-z0-9_\-]{2,40}$", stated.strip()):
        return None
    name = re.sub(r"^Ascend(?=\d)", "", stated.strip())  # "Ascend910B1" -> "910B1", as npu-smi names it
    return ChipSummary(name=name, family=chip_family(name, facts.matrix), chip_count=0, hbm_mb=None, names=(name,),
                       stated_by="NPU type: " + stated.strip())


# -- what the NPUs run: one board query per NPU -------------------------------------------------


def board_command(npu_id: int) -> Tuple[str, ...]:
    return ("npu-smi", "info", "-t", "board", "-i", str(npu_id))


@provider("npu_boards", reads=Reads(per_npu=(("npu-smi", "info", "-t", "board", "-i", "{npu}"),)))
def npu_boards(facts: Facts) -> NpuBoards:
    """``npu-smi info -t board -i N`` for every NPU id, run concurrently (each with the timeout)."""
    from ascend_doctor.facts.npu_views import query_ids
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError
    from ascend_doctor.parsers.npu_smi_board import parse_npu_smi_board

    ids = query_ids(facts)  # the table's NPUs; in a snapshot or a paste without one, those it shows
    from ascend_doctor.facts.origin import LIVE, command_absence_known, origin_kind
    from ascend_doctor.host.base import CommandStatus

    facts.prefetch_commands([board_command(i) for i in ids])
    replayed = origin_kind(facts) != LIVE
    boards: Dict[int, BoardInfo] = {}
    failures: Dict[int, str] = {}
    not_recorded: List[int] = []
    for npu_id in ids:
        result = facts.command(board_command(npu_id))
        if replayed and result.status is CommandStatus.NOT_FOUND and not command_absence_known(facts, result.argv):
            not_recorded.append(npu_id)
            continue
        if not result.ok or not result.stdout.strip():
            failures[npu_id] = result.describe_failure()
            continue
        try:
            boards[npu_id] = parse_npu_smi_board(result.stdout)
        except NpuSmiParseError as exc:
            failures[npu_id] = str(exc)
    return NpuBoards(boards, failures, tuple(not_recorded))
