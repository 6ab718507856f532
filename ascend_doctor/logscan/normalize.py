"""Turn a pasted log line into the text a person would read.

Tickets arrive in many wrappings: a vLLM traceback where every line starts with ``[rank0]:``
or ``(VllmWorker rank=3 pid=123)``, a ``docker compose logs`` paste prefixed with
``service-1  | ``, ANSI colours, or a whole log JSON-escaped into one line (``\\n`` between
lines, ``\\"`` for quotes). ``expand_line`` undoes all of that and returns the logical lines
(one physical line may hold many when it was JSON-escaped).
"""

from __future__ import annotations

import re
from typing import List

from ascend_doctor.lazy import lazy_re

# CSI sequences (colours, cursor moves) and OSC sequences (titles, hyperlinks).
_ANSI_RE = lazy_re(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")

# JSON string escapes, handled in one pass so that an escaped backslash before "n" stays literal.
_JSON_ESCAPE_RE = lazy_re(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "", "f": "", "n": "\n", "r": "", "t": "\t"}

# Prefixes that wrap the interesting text; applied repeatedly (they nest, e.g.
# "svc-1  | (EngineCore_DP0 pid=414) ERROR 11-18 10:35:31 [core.py:708] ...").
_PREFIX_RES = (
    # docker compose: "deepseek-v3_2-exp  | " or "api-1  | "
    re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*\s+\|\s?"),
    # torch.distributed elastic: "[rank0]:" / "[rank12]: "
    re.compile(r"^\[rank\d+\]:\s?"),
    # vLLM / Ray process tags: "(VllmWorker rank=3 pid=123)", "(EngineCore_DP0 pid=3132)",
    # "(raylet, ip=96.13.20.32)", "(NPURayWorkerWrapper pid=1189)"
    re.compile(r"^\([A-Za-z_][\w.-]*(?:,?\s+[A-Za-z_]+=[^\s,()]+)+\)\s?"),
    # vLLM logger: "ERROR 08-14 11:52:46 worker_base.py:581] " / "INFO 01-19 05:52:13 [backends.py:643] "
    re.compile(
        r"^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? "
        r"(?:\[[^\]]+\]|[\w.-]+:\d+\])\s?"
    ),
)
_MAX_PREFIX_ROUNDS = 6


def strip_ansi(text: str) -> str:
    return _ANSI_RE.sub("", text) if "\x1b" in text else text


def looks_json_escaped(text: str) -> bool:
    """A physical line that carries escaped newlines or quotes (a JSON string value)."""
    return "\\n" in text or '\\"' in text or "\\u001b" in text or "\\u001B" in text


def unescape_json(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u"):
            try:
                return chr(int(code[1:], 16))
            except ValueError:  # pragma: no cover - the regex only admits hex digits
                return match.group(0)
        return _SIMPLE_ESCAPES[code]

    return _JSON_ESCAPE_RE.sub(replace, text)


def strip_prefixes(text: str) -> str:
    for _ in range(_MAX_PREFIX_ROUNDS):
        for prefix in _PREFIX_RES:
            stripped = prefix.sub("", text, count=1)
            if stripped != text:
                text = stripped
                break
        else:
            return text
    return text


def expand_line(raw: str) -> List[str]:
    """The logical lines carried by one physical line, unwrapped and without colours."""
    text = raw.rstrip("\r\n")
    if looks_json_escaped(text):
        text = unescape_json(text)
    text = strip_ansi(text)
    parts = text.split("\n") if "\n" in text else [text]
    return [strip_prefixes(part.rstrip("\r")) for part in parts]
