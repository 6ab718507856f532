"""The console script ends its process without the interpreter's teardown (launcher.run,
launcher.end_process), and that changes nothing a user or a script can see: the exit code, every
byte written, the clean-up of temporary folders."""

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


_PROBE = """
import atexit, os, sys, threading, time, weakref
from ascend_doctor.launcher import end_process
marker = sys.argv[1]
class Held:
    pass
held = Held()
weakref.finalize(held, lambda: open(marker + ".finalize", "w").close())
atexit.register(lambda: open(marker + ".atexit", "w").close())
if sys.argv[2] == "thread":
    def late() -> None:
        time.sleep(0.3)
        open(marker + ".thread", "w").close()
    threading.Thread(target=late).start()
sys.stdout.write("unflushed")  # no newline: still in the buffer
end_process(int(sys.argv[3]) if sys.argv[3].lstrip("-").isdigit() else sys.argv[3])
open(marker + ".returned", "w").close()
"""


def test_exit_functions_run_and_output_is_flushed(tmp_path: Path) -> None:
    marker = str(tmp_path / "m")
    done = subprocess.run([sys.executable, "-c", _PROBE, marker, "alone", "5"], capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (5, b"unflushed")
    assert os.path.exists(marker + ".atexit") and os.path.exists(marker + ".finalize")
    assert not os.path.exists(marker + ".returned")  # the process ended in end_process


def test_a_running_thread_or_a_message_code_keeps_pythons_end(tmp_path: Path) -> None:
    marker = str(tmp_path / "t")
    done = subprocess.run([sys.executable, "-c", _PROBE, marker, "thread", "0"], capture_output=True, check=False)
    assert done.returncode == 0 and os.path.exists(marker + ".returned") and os.path.exists(marker + ".thread")
    marker = str(tmp_path / "s")
    done = subprocess.run([sys.executable, "-c", _PROBE, marker, "alone", "why"], capture_output=True, check=False)
    assert done.returncode == 0 and os.path.exists(marker + ".returned")


def test_negative_and_large_codes_wrap_as_the_operating_system_does(tmp_path: Path) -> None:
    marker = str(tmp_path / "n")
    done = subprocess.run([sys.executable, "-c", _PROBE, marker, "alone", "-1"], capture_output=True, check=False)
    assert done.returncode == 255
    done = subprocess.run([sys.executable, "-c", _PROBE, marker, "alone", "258"], capture_output=True, check=False)
    assert done.returncode == 2
