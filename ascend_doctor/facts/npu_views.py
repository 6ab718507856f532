"""Facts from npu-smi's per-NPU views: the chip mapping (``info -m``), the ids the record holds, the
health queries (``-t health``) and the readings (``-t common|usages|memory|temp|power``).

Which NPUs to ask about comes only from what the machine (or the snapshot, or the paste) shows,
in this order: the ``npu-smi info`` table; in a snapshot or a paste without a table, the chip
mapping (``info -m``), the listing (``info -l``), and last the ``-i N`` of the per-NPU queries it
holds. Nothing here invents an id range.

On a live machine the views are read from the table alone (no extra command), except the health
query of a chip whose Health is not OK (``npu-smi info -t health -i N -c C``): its error code is
what a support engineer asks for first. A snapshot or a paste is read for every view it holds.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.npu_views import (
    ChipHealthState,
    ChipReadingState,
    NpuChipNames,
    NpuChipReadings,
    NpuHealthStates,
    NpuIds,
)
from ascend_doctor.i18n import gettext as _
from ascend_doctor.lazy import lazy_re

if TYPE_CHECKING:
    from ascend_doctor.host.base import CommandResult
    from ascend_doctor.parsers.npu_smi_views import NpuMapping

MAPPING_COMMAND = ("npu-smi", "info", "-m")
LISTING_COMMAND = ("npu-smi", "info", "-l")
# The per-NPU reading queries a snapshot or a paste may hold, in the order they are merged.
READING_TYPES = ("common", "usages", "memory", "temp", "power")
MAX_RECORDED = 4096  # command files looked at in a snapshot

# A command file stem of a per-NPU npu-smi query: npu-smi_info_-t_<type>_-i_<N>[_-c_<C>]
_SMI_QUERY = lazy_re(r"^npu-smi_info_-t_(?P<type>[a-z][a-z-]{0,30})_-i_(?P<npu>\d{1,6})(?:_-c_(?P<chip>\d{1,3}))?$")


def health_command(npu_id: int, chip_id: Optional[int] = None) -> Tuple[str, ...]:
    base = ("npu-smi", "info", "-t", "health", "-i", str(npu_id))
    return base if chip_id is None else base + ("-c", str(chip_id))


def reading_command(kind: str, npu_id: int) -> Tuple[str, ...]:
    return ("npu-smi", "info", "-t", kind, "-i", str(npu_id))


def recorded_command_names(facts: Facts) -> List[str]:
    """The command file stems a snapshot (or a paste) holds; [] on a live machine."""
    from ascend_doctor.facts.origin import LIVE, origin_kind

    if origin_kind(facts) == LIVE:
        return []
    try:
        return facts.host.recorded_commands()[:MAX_RECORDED]
    except Exception:  # an unreadable commands/ folder: nothing recorded to add
        return []


def recorded_queries(facts: Facts, kind: str) -> List[Tuple[int, Optional[int]]]:
    """(NPU id, chip id or None) of every recorded ``npu-smi info -t <kind> -i N [-c C]``."""
    out = []
    for name in recorded_command_names(facts):
        match = _SMI_QUERY.match(name)
        if match and match.group("type") == kind:
            chip = match.group("chip")
            out.append((int(match.group("npu")), int(chip) if chip is not None else None))
    return sorted(set(out), key=lambda item: (item[0], -1 if item[1] is None else item[1]))


def _replayed(facts: Facts) -> bool:
    from ascend_doctor.facts.origin import LIVE, origin_kind

    return origin_kind(facts) != LIVE


# -- npu-smi info -m ------------------------------------------------------------------------------


@provider("npu_mapping", reads=Reads(commands=(MAPPING_COMMAND,)))
def npu_mapping(facts: Facts) -> NpuMapping:
    """``npu-smi info -m``: NPU id, chip id and chip logic id of every chip (the MCU rows, logic id
    ``-``, are kept and marked as not compute chips)."""
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError
    from ascend_doctor.parsers.npu_smi_views import parse_npu_smi_mapping

    result = facts.command(MAPPING_COMMAND)
    if not result.ok or not result.stdout.strip():
        raise FactUnavailable(result.describe_failure(), result)
    try:
        return parse_npu_smi_mapping(result.stdout)
    except NpuSmiParseError as exc:
        raise FactUnavailable(f"`npu-smi info -m`: {exc}", result) from exc


@provider("npu_chip_names")
def npu_chip_names(facts: Facts) -> NpuChipNames:
    """The table's Name column; in a snapshot or a paste without the table, the compute chips of
    ``npu-smi info -m`` (``Ascend 910B3``: the name as npu-smi prints it there)."""
    info = facts.maybe(Facts.npu_smi)
    if info is not None and info.devices:
        return NpuChipNames(tuple((d.npu_id, d.name) for d in info.devices), "npu-smi info")
    mapping = facts.maybe(Facts.npu_mapping) if _replayed(facts) else None
    if mapping is not None and mapping.compute_chips:
        return NpuChipNames(tuple((c.npu_id, re.sub(r"^Ascend\s+(?=\d)", "", c.name))
                                  for c in mapping.compute_chips), "npu-smi info -m")
    raise FactUnavailable(_("no NPU devices were listed by npu-smi"))


# -- which NPUs the record shows ------------------------------------------------------------------


def _listing_ids(facts: Facts) -> List[int]:
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_keyvalue_blocks

    result = facts.command(LISTING_COMMAND)
    if not result.ok or not result.stdout.strip():
        return []
    try:
        blocks = parse_npu_smi_keyvalue_blocks(result.stdout)
    except NpuSmiParseError:
        return []
    return sorted({int(b["NPU ID"]) for b in blocks if b.get("NPU ID", "").isdigit() and len(b["NPU ID"]) <= 6})


@provider("npu_ids", reads=Reads(commands=(LISTING_COMMAND,)))
def npu_ids(facts: Facts) -> NpuIds:
    """The NPU ids the table lists; in a snapshot or a paste without a table, those of the chip
    mapping, of the listing, else of the per-NPU queries it holds. FactUnavailable when none shows any."""
    info = facts.maybe(Facts.npu_smi)
    table = sorted({d.npu_id for d in (info.devices if info is not None else ()) if d.npu_id is not None})
    if table:
        return NpuIds(tuple(table), "npu-smi info")
    if _replayed(facts):
        mapping = facts.maybe(Facts.npu_mapping)
        if mapping is not None and mapping.npu_ids:
            return NpuIds(tuple(mapping.npu_ids), "npu-smi info -m")
        listed = _listing_ids(facts)
        if listed:
            return NpuIds(tuple(listed), "npu-smi info -l")
        queried = sorted({npu for name in recorded_command_names(facts)
                          for npu in _query_npu(name)})
        if queried:
            return NpuIds(tuple(queried), "recorded queries")
    raise FactUnavailable(_("npu-smi lists no NPU to query"))


def _query_npu(name: str) -> List[int]:
    match = _SMI_QUERY.match(name)
    return [int(match.group("npu"))] if match else []


def query_ids(facts: Facts) -> List[int]:
    """The ids of :func:`npu_ids`, or FactUnavailable."""
    return list(facts.npu_ids.ids)


# -- health ------------------------------------------------------------------------------------------


# ``{chip}``: every chip id the table (or the chip mapping) shows on that NPU.
_HEALTH_READS = Reads(per_npu=(("npu-smi", "info", "-t", "health", "-i", "{npu}"),
                               ("npu-smi", "info", "-t", "health", "-i", "{npu}", "-c", "{chip}")), adaptive=True)


@provider("npu_health_states", reads=_HEALTH_READS)
def npu_health_states(facts: Facts) -> NpuHealthStates:
    """Every chip's health: the table's Health column, with the error code of each chip whose health
    query is at hand (live: asked for the chips that are not OK; a snapshot or a paste: every health
    query it holds, also without a table)."""
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError
    from ascend_doctor.parsers.npu_smi_views import parse_npu_smi_health

    info = facts.maybe(Facts.npu_smi)
    states: Dict[Tuple[int, Optional[int]], ChipHealthState] = {}
    for dev in (info.devices if info is not None else ()):
        states[(dev.npu_id, dev.chip_id)] = ChipHealthState(dev.npu_id, dev.chip_id, dev.health, dev.name)
    if _replayed(facts):
        wanted = recorded_queries(facts, "health")
    else:
        wanted = [(npu, chip) for (npu, chip), state in states.items() if state.status != "OK"]
    failures: Dict[str, str] = {}
    commands = [health_command(npu, chip) for npu, chip in wanted]
    facts.prefetch_commands(commands)
    for (npu, chip), argv in zip(wanted, commands):
        result: CommandResult = facts.command(argv)
        if not result.ok or not result.stdout.strip():
            failures[" ".join(argv)] = result.describe_failure()
            continue
        try:
            report = parse_npu_smi_health(result.stdout, chip)
        except NpuSmiParseError as exc:
            failures[" ".join(argv)] = str(exc)
            continue
        for chip_health in report.chips:
            key = (npu, chip_health.chip_id)
            known = states.get(key)
            states[key] = ChipHealthState(npu, chip_health.chip_id, chip_health.health,
                                          known.name if known else None, chip_health.error_codes,
                                          chip_health.error_information, " ".join(argv))
    if not states:
        raise FactUnavailable(_("no NPU devices were listed by npu-smi"))
    ordered = tuple(states[k] for k in sorted(states, key=lambda k: (k[0], -1 if k[1] is None else k[1])))
    return NpuHealthStates(ordered, failures)


# -- readings ---------------------------------------------------------------------------------------


_READING_READS = Reads(per_npu=tuple(("npu-smi", "info", "-t", kind, "-i", "{npu}") for kind in READING_TYPES),
                       adaptive=True)


@provider("npu_chip_readings", reads=_READING_READS)
def npu_chip_readings(facts: Facts) -> NpuChipReadings:
    """Per-chip temperature and memory use: the table's columns; in a snapshot or a paste without a
    table, what its ``-t common|usages|memory|temp|power -i N`` queries print, merged per chip."""
    info = facts.maybe(Facts.npu_smi)
    devices = list(info.devices) if info is not None else []
    if devices:
        chips = []
        for dev in devices:
            used, cap = dev.in_use_mb, dev.capacity_mb
            pct = 100.0 * used / cap if used is not None and cap else None
            chips.append(ChipReadingState(dev.npu_id, dev.chip_id, dev.temp_c, None, pct, used, cap, dev.aicore_pct,
                                          dev.power_w))
        return NpuChipReadings(tuple(chips), "npu-smi info")
    if not _replayed(facts):
        raise FactUnavailable(_("no NPU devices were listed by npu-smi"))
    merged = _merged_readings(facts)
    if not merged:
        raise FactUnavailable(_("no NPU devices were listed by npu-smi"))
    return NpuChipReadings(tuple(merged[k] for k in sorted(merged, key=lambda k: (k[0], -1 if k[1] is None else k[1]))),
                           "npu-smi info -t")


def _merged_readings(facts: Facts) -> Dict[Tuple[int, Optional[int]], ChipReadingState]:
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError
    from ascend_doctor.parsers.npu_smi_views import parse_npu_smi_readings

    values: Dict[Tuple[int, Optional[int]], Dict[str, Any]] = {}
    sources: Dict[Tuple[int, Optional[int]], List[str]] = {}
    for kind in READING_TYPES:
        for npu, chip in recorded_queries(facts, kind):
            argv = reading_command(kind, npu) + (("-c", str(chip)) if chip is not None else ())
            result = facts.command(argv)
            if not result.ok or not result.stdout.strip():
                continue
            try:
                readings = parse_npu_smi_readings(result.stdout, chip)
            except NpuSmiParseError:
                continue
            for reading in readings.chips:
                key = (npu, reading.chip_id)
                slot = values.setdefault(key, {})
                for name, value in (("temperature_c", reading.temperature_c),
                                    ("hbm_temperature_c", reading.hbm_temperature_c),
                                    ("memory_pct", reading.hbm_usage_pct if reading.hbm_usage_pct is not None
                                     else None),
                                    ("capacity_mb", reading.hbm_capacity_mb or None),
                                    ("aicore_pct", reading.aicore_usage_pct), ("power_w", reading.power_w)):
                    if value is not None and name not in slot:
                        slot[name] = value
                sources.setdefault(key, []).append(" ".join(argv))
    out = {}
    for key, slot in values.items():
        pct, cap = slot.get("memory_pct"), slot.get("capacity_mb")
        used = round(cap * pct / 100.0) if pct is not None and cap else None
        out[key] = ChipReadingState(key[0], key[1], slot.get("temperature_c"), slot.get("hbm_temperature_c"), pct,
                                    used, cap, slot.get("aicore_pct"), slot.get("power_w"), "; ".join(sources[key]))
    return out
