"""A borderless table laid out exactly as rich lays it out in a file or a pipe, without rich.

``matrix lookup`` and ``matrix plan`` print their answers as rich tables without borders
(``box=None, pad_edge=False``). Importing rich and laying a table out with it cost more than
everything else a lookup does (≈25 ms of imports and ≈20 ms of layout for ``--cann 8.0.0``), though
in a file or a pipe (no terminal, no colours) the result is plain lines of spaces and words. This
module computes those lines itself with rich's own arithmetic (``Table._calculate_column_widths``:
each column measured as its longest word and its longest line plus padding, the wrappable columns
collapsed widest first, then all reduced evenly; ``rich._wrap.divide_line`` word wrap with words
longer than a column folded; every line cropped or padded to its column), for the text it is sure
rich measures the same way: printable characters that are one terminal cell wide (ASCII, Latin-1,
general punctuation) or two (CJK ideographs and punctuation, full-width forms). Anything else
(a terminal, colours, tabs, control or other wide characters, markup in a plain string, an
ellipsis column that would have to be cut, a column narrower than one cell) is printed by rich
itself, from the same table (``PlainTable.to_rich``), so the output never depends on the path.

tests/test_plaintable.py compares both with rich on any table (property-based).
"""

from __future__ import annotations

from typing import IO, Any, Dict, List, Optional, Sequence, Tuple, Union

from ascend_doctor.lazy import lazy_re
from ascend_doctor.render.plainconsole import PlainConsole, Text

Cell = Union[str, Text]  # a str is rich markup (rich parses "[...]"), a Text is taken as it is

# Characters whose width in terminal cells is certain (rich's cell tables, every version): one cell
# up to the first range's end, two in the second; tests/test_plaintable.py checks each against rich.
ONE_CELL: Tuple[Tuple[int, int], ...] = ((0x20, 0x7E), (0xA0, 0xAC), (0xAE, 0xFF), (0x2010, 0x2027))
TWO_CELLS: Tuple[Tuple[int, int], ...] = ((0x3001, 0x3003), (0x4E00, 0x9FFF), (0xFF01, 0xFF60))


def _char_class(spans: Tuple[Tuple[int, int], ...]) -> str:
    return "".join(f"\\u{low:04x}-\\u{high:04x}" for low, high in spans)


# Character classes this large take re's compiler milliseconds: lazy_re, so that
# a run that never meets such text never compiles them at all.
_KNOWN = lazy_re(f"[{_char_class(ONE_CELL + TWO_CELLS)}]*")
_WIDE = lazy_re(f"[{_char_class(TWO_CELLS)}]")
_WORD = lazy_re(r" *[^ ]+ *")  # rich's word (r"\s*\S+\s*"); the only white space of a measured text is " "


class PlainColumn:
    """One column as ``rich.table.Table.add_column`` takes it (the arguments the matrix uses)."""

    __slots__ = ("header", "no_wrap", "overflow", "style")

    def __init__(self, header: str, overflow: str, no_wrap: bool, style: Optional[str]) -> None:
        self.header = header
        self.overflow = overflow
        self.no_wrap = no_wrap
        self.style = style


class PlainTable:
    """``rich.table.Table(box=None, pad_edge=False, show_header=...)``: columns, then rows."""

    def __init__(self, show_header: bool = True) -> None:
        self.show_header = show_header
        self.columns: List[PlainColumn] = []
        self.rows: List[Tuple[Cell, ...]] = []

    def add_column(self, header: str, *, overflow: str = "ellipsis", no_wrap: bool = False,
                   style: Optional[str] = None) -> None:
        self.columns.append(PlainColumn(header, overflow, no_wrap, style))

    def add_row(self, *cells: Cell) -> None:
        self.rows.append(tuple(cells))

    def to_rich(self) -> Any:
        """The rich Table built by the same calls."""
        from rich.table import Table

        table = Table(show_header=self.show_header, box=None, pad_edge=False)
        for column in self.columns:
            options: Dict[str, Any] = {"overflow": column.overflow, "no_wrap": column.no_wrap}
            if column.style is not None:
                options["style"] = column.style
            table.add_column(column.header, **options)
        for row in self.rows:
            table.add_row(*[cell if isinstance(cell, str) else cell.to_rich() for cell in row])
        return table


def print_table(console: PlainConsole, file: IO[str], table: PlainTable) -> None:
    """Print ``table`` as ``console.rich.print(table.to_rich())`` does; ``file`` is the console's."""
    lines = layout(table, console.width) if console.plain else None
    if lines is None:
        console.rich.print(table.to_rich())
    else:
        file.write("".join(line + "\n" for line in lines))


# -- the layout ---------------------------------------------------------------------------------


