"""Ctrl-C (SIGINT) and SIGTERM end a run within a second whatever is running: a hung npu-smi,
hashing weights, a dripping download. Children die with their process group, nothing partial is
written, and the exit code is 130 (SIGINT) or 143 (SIGTERM).

Each test starts ``ascend-doctor`` in its own session, waits until the slow part is under way,
and signals the whole process group, as a terminal does on Ctrl-C. A fake ``npu-smi`` that
sleeps is put first on PATH. Rows refer to ../shared/research/hostile_inputs.md.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from ascend_doctor.exitcodes import ExitCode

BOUND_S = 3.0  # the brief: exit within a second; the assertion leaves room for a loaded CI box


def fake_npu_smi(tmp_path: Path) -> Tuple[Path, Path]:
    """A folder holding an `npu-smi` that records its pid and sleeps, and the pid file."""
    folder = tmp_path / "fake-sleep"
    folder.mkdir()
    pids = tmp_path / "npu-smi.pids"
    script = folder / "npu-smi"
    script.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 300\n")
    script.chmod(0o755)
    return folder, pids


def wait_for(condition: Callable[[], bool], limit: float = 20.0) -> None:
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, "the slow part never started"
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie waiting for a reaper is dead


def interrupt(args: List[str], cwd: Path, started: Callable[[], bool], signum: int = signal.SIGINT,
              env: Optional[Dict[str, str]] = None) -> Tuple[int, float, str]:
    """Run ascend-doctor, signal its process group once ``started()``; (rc, seconds to exit, stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "ascend_doctor", *args], cwd=str(cwd), env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: started() or proc.poll() is not None)
        assert proc.poll() is None, "ascend-doctor ended before it could be interrupted"
        time.sleep(0.3)
        sent = time.monotonic()
        os.killpg(proc.pid, signum)
        _, err = proc.communicate(timeout=30)
        return proc.returncode, time.monotonic() - sent, err.decode()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def with_fake_path(folder: Path) -> Dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{folder}{os.pathsep}{env.get('PATH', '')}"
    return env


def npu_smi_pids(pids: Path) -> List[int]:
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, ExitCode.INTERRUPTED), (signal.SIGTERM, ExitCode.TERMINATED)])
def test_row_188_189_signal_during_a_hung_npu_smi(tmp_path: Path, signum: int, code: int) -> None:
    folder, pids = fake_npu_smi(tmp_path)
    rc, seconds, err = interrupt(["check", "--timeout", "45", "--format", "json", "-o", "report.json"], tmp_path,
                                 lambda: bool(npu_smi_pids(pids)), signum, with_fake_path(folder))
    assert rc == code, err
    assert seconds < BOUND_S, seconds
    assert "Traceback" not in err and "Aborted" not in err and "nothing was written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-sleep", "npu-smi.pids"]  # no report, no temp
    wait_for(lambda: not any(alive(pid) for pid in npu_smi_pids(pids)), 5.0)  # killed with its group


def test_row_193_ctrl_c_during_snapshot_into_a_folder_leaves_nothing(tmp_path: Path) -> None:
    folder, pids = fake_npu_smi(tmp_path)
    rc, seconds, err = interrupt(["snapshot", "--timeout", "20", "-o", "snapdir/"], tmp_path,
                                 lambda: bool(npu_smi_pids(pids)), env=with_fake_path(folder))
    assert rc == ExitCode.INTERRUPTED and seconds < BOUND_S, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-sleep", "npu-smi.pids"]  # no snapdir, no staging
    wait_for(lambda: not any(alive(pid) for pid in npu_smi_pids(pids)), 5.0)


def test_row_194_ctrl_c_during_snapshot_archive_leaves_nothing(tmp_path: Path) -> None:
    folder, pids = fake_npu_smi(tmp_path)
    (tmp_path / "snap.tar.gz").write_text("the previous snapshot")
    rc, seconds, err = interrupt(["snapshot", "--timeout", "20", "-o", "snap.tar.gz"], tmp_path,
                                 lambda: bool(npu_smi_pids(pids)), signal.SIGTERM, with_fake_path(folder))
    assert rc == ExitCode.TERMINATED and seconds < BOUND_S, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-sleep", "npu-smi.pids", "snap.tar.gz"]
    assert (tmp_path / "snap.tar.gz").read_text() == "the previous snapshot"


