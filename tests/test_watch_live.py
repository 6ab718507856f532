"""`ascend-doctor watch` on this machine through LiveHost, with a stand-in `npu-smi` on PATH
(printing a real capture, or hanging): stale samples, a missing npu-smi, Ctrl-C and SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

SAMPLE = Path(__file__).resolve().parent / "samples" / "npu-smi-info" / \
    "gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt"


def fake_npu_smi(folder: Path, body: str) -> Dict[str, str]:
    """An environment whose PATH starts with a folder holding an `npu-smi` shell script."""
    folder.mkdir(exist_ok=True)
    script = folder / "npu-smi"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{folder}{os.pathsep}/usr/bin{os.pathsep}/bin"
    return env


def run_watch(env: Dict[str, str], *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascend_doctor", "watch", *args], env=env,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def lines(text: str) -> List[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_live_once_reads_npu_smi_through_the_host(tmp_path: Path) -> None:
    env = fake_npu_smi(tmp_path / "bin", f"cat '{SAMPLE}'\n")
    done = run_watch(env, "--once", "--format", "json")
    assert done.returncode == 0, done.stderr
    (sample,) = lines(done.stdout)
    assert sample["status"] == "ok" and [c["npu"] for c in sample["chips"]] == [0, 1]
    assert sample["chips"][0]["processes"][1]["name"] == "VLLMWorker_TP"


def test_a_hung_npu_smi_is_a_stale_sample_within_the_timeout(tmp_path: Path) -> None:
    env = fake_npu_smi(tmp_path / "bin", "exec sleep 60\n")
    started = time.monotonic()
    done = run_watch(env, "--once", "--format", "json", "--timeout", "0.5")
    assert time.monotonic() - started < 15
    (sample, alert) = lines(done.stdout)
    assert sample["stale"] is True and sample["status"] == "timeout"
    assert "did not answer within 0.5 s" in sample["reason"]
    assert alert["kind"] == "sample" and alert["event"] == "raise"
    assert done.returncode == 3  # not one readable sample


def test_no_npu_smi_ends_at_once_with_one_line(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PATH"] = str(tmp_path)  # nothing in it
    done = run_watch(env)
    assert done.returncode == 3
    assert done.stderr.strip().count("\n") == 0 and "nothing to watch here" in done.stderr


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signals_end_the_watch_at_once(tmp_path: Path, signum: int, code: int) -> None:
    env = fake_npu_smi(tmp_path / "bin", f"cat '{SAMPLE}'\n")
    proc = subprocess.Popen([sys.executable, "-m", "ascend_doctor", "watch", "--interval", "60", "--format", "json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the first sample is out: the loop now sleeps 60 s
        assert json.loads(first)["type"] == "sample"
        sent = time.monotonic()
        proc.send_signal(signum)
        proc.wait(timeout=10)
        assert time.monotonic() - sent < 5
        assert proc.returncode == code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def test_ctrl_c_while_npu_smi_hangs_ends_at_once(tmp_path: Path) -> None:
    env = fake_npu_smi(tmp_path / "bin", "exec sleep 60\n")
    proc = subprocess.Popen([sys.executable, "-m", "ascend_doctor", "watch", "--timeout", "30"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        time.sleep(1.0)  # started, and waiting for the hung npu-smi
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
        assert time.monotonic() - sent < 5 and proc.returncode == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
