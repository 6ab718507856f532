"""What the fact providers declare they read, expanded for one machine.

``declarations()`` is the union of every provider's ``Reads`` (ascend_doctor/facts/reads.py):
the capture records exactly that, so there is no list of paths to keep in step with the checks.
``glob`` expands one declared pattern on a host (``*`` within a path segment, ``**`` across
segments), bounded in depth and matches, without following links into loops.
"""

from __future__ import annotations

import fnmatch
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ascend_doctor.facts import Fact, Facts, every_fact
from ascend_doctor.facts.reads import INPUT_VARIABLES, Reads, expand, path_matches

MAX_GLOB_DEPTH = 6  # folders a ``**`` descends
MAX_GLOB_MATCHES = 2000  # paths one pattern may expand to
MAX_GLOB_LISTINGS = 2000  # folders listed to expand one pattern


def providers() -> Dict[str, Fact[Any]]:
    """Every fact: the ones the Facts class declares, those declared next to their providers, and
    those of installed plugins' checks (ascend_doctor/plugins.py), so a site's file is recorded too."""
    from ascend_doctor.plugins import entry_point_modules

    return every_fact(entry_point_modules())


def declarations(adaptive: bool = False) -> Reads:
    """The union of the declarations of the providers that are (``adaptive``) or are not adaptive."""
    merged = Reads()
    for fact in providers().values():
        reads = fact.reads()
        if reads.adaptive == adaptive:
            merged = merged.merged(reads)
    return merged


class Expansion:
    """The ids the per-NPU declarations expand to on one machine (facts/reads.py): ``npu_ids``
    (``{npu}``), ``chips`` (NPU id -> its chip ids, ``{chip}``) and ``device_ids`` (``{device}``: one
    per die, 0-15 on an A3 node). Only what the machine's ``npu-smi info`` / ``info -m`` (or a
    record's queries) show: no id range is assumed."""

    __slots__ = ("chips", "device_ids", "npu_ids")

    def __init__(self, npu_ids: Sequence[int] = (), chips: Optional[Dict[int, List[int]]] = None,
                 device_ids: Sequence[int] = ()) -> None:
        self.npu_ids = list(npu_ids)
        self.chips = dict(chips or {})
        self.device_ids = list(device_ids)


def expansion(facts: Facts) -> Expansion:
    from ascend_doctor.facts import FactUnavailable
    from ascend_doctor.facts.network import device_ids_for

    ids = facts.maybe(Facts.npu_ids)
    npu_ids = list(ids.ids) if ids is not None else []
    chips: Dict[int, List[int]] = {}
    smi = facts.maybe(Facts.npu_smi)
    for dev in (smi.devices if smi is not None else ()):
        chips.setdefault(dev.npu_id, []).append(dev.chip_id)
    if not chips:
        mapping = facts.maybe(Facts.npu_mapping)
        for chip in (mapping.compute_chips if mapping is not None else ()):
            chips.setdefault(chip.npu_id, []).append(chip.chip_id)
    try:
        device_ids = device_ids_for(facts)
    except FactUnavailable:
        device_ids = []
    return Expansion(npu_ids, {k: sorted(set(v)) for k, v in chips.items()}, device_ids)


def adaptive_facts() -> List[Fact[Any]]:
    return [fact for fact in providers().values() if fact.reads().adaptive]


# Inputs of one run (--model, --config, --verify): never recorded by a plain capture. The rank table
# is an input too, but the one the machine's own RANK_TABLE_FILE names is part of the machine.
RUN_INPUTS = tuple(name for name in INPUT_VARIABLES if name != "rank_table")


def machine_variables(variables: Dict[str, List[str]]) -> Dict[str, List[str]]:
    """The variables without the inputs of a run: a capture records the machine (read with no
    command-line inputs, so ``{rank_table}`` is only what the environment names)."""
    return {name: ([] if name in RUN_INPUTS else list(values)) for name, values in variables.items()}


