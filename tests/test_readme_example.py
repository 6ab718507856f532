"""The README's example output is what the tool prints today: a stale example is the first wrong
advice a reader sees (0.1.0's showed a firmware downgrade with a placeholder file name)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ascend_doctor.cli import main

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent


def test_readme_example_is_the_current_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the example runs from the repository root
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ ascend-doctor (check [^\n]*)\n(.*?)\$ echo \$\?\n(\d+)\n```", text, flags=re.S)
    assert block, "README: the example block ($ ascend-doctor check ..., output, $ echo $?) is missing"
    args, shown, code = block.group(1).split(), block.group(2), int(block.group(3))
    result = make_runner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == code
    assert result.stdout == shown, ("README example is stale: regenerate it with the command it shows "
                                    "(from the repository root, output piped)")
