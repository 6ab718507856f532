"""Lines printed exactly as rich prints them to a file or a pipe, without importing rich when the
line is one rich would write unchanged.

Importing rich costs more than all the rest of a text report (``check`` text, ``diagnose``). Printed
to a file, a pipe or a string (no terminal: no colours, no cursor codes), rich writes a line of
plain characters that fits the width as it is, followed by a newline. ``PlainConsole`` writes such
lines itself and hands every other one (a terminal, colours, a line to wrap, control characters,
tabs, wide characters that rich measures in cells) to the rich console it was given the recipe of,
built at the first such line; both write to the same file and flush after each line, as rich does.
``Text`` is the part of ``rich.text.Text`` the renderers use (text with styles appended), turned
into a real one, piece by piece as it was built, when rich prints it.

tests/test_plainconsole.py compares both with rich on every kind of line (property-based).
"""

from __future__ import annotations

import builtins
import os
import sys
from typing import IO, Any, Callable, List, Optional, Pattern, Tuple

# Environment variables by which rich (any supported version) may decide that a file is a terminal.
_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "TTY_COMPACT")
# Up to here every printable character is one terminal cell wide for rich (ASCII and Latin-1: "°", "·").
_LAST_NARROW = "\u00ff"
_WORD: Optional[Pattern[str]] = None


class Text:
    """Text with styled pieces, as ``rich.text.Text(text, style=...)`` and ``.append(text, style)``."""

    __slots__ = ("_pieces", "style")

    def __init__(self, text: str = "", style: str = "") -> None:
        self.style = style
        self._pieces: List[Tuple[str, Optional[str]]] = [(text, None)]

    def append(self, text: str, style: Optional[str] = None) -> Text:
        self._pieces.append((text, style))
        return self

    @property
    def plain(self) -> str:
        return "".join(piece for piece, _style in self._pieces)

    def made_visible(self) -> Text:
        """This text with every control character, newline included, made visible (render/sanitize.py)."""
        from ascend_doctor.render.sanitize import visible

        shown = Text(visible(self._pieces[0][0]), style=self.style)
        for piece, style in self._pieces[1:]:
            shown.append(visible(piece), style)
        return shown

    def to_rich(self) -> Any:
        """The rich Text built by the same calls."""
        from rich.text import Text as RichText

        first, *rest = self._pieces
        text = RichText(first[0], style=self.style)
        for piece, style in rest:
            text.append(piece, style=style)
        return text


class PlainConsole:
    """``print`` of a rich Console made by ``make_rich`` (called once, when a line needs it).

    ``plain``: the caller has established that rich would see no terminal and use no colours, so a
    line it would print unchanged can be written here; False sends every line to rich. ``file``:
    where rich writes (None: ``sys.stdout`` at each line, as rich does); ``width``: rich's width."""

    def __init__(self, make_rich: Callable[[], Any], file: Optional[IO[str]], width: int, plain: bool) -> None:
        self._make_rich = make_rich
        self._rich: Any = None
        self._file = file
        self._width = width
        self.plain = plain and _no_terminal_overrides()

    @property
    def rich(self) -> Any:
        if self._rich is None:
            self._rich = self._make_rich()
        return self._rich

    @property
    def width(self) -> int:
        return self._width if self.plain else int(self.rich.width)

    def print(self, text: Optional[Text] = None, *, soft_wrap: bool = False, no_wrap: Optional[bool] = None,
              overflow: Optional[str] = None) -> None:
        line = "" if text is None else text.plain
        if not line.isprintable() and text is not None:
            # The render boundary: a printed line is one line, with nothing a terminal would act on
            # (render/sanitize.py); whatever a renderer forgot to make visible is made visible here.
            text = text.made_visible()
            line = text.plain
        file = self._file if self._file is not None else sys.stdout
        printed = self._as_rich_prints(line, soft_wrap, no_wrap, overflow) if self.plain else None
        if printed is not None and _encodable(file, printed):
            try:
                file.write(printed + "\n")
                file.flush()
            except BrokenPipeError:
                self._broken_pipe()
            return
        rich_text = Text() if text is None else text
        if soft_wrap:
            self.rich.print(rich_text.to_rich(), soft_wrap=True, no_wrap=no_wrap, overflow=overflow)
        else:  # the Console's own soft_wrap setting, as a print without the argument
            self.rich.print(rich_text.to_rich(), no_wrap=no_wrap, overflow=overflow)

    def _as_rich_prints(self, line: str, soft_wrap: bool, no_wrap: Optional[bool], overflow: Optional[str]
                        ) -> Optional[str]:
        """What rich writes for ``line`` when that is certain, else None.

        Soft-wrapped lines are never wrapped or cropped, but rich drops the spaces that end a line
        longer than the width. Other lines are wrapped at the width counted in terminal cells: only
        lines of one-cell characters whose words each fit the width are certain."""
        if not line.isprintable():  # tabs, newlines, control characters, separators
            return None
        if soft_wrap:
            # a longer line: rich drops the spaces that end it, and rich 15 applies an overflow (ellipsis)
            # even to a soft-wrapped line; leave both to rich
            if len(line) > self._width and (line.endswith(" ") or overflow is not None):
                return None
            return line
        if max(line, default=" ") > _LAST_NARROW:  # rich counts these in cells
            return None
        if len(line) <= self._width:
            return line
        if no_wrap or overflow is not None:
            return None
        return _word_wrap(line, self._width)

    def _broken_pipe(self) -> None:
        handler = getattr(self.rich, "on_broken_pipe", None)
        if handler is None:
            raise BrokenPipeError
        handler()


def _word_wrap(line: str, width: int) -> Optional[str]:
    """rich's word wrap (rich._wrap.divide_line, then Text.rstrip_end) of a line of one-cell
    characters, when every word fits the width (folding a longer one differs between rich versions)."""
    global _WORD
    if _WORD is None:
        import re

        _WORD = re.compile(r"\s*\S+\s*")  # rich's word: the spaces before and after it included
    breaks: List[int] = []
    offset = 0
    for match in _WORD.finditer(line):
        start, word = match.start(), match.group(0)
        length = len(word.rstrip())
        if length > width:
            return None
        if width - offset >= length:
            offset += len(word)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    lines = [line[begin:end] for begin, end in zip([0, *breaks], [*breaks, len(line)])]
    for index, piece in enumerate(lines):
        if len(piece) > width:  # rstrip_end: only the spaces past the width go
            excess = len(piece) - width
            spaces = len(piece) - len(piece.rstrip())
            lines[index] = piece[:len(piece) - min(spaces, excess)]
    return "\n".join(lines)


def _encodable(file: Any, line: str) -> bool:
    """Whether writing ``line`` cannot fail with an encoding error (rich adds advice to that error)."""
    if line.isascii():
        return True
    encoding = getattr(file, "encoding", None)
    if encoding is None:  # io.StringIO
        return True
    try:
        line.encode(encoding, getattr(file, "errors", None) or "strict")
    except (UnicodeError, LookupError):
        return False
    return True


def _no_terminal_overrides() -> bool:
    """No setting by which rich could see a terminal in a file, or print through Jupyter."""
    return (sys.platform != "win32" and not any(os.environ.get(name) is not None for name in _TERMINAL_VARIABLES)
            and not hasattr(builtins, "get_ipython"))


def is_a_terminal(file: Optional[IO[str]]) -> bool:
    """Whether ``file`` (None: standard output) is, or could be, a terminal."""
    target = file if file is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    try:
        return True if isatty is None else bool(isatty())
    except ValueError:  # a closed file: let rich decide
        return True
