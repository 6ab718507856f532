"""Small helpers for the box-drawn tables npu-smi prints (``+----+`` borders, ``|``-separated rows).

Everything here is a plain string operation (no regular expressions with nested repetition), so
the parsers that use these helpers stay linear in the size of their input.
"""

from __future__ import annotations

from typing import List, Optional, Tuple, Union

_BORDER_CHARS = frozenset("+-=")
_ELLIPSIS_CHARS = frozenset(".…·")

# Numbers longer than this are not something npu-smi prints; refusing them also keeps int()
# away from CPython's limit on huge digit strings (it raises a bare ValueError there).
_MAX_DIGITS = 18

Token = Union[str, Tuple[str, str]]


def is_border(line: str) -> bool:
    """``+-----+=====+`` lines (also when cut short by a paste)."""
    return len(line) >= 2 and line[0] == "+" and set(line) <= _BORDER_CHARS


def is_elision(line: str) -> bool:
    """A line an author typed to say "rows left out": ``...``, ``……``, ``| ... |``."""
    core = line.replace("|", "").replace(" ", "")
    return len(core) >= 2 and set(core) <= _ELLIPSIS_CHARS


def split_row(line: str) -> Tuple[List[str], bool]:
    """Cells of a ``| a | b |`` row, stripped, and whether the closing ``|`` was there.

    ``line`` must already be stripped and start with ``|``.
    """
    body = line[1:]
    closed = body.endswith("|")
    if closed:
        body = body[:-1]
    return [cell.strip() for cell in body.split("|")], closed


def tokens(cell: str) -> List[Token]:
    """Whitespace tokens of a cell, with ``used / total`` pairs joined into one tuple token.

    npu-smi pads the pairs inconsistently (``0    / 0``, ``26838/ 32768``), so slashes are
    split off first and re-joined with their neighbours. ``N/A`` stays a single word.
    """
    words: List[str] = []
    for word in cell.split():
        if word.upper() == "N/A" or "/" not in word:
            words.append(word)
            continue
        for i, part in enumerate(word.split("/")):
            if i:
                words.append("/")
            if part:
                words.append(part)
    out: List[Token] = []
    i = 0
    while i < len(words):
        if i + 2 < len(words) and words[i + 1] == "/" and words[i] != "/" and words[i + 2] != "/":
            out.append((words[i], words[i + 2]))
            i += 3
        else:
            out.append(words[i])
            i += 1
    return out


def to_int(text: str) -> Optional[int]:
    """A non-negative decimal integer, or None (for ``NA``, ``-`` and anything else)."""
    if 0 < len(text) <= _MAX_DIGITS and text.isascii() and text.isdigit():
        return int(text)
    return None


def to_float(text: str) -> Optional[float]:
    """A plain decimal number (``88.4``, ``46``), or None. Rejects ``nan``, ``inf``, ``1e5``."""
    if not text or len(text) > _MAX_DIGITS + 1 or not text.isascii():
        return None
    whole, dot, frac = text.partition(".")
    if not whole.isdigit() or (dot and not frac.isdigit()):
        return None
    return float(text)


def is_missing(text: str) -> bool:
    """The spellings npu-smi uses for "no value": ``NA``, ``-``, ``N/A``, ``--``."""
    return text.upper() in ("NA", "N/A", "-", "--", "")
