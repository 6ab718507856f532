"""Shell-style patterns over host paths, as the fact providers declare their reads.

``*`` and ``?`` stay inside one path segment, ``[...]`` is a character class (``[!...]`` negated)
and a ``**`` segment stands for any number of segments, none included. Pure and dependency-free:
used by facts (declarations), capture (what to record) and the snapshot host (what was looked for).
"""

from __future__ import annotations

import re
from typing import Dict, List


def path_matches(path: str, pattern: str) -> bool:
    """Whether a host path matches an expanded pattern (``*`` within a segment, ``**`` across)."""
    return _compile(pattern).match(path.rstrip("/") or "/") is not None


_compiled: Dict[str, re.Pattern[str]] = {}


def _segment(segment: str) -> str:
    """One path segment of a pattern as a regex: * and ? never cross a "/"."""
    out: List[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                klass = segment[i + 1:end]
                if klass.startswith("!"):
                    klass = "^" + klass[1:]
                out.append("[" + klass.replace("\\", "\\\\").replace("[", "\\[") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _compile(pattern: str) -> re.Pattern[str]:
    regex = _compiled.get(pattern)
    if regex is None:
        body = ""
        for segment in pattern.rstrip("/").split("/")[1:] if pattern.startswith("/") else pattern.split("/"):
            body += "(?:/[^/]+)*" if segment == "**" else "/" + _segment(segment)
        regex = re.compile("^" + (body or "/") + "$")
        _compiled[pattern] = regex
    return regex
