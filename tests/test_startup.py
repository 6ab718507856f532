"""Start-up: the everyday commands stay within their budget and import only what they use.

The budget (issue 23, bench/bench_startup.py BUDGET) is a ratio of CPU time to ``python -c pass``,
measured on an installed wheel with the interpreter running the tests (CI's; run the suite with
3.9 and 3.12 to hold it on both). The other tests keep the structure that makes it short: a JSON
check of a snapshot folder parses no YAML (the shipped data is compiled), renders nothing with
rich, opens no archive and starts no process, and the Python-range shortcut that spares
``packaging.specifiers`` answers what ``SpecifierSet`` answers.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Dict, Optional, Set

import pytest

from ascend_doctor.matrix.schema import PySpecKind, field_specs
from ascend_doctor.matrix.select import load_matrix
from ascend_doctor.matrix.specs import python_in, spec_clauses

from .imports_util import modules_imported_by

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "healthy-8x910B3"

# Modules a JSON check of a snapshot folder must not import, and why it would be a regression.
NOT_ON_THE_JSON_PATH = {
    "yaml": "the shipped matrix, signatures and data files load from compat_matrix/compiled.pickle",
    "rich": "JSON output needs no rich rendering",
    "tarfile": "a snapshot folder is no archive (host/snapshot_archive.py)",
    "subprocess": "a snapshot runs no command (host/live.py, packaging.specifiers on Python 3.9)",
    "concurrent.futures": "only the live host runs commands in parallel",
    "ascend_doctor.host.live": "a snapshot run never needs the live host",
    "packaging.specifiers": "Python ranges of the matrix are compared without it (matrix/specs.py)",
    "ascend_doctor.fixplan": "a ready machine (only PASS and SKIP) has no fix plan to make (report.needs_fix_plan)",
    "ascend_doctor.matrix.engines": "no engine is asked about without an engine installed (Matrix.engine_vs_stack)",
    "ascend_doctor.redaction.identity": "identities are redacted only with --redact (redaction/output.py)",
}

def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_startup", ROOT / "bench" / "bench_startup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Not part of the source (tests/test_wheel_install.py keeps the same list).
NOT_SOURCE = ("build", "dist", ".venv*", ".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
              ".hypothesis", "*.egg-info", "fixtures", "tests", "docs", "deploy", "bench")


def interpreter(version: str) -> Optional[str]:
    """A Python ``version`` ("3.9", "3.12") to measure with: $PYTHON39 / $PYTHON312, else python3.X on
    PATH, else pyenv's. A pyenv shim is on PATH even where it cannot run that version, so each
    candidate is asked its version."""
    major, minor = version.split(".")
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = [os.environ.get(f"PYTHON{major}{minor}", ""), f"python{version}",
                  *sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", "python")))]
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                  capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and done.stdout.strip() == version:
            return candidate
    return None


# Measured with the CPUs to itself: the README's test command runs this test in a step of its own after
# the parallel suite (where it skips), since tests running beside it would be measured with it.
@pytest.mark.slow
@pytest.mark.parametrize("version", ["3.9", "3.12"])
def test_start_up_budget(version: str, tmp_path: Path) -> None:
    """Paired runs against ``python -c pass`` on a wheel installed as a user installs it, on Python 3.9
    and 3.12; a case over its budget is measured once more with more runs (bursts of load)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("measured in the README's sequential step (pytest tests/test_startup.py -k start_up_budget)")
    python = interpreter(version)
    if python is None:
        pytest.skip(f"no Python {version} here (set PYTHON{version.replace('.', '')}=/path/to/python{version})")
    bench = _bench()
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    python, tool = bench.install(python, tmp_path / "venv", source)
    _base, rows = bench.measure(python, tool, runs=7)
    over = [row.name for row in rows if row.budget is not None and row.ratio > row.budget]
    if over:
        _base, rows = bench.measure(python, tool, runs=15, only=over)
    missed = {row.name: f"{row.ratio:.1f}x > {row.budget:g}x" for row in rows
              if row.budget is not None and row.ratio > row.budget}
    assert not missed, f"over the start-up budget (bench/bench_startup.py): {missed}"


def test_a_json_check_of_a_snapshot_folder_imports_only_what_it_needs(tmp_path: Path) -> None:
    modules = modules_imported_by(tmp_path, "check", "--from", str(HEALTHY), "--format", "json")
    assert "ascend_doctor.host.snapshot" in modules and "ascend_doctor.render.json" in modules  # it did run
    found = {name: why for name, why in NOT_ON_THE_JSON_PATH.items() if name in modules}
    assert not found, f"imported on the JSON path of `check --from`: {found}"


def test_version_imports_no_command(tmp_path: Path) -> None:
    modules = modules_imported_by(tmp_path, "--version")
    assert not [m for m in modules if m.startswith(("ascend_doctor.cli.", "ascend_doctor.matrix.model", "yaml"))
                and m not in ("ascend_doctor.cli._localize", "ascend_doctor.cli._runtime")]


