"""Version matching used by the matrix: Ascend specs, PyPI versions, release-code lists, ranges.

Ascend specs (driver / CANN / MindIE / firmware) are comma-separated clauses:

* ``24.1.RC2`` — the same release in any spelling (``24.1.rc2.2`` matches; see ``release_rank``);
* ``25.5.X`` — any release of the 25.5 family;
* ``>=8.0.RC1``, ``<25.5.1``, ``!=…`` — ordered comparisons. A bound written with only
  ``major.minor`` (``<25.0``) compares families, so ``25.0.RC1`` is not ``<25.0``.
"""

from __future__ import annotations

import functools
import operator
import re
from typing import TYPE_CHECKING, Callable, Iterable, List, Optional, Sequence, Tuple, TypeVar, Union

from msgspec import Struct

from ascend_doctor.lazy import lazy_re
from ascend_doctor.versions import AscendVersion, ReleaseCode, VersionError

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

_OPS = (">=", "<=", "==", "!=", ">", "<")
_FAMILY_ONLY_RE = lazy_re(r"^\s*v?\d+\.\d+\s*$")
_WILDCARD_RE = lazy_re(r"^\s*(\d+)\.(\d+)\.x\s*$", re.IGNORECASE)


class SpecError(ValueError):
    pass


@functools.lru_cache(maxsize=4096)
def ascend(text: str) -> AscendVersion:
    """Parse (cached) an Ascend version; raises VersionError."""
    return AscendVersion.parse(text)


# The resolver asks the same few hundred version strings hundreds of thousands of times while it
# backtracks (a failing fixture: 1.6 M try_pypi calls over the 85 fixtures): the answer is cached
# whole, not only the parse behind it.
@functools.lru_cache(maxsize=4096)
def try_ascend(text: Optional[str]) -> Optional[AscendVersion]:
    if not text:
        return None
    try:
        return ascend(text)
    except VersionError:
        return None


@functools.lru_cache(maxsize=4096)
def pypi(text: str) -> Version:
    """Parse (cached) a PyPI version; raises InvalidVersion."""
    # packaging is imported by the queries that compare PyPI versions (a chip name needs none)
    from packaging.version import Version

    return Version(text.strip().lstrip("vV"))


@functools.lru_cache(maxsize=4096)
def try_pypi(text: Optional[str]) -> Optional[Version]:
    if not text:
        return None
    from packaging.version import InvalidVersion

    try:
        return pypi(text)
    except InvalidVersion:
        return None


_PY_RE = lazy_re(r"^\s*(?:python\s*)?(\d+)\.(\d+)(?:\.(\d+))?", re.IGNORECASE)


def python_version(text: str) -> Optional[Version]:
    """``3.11.4``, ``Python 3.10``, ``3.11.4 (main, …)`` -> Version; None if unreadable."""
    match = _PY_RE.match(text or "")
    if not match:
        return None
    parts = [p for p in match.groups() if p is not None]
    from packaging.version import Version

    return Version(".".join(parts))


def same_public(a: Version, b: Version) -> bool:
    """Equal ignoring a local label (``2.1.0+cpu`` == ``2.1.0``)."""
    from packaging.version import Version

    return Version(a.public) == Version(b.public)


@functools.lru_cache(maxsize=1024)
def pyspec(text: str) -> SpecifierSet:
    # Imported here: on Python 3.9 packaging.specifiers pulls in packaging.tags (logging, platform,
    # subprocess), tens of ms that a run comparing no Python range does without.
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(text)
    except InvalidSpecifier as exc:
        raise SpecError(f"not a version specifier: {text!r}") from exc


def python_in(spec_text: str, python: str) -> Optional[bool]:
    """Whether a Python version satisfies a specifier; None when the Python is unreadable."""
    version = python_version(python)
    if version is None:
        return None
    simple = _plain_clauses(spec_text)
    if simple is not None:  # what SpecifierSet answers for these, without importing it
        return all(_PLAIN_OPS[op](*_padded(version.release, bound)) for op, bound, _text in simple)
    return pyspec(spec_text).contains(version, prereleases=True)


def spec_clauses(spec_text: str) -> List[Tuple[str, str]]:
    """The (operator, version) clauses of a specifier, as ``SpecifierSet`` lists them."""
    simple = _plain_clauses(spec_text)
    if simple is not None:
        return [(op, text) for op, _bound, text in simple]
    return [(spec.operator, spec.version) for spec in pyspec(spec_text)]


# Python ranges in the matrix are plain clauses (">=3.9,<3.12") and a Python version as
# python_version() reads it is a plain release (3.11.4): for those, SpecifierSet's rules come down
# to comparing zero-padded release numbers (no pre-, post-, dev or local parts, no wildcards).
# Anything else goes to SpecifierSet; tests/test_startup.py holds the two side by side.
_PLAIN_CLAUSE = lazy_re(r"^\s*(>=|<=|==|!=|<|>)\s*(\d+(?:\.\d+)*)\s*$")
_PLAIN_OPS = {">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
              ">": operator.gt}


