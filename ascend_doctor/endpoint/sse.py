"""Server-sent events as OpenAI-compatible servers send them: ``data: {json}`` lines, a blank
line between events, ``data: [DONE]`` at the end, ``:`` comment lines as keep-alives.

Two pure pieces: ``LineSplitter`` turns network chunks into lines (CRLF, LF or CR endings, a
CRLF split over two chunks, a bounded line length), and ``DataAssembler`` turns lines into data
payloads. A payload is released as soon as its line holds a complete JSON value, without
waiting for the blank line (some servers never send it, and waiting would distort the time to
first token); a JSON value spread over several ``data:`` lines, which the SSE format allows, is
joined at the blank line that ends the event.
"""

from __future__ import annotations

import re
from typing import List, Optional

from msgspec import Struct

from ascend_doctor import boundedjson
from ascend_doctor.i18n import _

DONE = "[DONE]"
MAX_LINE_BYTES = 1024 * 1024
_LINE_END_RE = re.compile(rb"\r\n|\r|\n")


class SSEError(ValueError):
    """The stream is not SSE we can read (e.g. a line longer than the bound)."""


class LineSplitter:
    """Bytes in, complete decoded lines out (without their line ending)."""

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self._buffer = b""
        self._max = max_line_bytes
        self._pending_cr = False  # the previous chunk ended in CR: a following LF belongs to it

    def feed(self, chunk: bytes) -> List[str]:
        if self._pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        data = self._buffer + chunk
        # A CR at the very end may be the first half of a CRLF split over two chunks.
        self._pending_cr = data.endswith(b"\r")
        *complete, self._buffer = _LINE_END_RE.split(data)
        if len(self._buffer) > self._max or any(len(line) > self._max for line in complete):
            raise SSEError(_("an SSE line is longer than {size} bytes").format(size=self._max))
        return [_decode(line) for line in complete]

    def close(self) -> List[str]:
        """The last line when the stream ended without a line ending."""
        rest, self._buffer = self._buffer, b""
        return [_decode(rest)] if rest else []


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


class SSELine(Struct, frozen=True):
    kind: str  # "data", "blank", "comment", "field" (event:, id:, retry: or unknown)
    value: str = ""
    name: str = ""


def parse_line(line: str) -> SSELine:
    """One SSE line: ``data: x`` -> data "x" (one space after the colon is dropped, per the format)."""
    if line == "":
        return SSELine("blank")
    if line.startswith(":"):
        return SSELine("comment", line[1:])
    name, sep, value = line.partition(":")
    if not sep:
        return SSELine("field", "", name)
    if value.startswith(" "):
        value = value[1:]
    if name == "data":
        return SSELine("data", value)
    return SSELine("field", value, name)


class DataAssembler:
    """Lines in, data payloads out (a JSON text or ``[DONE]``)."""

    def __init__(self) -> None:
        self._pending: List[str] = []

    def feed_line(self, line: str) -> Optional[str]:
        parsed = parse_line(line)
        if parsed.kind == "blank":
            return self.flush()
        if parsed.kind != "data":
            return None
        if not self._pending and _complete(parsed.value):
            return parsed.value
        self._pending.append(parsed.value)
        joined = "\n".join(self._pending)
        if _complete(joined):
            self._pending = []
            return joined
        return None

    def flush(self) -> Optional[str]:
        """The payload of an event ended by a blank line (or by the end of the stream)."""
        if not self._pending:
            return None
        joined = "\n".join(self._pending)
        self._pending = []
        return joined


def _complete(text: str) -> bool:
    stripped = text.strip()
    if stripped == DONE:
        return True
    if not stripped or stripped[0] not in "{[":
        return False
    try:
        boundedjson.loads(stripped, what="an SSE event", max_chars=MAX_LINE_BYTES)
    except ValueError:
        return False
    return True


def is_done(payload: str) -> bool:
    return payload.strip() == DONE
