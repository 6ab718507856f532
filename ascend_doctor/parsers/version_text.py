"""Shared reading of Ascend ``key=value`` / ``key : value`` text files.

Every parser in :mod:`ascend_doctor.parsers.version_files` goes through :func:`read_pairs`, which
takes one file's text and is deliberately forgiving about how that text reached us:

* a UTF-8 BOM, CRLF or CR line ends, blank lines, leading indentation (files pasted into
  markdown are indented) and trailing spaces are ignored;
* ``#`` lines are comments (``version.cfg`` starts with ``# version: 1.0``);
* values wrapped in matching quotes lose them (``required_package_x_version=">=7.6, <=8.2"``);
* a key given twice keeps its last value (as ``source``-ing the file would) and leaves a warning;
* lines that are not pairs (shell prompts, ``cat`` commands, markdown fences) are skipped and
  leave a warning.

Input that is not text of the expected kind (empty, binary, no recognised key) raises
:class:`VersionFileError`, the only exception the parsers raise.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re
from ascend_doctor.versions import AscendVersion, ReleaseCode

# Keys of `key=value` files: shell-variable-like names (dots and dashes allowed for safety).
_EQ_LINE = lazy_re(r"^(?:export\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,127})\s*=\s*(?P<value>.*)$")
# Keys of `key : value` files (NNAL, MindIE, atb-models): words, spaces, - / . _ ; never = [ ] :
_COLON_LINE = lazy_re(r"^(?P<key>[A-Za-z][A-Za-z0-9 _./\-]{0,127}?)\s*:(?P<value>.*)$")
_ANSI_ESCAPE = lazy_re(r"\x1b\[[0-9;?]*[A-Za-z]")
_CONTROL = lazy_re(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_MAX_SHOWN = 80  # characters of an offending line quoted in messages
_MAX_WARNINGS = 50  # a garbage file should not drown the report


class VersionFileError(ValueError):
    """The text is not a readable file of the expected kind.

    ``str(err)`` names the file kind, the problem and the first offending line, e.g.
    ``not a driver version.info: no Version= line (line 1: 'hello')``.
    """

    def __init__(self, kind: str, problem: str, line_number: Optional[int] = None,
                 line: Optional[str] = None) -> None:
        self.kind = kind
        self.problem = problem
        self.line_number = line_number
        self.line = line
        where = ""
        if line_number is not None:
            shown = line if line is None or len(line) <= _MAX_SHOWN else line[:_MAX_SHOWN] + "..."
            where = f" (line {line_number}: {shown!r})"
        super().__init__(f"not a {kind}: {problem}{where}")


class Pairs(Struct, frozen=True):
    """The pairs of one file, in file order, with everything the parsers need to judge it."""

    kind: str
    items: Tuple[Tuple[str, str, int], ...]  # (key as written, value, line number); duplicates kept
    warnings: Tuple[str, ...]
    first_line: Optional[Tuple[int, str]]  # first non-blank, non-comment line
    first_skipped: Optional[Tuple[int, str]]  # first line that was not a pair
    lowered: Dict[str, str] = field(default_factory=dict)  # lower-case key -> last value

    @property
    def raw(self) -> Dict[str, str]:
        """Key → value, last occurrence wins (spelled as in that last occurrence)."""
        latest: Dict[str, Tuple[str, str]] = {}
        for key, value, _ in self.items:
            latest.pop(key.lower(), None)  # re-insert so the order follows last occurrences
            latest[key.lower()] = (key, value)
        return {key: value for key, value in latest.values()}

    def get(self, *keys: str) -> Optional[str]:
        """The value of the first of ``keys`` present (case-insensitive), None if none is."""
        for key in keys:
            if key.lower() in self.lowered:
                return self.lowered[key.lower()]
        return None

    def value(self, *keys: str) -> Optional[str]:
        """Like :meth:`get`, but an empty value counts as absent."""
        found = self.get(*keys)
        return found if found else None

    def has(self, *keys: str) -> bool:
        return any(key.lower() in self.lowered for key in keys)

    def line_of(self, key: str) -> Optional[Tuple[int, str]]:
        """Line number and key=value text of ``key``'s last occurrence."""
        found = None
        for name, value, number in self.items:
            if name.lower() == key.lower():
                found = (number, f"{name}={value}")
        return found

    def fail(self, problem: str) -> VersionFileError:
        """An error pointing at the first line that did not help (or the first line at all)."""
        where = self.first_skipped or self.first_line
        if where is None:
            return VersionFileError(self.kind, problem)
        return VersionFileError(self.kind, problem, where[0], where[1])

    def reject_foreign(self, own_markers: Iterable[str], foreign: Dict[str, str]) -> None:
        """Raise when the file carries another kind's markers and none of ours.

        ``foreign`` maps a marker key to the name of the file kind it betrays.
        """
        if self.has(*own_markers):
            return
        for marker, other_kind in foreign.items():
            if self.has(marker):
                number, text = self.line_of(marker) or (None, None)
                raise VersionFileError(self.kind, f"this looks like {other_kind}", number, text)


