"""The README's test command is what CI runs (.ci/run), so a contributor who runs the README's
line locally runs exactly the gate: ruff, mypy --strict, the import contracts, the suite."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _readme_test_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Run the tests", 1)[1]
    block = re.search(r"```sh\n(.*?)\n```", section, flags=re.S)
    assert block, "README: no sh block under 'Run the tests'"
    return block.group(1).strip()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = _readme_test_command()
    prefix = "python3 -m venv .venv && . .venv/bin/activate && "
    assert readme.startswith(prefix), readme
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert "python3 -m venv .venv" in lines and ". .venv/bin/activate" in lines
    # the README's command, ended by `|| exit 1` at most (a failing && list does not stop a `set -e` script)
    assert any(line in (readme[len(prefix):], readme[len(prefix):] + " || exit 1") for line in lines), \
        "a line of .ci/run must be the README's command"


def test_ci_runs_the_python39_smoke_job() -> None:
    """Python 3.9 is supported at run time but the gate runs on one newer Python (README)."""
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert ".ci/smoke-py39" in lines
    assert (ROOT / ".ci" / "smoke-py39").stat().st_mode & 0o111, ".ci/smoke-py39 is not executable"


def test_the_gate_includes_every_tool() -> None:
    command = _readme_test_command()
    for tool in ("ruff check .", "mypy", "lint-imports", "python -m pytest"):
        assert tool in command, tool
    assert 'strict = true' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_a_failing_gate_fails_ci_whatever_runs_after_it() -> None:
    """The gate's && list must stop the script itself: `set -e` ignores a failure inside a list, and
    the 3.9 block after it would otherwise decide the exit code (CI green with no test run)."""
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    gate = [line for line in lines if "python -m pytest -q -n auto" in line]
    assert gate and all(line.endswith("|| exit 1") for line in gate)