@functools.lru_cache(maxsize=1024)
def _plain_clauses(spec_text: str) -> Optional[Tuple[Tuple[str, Tuple[int, ...], str], ...]]:
    clauses = []
    for part in spec_text.split(","):
        match = _PLAIN_CLAUSE.match(part)
        if match is None:
            return None
        clauses.append((match.group(1), tuple(int(n) for n in match.group(2).split(".")), match.group(2)))
    return tuple(clauses)


def _padded(a: Tuple[int, ...], b: Tuple[int, ...]) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """Both releases zero-padded to one length (3.10 is 3.10.0, as in PEP 440)."""
    size = max(len(a), len(b))
    return tuple(a) + (0,) * (size - len(a)), tuple(b) + (0,) * (size - len(b))


# -- Ascend release matching ----------------------------------------------------------------

def release_rank(row: AscendVersion, actual: AscendVersion) -> int:
    """How specifically a table version ``row`` names ``actual``; -1 when it does not.

    Same release is required. A row naming a pre-release (``8.5.0.alpha001``) matches only that
    pre-release; a plain row matches its community spellings too (``8.0.RC3.beta1``). A row with
    a patch (``6.3.RC3.1``) matches only that patch and outranks the plain release.
    """
    if not row.same_release(actual):
        return -1
    if row.pre and (row.pre, row.pre_number) != (actual.pre, actual.pre_number):
        return -1
    if row.extra and actual.extra[: len(row.extra)] != row.extra:
        return -1
    return len(row.extra) * 2 + (1 if row.pre else 0)


RowT = TypeVar("RowT")


def most_specific_rows(rows: Iterable[RowT], version_of: Callable[[RowT], Optional[str]],
                       actual: AscendVersion) -> List[RowT]:
    """Rows whose version names ``actual``; when a more specific spelling (a patch, an alpha) has
    rows, only those (6.3.RC3.1 over 6.3.RC3)."""
    ranked = []
    for row in rows:
        version = try_ascend(version_of(row))
        rank = release_rank(version, actual) if version is not None else -1
        if rank >= 0:
            ranked.append((rank, row))
    if not ranked:
        return []
    top = max(rank for rank, _ in ranked)
    return [row for rank, row in ranked if rank == top]


def release_matches(row_text: str, actual: AscendVersion) -> bool:
    row = try_ascend(row_text)
    return row is not None and release_rank(row, actual) >= 0


class _Clause(Struct, frozen=True):
    op: str  # "==" (same release), "family", or a comparison operator
    version: AscendVersion
    family_only: bool


class AscendSpec(Struct, frozen=True):
    text: str
    clauses: Tuple[_Clause, ...]

    @classmethod
    def parse(cls, text: str) -> AscendSpec:
        if not isinstance(text, str) or not text.strip():
            raise SpecError("empty version spec")
        clauses = []
        for raw in text.split(","):
            raw = raw.strip()
            wildcard = _WILDCARD_RE.match(raw)
            if wildcard:
                clauses.append(_Clause("family", ascend(f"{wildcard.group(1)}.{wildcard.group(2)}"), True))
                continue
            op = next((o for o in _OPS if raw.startswith(o)), "")
            rest = raw[len(op):].strip()
            try:
                version = ascend(rest)
            except VersionError as exc:
                raise SpecError(f"not an Ascend version spec: {raw!r}") from exc
            clauses.append(_Clause(op or "==", version, bool(_FAMILY_ONLY_RE.match(rest))))
        return cls(text, tuple(clauses))

    @property
    def is_exact(self) -> bool:
        return len(self.clauses) == 1 and self.clauses[0].op == "==" and not self.clauses[0].family_only

    def matches(self, actual: AscendVersion) -> bool:
        return all(_clause_matches(c, actual) for c in self.clauses)

    def __str__(self) -> str:
        return self.text


def _clause_matches(clause: _Clause, actual: AscendVersion) -> bool:
    bound = clause.version
    if clause.op == "family" or (clause.op == "==" and clause.family_only):
        return (actual.major, actual.minor) == (bound.major, bound.minor)
    if clause.op == "==":
        return release_rank(bound, actual) >= 0
    if clause.op == "!=":
        return release_rank(bound, actual) < 0
    if clause.family_only:
        left: Tuple[int, ...] = (actual.major, actual.minor)
        right: Tuple[int, ...] = (bound.major, bound.minor)
    else:  # community alpha/beta spellings compare as their release (8.0.RC1.beta1 >= 8.0.RC1)
        left, right = actual.sort_key[:-2], bound.sort_key[:-2]
    return {">=": left >= right, "<=": left <= right, ">": left > right, "<": left < right}[clause.op]


@functools.lru_cache(maxsize=2048)
def ascend_spec(text: str) -> AscendSpec:
    return AscendSpec.parse(text)


def spec_matches(spec_text: str, actual: AscendVersion) -> bool:
    return ascend_spec(spec_text).matches(actual)


# -- Release-code lists ---------------------------------------------------------------------

CodeRange = Tuple[ReleaseCode, ReleaseCode]
_BRACKET_RE = lazy_re(r"\[([^\[\]]*)\]")


