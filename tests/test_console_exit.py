"""The console script (launcher.run: a bare --version answered without click, the collector paused
for the start-up) ends as ``python -m ascend_doctor`` does: the same exit code, every byte written,
temporary folders cleaned up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import List

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# What the installed `ascend-doctor` script does (pyproject.toml [project.scripts]).
_CONSOLE = "import sys; sys.argv[0] = 'ascend-doctor'; from ascend_doctor.launcher import run; sys.exit(run())"


def _console(args: List[str], tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    run_env = {**os.environ, "HOME": str(tmp_path), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-c", _CONSOLE, *args], capture_output=True, env=run_env,
                          cwd=tmp_path, check=False, timeout=120)


def _module(args: List[str], tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    """The same command ended the usual way (``python -m ascend_doctor`` does not use run())."""
    run_env = {**os.environ, "HOME": str(tmp_path), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "ascend_doctor", *args], capture_output=True, env=run_env,
                          cwd=tmp_path, check=False, timeout=120)


@pytest.mark.parametrize("args, code", [
    (["check", "--from", str(FIXTURES / "healthy-8x910B3"), "--format", "json"], 0),
    (["check", "--from", str(FIXTURES / "mixed-driver-stacks"), "--format", "text"], 1),
    (["check", "--from", str(FIXTURES / "healthy-8x910B3"), "--select", "ASC-NOPE"], 2),
    (["check", "--from", "/nonexistent/snapshot"], 3),
    (["--version"], 0),
])
def test_same_code_and_bytes_as_the_usual_end(tmp_path: Path, args: List[str], code: int) -> None:
    fast = _console(args, tmp_path)
    usual = _module(args, tmp_path)
    assert fast.returncode == usual.returncode == code, fast.stderr
    assert _steady(fast.stdout) == _steady(usual.stdout)
    assert fast.stderr.replace(b"python -m ascend_doctor", b"ascend-doctor") == \
        usual.stderr.replace(b"python -m ascend_doctor", b"ascend-doctor")


def _steady(stdout: bytes) -> bytes:
    """The output without the run's clock (a JSON report's start and durations)."""
    if not stdout.startswith(b"{"):
        return stdout
    report = json.loads(stdout)
    report.pop("started_at")
    for item in [report, *report["results"]]:
        item.pop("duration_s")
    return json.dumps(report).encode()


def test_an_unpacked_snapshot_archive_is_removed(tmp_path: Path) -> None:
    """The archive is unpacked into TMPDIR and removed by an exit function, which still runs."""
    archive = tmp_path / "snap.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(FIXTURES / "healthy-8x910B3", arcname="snap")
    done = _console(["check", "--from", str(archive), "--format", "json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["facts"]["driver_version"] == "23.0.7"
    assert list((tmp_path / "tmp").iterdir()) == []
