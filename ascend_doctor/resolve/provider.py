"""The resolvelib provider: Ascend components as packages, the matrix as their metadata.

resolvelib (the resolver inside pip) asks a provider four things: which candidates a component has
(``find_matches``, in the order to try them), whether a candidate meets a requirement, what a
candidate requires of the other components (``get_dependencies``), and which component to decide
next (``get_preference``). It backtracks by itself and, when nothing fits, names the requirements
that conflict. Here:

* a component is ``engine``, ``cann``, ``hdk`` (the driver release; its firmware follows),
  ``torch_npu``, ``torch``, ``python`` or ``vllm``;
* a candidate is a version with the requirements its matrix rows state: an engine release needs its
  CANN, torch, torch_npu, Python (and HDK for MindIE); a CANN release needs a driver the matrix pairs
  with it; a torch_npu release needs its torch and a CANN it is released for; torch needs a Python;
* candidates are tried in this order: what the machine runs (keep it when it fits), then what the
  rows recommend, then the smallest change (the nearest newer release before older ones).

A kept version may fit with an "unknown" verdict (the matrix has no row for the pair): moving a
working component on no evidence is worse than keeping it, so it is kept and marked uncertain. A
version the plan would install must have a positive verdict.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
)

from packaging.version import InvalidVersion, Version
from resolvelib import AbstractProvider

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.specs import python_in, spec_matches, try_ascend
from ascend_doctor.matrix.verdict import Verdict, VerdictKind
from ascend_doctor.resolve.candidates import Candidate as Candidate
from ascend_doctor.resolve.candidates import Need as Need
from ascend_doctor.resolve.candidates import same_ascend as same_ascend
from ascend_doctor.resolve.candidates import same_public as same_public
from ascend_doctor.resolve.candidates import same_pypi as same_pypi
from ascend_doctor.resolve.model import StackState

if TYPE_CHECKING:
    from ascend_doctor.matrix.chips import ChipInfo
    from ascend_doctor.matrix.model import Matrix

PYTHONS = ("3.12", "3.11", "3.10", "3.9", "3.8")
ASCEND_COMPONENTS = ("cann", "hdk")
# Decided first: the anchor, then what the most rows constrain.
DECISION_ORDER = ("engine", "cann", "hdk", "torch", "torch_npu", "vllm", "python")


def _ascend_key(version: str) -> Tuple[Any, ...]:
    parsed = try_ascend(version)
    return tuple(parsed.sort_key) if parsed is not None else ()


def _pypi_key(version: str) -> Version:
    try:
        return Version(version.lstrip("v"))
    except InvalidVersion:
        return Version("0")


def _ok(verdict: Verdict, kept: bool) -> bool:
    """A pairing fits when the matrix says so without doubt; a kept version also fits when the matrix
    does not know (moving a working component on no evidence is worse). A pairing the source itself
    leaves in doubt ("compatible (uncertain)") fits neither: the checks grade it WARN, so the plan moves it."""
    if verdict.ok:
        return not verdict.uncertain
    return kept and verdict.kind is VerdictKind.UNKNOWN


class StackProvider(AbstractProvider):  # type: ignore[type-arg]
    """Candidates and their requirements, from the matrix, for one machine."""

    def __init__(self, m: Matrix, state: StackState, chip: Optional[ChipInfo], engine: Optional[str]) -> None:
        self.m = m
        self.state = state
        self.chip = chip
        self.engine = engine
        self._pools: Dict[str, List[Candidate]] = {}

    # -- resolvelib interface -----------------------------------------------------------------

    def identify(self, requirement_or_candidate: Any) -> str:
        return str(requirement_or_candidate.name)

    def get_preference(self, identifier: str, resolutions: Mapping[str, Any], candidates: Mapping[str, Any],
                       information: Mapping[str, Any], backtrack_causes: Sequence[Any]) -> Any:
        order = DECISION_ORDER.index(identifier) if identifier in DECISION_ORDER else len(DECISION_ORDER)
        return order

    def find_matches(self, identifier: str, requirements: Mapping[str, Iterator[Need]],
                     incompatibilities: Mapping[str, Iterator[Candidate]]) -> List[Candidate]:
        needs = list(requirements[identifier])
        bad = {c.version for c in incompatibilities[identifier]}
        pool = [c for c in self._pool(identifier) if c.version not in bad]
        fitting = [c for c in pool if all(self._meets(n, c) for n in needs)]
        preferred = [v for n in needs for v in n.prefer]
        # kept first; then the candidates that force the fewest other installed components to move (the
        # smallest change); then those whose files are all known; then what a requirement prefers; then the
        # pool's own order (nearest release first)
        def rank(indexed: Tuple[int, Candidate]) -> Tuple[int, int, int, int, int, int]:
            index, cand = indexed
            pref = next((i for i, v in enumerate(preferred) if self._same(identifier, v, cand.version)),
                        len(preferred))
            return (0 if cand.kept else 1, self._moves(cand), 0 if cand.near else 1, 0 if cand.known else 1, pref,
                    index)

        return [c for _i, c in sorted(enumerate(fitting), key=rank)]

    def is_satisfied_by(self, requirement: Need, candidate: Candidate) -> bool:
        return self._meets(requirement, candidate)

    def get_dependencies(self, candidate: Candidate) -> Iterable[Need]:
        return candidate.needs

    # -- helpers ------------------------------------------------------------------------------

    def _same(self, name: str, a: str, b: str) -> bool:
        return same_ascend(a, b) if name in ASCEND_COMPONENTS else same_pypi(a, b)

    def _meets(self, need: Need, cand: Candidate) -> bool:
        try:
            return bool(need.test(cand.version))
        except Exception:  # a malformed version in a row is no match, not a crash
            return False

    def _pool(self, name: str) -> List[Candidate]:
        if name not in self._pools:
            builder = getattr(self, f"_pool_{name}")
            self._pools[name] = list(builder())
        return self._pools[name]

    def _moves(self, cand: Candidate) -> int:
        """How many components the machine has would have to change if ``cand`` were chosen."""
        moves = 0
        for need in cand.needs:
            current = self.state.get(need.name)
            if current and not self._meets(need, Candidate(need.name, current, kept=True)):
                moves += 1
        return moves

    def _current(self, name: str) -> Optional[str]:
        return self.state.get(name)

    # -- pools --------------------------------------------------------------------------------

    def _pool_engine(self) -> Iterator[Candidate]:
        from ascend_doctor.resolve import engines

        yield from engines.engine_candidates(self)

    def _pool_cann(self) -> Iterator[Candidate]:
        current = self._current("cann")
        versions = [r.version for r in self.m.cann_releases if not r.prerelease]
        if current and not any(same_ascend(current, v) for v in versions):
            versions.insert(0, current)
        ordered = _nearest_first(versions, current, _ascend_key)
        for version in ordered:
            kept = bool(current) and same_ascend(version, current)
            yield Candidate("cann", current if kept and current else version, kept=kept,
                            reason="installed" if kept else "", needs=tuple(self._cann_needs(version, kept)))

    def _cann_needs(self, cann: str, kept: bool) -> Iterator[Need]:
        from ascend_doctor.matrix import hdk

        cann_v = try_ascend(cann)
        flavor = self.chip.image_flavor if self.chip else None
        prefer: Tuple[str, ...] = ()
        if cann_v is not None:
            hit = hdk.recommended_driver(self.m, cann_v, flavor)
            prefer = (hit[1],) if hit else ()
        m = self.m
        chip = self.chip.name if self.chip else None

        def driver_fits(driver: str) -> bool:
            keep_both = kept and same_ascend(driver, self.state.driver)
            return _ok(m.cann_vs_driver(cann, driver, chip=chip), keep_both)

        yield Need("hdk", Text(N_("a driver paired with CANN {cann}"), cann=cann), driver_fits, by=f"CANN {cann}",
                   prefer=prefer)

    def _pool_hdk(self) -> Iterator[Candidate]:
        from ascend_doctor.matrix import hdk as hdk_mod

        current = self._current("hdk")
        family = self.chip.family if self.chip else self.state.family
        flavor = self.chip.image_flavor if self.chip else None
        rows = [r for r in self.m.hdk_releases if not _other_product(r.products, family, r.note)]
        # driver and firmware of two HDK releases: when the firmware is the newer half, the driver moves to the
        # firmware's release (one package, no firmware downgrade); when the driver is newer, it stays and the
        # firmware follows it (resolve._firmware)
        fw_release = self.firmware_release()
        if current and fw_release and not same_ascend(fw_release, current) \
                and (_ascend_key(fw_release) > _ascend_key(current) or self.state.driver_firmware_nok):
            current = None
        elif current and self.state.driver_firmware_nok:
            current = None  # the board says the running pair does not work: the driver cannot be kept as it is
        versions = [r.version for r in rows]
        ordered = _nearest_first(versions, current, _ascend_key)
        if current:
            ordered = [current] + [v for v in ordered if not same_ascend(v, current)]
        # an HDK whose firmware file is known for this family before one whose firmware is not
        known: List[str] = []
        unknown_fw: List[str] = []
        for version in ordered:
            parsed = try_ascend(version)
            kept = bool(current) and same_ascend(version, current)
            has_fw = kept or (parsed is not None and hdk_mod.firmware_for_hdk(self.m, parsed, flavor) is not None)
            (known if has_fw else unknown_fw).append(version)
        for version in known + unknown_fw:
            kept = bool(current) and same_ascend(version, current)
            near = bool(fw_release) and same_ascend(version, fw_release)
            yield Candidate("hdk", version, kept=kept, reason="runs" if kept else "", known=version in known,
                            near=near)

    def firmware_release(self) -> Optional[str]:
        """The HDK release (driver file version) whose firmware the machine runs, for this family."""
        firmware = self.state.firmware
        family = self.chip.family if self.chip else self.state.family
        if not firmware or not family:
            return None
        for row in self.m.hdk_packages:
            if row.family == family and row.firmware and row.firmware.strip().lower() == firmware.strip().lower():
                return str(row.driver)
        return None

    def _pool_torch_npu(self) -> Iterator[Candidate]:
        from ascend_doctor.resolve import engines

        current = self._current("torch_npu")
        rows = self.m.torch_npu_rows
        versions: List[str] = []
        for row in sorted(rows, key=lambda r: (r.origin != "table", _pypi_key(r.version)), reverse=False):
            if not any(same_pypi(row.version, v) for v in versions):
                versions.append(row.version)
        for extra in engines.engine_torch_npu_builds(self):
            if not any(same_pypi(extra, v) for v in versions):
                versions.append(extra)
        if current and not any(same_pypi(current, v) for v in versions):
            versions.insert(0, current)
        # PyPI (table) releases before installer-only ones, each newest first
        table = {r.version for r in rows if r.origin == "table"}
        ordered = sorted(versions, key=lambda v: (v not in table, [-x for x in _pypi_key(v).release],
                                                  -(_pypi_key(v).post or 0)))
        for version in ordered:
            kept = bool(current) and same_pypi(version, current)
            yield Candidate("torch_npu", current if kept and current else version, kept=kept,
                            reason="installed" if kept else "", needs=tuple(self._torch_npu_needs(version, kept)))

    def _torch_npu_needs(self, torch_npu: str, kept: bool) -> Iterator[Need]:
        rows = [r for r in self.m.torch_npu_rows if same_pypi(r.version, torch_npu)]
        torches = sorted({r.torch for r in rows})
        if not torches:
            torches = [str(_pypi_key(torch_npu).base_version)]  # 2.7.1.dev20250724 builds on torch 2.7.1
            torches = [".".join(torches[0].split(".")[:3])]
        yield Need("torch", "torch " + " / ".join(torches), lambda t: any(same_public(t, x) for x in torches),
                   by=f"torch_npu {torch_npu}", prefer=tuple(torches))
        m = self.m
        state_cann = self.state.cann
        # a torch_npu the engine's own release data names (MindIE's PTA builds): the engine's row vouches for
        # it with the engine's CANN, so only a documented mismatch rules it out, not a gap in the table
        vouched = torch_npu in self._engine_torch_npus()
        if rows:
            def cann_fits(cann: str) -> bool:
                keep_both = (kept or vouched) and (same_ascend(cann, state_cann) or vouched)
                return _ok(m.torch_npu_vs_cann(torch_npu, cann), keep_both)

            yield Need("cann", Text(N_("a CANN that torch_npu {torch_npu} is released for"), torch_npu=torch_npu),
                       cann_fits,
                       by=f"torch_npu {torch_npu}")

    def _engine_torch_npus(self) -> FrozenSet[str]:
        """The torch_npu releases the engine's release data names (MindIE's PTA builds, vLLM-Ascend rows)."""
        if "_vouched" not in self.__dict__:
            found: Set[str] = set()
            if self.engine == "mindie":
                from ascend_doctor.matrix.engines import mindie_pairs

                for row in self.m.mindie_rows:
                    found.update(p.version for p in mindie_pairs(self.m, row))
                    found.update(str(b.torch_npu) for b in (getattr(row, "builds", None) or ())
                                 if getattr(b, "torch_npu", None))
            elif self.engine == "vllm-ascend":
                found.update(r.torch_npu for r in self.m.vllm_ascend_rows)
            self.__dict__["_vouched"] = frozenset(found)
        vouched: FrozenSet[str] = self.__dict__["_vouched"]
        return vouched

    def _pool_torch(self) -> Iterator[Candidate]:
        current = self._current("torch")
        versions: List[str] = []
        for v in [r.torch for r in self.m.torch_npu_rows] + [r.torch for r in self.m.torch_python]:
            if not any(same_public(v, x) for x in versions):
                versions.append(v)
        if current and not any(same_public(current, v) for v in versions):
            versions.insert(0, current)
        ordered = sorted(versions, key=_pypi_key, reverse=True)
        for version in ordered:
            kept = bool(current) and same_public(version, current)
            yield Candidate("torch", current if kept and current else version, kept=kept,
                            reason="installed" if kept else "", needs=tuple(self._torch_needs(version, kept)))

    def _torch_needs(self, torch: str, kept: bool) -> Iterator[Need]:
        rows = [r for r in self.m.torch_python if same_public(r.torch, torch) and r.python]
        if rows:
            spec = rows[0].python or ""
            sources = rows[0].source
            current_python = self.state.python

            def python_fits(python: str) -> bool:
                inside = python_in(spec, python)
                return bool(inside) or (kept and inside is None and python == current_python)

            yield Need("python", f"Python {spec}", python_fits, by=f"torch {torch}", sources=sources)

    def _pool_python(self) -> Iterator[Candidate]:
        current = self._current("python")
        versions = list(PYTHONS)
        if current:
            short = ".".join(current.split(".")[:2])
            versions = [short] + [v for v in versions if v != short]
        for version in versions:
            kept = bool(current) and version == ".".join((current or "").split(".")[:2])
            yield Candidate("python", version, kept=kept, reason="installed" if kept else "")

    def _pool_vllm(self) -> Iterator[Candidate]:
        current = self._current("vllm")
        versions: List[str] = []
        for row in self.m.vllm_ascend_rows:
            for v in row.vllm:
                if not any(same_pypi(v, x) for x in versions):
                    versions.append(v)
        if current and not any(same_pypi(current, v) for v in versions):
            versions.insert(0, current)
        for version in sorted(versions, key=_pypi_key, reverse=True):
            kept = bool(current) and same_pypi(version, current)
            yield Candidate("vllm", current if kept and current else version, kept=kept,
                            reason="installed" if kept else "")


OTHER_PRODUCTS = ("Atlas 350", "Atlas 850", "Atlas 950")


def _other_product(products: Sequence[str], family: Optional[str], note: Optional[str]) -> bool:
    """An HDK line of another product (Atlas 350 / 850 / 950) is never a candidate for A2/A3/310P: a row
    restricted to those products, or one whose note names only such a product (25.6.RC1, 25.7.RC1)."""
    if products and any(o in " ".join(products) for o in OTHER_PRODUCTS):
        return True
    return (note or "").strip() in OTHER_PRODUCTS


def _nearest_first(versions: Sequence[str], current: Optional[str],
                   key: Callable[[str], Any]) -> List[str]:
    """Without a current version: newest first. With one: the same release, then newer ones nearest
    first (an upgrade is the smallest change that keeps what depends on it), then older ones nearest first."""
    unique: List[str] = []
    for v in versions:
        if v not in unique:
            unique.append(v)
    if not current:
        return sorted(unique, key=key, reverse=True)
    here = key(current)
    newer = sorted((v for v in unique if key(v) > here), key=key)
    older = sorted((v for v in unique if key(v) < here), key=key, reverse=True)
    same = [v for v in unique if key(v) == here]
    return same + newer + older


def chip_needs(chip: Optional[ChipInfo]) -> List[Need]:
    """A chip's own requirements (A3 needs CANN >= x and HDK >= y), as root requirements."""
    needs: List[Need] = []
    if chip is None:
        return needs
    for req in chip.requirements:
        if req.cann:
            needs.append(Need("cann", f"CANN {req.cann}", in_spec(req.cann), by=req.applies_to, sources=req.source))
        if req.hdk:
            needs.append(Need("hdk", f"HDK {req.hdk}", in_spec(req.hdk), by=req.applies_to, sources=req.source))
    return needs


def in_spec(spec: str) -> Callable[[str], bool]:
    """A test: the version is inside an Ascend version range (``>=8.0.RC1``)."""
    def test(version: str) -> bool:
        parsed = try_ascend(version)
        return parsed is not None and spec_matches(spec, parsed)

    return test


def equal_to(version: str, same: Callable[[Optional[str], Optional[str]], bool]) -> Callable[[str], bool]:
    """A test: the same release as ``version``, by ``same``."""
    def test(candidate: str) -> bool:
        return same(candidate, version)

    return test
