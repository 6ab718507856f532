"""The text report's English wrapping gives textwrap.wrap's lines, with or without its shortcut for a
line that already fits (render/text.py: _english_wrap)."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.render.text import _english_wrap

# Letters, hyphens, every kind of whitespace textwrap treats (or does not treat) specially, and
# characters str.strip drops but textwrap's chunking keeps.
_ALPHABET = st.sampled_from(list("ab- .,") + ["\t", "\n", "\x0b", "\x0c", "\r", "\xa0", "\u3000", "\u2028", "中"])


@settings(max_examples=600, deadline=None)
@given(text=st.text(alphabet=_ALPHABET, max_size=40), width=st.integers(min_value=1, max_value=45))
def test_same_lines_as_textwrap(text: str, width: int) -> None:
    assert _english_wrap(text, width) == textwrap.wrap(text, width)


@pytest.mark.parametrize("text", [
    "driver 24.1.rc2 is installed",          # fits: the shortcut
    "  indented, kept as textwrap keeps it",  # leading spaces: textwrap
    "trailing space dropped ",               # textwrap drops it
    "a\ttab",                                 # expanded by textwrap
    "",                                       # no line at all
    "\u3000",                                 # whitespace only (str.strip's)
    "x" * 30 + " " + "y" * 30,                # too long: wrapped
])
def test_examples(text: str) -> None:
    assert _english_wrap(text, 40) == textwrap.wrap(text, 40)


def test_a_width_textwrap_refuses_is_refused_alike() -> None:
    with pytest.raises(ValueError):
        textwrap.wrap("abc", 0)
    with pytest.raises(ValueError):
        _english_wrap("abc", 0)