def layout(table: PlainTable, max_width: int) -> Optional[List[str]]:
    """The lines rich prints for ``table`` at ``max_width``, or None when that is not certain."""
    columns = table.columns
    if not columns or max_width < 1:
        return None
    grid: List[List[str]] = []  # per column: header (when shown) and cells, as plain strings
    for index, column in enumerate(columns):
        cells: List[str] = [column.header] if table.show_header else []
        for row in table.rows:
            cell = row[index] if index < len(row) else ""
            if isinstance(cell, str) and "[" in cell:  # rich markup
                return None
            cells.append(cell if isinstance(cell, str) else cell.plain)
        if table.show_header and "[" in column.header:
            return None
        if any(_width(text) is None for text in cells):
            return None
        grid.append(cells)
    if any(len(row) > len(columns) for row in table.rows):
        return None
    last = len(columns) - 1
    pads = [(0 if i == 0 else 1, 0 if i == last else 1) for i in range(len(columns))]
    widths = _column_widths(columns, grid, pads, max_width)
    if sum(widths) > max_width:
        return None
    rendered: List[List[List[str]]] = []  # per column, per row: the row's lines
    for index, column in enumerate(columns):
        left, right = pads[index]
        inner = widths[index] - left - right
        if inner < 1:
            return None
        column_lines: List[List[str]] = []
        for text in grid[index]:
            wrapped = _wrap(text, inner, column.no_wrap, column.overflow)
            if wrapped is None:
                return None
            column_lines.append([" " * left + line + " " * right for line in wrapped])
        rendered.append(column_lines)
    lines: List[str] = []
    for row_index in range(len(grid[0])):
        row_cells = [rendered[c][row_index] for c in range(len(columns))]
        height = max(len(cell_lines) for cell_lines in row_cells)
        header_row = table.show_header and row_index == 0
        for c, cell_lines in enumerate(row_cells):
            blank = [" " * widths[c]] * (height - len(cell_lines))
            # a header sits on the bottom line of its row, a cell on the top one
            row_cells[c] = blank + cell_lines if header_row else cell_lines + blank
        lines.extend("".join(cell_lines[line] for cell_lines in row_cells) for line in range(height))
    return lines


def _width(text: str) -> Optional[int]:
    """Terminal cells of ``text`` when certain (see ONE_CELL / TWO_CELLS), else None."""
    if not text.isprintable():  # tabs, newlines, control characters, spaces other than " "
        return None
    if text.isascii():
        return len(text)
    if _KNOWN.fullmatch(text) is None:
        return None
    return len(text) + len(_WIDE.findall(text))


def _cells(text: str) -> int:
    width = _width(text)
    assert width is not None  # every text was measured before layout
    return width


def _extent(text: str) -> Tuple[int, int]:
    """(longest word, the line) in cells: what rich's Text.__rich_measure__ reads of a line."""
    words = text.split()
    if text.isascii():
        return (max(map(len, words)) if words else len(text)), len(text)
    return (max(map(_cells, words)) if words else _cells(text)), _cells(text)


def _measure_padded(extent: Tuple[int, int], extra: int, max_width: int) -> Tuple[int, int]:
    """rich's Measurement.get of a Padding (``extra`` cells) around a Text of that extent: the
    Text's (word, line) at most max_width, (0, 0) when empty, plus the padding, at most max_width.
    (rich also normalises each step; a word is never wider than its line, so that changes nothing.)"""
    if max_width < 1:
        return 0, 0
    if max_width - extra < 1:
        return max_width, max_width
    minimum, maximum = min(extent[0], max_width), min(extent[1], max_width)
    if maximum < 1:
        minimum = maximum = 0
    return min(minimum + extra, max_width), min(maximum + extra, max_width)


def _measure_column(extents: Sequence[Tuple[int, int]], extra: int, max_width: int) -> Tuple[int, int]:
    if max_width < 1:
        return 0, 0
    measured = [_measure_padded(extent, extra, max_width) for extent in extents]
    minimum = max(m for m, _ in measured) if measured else 1
    maximum = max(m for _, m in measured) if measured else max_width
    return min(minimum, max_width), min(maximum, max_width)


def _column_widths(columns: Sequence[PlainColumn], grid: Sequence[Sequence[str]],
                   pads: Sequence[Tuple[int, int]], max_width: int) -> List[int]:
    """rich's Table._calculate_column_widths for a table that does not expand."""
    extras = [left + right for left, right in pads]
    extents = [[_extent(text) for text in cells] for cells in grid]
    widths = [_measure_column(cells, extra, max_width)[1] or 1 for cells, extra in zip(extents, extras)]
    if sum(widths) > max_width:
        widths = _collapse(widths, [not column.no_wrap for column in columns], max_width)
        if sum(widths) > max_width:
            widths = _ratio_reduce(sum(widths) - max_width, [1] * len(widths), widths, widths)
        widths = [_measure_column(cells, extra, width)[1] or 0 for cells, extra, width in zip(extents, extras, widths)]
    return widths