def parse_code_list(value: Union[str, Sequence[str], None]) -> List[CodeRange]:
    """``[V100R001C13,V100R001C19],[V100R001C30]`` -> inclusive (low, high) code ranges.

    Accepts the raw ``compatible_version=`` value, or a sequence of its items (with or without
    brackets). Raises VersionError on anything that is not a release code.
    """
    if isinstance(value, (str, tuple)):  # the matrix's own values: parsed once per process
        return list(_parse_code_list_cached(value))
    return _parse_code_list(value)


@functools.lru_cache(maxsize=1024)
def _parse_code_list_cached(value: Union[str, Tuple[str, ...]]) -> Tuple[CodeRange, ...]:
    return tuple(_parse_code_list(value))


def _parse_code_list(value: Union[str, Sequence[str], None]) -> List[CodeRange]:
    if value is None:
        return []
    items: List[str]
    if isinstance(value, str):
        groups = _BRACKET_RE.findall(value)
        items = groups if groups else [value]
    else:
        items = [str(v).strip().strip("[]") for v in value]
    ranges: List[CodeRange] = []
    for item in items:
        parts = [p.strip() for p in item.split(",") if p.strip()]
        if not parts:
            continue
        if len(parts) > 2:
            raise VersionError(f"a compatible_version group has more than two codes: [{item}]")
        low = ReleaseCode.parse(parts[0])
        high = ReleaseCode.parse(parts[-1])
        ranges.append((low, high))
    return ranges


def code_listed(code: ReleaseCode, ranges: Iterable[CodeRange]) -> bool:
    return any(low.key <= code.key <= high.key for low, high in ranges)


def format_code_ranges(ranges: Iterable[CodeRange]) -> str:
    return ",".join(f"[{lo.base}]" if lo.key == hi.key else f"[{lo.base},{hi.base}]" for lo, hi in ranges)


# -- Firmware ranges and driver prefixes ----------------------------------------------------

FirmwareRange = Tuple[AscendVersion, AscendVersion]


def parse_firmware_ranges(value: Union[str, Sequence[Tuple[str, str]], None]) -> List[FirmwareRange]:
    """``[7.0.0,7.5.99]`` (driver ``compatible_version_fw``) -> inclusive version ranges."""
    if value is None:
        return []
    pairs: List[Tuple[str, str]]
    if isinstance(value, str):
        pairs = []
        for group in _BRACKET_RE.findall(value):
            parts = [p.strip() for p in group.split(",")]
            if len(parts) != 2:
                raise VersionError(f"a firmware range needs two bounds: [{group}]")
            pairs.append((parts[0], parts[1]))
        if not pairs:
            raise VersionError(f"not a firmware range list: {value!r}")
    else:
        pairs = [(str(lo), str(hi)) for lo, hi in value]
    return [(ascend(lo), ascend(hi)) for lo, hi in pairs]


def firmware_in_ranges(firmware: AscendVersion, ranges: Iterable[Tuple[AscendVersion, AscendVersion]]) -> bool:
    return any(lo.sort_key <= firmware.sort_key <= hi.sort_key for lo, hi in ranges)


def format_firmware_ranges(ranges: Iterable[Tuple[AscendVersion, AscendVersion]]) -> str:
    return ",".join(f"[{lo.original or lo},{hi.original or hi}]" for lo, hi in ranges)


class DriverPattern(Struct, frozen=True):
    """One group of a firmware's ``compatible_version_drv``: a prefix (``[24.1,24.1.]``) or a range."""

    low: str
    high: str

    @property
    def is_prefix(self) -> bool:
        return self.high.endswith(".") and self.high[:-1].lower() == self.low.lower()

    def matches(self, driver_text: str) -> bool:
        driver = driver_text.strip().lower()
        if self.is_prefix:
            prefix = self.low.lower()
            return driver == prefix or driver.startswith(prefix + ".")
        actual = try_ascend(driver_text)
        low, high = try_ascend(self.low), try_ascend(self.high.rstrip("."))
        if actual is None or low is None or high is None:
            return False
        return low.sort_key <= actual.sort_key <= high.sort_key

    def __str__(self) -> str:
        return f"[{self.low},{self.high}]"


def parse_driver_patterns(value: Union[str, Sequence[Tuple[str, str]], None]) -> List[DriverPattern]:
    """``[23.0.0,23.0.0.],[24.1,24.1.]`` (firmware ``compatible_version_drv``) -> patterns."""
    if value is None:
        return []
    if isinstance(value, str):
        groups = _BRACKET_RE.findall(value)
        if not groups:
            raise VersionError(f"not a driver pattern list: {value!r}")
        result = []
        for group in groups:
            parts = [p.strip() for p in group.split(",")]
            if len(parts) != 2 or not parts[0]:
                raise VersionError(f"a driver pattern needs two parts: [{group}]")
            ascend(parts[0])  # validate the low bound
            result.append(DriverPattern(parts[0], parts[1]))
        return result
    return [DriverPattern(str(lo), str(hi)) for lo, hi in value]
