"""render/plaintable.py lays a borderless table out exactly as rich does, or leaves it to rich."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from typing import List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import get_character_cell_size
from rich.console import Console

from ascend_doctor.render.plainconsole import PlainConsole, Text
from ascend_doctor.render.plaintable import ONE_CELL, TWO_CELLS, PlainTable, layout, print_table


def rich_prints(table: PlainTable, width: int) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=width, no_color=True, highlight=False, emoji=False, soft_wrap=False,
            color_system=None).print(table.to_rich())
    return buffer.getvalue()


def make_table(show_header: bool, columns: List[Tuple[str, str, bool]], rows: List[List[str]],
               as_text: bool) -> PlainTable:
    table = PlainTable(show_header=show_header)
    for header, overflow, no_wrap in columns:
        table.add_column(header, overflow=overflow, no_wrap=no_wrap)
    for row in rows:
        table.add_row(*[Text(cell, style="bold") if as_text else cell for cell in row[:len(columns)]])
    return table


# Words of every kind that matters: short, longer than a column, one- and two-cell characters, and
# now and then one the layout leaves to rich (tab, combining accent, emoji, markup, no-break space).
CERTAIN_WORD = st.one_of(
    st.text(alphabet="abcxyz0123.,:-", min_size=1, max_size=8),
    st.text(alphabet="abcdefghij", min_size=12, max_size=40),
    st.text(alphabet="兼容性说明版本（）、§—…é", min_size=1, max_size=12),
    st.text(alphabet="ab中", min_size=10, max_size=30),
    st.sampled_from(["[2,3]", "(inferred)", ""]),
)
UNCERTAIN_WORD = st.sampled_from(["a\tb", "e\u0301", "\U0001f600", "\u00a0", "x\ny"])
CELL = st.lists(CERTAIN_WORD, max_size=8).map(" ".join) | st.lists(CERTAIN_WORD, max_size=4).map("  ".join)
COLUMN = st.tuples(st.sampled_from(["component", "version", "why", "src", "组件", "x"]),
                   st.sampled_from(["fold", "fold", "ellipsis", "crop"]), st.booleans())


@settings(max_examples=400, deadline=None)
@given(show_header=st.booleans(), columns=st.lists(COLUMN, min_size=1, max_size=5),
       rows=st.lists(st.lists(CELL, min_size=5, max_size=5), max_size=6), width=st.integers(1, 130),
       as_text=st.booleans())
def test_layout_is_richs_or_none(show_header: bool, columns: List[Tuple[str, str, bool]], rows: List[List[str]],
                                 width: int, as_text: bool) -> None:
    table = make_table(show_header, columns, rows, as_text)
    lines = layout(table, width)
    if lines is not None:
        assert "".join(line + "\n" for line in lines) == rich_prints(table, width)


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(st.lists(CELL, min_size=2, max_size=2), min_size=1, max_size=3), spoiler=UNCERTAIN_WORD,
       where=st.integers(0, 5), width=st.integers(20, 100))
def test_one_uncertain_cell_leaves_the_table_to_rich(rows: List[List[str]], spoiler: str, where: int,
                                                     width: int) -> None:
    row = rows[where % len(rows)]
    row[where % 2] = row[where % 2] + " " + spoiler
    table = make_table(True, [("what", "fold", False), ("why", "fold", True)], rows, as_text=True)
    assert layout(table, width) is None


def test_the_matrix_tables_take_the_plain_path() -> None:
    """A lookup-like table (wide characters, folded words, no_wrap columns) is laid out without rich."""
    table = make_table(True, [("component", "fold", False), ("version", "fold", False), ("verdict", "fold", True),
                              ("why", "fold", False), ("src", "fold", True)],
                       [["driver", "23.0.1", "compatible (inferred)",
                         "CANN 8.0.0's compatible_version [V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19] "
                         "lists driver 23.0.1 (版本兼容性说明 (Ascend HDK))", "[2,3]"]] * 3, as_text=True)
    for width in (60, 100, 120):
        lines = layout(table, width)
        assert lines is not None
        assert "".join(line + "\n" for line in lines) == rich_prints(table, width)


@pytest.mark.parametrize("cell", ["a\tb", "e\u0301", "\U0001f600"])
def test_uncertain_text_is_left_to_rich(cell: str) -> None:
    table = make_table(True, [("what", "fold", False)], [[cell]], as_text=True)
    assert layout(table, 40) is None
    buffer = io.StringIO()
    console = PlainConsole(lambda: Console(file=buffer, width=40, no_color=True, highlight=False, emoji=False,
                                           soft_wrap=False, color_system=None), buffer, 40, plain=True)
    print_table(console, buffer, table)
    assert buffer.getvalue() == rich_prints(table, 40)


def test_markup_in_a_plain_string_is_left_to_rich() -> None:
    assert layout(make_table(True, [("what", "fold", False)], [["[bold]x[/bold]"]], as_text=False), 40) is None
    assert layout(make_table(True, [("what", "fold", False)], [["[bold]x[/bold]"]], as_text=True), 40) is not None


def test_character_widths_are_richs() -> None:
    for spans, cells in ((ONE_CELL, 1), (TWO_CELLS, 2)):
        for low, high in spans:
            wrong: Optional[str] = next((chr(code) for code in range(low, high + 1)
                                         if chr(code).isprintable() and get_character_cell_size(chr(code)) != cells),
                                        None)
            assert wrong is None, f"U+{ord(wrong):04X} is not {cells} cell(s) wide for rich"


@pytest.mark.parametrize("argv", [["matrix", "lookup", "--cann", "8.0.0"],
                                  ["matrix", "plan", "--chip", "910B3", "--engine", "vllm-ascend"]])
def test_matrix_text_to_a_pipe_imports_no_rich(argv: List[str]) -> None:
    code = ("import sys\nfrom ascend_doctor.cli import main\n"
            f"try:\n    main({argv!r}, standalone_mode=False)\nexcept SystemExit:\n    pass\n"
            "assert not [m for m in sys.modules if m == 'rich' or m.startswith('rich.')], 'rich imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    assert "compatibility matrix" in done.stdout


@pytest.mark.parametrize("columns", [None, "77", " 90 ", "0", "-3", "wide"])
def test_terminal_columns_are_shutils(columns: Optional[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from ascend_doctor.render.matrix_tables import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size((120, 40)).columns