def _collapse(widths: List[int], wrapable: List[bool], max_width: int) -> List[int]:
    """rich's Table._collapse_widths: narrow the widest wrappable columns first."""
    total = sum(widths)
    excess = total - max_width
    if any(wrapable):
        while total and excess > 0:
            widest = max(w for w, allow in zip(widths, wrapable) if allow)
            second = max(w if allow and w != widest else 0 for w, allow in zip(widths, wrapable))
            difference = widest - second
            ratios = [1 if (w == widest and allow) else 0 for w, allow in zip(widths, wrapable)]
            if not any(ratios) or not difference:
                break
            widths = _ratio_reduce(excess, ratios, [min(excess, difference)] * len(widths), widths)
            total = sum(widths)
            excess = total - max_width
    return widths


def _ratio_reduce(total: int, ratios: List[int], maximums: List[int], values: List[int]) -> List[int]:
    """rich._ratio.ratio_reduce."""
    ratios = [ratio if maximum else 0 for ratio, maximum in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return values[:]
    remaining = total
    result: List[int] = []
    for ratio, maximum, value in zip(ratios, maximums, values):
        if ratio and total_ratio > 0:
            distributed = min(maximum, round(ratio * remaining / total_ratio))
            result.append(value - distributed)
            remaining -= distributed
            total_ratio -= ratio
        else:
            result.append(value)
    return result


def _wrap(text: str, width: int, no_wrap: bool, overflow: str) -> Optional[List[str]]:
    """The Text's lines in a cell ``width`` cells wide (rich's Text.wrap, justify left), each
    exactly ``width`` cells, or None when rich would cut a line with an ellipsis."""
    if no_wrap or (len(text) if text.isascii() else _cells(text)) <= width:  # a text that fits has no break
        pieces = [text]
    else:
        breaks = _divide_line(text, width, fold=overflow == "fold")
        pieces = [text[start:end] for start, end in zip([0, *breaks], [*breaks, len(text)])]
    lines = []
    for piece in pieces:
        size = len(piece) if piece.isascii() else _cells(piece)
        if size > width and overflow not in ("fold", "crop"):
            return None
        lines.append(piece + " " * (width - size) if size <= width else _set_cell_size(piece, width))
    return lines


def _words(text: str) -> List[Tuple[int, str]]:
    """rich._wrap.words: each word with the spaces before (at the start) and after it (the only
    white space in a measured text is " ")."""
    return [(match.start(), match.group()) for match in _WORD.finditer(text)]


def _divide_line(text: str, width: int, fold: bool) -> List[int]:
    """rich._wrap.divide_line: the offsets at which the line breaks."""
    breaks: List[int] = []
    offset = 0
    for start, word in _words(text):
        ascii_word = word.isascii()  # most words of a CJK line are Latin ones: counted by len()
        length = len(word.rstrip()) if ascii_word else _cells(word.rstrip())
        if width - offset >= length:
            offset += len(word) if ascii_word else _cells(word)
        elif length > width:
            if fold:
                folded = _chop_cells(word, width)
                for index, line in enumerate(folded):
                    if start:
                        breaks.append(start)
                    if index == len(folded) - 1:
                        offset = _cells(line)
                    else:
                        start += len(line)
            else:
                if start:
                    breaks.append(start)
                offset = _cells(word)
        elif offset and start:
            breaks.append(start)
            offset = _cells(word)
    return breaks


def _chop_cells(text: str, width: int) -> List[str]:
    """rich.cells.chop_cells: pieces of at most ``width`` cells (a wide character is never split)."""
    if text.isascii():
        return [text[index:index + width] for index in range(0, len(text), width)]
    lines: List[str] = []
    line_start, line_size = 0, 0
    for index, char in enumerate(text):
        size = _char_cells(char)
        if line_size + size > width:
            lines.append(text[line_start:index])
            line_start, line_size = index, 0
        line_size += size
    if line_size:
        lines.append(text[line_start:])
    return lines


def _char_cells(char: str) -> int:
    """Cells of one character of a measured text (so one of ONE_CELL or TWO_CELLS)."""
    code = ord(char)
    return 2 if code > 0xFF and any(low <= code <= high for low, high in TWO_CELLS) else 1


def _set_cell_size(text: str, total: int) -> str:
    """rich.cells.set_cell_size: cropped or padded with spaces to ``total`` cells; a wide character
    cut by the edge becomes a space."""
    size = _cells(text)
    if size < total:
        return text + " " * (total - size)
    if size == total:
        return text
    if text.isascii():
        return text[:total]
    kept, used = [], 0
    for char in text:
        char_size = _char_cells(char)
        if used + char_size > total:
            break
        kept.append(char)
        used += char_size
    return "".join(kept) + " " * (total - used)
