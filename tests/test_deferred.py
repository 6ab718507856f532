"""Deferred standard-library modules (ascend_doctor/deferred.py): the placeholder behaves as the
module once touched, the stand-in gives inspect's answers, and help shown through the console
script is click's own (test_wheel_install: a JSON check of an installed package never loads inspect)."""

from __future__ import annotations

import inspect
import subprocess
import sys
import threading
import types
from pathlib import Path
from typing import Any, Dict, List

from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor import deferred

# Docstring-like text: indentation made of spaces, tabs and other white space, blank lines of
# every kind, and any other character.
_PIECES = st.sampled_from(["", " ", "  ", "    ", "\t", " \t", "\u00a0", "\u3000", "\x0c", "\r", "\n", "\n\n",
                           "a", "word", "  indented", "\tx", "trailing  ", "中文", "\f"])
_DOCS = st.one_of(st.lists(_PIECES, max_size=30).map("".join), st.text(max_size=200))


@settings(max_examples=400, deadline=None)
@given(_DOCS)
def test_the_stand_in_gives_what_inspect_cleandoc_gives(doc: str) -> None:
    assert deferred.clean_docstring(doc) == inspect.cleandoc(doc)


def test_click_help_texts_are_cleaned_alike() -> None:
    import click

    texts = [p.help for cmd in _commands() for p in cmd.params if getattr(p, "help", None)]
    texts += [cmd.help for cmd in _commands() if cmd.help]
    assert len(texts) > 50
    for text in texts:
        assert deferred.clean_docstring(text) == inspect.cleandoc(text)
    assert click  # imported for _commands


def _commands() -> List[Any]:
    import click

    from ascend_doctor.cli import main

    found: List[Any] = []
    context = click.Context(main)
    for name in main.list_commands(context):
        command = main.get_command(context, name)
        found.append(command)
        if isinstance(command, click.Group):
            found.extend(command.get_command(context, sub) for sub in command.list_commands(context))
    return [c for c in found if c is not None]


def _fresh_placeholder(name: str, stand_ins: Dict[str, Any]) -> types.ModuleType:
    """A placeholder for ``name`` as defer() makes it, outside sys.modules' real entry."""
    saved = sys.modules.pop(name, None)
    try:
        deferred.defer({name: stand_ins})
        placeholder = sys.modules[name]
    finally:
        if saved is not None:
            sys.modules[name] = saved
        else:
            sys.modules.pop(name, None)
    return placeholder


def test_the_first_attribute_loads_the_module_and_the_placeholder_becomes_it() -> None:
    placeholder = _fresh_placeholder("colorsys", {})
    assert isinstance(placeholder, deferred.DeferredModule)
    assert "rgb_to_hsv" not in vars(placeholder)
    sys.modules["colorsys"] = placeholder
    try:
        assert placeholder.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)
        assert type(placeholder) is types.ModuleType  # a plain module from now on
        real = sys.modules["colorsys"]
        assert real is not placeholder and real.rgb_to_hsv is placeholder.rgb_to_hsv
        assert placeholder.__file__ == real.__file__
    finally:
        sys.modules.pop("colorsys", None)


def test_a_stand_in_answers_without_loading_and_the_real_function_replaces_it() -> None:
    def fake(text: str) -> str:
        return "stand-in"

    placeholder = _fresh_placeholder("colorsys", {"hls_to_rgb": fake})
    sys.modules["colorsys"] = placeholder
    try:
        assert placeholder.hls_to_rgb("x") == "stand-in"
        assert type(placeholder) is deferred.DeferredModule  # not loaded by the stand-in
        placeholder.rgb_to_yiq  # noqa: B018  # loads
        assert placeholder.hls_to_rgb is not fake and placeholder.hls_to_rgb(0.0, 0.5, 0.0) == (0.5, 0.5, 0.5)
    finally:
        sys.modules.pop("colorsys", None)


def test_an_imported_module_is_never_replaced() -> None:
    before = sys.modules["json"]
    deferred.defer({"json": {}})
    assert sys.modules["json"] is before


def test_threads_touching_the_placeholder_at_once_load_it_once() -> None:
    placeholder = _fresh_placeholder("colorsys", {})
    sys.modules["colorsys"] = placeholder
    results: List[Any] = []
    try:
        threads = [threading.Thread(target=lambda: results.append(placeholder.rgb_to_hls)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(results) == 8 and len({id(r) for r in results}) == 1
    finally:
        sys.modules.pop("colorsys", None)


# What the console script leaves deferred after a command; test_wheel_install runs it on an installed
# package (a checkout has no compiled check catalogue, and listing the check modules loads inspect).
CONSOLE_RUN = """
import json, sys
from ascend_doctor import launcher
listing = sys.argv[1]
sys.argv = ["ascend-doctor", *sys.argv[2:]]
try:
    launcher.main()
except SystemExit:
    pass
inspect = sys.modules.get("inspect")
state = {"inspect": type(inspect).__name__ if inspect is not None else None,
         "loaded": sorted(m for m in ("ast", "dis", "tokenize", "linecache") if m in sys.modules)}
with open(listing, "w") as fh:
    json.dump(state, fh)
"""


def test_help_through_the_console_script_loads_inspect_and_shows_click_help(tmp_path: Path) -> None:
    listing = tmp_path / "state.json"
    done = subprocess.run([sys.executable, "-c", CONSOLE_RUN, str(listing), "check", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    plain = subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--help"], cwd=tmp_path,
                           capture_output=True, text=True, check=False)
    assert done.returncode == plain.returncode == 0
    assert done.stdout == plain.stdout