def _python_specs() -> Set[str]:
    """Every Python range of the shipped matrix."""
    found: Set[str] = set()
    for rows in load_matrix().sections.values():
        for row in rows:
            for name, spec in field_specs(type(row)).items():
                value = getattr(row, name)
                if isinstance(spec.kind, PySpecKind) and isinstance(value, str):
                    found.add(value)
    return found


EXTRA_SPECS = (">=3.8,<3.12", ">= 3.9 , < 3.13", "==3.10", "!=3.11.2", ">3.9", "<=3.11.4", ">=3,<4",
               "==3.10.*", "~=3.10", ">=3.9rc1", "<3.12.0.post1", "", "3.10")
PYTHONS = [f"3.{minor}" for minor in range(0, 16)] + [f"3.{minor}.{micro}" for minor in range(5, 16)
                                                      for micro in (0, 1, 2, 4, 9, 12)] + ["2.7.18", "4.0"]


@pytest.mark.parametrize("spec", sorted(_python_specs() | set(EXTRA_SPECS)))
def test_python_ranges_answer_as_specifierset_does(spec: str) -> None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    from ascend_doctor.matrix.specs import python_version

    try:
        reference = SpecifierSet(spec)
    except InvalidSpecifier:
        return  # the matrix loader refuses such a range
    for python in PYTHONS:
        version = python_version(python)
        assert version is not None
        assert python_in(spec, python) == reference.contains(version, prereleases=True), (spec, python)
    assert sorted(spec_clauses(spec)) == sorted((s.operator, s.version) for s in reference)


_LAUNCH = """
import json, sys
sys.argv = ["ascend-doctor", *sys.argv[2:]]
from ascend_doctor.launcher import run
try:
    run()
finally:
    with open(LISTING, "w") as fh:
        json.dump(sorted(sys.modules), fh)
"""


@pytest.mark.parametrize("env", [{}, {"ASCEND_DOCTOR_MATRIX": "/nonexistent/matrix.yaml"}, {"LANG": "zh_CN.UTF-8"}])
def test_version_from_the_console_script_is_the_commands_line(tmp_path: Path, env: Dict[str, str]) -> None:
    """`ascend-doctor --version` alone is answered without click, with the line click prints."""

    base = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    run_env = {**base, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), **env}
    listing = tmp_path / "modules.json"
    fast = subprocess.run([sys.executable, "-c", _LAUNCH.replace("LISTING", repr(str(listing))), "-", "--version"],
                          capture_output=True, text=True, env=run_env, cwd=tmp_path, check=False)
    slow = subprocess.run([sys.executable, "-m", "ascend_doctor", "--version"], capture_output=True, text=True,
                          env=run_env, cwd=tmp_path, check=False)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr) == \
        (0, slow.stdout, "")
    assert slow.stdout.startswith("ascend-doctor ")
    english = "LANG" not in env
    assert ("click" in json.loads(listing.read_text(encoding="utf-8"))) is not english


_COLLECTOR = """
import gc, json, sys
sys.argv = ["ascend-doctor", *sys.argv[2:]]
from ascend_doctor import collector, launcher
seen = []
resume = collector.resume
def resume_and_record():
    seen.append(gc.isenabled())  # paused during the start-up
    resume()
collector.resume = resume_and_record
finish = collector.finish
left = []
def finish_and_record():
    finish()
    left.append(gc.get_count()[0])  # nothing made since the freeze but this list's append
collector.finish = finish_and_record
try:
    launcher.run()
finally:
    with open(LISTING, "w") as fh:
        json.dump({"during": seen, "after": gc.isenabled(), "frozen": gc.get_freeze_count(),
                   "threshold": gc.get_threshold()[0], "left": left}, fh)
"""


def test_the_collector_is_paused_for_the_start_up_only(tmp_path: Path) -> None:
    """The console script pauses the cyclic garbage collector while the tool starts and resumes it
    (start-up objects frozen, collections less frequent) before the command runs; the CLI called
    in a process of its own (tests, python -m) leaves the collector alone."""
    from ascend_doctor import collector
    from ascend_doctor.cli import main

    from .clirunner import make_runner

    state = tmp_path / "gc.json"
    done = subprocess.run([sys.executable, "-c", _COLLECTOR.replace("LISTING", repr(str(state))), "-", "checks"],
                          capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.returncode in (0, 3), done.stderr
    found = json.loads(state.read_text(encoding="utf-8"))
    assert found["during"] == [False] and found["after"] is True and found["frozen"] > 1000
    assert found["threshold"] == collector.RUN_THRESHOLD
    assert found["left"] == [0]  # finish(): what the command left alive is set aside before the exit
    import gc

    frozen, threshold = gc.get_freeze_count(), gc.get_threshold()
    make_runner().invoke(main, ["checks"])
    assert gc.isenabled() and gc.get_freeze_count() == frozen and gc.get_threshold() == threshold
