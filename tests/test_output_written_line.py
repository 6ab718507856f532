"""Every `-o FILE` says on stderr, in one line, what it wrote (standard output stays empty)."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

from ascend_doctor.cli import main

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = str(ROOT / "fixtures" / "healthy-8x910B3")

COMMANDS = [
    ["check", "--from", HEALTHY, "--format", "json"],
    ["check", "--from", HEALTHY, "--format", "html"],
    ["check", "--from", HEALTHY],
    ["explain", "ASC-DRV-001"],
    ["plan", "--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B3", "--cards", "16"],
    ["matrix", "lookup", "--cann", "8.0.0"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a[:2]) + (" " + a[-1] if a[-2] == "--format" else "")
                                                for a in COMMANDS])
def test_o_says_what_it_wrote(tmp_path: Path, args: List[str]) -> None:
    out = tmp_path / "out.txt"
    result = make_runner().invoke(main, [*args, "-o", str(out)])
    assert result.exit_code in (0, 1), result.output
    assert out.is_file() and out.stat().st_size > 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines == [f"wrote {out} ({out.stat().st_size} bytes)"]
