"""Literal prefilter: which byte strings must appear in a line for a signature to match.

Running ~100 regexes on every line of a 2 GB log is far too slow in Python. Instead, each
signature pattern is analysed once: we derive a set of literals such that every match of the
pattern contains at least one of them (``required_literals``). From those we pick short
"needles" that start with one of a few *pivot* bytes (``plan_needles``), and build one regex per
pivot byte. A regex that starts with a fixed byte is searched by the regex engine with a fast
memchr-like scan, so a chunk is examined with a handful of C-speed passes; only the few lines
that contain a needle are decoded and checked against the full patterns.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from msgspec import Struct

# ``sre_parse`` was renamed ``re._parser`` in 3.11 (the old name warns); both parse the same way.
try:
    _parser: Any = importlib.import_module("re._parser")
    _constants: Any = importlib.import_module("re._constants")
except ImportError:  # Python 3.9 / 3.10
    _parser = importlib.import_module("sre_parse")
    _constants = importlib.import_module("sre_constants")

_LITERAL = _constants.LITERAL
_SUBPATTERN = _constants.SUBPATTERN
_BRANCH = _constants.BRANCH
_REPEATS = (_constants.MAX_REPEAT, _constants.MIN_REPEAT)
_MAX_REPEAT = _constants.MAX_REPEAT
_IN = _constants.IN
_RANGE = _constants.RANGE

# Needles shorter than this would match too often to be worth it.
MIN_NEEDLE = 4
# Needles at least this long are selective enough; shorter ones only when the literal is short.
GOOD_NEEDLE = 8
# Character classes of at most this many characters may extend a short literal, into at most
# this many literals (``E[1-9A-Z]9[0-9]`` -> 350 four-character literals).
MAX_CLASS = 36
MAX_EXPANSION = 512

# Characters a JSON string may escape, and non-ASCII text (may be written as \\uXXXX): a needle
# never spans them, so JSON-escaped pastes still hit the prefilter.
_UNSAFE = frozenset('"\\/')


def parse_pattern(pattern: str) -> Any:
    """The regex parser's tree of ``pattern`` (what ``re.compile`` builds its code from).

    Raises ``re.error`` with the same message ``re.compile`` would give for a malformed pattern.
    """
    return _parser.parse(pattern)


def can_match_empty(parsed: Any) -> bool:
    """Whether the pattern may match the empty string; False is certain, True means "test it".

    The regex engine itself refuses any text shorter than the tree's minimum width, so a
    positive minimum width settles the question without compiling the pattern.
    """
    return bool(parsed.getwidth()[0] == 0)


def required_literals(pattern: str) -> Optional[FrozenSet[str]]:
    """Literals of which at least one occurs in every match of ``pattern``; None if unknown.

    Conservative by construction: alternations contribute only when every branch yields a
    literal; optional parts never contribute.
    """
    try:
        parsed = _parser.parse(pattern)
    except (re.error, RecursionError):
        return None
    return required_literals_of(parsed)


def required_literals_of(parsed: Any) -> Optional[FrozenSet[str]]:
    """``required_literals`` for a pattern already parsed by ``parse_pattern``."""
    found = _best_of_sequence(list(parsed))
    return frozenset(found) if found else None


def _best_of_sequence(items: Sequence[Tuple[Any, Any]]) -> Optional[Set[str]]:
    candidates: List[Set[str]] = []
    # The literal being read: one string, or several equally long ones after a short prefix
    # met a small character class (``EL[0-8]`` -> EL0 ... EL8, see ``_expand``).
    run: List[str] = [""]

    def flush() -> None:
        if run[0]:
            candidates.append(set(run))
        run[:] = [""]

    for op, arg in items:
        if op is _LITERAL:
            run[:] = [prefix + chr(arg) for prefix in run]
            continue
        if op is _IN and _expand(run, arg, candidates):
            continue
        if op is _MAX_REPEAT and _expand_repeat(run, arg, candidates):
            continue
        flush()
        sub: Optional[Set[str]] = None
        if op is _SUBPATTERN:
            sub = _best_of_sequence(list(arg[-1]))
        elif op is _BRANCH:
            branches = [_best_of_sequence(list(b)) for b in arg[1]]
            if branches and all(branches):
                sub = set().union(*[b for b in branches if b])
        elif op in _REPEATS and arg[0] >= 1:
            sub = _best_of_sequence(list(arg[2]))
        if sub:
            candidates.append(sub)
    flush()
    if not candidates:
        return None
    # Prefer the set whose shortest member is longest (up to GOOD_NEEDLE: longer is not more
    # selective in practice), then fewer members, then the longest.
    return max(candidates, key=lambda s: (min(GOOD_NEEDLE, min(len(x) for x in s)), -len(s),
                                          min(len(x) for x in s)))


def _class_chars(items: Sequence[Tuple[Any, Any]]) -> Optional[List[str]]:
    """The characters of a plain character class (``[0-9]``, ``[78]``, ``[1-9A-Z]``); None for
    negated classes, categories (``\\w``) and wide ranges."""
    chars: Set[str] = set()
    for op, arg in items:
        if op is _LITERAL:
            chars.add(chr(arg))
        elif op is _RANGE and arg[1] - arg[0] < MAX_CLASS:
            chars.update(chr(code) for code in range(arg[0], arg[1] + 1))
        else:
            return None
    return sorted(chars) if 0 < len(chars) <= MAX_CLASS else None


def _expand(run: List[str], items: Sequence[Tuple[Any, Any]], candidates: List[Set[str]]) -> bool:
    """Extend a short literal run by one small character class, in place; False if it should not.

    Error-code families (``EL[0-8][0-9]{3}``, ``ERR[0-9]{5}``) hold only a 1-3 character literal,
    too short for a needle; each class member continues the run until it is MIN_NEEDLE long.
    The run before the class stays a candidate of its own. Only a run that already has a
    literal prefix is extended (``[A-Za-z]+Operation`` keeps "Operation"), and never past
    MAX_EXPANSION strings.
    """
    if not run[0] or len(run[0]) >= MIN_NEEDLE:
        return False
    chars = _class_chars(items)
    if chars is None or len(run) * len(chars) > MAX_EXPANSION:
        return False
    candidates.append(set(run))
    run[:] = [prefix + ch for prefix in run for ch in chars]
    return True


def _expand_repeat(run: List[str], arg: Tuple[Any, Any, Any], candidates: List[Set[str]]) -> bool:
    """``_expand`` for a repeated class (``[0-9]{3}``, ``[0-9]+``). True when the repeat was
    handled: the run continues after a fixed repeat that was expanded whole, else it ends."""
    low, high, body = arg
    body = list(body)
    if low < 1 or len(body) != 1 or body[0][0] is not _IN:
        return False
    for done in range(low):
        if not _expand(run, body[0][1], candidates):
            if done == 0:
                return False
            break
    else:
        if low == high:
            return True
    # Only part of the repeat was expanded, or its length varies: what follows has no fixed offset.
    candidates.append(set(run))
    run[:] = [""]
    return True


def _char_cost(ch: str) -> float:
    """Relative cost of searching for ``ch`` as a pivot byte in typical Ascend logs.

    Roughly the byte's share (percent) of log text: each occurrence stops the fast scan and
    costs a trie attempt. Measured on plog/vLLM/dmesg text: spaces, digits and common
    lower-case letters are frequent; most upper-case letters and punctuation are rare.
    """
    if ch == " ":
        return 14.0
    if ch in "etaoinsrhldcu":
        return 4.0
    if ch in "=-:._,[]()/":
        return 3.0
    if ch.isdigit():
        return 3.0
    if ch.islower():
        return 1.0
    if ch in "EINORSTUMFCP":
        return 0.6
    if ch.isupper():
        return 0.15
    return 0.1


# One more pass over every chunk costs about as much as a pivot byte with 1% of hits.
_PASS_COST = 1.0


class NeedlePlan(Struct, frozen=True):
    """How the prefilter searches: needles grouped by their first (pivot) byte."""

    by_pivot: Mapping[str, Tuple[str, ...]]  # pivot char -> needles starting with it
    needles_of: Mapping[str, Tuple[str, ...]]  # literal -> its needle(s)

    @property
    def needles(self) -> List[str]:
        return sorted({n for group in self.by_pivot.values() for n in group})


def _safe_runs(literal: str) -> List[Tuple[int, int]]:
    if literal.isascii() and '"' not in literal and "\\" not in literal and "/" not in literal:
        return [(0, len(literal))] if literal else []  # the common case, ~2500 times at start-up
    runs: List[Tuple[int, int]] = []
    start = None
    for i, ch in enumerate(literal + '"'):
        safe = ch not in _UNSAFE and ord(ch) <= 127 and i < len(literal)
        if safe and start is None:
            start = i
        elif not safe and start is not None:
            runs.append((start, i))
            start = None
    return runs


def _needle_options(literal: str) -> Dict[str, str]:
    """For each usable pivot char of a literal, the longest safe needle starting with it.

    A needle must be long enough to be selective (``GOOD_NEEDLE`` chars, or nearly the whole
    safe run when the literal is shorter): short needles such as "error" would turn half the
    lines of a log into candidates.
    """
    runs = _safe_runs(literal)
    if not runs:
        return {}
    longest = max(end - start for start, end in runs)
    # Short literals (error codes such as "507033") may drop their first character, which lets
    # all codes of one family share a pivot ("07033", "07899" ... pivot on "0").
    need = max(MIN_NEEDLE, min(GOOD_NEEDLE, longest - 1))
    options: Dict[str, str] = {}
    for start, end in runs:
        for i in range(start, end - need + 1):
            ch = literal[i]
            candidate = literal[i:end]
            if len(candidate) > len(options.get(ch, "")):
                options[ch] = candidate
    return options


def plan_needles(literals: Iterable[str]) -> NeedlePlan:
    """Choose few, rare pivot bytes such that every literal gets a needle (greedy set cover)."""
    options = {lit: _needle_options(lit) for lit in set(literals)}
    # A literal with no safe window (too short, or all unsafe chars) is searched as itself.
    chosen_for: Dict[str, str] = {lit: lit for lit, opts in options.items() if not opts}
    pending = {lit for lit, opts in options.items() if opts}
    # How many pending literals each char could serve as pivot for, kept up to date as
    # literals get their needle (cheaper than recounting every round: this runs at start-up).
    covered: Dict[str, int] = {}
    for lit in pending:
        for ch in options[lit]:
            covered[ch] = covered.get(ch, 0) + 1
    pivots: Set[str] = set()
    while pending:
        best_char = ""
        best_score = -1.0
        for ch, count in covered.items():
            if not count:
                continue
            cost = _char_cost(ch) + (0.0 if ch in pivots else _PASS_COST)
            score = count / cost
            if score > best_score or (score == best_score and ch < best_char):
                best_char, best_score = ch, score
        pivots.add(best_char)
        for lit in [lit for lit in pending if best_char in options[lit]]:
            chosen_for[lit] = options[lit][best_char]
            pending.discard(lit)
            for ch in options[lit]:
                covered[ch] -= 1
    by_pivot: Dict[str, Set[str]] = {}
    for needle in chosen_for.values():
        by_pivot.setdefault(needle[0], set()).add(needle)
    return NeedlePlan(
        by_pivot={k: tuple(sorted(v)) for k, v in sorted(by_pivot.items())},
        needles_of={lit: (needle,) for lit, needle in chosen_for.items()},
    )


def trie_pattern(words: Iterable[str]) -> str:
    """A regex matching any of ``words``, with common prefixes factored out.

    Factoring keeps the regex engine from re-trying every word at each candidate position.
    The trie is walked over the sorted words (the words under one trie node are a run of the
    sorted list), and a run of one word is that word's escaped tail: the pattern of the
    nested-dict trie, built in a third of the time (a diagnose builds it at start-up).
    """
    ordered = sorted(set(words))
    escaped = _ESCAPED

    def build(lo: int, hi: int, depth: int) -> str:
        # ordered[lo:hi] share their first ``depth`` characters; one of exactly that length sorts first
        terminal = len(ordered[lo]) == depth
        if terminal:
            lo += 1
            if lo == hi:
                return ""
        elif hi - lo == 1:
            return re.escape(ordered[lo][depth:])
        alternatives: List[str] = []
        i = lo
        while i < hi:
            ch = ordered[i][depth]
            j = i + 1
            while j < hi and ordered[j][depth] == ch:
                j += 1
            head = escaped.get(ch)
            if head is None:
                head = escaped[ch] = re.escape(ch)
            alternatives.append(head + build(i, j, depth + 1))
            i = j
        body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        return "(?:" + body + ")?" if terminal else body

    return build(0, len(ordered), 0) if ordered else ""


# re.escape of each character met, for trie_pattern
_ESCAPED: Dict[str, str] = {}


def pivot_pattern(needles: Iterable[str]) -> bytes:
    """The bytes pattern of one pivot byte; it starts with that fixed byte (fast engine scan)."""
    return trie_pattern(needles).encode("utf-8")
