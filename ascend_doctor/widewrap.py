"""Line wrapping for text that mixes Chinese and Latin script, measured in terminal cells.

``textwrap`` counts characters and breaks only at spaces: a Chinese sentence (no spaces, each
character two cells wide) becomes one over-long "word". Here a line may break between two wide
characters or at a space, never inside a Latin word, so a command, path or version quoted in a
Chinese sentence is never split (it can still be pasted), and a line never starts with closing
punctuation (，。、；：？！）」 …) nor ends with an opening one (（「“).
"""

from __future__ import annotations

import unicodedata
from typing import List

from ascend_doctor.lazy import lazy_re

_TOKEN_RE = lazy_re(r"\s+|[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u3000-\u303f]|[^\s\u2e80-\u9fff"
                       r"\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\u3000-\u303f]+")
# Punctuation that must not start a line (it stays with the character before it), and
# punctuation that must not end one (it goes with the character after it).
_NO_LINE_START = set("，。、；：？！）」』》〉”’…—％,.;:?!)]}")
_NO_LINE_END = set("（「『《〈“‘")


def cell_width(text: str) -> int:
    """Terminal cells ``text`` takes: East Asian wide and full-width characters count two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def has_wide(text: str) -> bool:
    return any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in text)


def wrap(text: str, width: int) -> List[str]:
    """``text`` (one paragraph) as lines of at most ``width`` cells; a single token wider than
    the line (a long command or path) gets a line of its own rather than being cut."""
    lines: List[str] = []
    line = ""
    used = 0
    pending_space = False
    for token in _TOKEN_RE.findall(text):
        if token.isspace():
            pending_space = bool(line)
            continue
        size = cell_width(token)
        gap = 1 if pending_space else 0
        if line and used + gap + size > width:
            carry = ""
            if token[0] in _NO_LINE_START:
                # Punctuation may not start the next line: the character before it goes down with it,
                # when that is a place a line may break (between two wide characters); else it stays.
                if gap or len(line) < 2 or not has_wide(line[-1]) or line[-1] in _NO_LINE_START:
                    line += " " if gap else ""
                    line += token
                    used += gap + size
                    pending_space = False
                    continue
                carry, line = line[-1], line[:-1]
            elif not gap and len(line) > 1 and line[-1] in _NO_LINE_END:
                carry, line = line[-1], line[:-1]  # an opening bracket moves down with what it opens
            lines.append(line)
            line, used, gap = carry, cell_width(carry), 0
        if gap:
            line += " "
        line += token
        used += gap + size
        pending_space = False
    if line or not lines:
        lines.append(line)
    return lines


def join_lines(lines: List[str]) -> str:
    """Lines of one paragraph joined for re-wrapping: a space between Latin words, none where
    either side is Chinese (a line break inside a Chinese sentence is not a space)."""
    out = ""
    for piece in (ln.strip() for ln in lines):
        if not piece:
            continue
        if out and not (has_wide(out[-1]) or has_wide(piece[0])):
            out += " "
        out += piece
    return out
