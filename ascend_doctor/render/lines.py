"""Printing the text renderers' lines: rich on a terminal, the lines as they are everywhere else.

On a terminal (or with colours asked for) rich prints each line: styles, and wrapping at the
terminal's width. To a file, a pipe or a string the renderers' lines are written as they are: the
renderers wrap their prose themselves (render/text.py, widewrap.py), and a line they leave long (a
command, a log line, a path) stays whole, so it can be pasted and grepped. Importing rich costs
more than the rest of a text report, so it is imported only for a terminal.

``Text`` is the part of ``rich.text.Text`` the renderers use (text with styles appended), turned
into a real one when rich prints it. ``Table`` is a borderless table of our own for a file or a pipe
(columns two spaces apart, the widest wrapped to fit); on a terminal rich draws it.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any, Callable, List, Optional, Sequence, Tuple, Union


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


class Console:
    """Prints lines: through the rich Console ``make_rich`` makes (built at the first line) unless
    ``plain``, when they go to ``file`` (None: ``sys.stdout`` at each line) as they are. ``width``:
    what the renderers wrap to when plain."""

    def __init__(self, make_rich: Callable[[], Any], file: Optional[IO[str]], width: int, plain: bool) -> None:
        self._make_rich = make_rich
        self._rich: Any = None
        self._file = file
        self._width = width
        self.plain = plain

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
        if text is not None and not text.plain.isprintable():
            # The render boundary: a printed line is one line, with nothing a terminal would act on
            # (render/sanitize.py); whatever a renderer forgot to make visible is made visible here.
            text = text.made_visible()
        if self.plain:
            file = self._file if self._file is not None else sys.stdout
            file.write(("" if text is None else text.plain) + "\n")
            file.flush()
            return
        rich_text = (Text() if text is None else text).to_rich()
        if soft_wrap:
            self.rich.print(rich_text, soft_wrap=True, no_wrap=no_wrap, overflow=overflow)
        else:  # the Console's own soft_wrap setting, as a print without the argument
            self.rich.print(rich_text, no_wrap=no_wrap, overflow=overflow)


# Environment variables by which rich may decide that a file is a terminal.
_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "TTY_COMPACT")


def is_a_terminal(file: Optional[IO[str]]) -> bool:
    """Whether ``file`` (None: standard output) is, or could be, a terminal."""
    if any(os.environ.get(name) is not None for name in _TERMINAL_VARIABLES):
        return True
    target = file if file is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    try:
        return True if isatty is None else bool(isatty())
    except ValueError:  # a closed file: let rich decide
        return True


Cell = Union[str, Text]


class Table:
    """A borderless table: columns, then rows; a column that may wrap (not ``no_wrap``) is wrapped
    to fit the width."""

    def __init__(self, show_header: bool = True) -> None:
        self.show_header = show_header
        self.columns: List[Tuple[str, bool, Optional[str]]] = []  # header, no_wrap, style
        self.rows: List[Tuple[Cell, ...]] = []

    def add_column(self, header: str, *, no_wrap: bool = False, style: Optional[str] = None) -> None:
        self.columns.append((header, no_wrap, style))

    def add_row(self, *cells: Cell) -> None:
        self.rows.append(tuple(cells))

    def lines(self, width: int) -> List[str]:
        """The table as plain lines: each column as wide as its widest cell (in terminal cells), two
        spaces apart, no spaces at the end of a line. While the table is wider than ``width`` the
        widest column that may wrap gives up a cell (down to 10), and its cells are wrapped at
        spaces (widewrap.py: a word longer than the column keeps its line whole)."""
        from ascend_doctor.widewrap import cell_width, wrap

        grid: List[Sequence[str]] = [[header for header, _no_wrap, _style in self.columns]] if self.show_header else []
        grid += [[cell if isinstance(cell, str) else cell.plain for cell in row] for row in self.rows]
        widths = [max((cell_width(row[i]) for row in grid), default=0) for i in range(len(self.columns))]
        wrappable = [i for i, (_header, no_wrap, _style) in enumerate(self.columns) if not no_wrap]
        excess = sum(widths) + 2 * (len(widths) - 1) - width
        while excess > 0 and wrappable:
            widest = max(wrappable, key=widths.__getitem__)
            if widths[widest] <= 10:
                break
            widths[widest] -= 1
            excess -= 1
        out: List[str] = []
        for row in grid:
            cells = [wrap(cell, widths[i]) if i in wrappable and cell_width(cell) > widths[i] else [cell]
                     for i, cell in enumerate(row)]
            for index in range(max(len(pieces) for pieces in cells)):
                pieces = [column[index] if index < len(column) else "" for column in cells]
                out.append("  ".join(piece + " " * (size - cell_width(piece))
                                     for piece, size in zip(pieces, widths)).rstrip())
        return out

    def to_rich(self) -> Any:
        """The rich Table built by the same calls (text cells are taken as text, not markup)."""
        from rich.table import Table as RichTable
        from rich.text import Text as RichText

        table = RichTable(show_header=self.show_header, box=None, pad_edge=False)
        for header, no_wrap, style in self.columns:
            table.add_column(header, overflow="fold", no_wrap=no_wrap, style=style)
        for row in self.rows:
            table.add_row(*[RichText(cell) if isinstance(cell, str) else cell.to_rich() for cell in row])
        return table


def print_table(console: Console, file: IO[str], table: Table) -> None:
    """``table`` on ``console``, which writes to ``file``."""
    if console.plain:
        file.write("".join(line + "\n" for line in table.lines(console.width)))
    else:
        console.rich.print(table.to_rich())