@pytest.fixture()
def big_model(tmp_path: Path) -> Path:
    """Sparse shards: 24 GiB to hash (minutes), zero bytes on disk."""
    model = tmp_path / "big"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "deepseek_v3"}')
    for n in range(1, 4):
        with open(model / f"model-0000{n}-of-00003.safetensors", "wb") as fh:
            fh.truncate(8 << 30)
    return model


def _hashing_started(pid_holder: List[int]) -> Callable[[], bool]:
    def started() -> bool:
        return bool(pid_holder) and _cpu_seconds(pid_holder[0]) > 0.5
    return started


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, ExitCode.INTERRUPTED), (signal.SIGTERM, ExitCode.TERMINATED)])
def test_row_190_191_signal_during_model_manifest(tmp_path: Path, big_model: Path, signum: int, code: int) -> None:
    rc, seconds, err = _interrupt_hashing(["model", "manifest", str(big_model), "-o", "manifest.json"], tmp_path,
                                          signum)
    assert rc == code and seconds < BOUND_S, (rc, seconds, err)
    assert not (tmp_path / "manifest.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big"]


def test_row_192_ctrl_c_during_model_verify_is_not_differences(tmp_path: Path, big_model: Path) -> None:
    manifest = tmp_path / "bigman.json"
    rows = [{"path": p.name, "size": p.stat().st_size, "sha256": "0" * 64} for p in sorted(big_model.iterdir())]
    import json

    manifest.write_text(json.dumps({"format": "ascend-doctor-manifest", "version": 1, "files": rows}))
    rc, seconds, err = _interrupt_hashing(["model", "verify", str(big_model), str(manifest), "-o", "verify.txt"],
                                          tmp_path, signal.SIGINT)
    assert rc == ExitCode.INTERRUPTED and seconds < BOUND_S, (rc, seconds, err)  # not 1, "differences found"
    assert not (tmp_path / "verify.txt").exists()


def _interrupt_hashing(args: List[str], cwd: Path, signum: int) -> Tuple[int, float, str]:
    proc = subprocess.Popen([sys.executable, "-m", "ascend_doctor", *args, "-j", "2"], cwd=str(cwd),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: _cpu_seconds(proc.pid) > 1.0 or proc.poll() is not None)
        assert proc.poll() is None
        sent = time.monotonic()
        os.killpg(proc.pid, signum)
        _, err = proc.communicate(timeout=30)
        return proc.returncode, time.monotonic() - sent, err.decode()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# -- a download that drips one byte at a time -------------------------------------------------------

@pytest.fixture()
def dripping_server() -> Iterator[Tuple[str, List[bool]]]:
    """HTTP on 127.0.0.1 that sends headers, then one chunk of one byte every 0.2 s, forever."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    stop = threading.Event()
    connected: List[bool] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            connected.append(True)
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
                while not stop.is_set():
                    conn.sendall(b"1\r\n#\r\n")
                    time.sleep(0.2)
            except OSError:
                pass
            finally:
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/drip", connected
    stop.set()
    thread.join(5)
    listener.close()


def test_row_207_ctrl_c_during_matrix_update_exits_130_and_keeps_the_matrix(
        tmp_path: Path, dripping_server: Tuple[str, List[bool]]) -> None:
    url, connected = dripping_server
    data_dir = tmp_path / "data"
    env = dict(os.environ, ASCEND_DOCTOR_DATA_DIR=str(data_dir))
    rc, seconds, err = interrupt(["matrix", "update", "--url", url, "--timeout", "5"], tmp_path,
                                 lambda: bool(connected), env=env)
    assert rc == ExitCode.INTERRUPTED and seconds < BOUND_S, err
    assert not data_dir.exists() or not any(data_dir.iterdir())
