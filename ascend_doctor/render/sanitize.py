"""The one place text from outside the tool is made safe for a terminal.

Everything a renderer prints may quote the machine or a file someone else wrote: npu-smi process
names (any local user names their own process), host names, report fields, model ids a server
lists, log lines. A terminal obeys what such text carries: ``ESC [2J`` clears the screen,
``ESC ]0;...BEL`` sets the window title, ``ESC ]8;;URL`` makes a link, and the 8-bit ``CSI``
(U+009B) does the same on some terminals; bidirectional overrides (U+202E) and zero-width
characters make a line read differently from what it holds; a newline or carriage return inside
a value starts what looks like another line of the report.

So text is never dropped silently (what a hostile value tried is evidence) but made visible:

* control characters in caret notation, as ``cat -v`` shows them: ESC ``^[``, BEL ``^G``, CR
  ``^M``, DEL ``^?``;
* C1 controls, bidi controls, zero-width and line/paragraph separators written out: ``<U+202E>``;
* :func:`visible` is for a value that is one line (a host name, a model id, a scope, a command,
  a line the console prints): a newline becomes ``^J``; :func:`visible_lines` is for text whose
  lines the renderer lays out itself (a message of several paragraphs): newlines are kept, and
  :func:`indented` prints every line of such text behind the renderer's indentation, so a line
  inside a value can never stand where a line of the report stands. Tabs are kept (a tab only
  moves to the next tab stop).

Every text renderer passes what it prints through these functions: render/lines.py (the
report's text and ``diagnose``) at its ``print``, render/watch.py for its lines and live table,
render/diff.py, render/prometheus.py for label values. ``tests/test_render_sanitize.py`` feeds a
hostile report and hostile input to every one of them.
"""

from __future__ import annotations

import re
from typing import Any

from ascend_doctor.lazy import lazy_re

# C0 controls but newline and tab, DEL, C1 controls; bidi embeddings, overrides and isolates;
# zero-width space/joiners and marks; line and paragraph separators; the byte-order mark. A tab
# only moves to the next tab stop: it is kept everywhere.
_UNSAFE_IN_LINES = lazy_re("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_UNSAFE_IN_A_LINE = lazy_re("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _shown(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x20:
        return "^" + chr(code + 0x40)
    if code == 0x7F:
        return "^?"
    return f"<U+{code:04X}>"


def visible(value: Any) -> str:
    """A one-line value with every control, format and separator character made visible."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():  # the common case, and fast: no control, format or separator character
        return text
    return _UNSAFE_IN_A_LINE.sub(_shown, text)


def visible_lines(value: Any) -> str:
    """Text of several lines: newlines and tabs kept, every other such character made visible."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():
        return text
    return _UNSAFE_IN_LINES.sub(_shown, text)


def indented(value: Any, prefix: str) -> str:
    """Text of several lines, made visible, each line after the first behind ``prefix``."""
    return ("\n" + prefix).join(visible_lines(value).split("\n"))


def is_safe(text: str) -> bool:
    """Whether ``text`` (a line or several) holds nothing a terminal would act on."""
    return _UNSAFE_IN_LINES.search(text) is None
