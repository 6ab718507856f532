"""JSON from untrusted text, bounded before anything is built.

``json.loads`` recurses once per nesting level (``[[[[...]]]]`` raises RecursionError), builds
every object before we can look at it (a 68 MB safetensors header of a million tiny entries took
7.7 s and 914 MB), and on Python builds without the integer-digit limit converts a
10-million-digit number in quadratic time. :func:`loads` measures the text first, with a few
passes that run in C (``bytes.replace``/``translate``/``split``, no Python loop over characters:
about 0.3 s for 78 MB), and refuses with a one-line :class:`TooComplex` anything over the
caller's limits:

* size in characters (``max_chars``);
* nesting depth of arrays and objects (``max_depth``);
* number of arrays and objects (``max_containers``) and of values (``max_items``): bounds on
  what would be built;
* length of an integer literal (only where Python itself does not bound it, 3.9 before 3.9.14).

``TooComplex`` is a ``ValueError`` like ``json.JSONDecodeError``, so callers that turn
``ValueError`` into "invalid JSON: ..." keep working. The limits are listed in
docs/input-limits.md.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Callable, Optional, Tuple, Union

DEFAULT_MAX_DEPTH = 64  # real files nest a handful of levels; json's recursion fails near 1000
DEFAULT_MAX_CHARS = 16 * 1024 * 1024
MAX_INT_DIGITS = 4300  # what Python >= 3.9.14 enforces itself (sys.get_int_max_str_digits)

_KEEP = b'[]{}",'
_DELETE = bytes(c for c in range(256) if c not in _KEEP)
_LONG_INT = re.compile(rb"[0-9]{%d}" % (MAX_INT_DIGITS + 1))
_PYTHON_BOUNDS_INTS = hasattr(sys, "get_int_max_str_digits")


class TooComplex(ValueError):
    """Untrusted text over a size, depth or count limit; the message is one clear line."""


def skeleton(data: Union[str, bytes]) -> bytes:
    """Only the brackets and commas of JSON ``data`` that lie outside strings, in order.

    Quotes pair left to right exactly as in ``json.loads``, escapes included, so for the part
    of the text json would accept the brackets are the same ones it would see.
    """
    raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
    if b"\\" in raw:  # \\ and \" never open or close a string
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    raw = raw.translate(None, _DELETE)
    # Adjacent quotes are an empty string or the end of one string and the start of the next:
    # dropping them changes nothing about which brackets are inside strings.
    raw = raw.replace(b'""', b"")
    if b'"' in raw:
        raw = b"".join(raw.split(b'"')[::2])
    return raw.replace(b"{", b"[").replace(b"}", b"]")


def measure(data: Union[str, bytes], max_depth: int = DEFAULT_MAX_DEPTH) -> Tuple[int, int, int]:
    """(nesting depth, number of arrays + objects, number of values) of JSON ``data``.

    The first two are exact for well-formed text, the third (commas + containers + 1) an upper
    bound; all are upper bounds of what ``json.loads`` reaches before its first error otherwise,
    except that counting the depth stops past ``max_depth`` (the answer is then
    ``max_depth + 1``): a 200,000-deep document costs ``max_depth`` passes.
    """
    marks = skeleton(data)
    commas = marks.count(b",")
    brackets = marks.replace(b",", b"") if commas else marks
    containers = brackets.count(b"[")
    return _depth(brackets, max_depth), containers, commas + containers + 1


def _depth(brackets: bytes, max_depth: int) -> int:
    depth = 0
    while brackets:
        shorter = brackets.replace(b"[]", b"")
        if len(shorter) == len(brackets):  # an unbalanced rest "]]][[[": those openers nest too
            depth += shorter.count(b"[")
            break
        depth += 1  # each pass removes the innermost level everywhere
        brackets = shorter
        if depth > max_depth:
            break
    return min(depth, max_depth + 1)


def check(data: Union[str, bytes], *, what: str = "JSON", max_chars: int = DEFAULT_MAX_CHARS,
          max_depth: int = DEFAULT_MAX_DEPTH, max_containers: Optional[int] = None,
          max_items: Optional[int] = None, count_message: Optional[Callable[[int], str]] = None) -> None:
    """Raise :class:`TooComplex` when ``data`` is over a limit (see the module docstring).

    ``count_message(n)`` words the refusal of a document with too many containers or values in
    the caller's terms ("the header describes about n tensors")."""
    if len(data) > max_chars:
        unit = "bytes" if isinstance(data, bytes) else "characters"
        raise TooComplex(f"{what} is {len(data)} {unit}, more than the {max_chars} allowed: refused")
    depth, containers, items = measure(data, max_depth)
    if depth > max_depth:
        raise TooComplex(f"{what} is nested too deeply (more than {max_depth} levels): refused")
    if max_containers is not None and containers > max_containers:
        if count_message is not None:
            raise TooComplex(count_message(containers))
        raise TooComplex(f"{what} holds {containers} arrays/objects, more than the {max_containers} "
                         "allowed: refused")
    if max_items is not None and items > max_items:
        if count_message is not None:
            raise TooComplex(count_message(items))
        raise TooComplex(f"{what} holds about {items} values, more than the {max_items} allowed: refused")
    if not _PYTHON_BOUNDS_INTS:  # pragma: no cover - old 3.9 builds only
        raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
        if _LONG_INT.search(raw):
            raise TooComplex(f"{what} holds a number longer than {MAX_INT_DIGITS} digits: refused")


def loads(data: Union[str, bytes], *, what: str = "JSON", max_chars: int = DEFAULT_MAX_CHARS,
          max_depth: int = DEFAULT_MAX_DEPTH, max_containers: Optional[int] = None,
          max_items: Optional[int] = None, count_message: Optional[Callable[[int], str]] = None,
          **json_kwargs: Any) -> Any:
    """``json.loads(data)`` after :func:`check`. Raises ``TooComplex`` or ``json.JSONDecodeError``
    (both ``ValueError``; bytes that are not UTF-8 give ``UnicodeDecodeError``, also a
    ``ValueError``), never ``RecursionError``."""
    check(data, what=what, max_chars=max_chars, max_depth=max_depth, max_containers=max_containers,
          max_items=max_items, count_message=count_message)
    try:
        return json.loads(data, **json_kwargs)
    except RecursionError:  # pragma: no cover - the depth check keeps far below the limit
        raise TooComplex(f"{what} is nested too deeply: refused") from None
