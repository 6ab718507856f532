"""render/plainconsole.py prints what rich prints, byte for byte, and spares rich when it can.

Each case prints the same styled pieces through ``PlainConsole`` (writing the lines rich would not
change itself) and through the rich Console its recipe makes, into a file that is no terminal, and
compares the two outputs.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.render.plainconsole import PlainConsole, Text
from ascend_doctor.render.text import make_console

ROOT = Path(__file__).resolve().parent.parent

# Characters that make the cases interesting: spaces at the ends, tabs, newlines, control
# characters rich strips, wide (Chinese) and narrow non-ASCII characters, zero-width ones.
_ALPHABET = st.sampled_from(list("ab  -/.:") + ["\t", "\n", "\r", "\x07", "\x1b", "\x7f", "·", "×", "°", "中", "文",
                                                "\u200b", "\u0301", "\u3000", "\u00a0", "\u2028"])
_PIECES = st.lists(st.tuples(st.text(_ALPHABET, max_size=70), st.sampled_from([None, "", "bold", "dim cyan"])),
                   min_size=1, max_size=4)


def _print_both(pieces: List[Tuple[str, Optional[str]]], base: str, width: int, soft_wrap: bool,
                no_wrap: Optional[bool], overflow: Optional[str], file: Any) -> Tuple[str, str]:
    from rich.console import Console

    def make_rich(target: Any) -> Any:
        return Console(file=target, no_color=True, highlight=False, emoji=False, soft_wrap=False, width=width,
                       color_system=None)

    outputs = []
    for plain in (True, False):
        target = file()
        console = PlainConsole(lambda target=target: make_rich(target), target, width, plain=plain)
        text = Text(pieces[0][0], style=base)
        for piece, style in pieces[1:]:
            text.append(piece, style=style)
        console.print(text, soft_wrap=soft_wrap, no_wrap=no_wrap, overflow=overflow)
        console.print()
        target.flush()
        outputs.append(target.getvalue() if isinstance(target, io.StringIO) else target.buffer.getvalue())
    return outputs[0], outputs[1]


class _Utf8File(io.TextIOWrapper):
    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8")


@settings(max_examples=400, deadline=None)
@given(pieces=_PIECES, base=st.sampled_from(["", "bold", "dim"]), width=st.integers(5, 60),
       soft_wrap=st.booleans(), no_wrap=st.sampled_from([None, True]),
       overflow=st.sampled_from([None, "ellipsis", "fold"]), utf8=st.booleans())
def test_plain_console_prints_what_rich_prints(pieces: List[Tuple[str, Optional[str]]], base: str, width: int,
                                               soft_wrap: bool, no_wrap: Optional[bool], overflow: Optional[str],
                                               utf8: bool) -> None:
    ours, theirs = _print_both(pieces, base, width, soft_wrap, no_wrap, overflow, _Utf8File if utf8 else io.StringIO)
    assert ours == theirs


def test_lines_rich_would_not_change_do_not_build_the_rich_console() -> None:
    made: List[int] = []
    buffer = io.StringIO()
    console = PlainConsole(lambda: made.append(1), buffer, 40, plain=True)
    console.print(Text("PASS  ", style="green").append("ASC-DRV-001 ", style="bold").append("driver loaded"))
    console.print(Text("      fix: " + "x" * 60, style="cyan"), soft_wrap=True)  # soft-wrapped: never cut
    console.print(Text("   中文 · ×"), soft_wrap=True)
    console.print()
    console.print(Text("a line longer than the width of 40 °C, wrapped at words"))
    assert not made
    assert buffer.getvalue() == ("PASS  ASC-DRV-001 driver loaded\n      fix: " + "x" * 60 + "\n   中文 · ×\n\n"
                                 "a line longer than the width of 40 °C, \nwrapped at words\n")  # rich keeps the space


@pytest.mark.parametrize("line", ["a word longer than the width: " + "x" * 30, "tab\there", "中文"])
def test_other_lines_go_to_rich(line: str) -> None:
    made: List[int] = []

    class _Rich:
        width = 20

        def print(self, *args: Any, **kwargs: Any) -> None:
            made.append(1)

    console = PlainConsole(lambda: _Rich(), io.StringIO(), 20, plain=True)
    console.print(Text(line))
    assert made


def test_control_characters_are_made_visible_at_the_console() -> None:
    """The render boundary (render/sanitize.py; hostile_inputs_2.md, defect 10): a bell, an escape
    sequence or a newline inside a printed line is shown, never obeyed and never a line of its own."""
    buffer = io.StringIO()
    console = PlainConsole(lambda: None, buffer, 80, plain=True)
    console.print(Text("bell\x07 ").append("\x1b]0;TITLE\x07\x1b[2J", style="bold").append("\nFAKE: PASS"))
    assert buffer.getvalue() == "bell^G ^[]0;TITLE^G^[[2J^JFAKE: PASS\n"


def test_a_terminal_or_colours_always_go_to_rich() -> None:
    assert not make_console(color=True).plain

    class _Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert not make_console(file=_Terminal()).plain
    assert make_console(file=io.StringIO()).plain


def test_force_color_goes_to_rich(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not make_console(file=io.StringIO()).plain


def test_a_piped_text_check_and_diagnose_import_no_rich(tmp_path: Path) -> None:
    program = ("import sys\nfrom ascend_doctor.cli import main\ntry:\n"
               "    main(sys.argv[1:], prog_name='ascend-doctor')\nexcept SystemExit:\n    pass\n"
               "sys.stderr.write(repr(sorted(m for m in sys.modules if m.startswith('rich'))))")
    log = ROOT / "tests" / "samples" / "dmesg-and-logs" / "vllm-ascend-116-910B-stars-sdma-EI9999-507001.txt"
    for args in (["check", "--from", str(ROOT / "fixtures" / "healthy-8x910B3")], ["diagnose", str(log)]):
        done = subprocess.run([sys.executable, "-c", program, *args], cwd=tmp_path, capture_output=True, text=True,
                              check=False, env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        assert done.stdout, done.stderr
        assert done.stderr.endswith("[]"), f"{args[0]} piped imported rich: {done.stderr[-300:]}"


@settings(max_examples=400, deadline=None)
@given(words=st.lists(st.text(st.sampled_from(list("ab°-")), min_size=0, max_size=12), min_size=1, max_size=30),
       spaces=st.lists(st.sampled_from([" ", "  ", "   "]), min_size=30, max_size=30), width=st.integers(5, 40))
def test_word_wrap_is_riches(words: List[str], spaces: List[str], width: int) -> None:
    line = "".join(word + space for word, space in zip(words, spaces))
    ours, theirs = _print_both([(line, None)], "", width, False, None, None, io.StringIO)
    assert ours == theirs
