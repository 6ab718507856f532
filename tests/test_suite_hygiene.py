"""The suite leaves nothing in the checkout and runs in parallel (issue 23, item 6): hypothesis keeps its
caches in a temporary folder of each process, pytest writes no cache, and CI runs it with pytest-xdist."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_hypothesis_writes_nowhere_in_the_checkout() -> None:
    from hypothesis.configuration import storage_directory

    directory = storage_directory("constants")
    # Newer hypothesis returns a record with .path; 6.141 (the last release for Python 3.9) the path itself.
    where = Path(getattr(directory, "path", directory)).resolve()
    assert ROOT not in where.parents, where
    assert Path(tempfile.gettempdir()).resolve() in where.parents, where


def test_pytest_keeps_no_cache_and_ci_runs_on_every_cpu() -> None:
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "-p no:cacheprovider" in config and '"pytest-xdist' in config
    assert "python -m pytest -q -n auto" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_installed_plugins_are_off_in_the_suite() -> None:
    assert os.environ.get("ASCEND_DOCTOR_DISABLE_PLUGINS") == "1"
