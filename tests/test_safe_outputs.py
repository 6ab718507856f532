"""`-o` as root: only a new file or a regular file is written, atomically; devices, FIFOs, sockets,
folders and the command's own inputs are refused; a closed stdout pipe is not an error.

Rows refer to ../shared/research/hostile_inputs.md (§3a numbers, §3b M-ids). Device nodes are
made with ``os.mknod`` in the test's temporary folder (root only) — never the real /dev.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Callable, Dict, List, Optional

import pytest

from ascend_doctor import safeio
from ascend_doctor.cli import main

from .clirunner import make_runner

REPO = Path(__file__).resolve().parent.parent
HEALTHY = REPO / "fixtures" / "healthy-8x910B3"
MODEL = REPO / "fixtures" / "w8a8-weights-ready" / "files" / "data" / "models" / "DeepSeek-R1-W8A8"
LOG_SAMPLES = REPO / "tests" / "samples" / "dmesg-and-logs"
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="making a device node needs root")


def invoke(*args: str, env: Optional[Dict[str, str]] = None):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False, env=env)


def run(args: List[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:  # type: ignore[no-untyped-def]
    return subprocess.run([sys.executable, "-m", "ascend_doctor", *args], cwd=str(cwd), capture_output=True,
                          timeout=120, **kwargs)


def a_log(tmp_path: Path) -> Path:
    """A small log with a known signature (a copy of a sample, source header kept)."""
    sample = sorted(p for p in LOG_SAMPLES.iterdir() if p.is_file())[0]
    log = tmp_path / "victim.log"
    shutil.copyfile(sample, log)
    return log


def a_model(tmp_path: Path) -> Path:
    model = tmp_path / "mdl"
    shutil.copytree(MODEL, model)
    return model


def a_snapshot_archive(tmp_path: Path) -> Path:
    archive = tmp_path / "mysnap.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(HEALTHY, arcname="mysnap")
    return archive


def only_names(folder: Path) -> List[str]:
    return sorted(p.name for p in folder.iterdir())


def one_error_line(result) -> str:  # type: ignore[no-untyped-def]
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ascend-doctor: error:")]
    assert len(errors) == 1, result.output
    assert "Traceback" not in result.output and "[Errno" not in result.output
    return errors[0]


# -- every command's -o refuses what is not a regular file -----------------------------------------

def _commands(tmp_path: Path) -> Dict[str, Callable[[str], List[str]]]:
    log = a_log(tmp_path)
    model = a_model(tmp_path)
    manifest = tmp_path / "man.json"
    assert invoke("model", "manifest", str(model), "-o", str(manifest)).exit_code == 0
    return {
        "check": lambda o: ["check", "--from", str(HEALTHY), "--format", "json", "-o", o],
        "diagnose": lambda o: ["diagnose", str(log), "-o", o],
        "model inspect": lambda o: ["model", "inspect", str(model), "-o", o],
        "model manifest": lambda o: ["model", "manifest", str(model), "-o", o],
        "model verify": lambda o: ["model", "verify", str(model), str(manifest), "-o", o],
        "matrix show": lambda o: ["matrix", "show", "-o", o],
        "plan": lambda o: ["plan", "--model", "DeepSeek-R1", "--chip", "910B3", "-o", o],
        "checks": lambda o: ["checks", "-o", o],
        "snapshot": lambda o: ["snapshot", "-o", o],
    }


def _targets(folder: Path) -> Dict[str, Path]:
    folder.mkdir()
    fifo = folder / "fifo"
    os.mkfifo(fifo)
    sock_path = folder / "sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(sock_path))
    sock.close()
    (folder / "dir").mkdir()
    os.symlink("fifo", folder / "link-to-fifo")
    targets = {"fifo": fifo, "socket": sock_path, "directory": folder / "dir",
               "symlink to a FIFO": folder / "link-to-fifo"}
    if ROOT:
        os.mknod(folder / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.symlink("null", folder / "link-to-null")
        targets["character device"] = folder / "null"
        targets["symlink to a character device"] = folder / "link-to-null"
    return targets


def _kind(path: Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode)


def test_row_M5_M9_179_every_o_refuses_devices_fifos_sockets_and_folders(tmp_path: Path) -> None:
    commands = _commands(tmp_path)
    targets = _targets(tmp_path / "targets")
    before = {name: (_kind(path), os.lstat(path).st_ino) for name, path in targets.items()}
    for command, args in commands.items():
        for what, target in targets.items():
            result = invoke(*args(str(target)))
            assert result.exit_code == 2, (command, what, result.output)
            line = one_error_line(result)
            assert str(target) in line, line
            # still exactly what it was: never replaced by a regular file
            assert (_kind(target), os.lstat(target).st_ino) == before[what], (command, what)
    # no temporary file was left next to any target
    assert only_names(tmp_path / "targets") == sorted(p.name for p in targets.values())


@needs_root
def test_row_M5_dev_null_as_root_stays_a_device(tmp_path: Path) -> None:
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    result = invoke("check", "--from", str(HEALTHY), "--format", "json", "-o", str(null))
    assert result.exit_code == 2
    assert "is a character device" in one_error_line(result)
    st = os.lstat(null)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert only_names(tmp_path) == ["null"]


def test_row_M6_M10_dash_and_dev_stdout_mean_standard_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """`-o /dev/stdout` (also as non-root) goes to standard output: the path itself is never
    opened or replaced (atomic_output would; it must not even be called)."""
    def forbidden(*_a, **_k):  # type: ignore[no-untyped-def]
        raise AssertionError("-o /dev/stdout must not write through the file system")

    monkeypatch.setattr(safeio, "atomic_output", forbidden)
    for name in ("-", "/dev/stdout"):
        result = invoke("check", "--from", str(HEALTHY), "--format", "json", "-o", name)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["exit_code"] == 0


def test_row_M7_dev_stderr_means_standard_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safeio, "atomic_output", None)  # never called for /dev/stderr
    result = invoke("diagnose", str(a_log(tmp_path)), "-o", "/dev/stderr")
    assert result.stdout == ""
    assert "Diagnosis" in result.stderr or "No known" in result.stderr


# -- an output that is one of the inputs -----------------------------------------------------------

def test_row_66_diagnose_output_over_its_log_refused(tmp_path: Path) -> None:
    log = a_log(tmp_path)
    before = log.read_bytes()
    result = invoke("diagnose", str(log), "-o", str(log))
    assert result.exit_code == 2 and "is the input" in one_error_line(result)
    assert log.read_bytes() == before


def test_row_185_check_output_over_snapshot_refused(tmp_path: Path) -> None:
    archive = a_snapshot_archive(tmp_path)
    before = archive.read_bytes()
    result = invoke("check", "--from", str(archive), "--format", "json", "-o", str(archive))
    assert result.exit_code == 2 and "is the input" in one_error_line(result)
    assert archive.read_bytes() == before
    # through another name for the same file (a hard link) too
    os.link(archive, tmp_path / "alias.tar.gz")
    assert invoke("check", "--from", str(archive), "-o", str(tmp_path / "alias.tar.gz")).exit_code == 2
    # and into a snapshot folder's own files
    snapdir = tmp_path / "snapdir"
    shutil.copytree(HEALTHY, snapdir)
    result = invoke("check", "--from", str(snapdir), "-o", str(snapdir / "host.json"))
    assert result.exit_code == 2 and "inside the input folder" in one_error_line(result)
    assert invoke("check", "--from", str(snapdir), "-o", str(snapdir / "new-report.txt")).exit_code == 2


def test_row_186_verify_output_over_manifest_refused(tmp_path: Path) -> None:
    model = a_model(tmp_path)
    manifest = tmp_path / "man.json"
    assert invoke("model", "manifest", str(model), "-o", str(manifest)).exit_code == 0
    before = manifest.read_bytes()
    result = invoke("model", "verify", str(model), str(manifest), "-o", str(manifest))
    assert result.exit_code == 2 and "is the input" in one_error_line(result)
    assert manifest.read_bytes() == before
    assert invoke("model", "verify", str(model), str(manifest)).exit_code == 0


def test_outputs_over_inputs_of_other_commands_refused(tmp_path: Path) -> None:
    model = a_model(tmp_path)
    config = model / "config.json"
    before = config.read_bytes()
    assert invoke("model", "inspect", str(model), "-o", str(config)).exit_code == 2
    assert invoke("check", "--from", str(HEALTHY), "--config", str(config), "-o", str(config)).exit_code == 2
    assert invoke("plan", "--model", str(config), "--chip", "910B3", "-o", str(config)).exit_code == 2
    assert invoke("model", "manifest", str(model), "-o", str(config)).exit_code == 2  # a model file, no manifest
    assert config.read_bytes() == before


# -- atomic writes ----------------------------------------------------------------------------------

def test_a_failed_write_leaves_no_partial_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("the previous report\n")

    with pytest.raises(OSError), safeio.atomic_output(str(target)) as fh:
        fh.write(b"half of the new")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert target.read_text() == "the previous report\n"
    assert only_names(tmp_path) == ["report.json"]

    with pytest.raises(KeyboardInterrupt), safeio.atomic_output(str(tmp_path / "new.json")) as fh:
        fh.write(b"partial")
        raise KeyboardInterrupt
    assert only_names(tmp_path) == ["report.json"]


def test_a_write_into_a_vanished_folder_is_one_line(tmp_path: Path) -> None:
    result = invoke("check", "--from", str(HEALTHY), "-o", str(tmp_path / "no" / "such" / "r.json"))
    assert result.exit_code == 2 and "does not exist" in one_error_line(result)


def test_overwrite_keeps_mode_and_writes_completely(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    assert invoke("check", "--from", str(HEALTHY), "--format", "json", "-o", str(target)).exit_code == 0
    assert json.loads(target.read_text())["exit_code"] == 0
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert only_names(tmp_path) == ["r.json"]


def test_row_184_symlink_is_never_written_through(tmp_path: Path) -> None:
    """Was: a link to a regular file was followed. The second review (hostile_inputs_2.md, defect 8)
    showed the danger of that for root writing into shared folders: any link is now refused."""
    real = tmp_path / "target_via_link.json"
    real.write_text("old")
    os.symlink(real.name, tmp_path / "link.json")
    result = invoke("check", "--from", str(HEALTHY), "--format", "json", "-o", str(tmp_path / "link.json"))
    assert result.exit_code == 2 and "symbolic link" in one_error_line(result)
    assert os.path.islink(tmp_path / "link.json") and real.read_text() == "old"
    os.symlink("missing.json", tmp_path / "dangling.json")
    result = invoke("check", "--from", str(HEALTHY), "-o", str(tmp_path / "dangling.json"))
    assert result.exit_code == 2 and "symbolic link" in one_error_line(result)
    assert not (tmp_path / "missing.json").exists()


# -- snapshot -o ----------------------------------------------------------------------------------

def test_row_174_snapshot_over_an_existing_archive_is_atomic_and_names_itself(tmp_path: Path) -> None:
    existing = tmp_path / "existing.tar.gz"
    existing.write_text("an older snapshot")
    result = run(["snapshot", "--timeout", "2", "-o", "existing.tar.gz"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert only_names(tmp_path) == ["existing.tar.gz"]  # no temporary file left
    with gzip.open(existing) as fh:
        fh.read(1)
    header = existing.read_bytes()[:64]
    assert b"existing.tar\x00" in header and b".tmp" not in header  # the gzip header's file name
    with tarfile.open(existing) as tar:
        assert "existing/snapshot.json" in tar.getnames()
    help_text = invoke("snapshot", "--help").stdout
    assert "replaced" in help_text and "atomically" in help_text  # the overwrite rule is documented


def test_snapshot_to_standard_output(tmp_path: Path) -> None:
    result = run(["snapshot", "--timeout", "2", "-o", "-"], tmp_path)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "s.tar.gz"
    out.write_bytes(result.stdout)
    with tarfile.open(out) as tar:
        assert "ascend-snapshot/snapshot.json" in tar.getnames()
    assert only_names(tmp_path) == ["s.tar.gz"]


def test_row_182_snapshot_into_a_plain_file_as_folder_says_so_in_words(tmp_path: Path) -> None:
    (tmp_path / "plainfile").write_text("keep me")
    result = invoke("snapshot", "-o", str(tmp_path / "plainfile") + "/")
    assert result.exit_code == 2
    assert "exists and is not a folder" in one_error_line(result)
    assert (tmp_path / "plainfile").read_text() == "keep me"


def test_row_176_snapshot_into_a_non_empty_folder_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "notes.txt").write_text("mine")
    result = invoke("snapshot", "-o", str(victim) + "/")
    assert result.exit_code == 2 and "not empty" in one_error_line(result)
    assert only_names(victim) == ["notes.txt"]


def test_snapshot_into_an_empty_folder_leaves_no_staging_folder(tmp_path: Path) -> None:
    (tmp_path / "snapdir").mkdir()
    result = run(["snapshot", "--timeout", "2", "-o", "snapdir/"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert only_names(tmp_path) == ["snapdir"]
    assert (tmp_path / "snapdir" / "snapshot.json").is_file()


# -- closed pipes ---------------------------------------------------------------------------------

def _into_closed_pipe(args: List[str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.Popen([sys.executable, "-m", "ascend_doctor", *args], cwd=str(cwd),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # `| true`: the reader is gone before anything is written
    err = proc.stderr.read()
    rc = proc.wait(timeout=120)
    return subprocess.CompletedProcess(args, rc, b"", err)


@pytest.mark.parametrize("row, args", [
    ("M11", ["check", "--from", str(HEALTHY)]),
    ("M12", ["check", "--from", str(HEALTHY), "--format", "json"]),
    ("M13", ["matrix", "show", "all"]),
    ("M13-lookup", ["matrix", "lookup", "--cann", "8.0.0", "--format", "json"]),
    ("M14", ["plan", "--model", "DeepSeek-R1", "--chip", "910B3"]),
    ("M15", ["diagnose", "LOG"]),
    ("M16", ["model", "inspect", str(MODEL)]),
])
def test_row_M11_M16_closed_pipe_ends_quietly_with_the_result_code(row: str, args: List[str], tmp_path: Path) -> None:
    args = [str(a_log(tmp_path)) if a == "LOG" else a for a in args]
    expected = invoke(*args, "-o", str(tmp_path / "out")).exit_code  # the result's own code
    piped = _into_closed_pipe(args, tmp_path)
    stderr = piped.stderr.decode()
    assert piped.returncode == expected, (row, piped.returncode, expected, stderr)
    assert "BrokenPipe" not in stderr and "internal error" not in stderr and "Exception ignored" not in stderr
    assert "Traceback" not in stderr and "Aborted" not in stderr


def test_row_M11_text_into_head_keeps_exit_code(tmp_path: Path) -> None:
    shell = f"{sys.executable} -m ascend_doctor check --from {HEALTHY} | head -1 >/dev/null; echo ${{PIPESTATUS[0]}}"
    result = subprocess.run(["bash", "-c", shell], capture_output=True, timeout=120, cwd=str(tmp_path))
    assert result.stdout.decode().strip() == "0", result.stderr
    assert b"Exception ignored" not in result.stderr and b"BrokenPipe" not in result.stderr
