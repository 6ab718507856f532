"""Inputs are opened only when they are regular files: FIFOs, devices, sockets and /proc entries
named as inputs are refused (or skipped) with a reason and never read blocking; symlinks leading
out of a model folder or a split matrix are not followed, and no file content is echoed.

Every command that could block runs in a subprocess with a timeout, so a regression fails the
test instead of hanging the suite. Rows refer to ../shared/research/hostile_inputs.md.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from ascend_doctor import safeio
from ascend_doctor.host.base import HostFileError
from ascend_doctor.model.files import LocalFiles, walk_model_dir

REPO = Path(__file__).resolve().parent.parent
HEALTHY = REPO / "fixtures" / "healthy-8x910B3"
MINDIE = REPO / "fixtures" / "mindie-default-config-ok"
MODEL = REPO / "fixtures" / "w8a8-weights-ready" / "files" / "data" / "models" / "DeepSeek-R1-W8A8"
SPLIT_MATRIX = REPO / "compat_matrix"
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
# What /etc/shadow would leak: the test's stand-in secret file outside the folders.
SECRET = "root:$6$SECRETSALT$hashhashhash:19000:0:99999:7:::"


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run(args: List[str], cwd: Path, env: Optional[Dict[str, str]] = None, limit: float = 60.0) -> Ran:
    """ascend-doctor in a subprocess: a blocking read fails the test by timeout, not by hanging."""
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "ascend_doctor", *args], cwd=str(cwd), env=env,
                            capture_output=True, timeout=limit, text=True)
    return Ran(result.returncode, result.stdout, result.stderr, time.monotonic() - start)


def secret_outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "shadow"
    path.parent.mkdir()
    path.write_text(SECRET + "\n" + SECRET.replace("root", "daemon") + "\n")
    return path


# -- the shared helper --------------------------------------------------------------------------------

def test_open_regular_refuses_what_could_block_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(tmp_path / "sock"))
    sock.close()
    start = time.monotonic()
    for path, kind in ((fifo, "FIFO"), (tmp_path / "sock", "socket"), ("/proc/self/status", "/proc")):
        with pytest.raises(safeio.InputRefused) as caught:
            safeio.read_regular(str(path), 1024)
        assert kind in str(caught.value)
    with pytest.raises(IsADirectoryError):
        safeio.read_regular(str(tmp_path), 1024)
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(2 << 30)  # 2 GiB, sparse: refused from its size, nothing read
    with pytest.raises(safeio.InputTooLarge):
        safeio.read_regular(str(big), 1 << 20)
    os.symlink(str(fifo), tmp_path / "link")
    with pytest.raises(safeio.InputRefused):
        safeio.read_regular(str(tmp_path / "link"), 1024)
    with pytest.raises(safeio.InputRefused):
        safeio.read_regular(str(tmp_path / "link"), 1024, follow_symlinks=False)
    assert time.monotonic() - start < 2
    ok = tmp_path / "ok.txt"
    ok.write_text("fine")
    assert safeio.read_regular(str(ok), 10) == b"fine"


@pytest.mark.skipif(not ROOT, reason="making a device node needs root")
def test_open_regular_refuses_a_device_before_opening_it(tmp_path: Path) -> None:
    zero = tmp_path / "zero"
    os.mknod(zero, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    with pytest.raises(safeio.InputRefused) as caught:
        safeio.read_regular(str(zero), 1024)
    assert "character device" in str(caught.value)


# -- --config, --matrix, ASCEND_DOCTOR_MATRIX, matrix update --file -----------------------------------

def test_row_130_config_fifo_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cfg.fifo")
    result = run(["check", "--from", str(MINDIE), "--config", "cfg.fifo", "--select", "ASC-CFG-001", "-v",
                  "--format", "json"], tmp_path, limit=30)
    assert result.seconds < 15
    row = next(r for r in json.loads(result.stdout)["results"] if r["id"] == "ASC-CFG-001")
    assert row["status"] in ("FAIL", "ERROR", "WARN") and "FIFO" in row["message"], row


@pytest.mark.skipif(not ROOT, reason="making a device node needs root")
def test_row_131_config_device_refused_as_a_device(tmp_path: Path) -> None:
    os.mknod(tmp_path / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    result = run(["check", "--from", str(MINDIE), "--config", "zero", "--select", "ASC-CFG-001",
                  "--format", "json"], tmp_path, limit=30)
    row = next(r for r in json.loads(result.stdout)["results"] if r["id"] == "ASC-CFG-001")
    assert "character device" in row["message"], row


def test_config_under_proc_is_refused_live(tmp_path: Path) -> None:
    result = run(["check", "--config", "/proc/self/status", "--select", "ASC-CFG-001", "--format", "json"],
                 tmp_path, limit=60)
    row = next(r for r in json.loads(result.stdout)["results"] if r["id"] == "ASC-CFG-001")
    assert "/proc" in row["message"] and "refused" in row["message"], row


def test_row_171_matrix_update_file_fifo_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f_fifo.yaml")
    env = dict(os.environ, ASCEND_DOCTOR_DATA_DIR=str(tmp_path / "data"))
    result = run(["matrix", "update", "--file", "f_fifo.yaml"], tmp_path, env=env, limit=30)
    assert result.returncode == 2 and "FIFO" in result.stderr, result.stderr
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())


def test_row_200_matrix_env_fifo_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    env = dict(os.environ, ASCEND_DOCTOR_MATRIX=str(tmp_path / "fifo.yaml"))
    result = run(["check", "--from", str(HEALTHY)], tmp_path, env=env, limit=30)
    assert result.returncode == 3 and "FIFO" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    version = run(["--version"], tmp_path, env=env, limit=30)  # reads the matrix version too
    assert version.returncode == 0
    listed = run(["matrix", "--matrix", "fifo.yaml", "validate"], tmp_path, limit=30)
    assert listed.returncode == 1 and "FIFO" in listed.stdout


def test_row_199_split_matrix_symlink_out_refused_and_never_echoed(tmp_path: Path) -> None:
    shadow = secret_outside(tmp_path)
    mm2 = tmp_path / "mm2"
    shutil.copytree(SPLIT_MATRIX, mm2, ignore=shutil.ignore_patterns("__pycache__", "__init__.py"))
    (mm2 / "chips.yaml").unlink()
    os.symlink(shadow, mm2 / "chips.yaml")
    for args in (["matrix", "--matrix", "mm2/matrix.yaml", "validate"], ["matrix", "validate", "mm2/matrix.yaml"],
                 ["check", "--from", str(HEALTHY), "--matrix", "mm2/matrix.yaml"]):
        result = run(args, tmp_path, limit=60)
        output = result.stdout + result.stderr
        assert result.returncode in (1, 3), output
        assert "SECRETSALT" not in output and "daemon" not in output and "root:" not in output
        assert "outside the matrix folder" in output


def test_row_199_unknown_entries_of_a_non_matrix_file_are_not_quoted(tmp_path: Path) -> None:
    not_a_matrix = tmp_path / "m.yaml"
    not_a_matrix.write_text("schema_version: 1\n" + "\n".join(f"{SECRET.replace('root', u)}: x"
                                                               for u in ("root", "daemon", "bin")) + "\n")
    result = run(["matrix", "validate", str(not_a_matrix)], tmp_path)
    assert result.returncode == 1
    assert "SECRETSALT" not in result.stdout and "unknown top-level entry" in result.stdout


# -- model folders ------------------------------------------------------------------------------------

def model_with_links_out(tmp_path: Path) -> Path:
    """The model folder plus links leading out: to a secret file, to a FIFO, to /proc/kmsg and
    /proc/self/mem (row 91's m_link_out). None of them may be read."""
    shadow = secret_outside(tmp_path)
    os.mkfifo(tmp_path / "outside" / "fifo")
    model = tmp_path / "m_link_out"
    shutil.copytree(MODEL, model)
    os.symlink(shadow, model / "shadow.safetensors")
    os.symlink(tmp_path / "outside" / "fifo", model / "fifo.safetensors")
    os.symlink("/proc/kmsg", model / "kmsg.safetensors")
    os.symlink("/proc/self/mem", model / "mem.safetensors")
    return model


def test_row_91_inspect_does_not_follow_links_out_of_the_model_folder(tmp_path: Path) -> None:
    model = model_with_links_out(tmp_path)
    result = run(["model", "inspect", str(model), "--format", "json"], tmp_path, limit=30)
    assert result.seconds < 15
    text = result.stdout + result.stderr
    leaked_length = str(int.from_bytes(SECRET.encode()[:8], "little"))
    assert leaked_length not in text and "SECRETSALT" not in text
    facts = json.loads(result.stdout)
    outside = [p for p in facts["problems"] if "outside the model folder" in p["message"]]
    assert {p["path"] for p in outside} == {"shadow.safetensors", "fifo.safetensors", "kmsg.safetensors",
                                            "mem.safetensors"}


def test_row_91_walk_keeps_hub_cache_links_into_blobs(tmp_path: Path) -> None:
    repo = tmp_path / "hub" / "models--org--name"
    (repo / "blobs").mkdir(parents=True)
    snap = repo / "snapshots" / "abc"
    snap.mkdir(parents=True)
    (repo / "blobs" / "f00d").write_text("{}")
    os.symlink("../../blobs/f00d", snap / "config.json")
    listing = walk_model_dir(LocalFiles(), str(snap))
    assert [e.rel for e in listing.files] == ["config.json"] and not listing.issues
    (tmp_path / "elsewhere.json").write_text("{}")
    os.symlink(str(tmp_path / "elsewhere.json"), snap / "other.json")
    listing = walk_model_dir(LocalFiles(), str(snap))
    assert [i.rel for i in listing.issues] == ["other.json"]


def test_row_97_M24_manifest_with_a_kmsg_link_ends_at_once(tmp_path: Path) -> None:
    m_kmsg = tmp_path / "m_kmsg"
    m_kmsg.mkdir()
    (m_kmsg / "config.json").write_text("{}")
    os.symlink("/proc/kmsg", m_kmsg / "kmsg.safetensors")
    result = run(["model", "manifest", str(m_kmsg), "-o", "kman.json"], tmp_path, limit=30)
    assert result.returncode == 3 and result.seconds < 15
    assert "kmsg.safetensors" in result.stderr and "outside the model folder" in result.stderr
    assert not (tmp_path / "kman.json").exists()


def test_row_236_237_check_and_verify_with_a_kmsg_link_do_not_hang(tmp_path: Path) -> None:
    m_kmsg = tmp_path / "m_kmsg"
    m_kmsg.mkdir()
    (m_kmsg / "config.json").write_text("{}")
    os.symlink("/proc/kmsg", m_kmsg / "kmsg.safetensors")
    kman = tmp_path / "kman.json"
    kman.write_text(json.dumps({"format": "ascend-doctor-manifest", "version": 1, "files": [
        {"path": "kmsg.safetensors", "size": 10, "sha256": "0" * 64},
        {"path": "config.json", "size": 2, "sha256": "0" * 64}]}))
    checked = run(["check", "--model", str(m_kmsg), "--select", "ASC-MDL", "--format", "json"], tmp_path, limit=60)
    assert checked.returncode in (1, 3)
    verified = run(["model", "verify", str(m_kmsg), str(kman)], tmp_path, limit=30)
    assert verified.returncode == 1 and "kmsg.safetensors" in verified.stdout


def test_local_files_never_open_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "config.json")
    start = time.monotonic()
    with pytest.raises(HostFileError) as caught:
        LocalFiles().read_bytes(str(tmp_path / "config.json"))
    assert "FIFO" in caught.value.message and time.monotonic() - start < 2