def expanded(reads: Reads, variables: Dict[str, List[str]]) -> Dict[str, List[str]]:
    """Each kind of path declaration with the variables expanded (patterns still wild)."""
    return {kind: [p for pattern in getattr(reads, kind) for p in expand(pattern, variables)]
            for kind in ("files", "present", "listings", "tails")}


def content_allowed(patterns: Sequence[str], variables: Dict[str, List[str]]) -> Any:
    """A predicate over (path asked, real path): may that file's content be copied?

    The path asked must be declared (or the real one), and the real path, where links lead, must
    stay in the machine's declared areas: an install root, a log folder, a folder an Ascend
    variable names, a site folder of the target Python, or the literal folder of a declared path.
    So ``mindie/latest/version.info`` is copied through ``latest -> 2.1.RC1``, and a link to
    ``/root/.ssh/id_rsa`` is not."""
    areas = {v.rstrip("/") for name in ("root", "log_root", "env_path", "python_site") for v in variables.get(name, ())
             if v.startswith("/") and v.rstrip("/")}
    for pattern in patterns:
        literal: List[str] = []
        for segment in pattern.split("/")[1:-1]:
            if _is_wild(segment):
                break
            literal.append(segment)
        if literal:
            areas.add("/" + "/".join(literal))

    def allowed(asked: str, real: str) -> bool:
        declared = any(path_matches(asked, p) or path_matches(real, p) for p in patterns)
        inside = any(path_matches(real, p) for p in patterns) or \
            any(real == a or real.startswith(a + "/") for a in areas)
        return declared and inside
    return allowed


def _is_wild(segment: str) -> bool:
    return any(c in segment for c in "*?[")


def glob(host: Any, pattern: str, notes: List[str]) -> List[str]:
    """The existing host paths ``pattern`` matches (a plain path is returned as it is: whether it
    exists is for the recorder to find out)."""
    segments = [s for s in pattern.split("/") if s]
    if not pattern.startswith("/") or not any(_is_wild(s) for s in segments):
        return [pattern] if pattern.startswith("/") else []
    found: List[str] = []
    budget = [MAX_GLOB_LISTINGS]
    _expand(host, "", segments, found, budget, 0)
    if len(found) > MAX_GLOB_MATCHES or budget[0] <= 0:
        notes.append(f"{pattern}: more than {MAX_GLOB_MATCHES} paths or {MAX_GLOB_LISTINGS} folders; "
                     "the rest was not recorded")
    return found[:MAX_GLOB_MATCHES]


def _expand(host: Any, prefix: str, segments: List[str], found: List[str], budget: List[int], depth: int) -> None:
    if len(found) > MAX_GLOB_MATCHES or budget[0] <= 0:
        return
    if not segments:
        found.append(prefix or "/")
        return
    head, rest = segments[0], segments[1:]
    if head == "**":
        _expand(host, prefix, rest, found, budget, depth)  # zero folders
        if depth >= MAX_GLOB_DEPTH:
            return
        for name, is_dir in _entries(host, prefix or "/", budget, with_kind=True):
            if is_dir:
                _expand(host, f"{prefix}/{name}", segments, found, budget, depth + 1)
        return
    if not _is_wild(head):
        _expand(host, f"{prefix}/{head}", rest, found, budget, depth)
        return
    for name, _is_dir in _entries(host, prefix or "/", budget):
        if fnmatch.fnmatchcase(name, head):
            _expand(host, f"{prefix}/{name}", rest, found, budget, depth)


def _entries(host: Any, folder: str, budget: List[int], with_kind: bool = False) -> List[Tuple[str, bool]]:
    """(name, is a real folder) of ``folder``'s entries (the kind only ``with_kind``); links are
    entries but never descended by ``**`` (they could loop or lead anywhere)."""
    budget[0] -= 1
    if budget[0] <= 0:
        return []
    try:
        names = host.listdir(folder)
    except Exception:  # permission denied: nothing to expand there
        return []
    if not with_kind:
        return [(name, False) for name in names]
    out: List[Tuple[str, bool]] = []
    for name in names:
        st = host.stat(folder.rstrip("/") + "/" + name)
        out.append((name, bool(st is not None and st.is_dir and not st.is_symlink)))
    return out
