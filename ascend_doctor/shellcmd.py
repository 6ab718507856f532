"""Commands are data: every command the tool prints is built here, from words, and quoted once.

A fix a person pastes into a root shell must never run what a value read from the machine holds (a
host name, a file name in a model folder, a ``/etc/hccn.conf`` value, an environment value). So no
f-string or ``%`` puts such a value into a command: a command is an argv list rendered with
``shlex.quote`` (``argv``), or one of a few fixed shell forms built from checked parts (``source``,
``export``, ``pipe``, ``chain``). A value that must have a shape (a version, an IPv4 address, a
device id, a PID, a group or user name, an environment variable name) is checked against it with
``shaped``; one that does not fit is replaced by a placeholder in angle brackets, and the caller
says why.

Placeholders (``<image>``, ``<N>``) are words for a person to fill in, written by this module from a
fixed set of characters, never from machine data. They are printed in single quotes (``'<image>'``):
every printed line then parses as bash (``bash -n``), and a line pasted unfilled fails on a value
that does not exist (``docker pull '<image>'``: invalid reference) instead of reading ``<image>`` as
a redirection.
"""

from __future__ import annotations

import re
import shlex
from typing import Iterable, Optional, Sequence, Union

from ascend_doctor.lazy import lazy_re

# A word the tool itself writes for a person to fill in: "<image>", "<N>", "<driver version>".
_PLACEHOLDER = lazy_re(r"<[A-Za-z0-9 _.,:/=+’-]{1,60}>")
# "row's" reads better than "row s": an apostrophe is allowed and spelled as the typographic one, which
# needs no quoting.
# Words that need no quotes (shlex.quote leaves these alone too); "..." is kept bare as a
# "the rest of your flags" marker.
_BARE_MARKERS = frozenset({"...", "|", "&&"})

SHAPES = {
    # CANN, HDK, firmware, torch, Python versions: digits, letters, dots, plus, hyphens, underscores.
    "version": re.compile(r"[0-9][0-9A-Za-z.+_-]{0,63}"),
    "ipv4": re.compile(r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}"
                       r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"),
    "device_id": re.compile(r"[0-9]{1,3}"),
    "pid": re.compile(r"[1-9][0-9]{0,9}"),
    # POSIX portable user and group names (useradd's own rule, with the trailing "$" of machine accounts).
    "group": re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?"),
    "user": re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?"),
    "env_name": re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}"),
    "package": re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"),
    # An absolute install path (/usr/local/Ascend): a value that goes inside another word (a sed script).
    "path": re.compile(r"/[A-Za-z0-9._+/-]{0,255}"),
}

Word = Union[str, "Placeholder"]


class Placeholder(str):
    """A word for a person to fill in, printed bare: ``Placeholder("image")`` renders as ``<image>``."""

    def __new__(cls, label: str) -> Placeholder:
        label = label.replace("'", "’")
        text = label if label.startswith("<") else f"<{label}>"
        if not _PLACEHOLDER.fullmatch(text):
            raise ValueError(f"not a placeholder: {label!r}")
        return super().__new__(cls, text)


def fits(value: object, shape: str) -> bool:
    """Whether ``value`` is a string of the named shape (``SHAPES``)."""
    pattern = SHAPES[shape]
    return isinstance(value, str) and pattern.fullmatch(value) is not None


def shaped(value: object, shape: str, placeholder: Optional[str] = None) -> str:
    """``value`` when it has the shape, else a placeholder (``<version>`` by default) to fill in.

    The placeholder is a ``Placeholder`` so that ``argv`` leaves it bare; the caller that gets one
    back should say why in the step's prose (``fits`` tells)."""
    if fits(value, shape):
        return str(value)
    return Placeholder(placeholder or shape.replace("_", " "))


def quote(word: Word) -> str:
    """One word for the shell: a marker as it is, a placeholder in single quotes, anything else shlex-quoted.

    A word holding a newline or another control character is written in bash's ``$'...'`` form with
    the character escaped, so that the command stays on one line: a printed fix is read, wrapped and
    pasted line by line, and the second line of a quoted file name would run as a command of its own.
    """
    if isinstance(word, Placeholder):
        return f"'{word}'"
    if word in _BARE_MARKERS:
        return str(word)
    text = str(word)
    if _CONTROL.search(text):
        return "$'" + "".join(_ansi_c(ch) for ch in text) + "'"
    return shlex.quote(text)


_CONTROL = lazy_re(r"[\x00-\x1f\x7f]")
_ANSI_C_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_ANSI_C_WORD = lazy_re(r"(?<!\S)\$'((?:[^'\\]|\\.)*)'(?!\S)")


def _ansi_c(ch: str) -> str:
    if ch in _ANSI_C_ESCAPES:
        return _ANSI_C_ESCAPES[ch]
    return f"\\x{ord(ch):02x}" if ch < " " or ch == "\x7f" else ch


def argv(*words: Word) -> str:
    """A simple command: every word quoted once. ``argv("pip", "install", "torch==" + v)``."""
    if not words:
        raise ValueError("a command needs at least one word")
    return " ".join(quote(w) for w in words)


def argv_list(words: Sequence[Word]) -> str:
    return argv(*words)


def source(path: Word) -> str:
    """``source FILE`` (the script's path quoted)."""
    return argv("source", path)


def export(name: str, value: Word) -> str:
    """``export NAME=VALUE``: the name must be a variable name, the value is quoted."""
    if not fits(name, "env_name"):
        raise ValueError(f"not an environment variable name: {name!r}")
    return f"export {name}={quote(value)}"


def unset(name: str) -> str:
    if not fits(name, "env_name"):
        raise ValueError(f"not an environment variable name: {name!r}")
    return f"unset {name}"


def pipe(*commands: str) -> str:
    """Commands already built by this module, joined by ``|``."""
    return " | ".join(_checked(c) for c in commands)


def chain(*commands: str) -> str:
    """Commands already built by this module, joined by ``&&`` (each runs when the one before succeeded)."""
    return " && ".join(_checked(c) for c in commands)


def comment(text: str) -> str:
    """A ``# ...`` line; newlines and control characters become spaces so the comment stays one line."""
    return "# " + one_line(text)


def with_comment(command: str, text: str) -> str:
    """``command  # text``: the two-space separator is what the plan's merger splits on."""
    return f"{_checked(command)}  # {one_line(text)}"


def one_line(text: str) -> str:
    """Text with every control character (newline, escape, NUL, DEL) replaced by a space."""
    return "".join(" " if (ord(ch) < 32 or ord(ch) == 127) else ch for ch in str(text)).strip()


def _checked(command: str) -> str:
    if any(ch in command for ch in "\n\r\x00"):
        raise ValueError(f"a command is one line: {command!r}")
    return command


def words(command: str) -> Iterable[str]:
    """The words bash would see in a command this module built (for tests and the container merger)."""
    # shlex knows no $'...': each such word (only quote() writes them) becomes its single-quoted text.
    plain = _ANSI_C_WORD.sub(lambda m: shlex.quote(_decode_ansi_c(m.group(1))), command)
    return shlex.split(plain, comments=True)


def _decode_ansi_c(body: str) -> str:
    simple = {"\\": "\\", "'": "'", "n": "\n", "t": "\t", "r": "\r"}
    return re.sub(r"\\(x[0-9a-f]{2}|.)",
                  lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "x" and len(m.group(1)) == 3
                  else simple.get(m.group(1), m.group(1)), body)