# -- diagnose ------------------------------------------------------------------------------------------

def test_row_60_diagnose_closed_stdin_is_one_line(tmp_path: Path) -> None:
    result = subprocess.run(["bash", "-c", f"{sys.executable} -m ascend_doctor diagnose - <&-"],
                            capture_output=True, text=True, timeout=30, cwd=str(tmp_path))
    assert result.returncode == 3
    assert result.stderr.strip() == ("ascend-doctor: error: cannot read standard input: it is closed "
                                     "(give a log file, or pipe one in)")


def test_row_64_diagnose_streams_a_pipe_like_grep(tmp_path: Path) -> None:
    """Decision: diagnose reads a FIFO (`diagnose <(docker logs vllm)`), as grep would."""
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "ascend_doctor", "diagnose", str(fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path))
    with open(fifo, "w") as writer:
        writer.write("[ERROR] RUNTIME(1234): EZ9999: Inner Error!\n")
    out, err = proc.communicate(timeout=30)
    assert proc.returncode in (0, 1), err
    assert "lines" in out


def test_diagnose_refuses_devices_and_proc_files(tmp_path: Path) -> None:
    for source, why in (("/dev/null", "character device"), ("/proc/self/status", "/proc")):
        result = run(["diagnose", source], tmp_path, limit=30)
        assert result.returncode == 3 and why in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