def clean_lines(text: object, kind: str) -> List[Tuple[int, str]]:
    """Numbered, stripped, non-blank lines; raises on non-text or binary input."""
    if not isinstance(text, str):
        raise VersionFileError(kind, f"expected text, got {type(text).__name__}")
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise VersionFileError(kind, "the file is empty")
    if text.count("\ufffd") * 10 > len(text):
        raise VersionFileError(kind, "binary data (mostly undecodable bytes)")
    lines: List[Tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = _ANSI_ESCAPE.sub("", line).lstrip("\ufeff").strip()
        if not line:
            continue
        if _CONTROL.search(line):
            raise VersionFileError(kind, "binary data (control characters)", number, line)
        lines.append((number, line))
    if not lines:
        raise VersionFileError(kind, "the file is empty")
    return lines


def unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


def read_pairs(text: object, kind: str, style: str = "=") -> Pairs:
    """Split one file's text into pairs. ``style`` is ``"="`` or ``":"``."""
    pattern = _EQ_LINE if style == "=" else _COLON_LINE
    items: List[Tuple[str, str, int]] = []
    warnings: List[str] = []
    first_line: Optional[Tuple[int, str]] = None
    first_skipped: Optional[Tuple[int, str]] = None
    seen: Dict[str, int] = {}
    for number, line in clean_lines(text, kind):
        if line.startswith("#"):
            continue
        if first_line is None:
            first_line = (number, line)
        match = pattern.match(line)
        if not match:
            if first_skipped is None:
                first_skipped = (number, line)
            shown = line if len(line) <= _MAX_SHOWN else line[:_MAX_SHOWN] + "..."
            warnings.append(f"line {number}: ignored, not a key{style}value line: {shown!r}")
            continue
        key = match.group("key").strip()
        value = unquote(match.group("value"))
        previous = seen.get(key.lower())
        if previous is not None:
            warnings.append(f"line {number}: duplicate key {key!r} (also on line {previous}); the last value wins")
        seen[key.lower()] = number
        items.append((key, value, number))
    if first_line is None:
        raise VersionFileError(kind, "the file holds only comments")
    lowered = {key.lower(): value for key, value, _ in items}
    return Pairs(kind, tuple(items), capped(warnings), first_line, first_skipped, lowered)


def capped(warnings: Iterable[str]) -> Tuple[str, ...]:
    """At most ``_MAX_WARNINGS`` warnings, then a count of the rest."""
    kept = list(warnings)
    if len(kept) > _MAX_WARNINGS:
        kept[_MAX_WARNINGS:] = [f"... and {len(kept) - _MAX_WARNINGS} more warnings"]
    return tuple(kept)


# -- bracket lists ----------------------------------------------------------------------------
_BRACKET = lazy_re(r"\[([^\[\]]*)\]")


def bracket_groups(value: str) -> List[List[str]]:
    """``[a],[b,c]`` → ``[["a"], ["b", "c"]]`` (items stripped, empty items dropped)."""
    return [[item.strip() for item in group.split(",") if item.strip()] for group in _BRACKET.findall(value)]


# -- safe version interpretation ----------------------------------------------------------------
def safe_version(text: Optional[str]) -> Optional[AscendVersion]:
    """``AscendVersion.try_parse`` that never raises (it can on 4300+ digit numbers)."""
    if not text or len(text) > 64:
        return None
    try:
        return AscendVersion.try_parse(text)
    except ValueError:
        return None


def safe_release_code(text: Optional[str]) -> Optional[ReleaseCode]:
    if not text or len(text) > 64:
        return None
    try:
        return ReleaseCode.try_parse(text)
    except ValueError:
        return None


def version_token(value: Optional[str]) -> Optional[str]:
    """The last whitespace-separated word of ``value`` that is an Ascend version.

    ``MindIE 2.1.RC1.B152`` → ``2.1.RC1.B152``.
    """
    for word in reversed((value or "").split()):
        if safe_version(word):
            return word
    return None


# -- named pairs ------------------------------------------------------------------------------
class NamedFields:
    """What a ``typing.NamedTuple`` adds to a tuple, for a tuple subclass that names its items in
    ``_fields``: ``_asdict`` (to_jsonable shows it as a dict), the ``Name(a=..., b=...)`` repr and
    pickling by its items. A NamedTuple class costs ~0.6 ms to define (typing compiles each
    annotation, collections.namedtuple compiles generated source): 1.3 ms of a ``check`` for the
    two pairs of the version files, most of which are never made."""

    __slots__ = ()
    _fields: Tuple[str, ...] = ()

    def _asdict(self) -> Dict[str, Any]:
        return dict(zip(self._fields, self._items()))

    def _items(self) -> Tuple[Any, ...]:
        return tuple.__iter__(self)  # type: ignore[arg-type,return-value]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={item!r}" for name, item in zip(self._fields, self._items()))
        return f"{type(self).__name__}({shown})"

    def __getnewargs__(self) -> Tuple[Any, ...]:
        return tuple(self._items())


# -- JSON-ready dicts --------------------------------------------------------------------------
def to_jsonable(value: Any) -> Any:
    """Dataclasses, named tuples, tuples and dicts → plain JSON types (recursively)."""
    if isinstance(value, Struct):
        return {name: to_jsonable(getattr(value, name)) for name in value.__struct_fields__}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: to_jsonable(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    return value


class JsonRecord:
    """Mixin: ``to_dict()`` for the frozen dataclasses the parsers return."""

    def to_dict(self) -> Dict[str, Any]:
        result = to_jsonable(self)
        assert isinstance(result, dict)
        return result
