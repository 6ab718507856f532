"""LiveHost against real commands and files of this machine (no NPU needed)."""

from __future__ import annotations

import ast
import json
import os
import socket
import stat
import sys
import time
from pathlib import Path

import psutil
import pytest

from ascend_doctor.host import pyprobe
from ascend_doctor.host.base import CommandStatus, FileMissing, FilePermissionDenied, FileTooLarge
from ascend_doctor.host.factory import close_host, make_host, open_host
from ascend_doctor.host.live import LiveHost, classify_exit, parse_os_release

SH = "/bin/sh"


@pytest.fixture()
def host() -> LiveHost:
    return LiveHost(timeout_s=5.0)


# -- run --------------------------------------------------------------------------------------


def test_true_is_ok(host: LiveHost) -> None:
    result = host.run(["true"])
    assert result.ok
    assert result.status is CommandStatus.OK
    assert result.returncode == 0
    assert result.timeout_s == 5.0


def test_stdout_stderr_and_exit_status(host: LiveHost) -> None:
    result = host.run([SH, "-c", "echo out; echo err >&2; exit 3"])
    assert result.status is CommandStatus.OK
    assert not result.ok
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert "exited with status 3: err" in result.describe_failure()


def test_output_is_decoded_with_replacement(host: LiveHost) -> None:
    result = host.run([SH, "-c", r"printf 'a\377b'"])
    assert result.stdout == "a\ufffdb"


def test_child_runs_in_c_locale(host: LiveHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    result = host.run([SH, "-c", 'echo "$LC_ALL $LANG"'])
    assert result.stdout.strip() == "C C"


def test_timeout_kills_fast() -> None:
    host = LiveHost(timeout_s=0.5)
    started = time.monotonic()
    result = host.run([SH, "-c", "sleep 30"])
    elapsed = time.monotonic() - started
    assert result.status is CommandStatus.TIMEOUT
    assert result.timeout_s == 0.5
    assert result.returncode is None
    assert 0.4 <= result.duration_s < 3
    assert elapsed < 3
    assert "did not answer within 0.5 s" in result.describe_failure()


def test_per_call_timeout_overrides_default(host: LiveHost) -> None:
    result = host.run([SH, "-c", "sleep 30"], timeout=0.3)
    assert result.status is CommandStatus.TIMEOUT
    assert result.timeout_s == 0.3


def test_timeout_kills_the_whole_process_group() -> None:
    host = LiveHost(timeout_s=0.5)
    result = host.run([SH, "-c", "sleep 30 & echo $!; wait"])
    assert result.status is CommandStatus.TIMEOUT
    grandchild = int(result.stdout.split()[0])
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            if psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the grandchild survived the timeout")


def test_grandchild_holding_stdout_does_not_block() -> None:
    # sh exits at once; `sleep` inherits stdout and would keep the pipe open for 30 s.
    host = LiveHost(timeout_s=2.0)
    started = time.monotonic()
    result = host.run([SH, "-c", "sleep 30 & echo started"])
    assert time.monotonic() - started < 2.5
    assert result.status is CommandStatus.OK
    assert result.returncode == 0
    assert result.stdout == "started\n"


def test_grandchild_in_its_own_session_still_returns() -> None:
    # setsid escapes our process-group kill: we must still stop waiting on the pipe.
    host = LiveHost(timeout_s=1.0)
    started = time.monotonic()
    result = host.run([sys.executable, "-c",
                       "import os, time\n"
                       "if os.fork() == 0:\n"
                       "    os.setsid(); time.sleep(5); os._exit(0)\n"
                       "print('parent done', flush=True)\n"])
    assert time.monotonic() - started < 2.0
    assert result.status is CommandStatus.OK
    assert result.stdout == "parent done\n"


def test_missing_binary(host: LiveHost) -> None:
    result = host.run(["ascend-doctor-no-such-binary-xyz", "info"])
    assert result.status is CommandStatus.NOT_FOUND
    assert "command not found" in result.describe_failure()


def test_non_executable_file_is_permission_denied(host: LiveHost, tmp_path: Path) -> None:
    script = tmp_path / "npu-smi"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    result = host.run([str(script), "info"])
    assert result.status is CommandStatus.PERMISSION_DENIED


def test_garbage_binary_is_error(host: LiveHost, tmp_path: Path) -> None:
    binary = tmp_path / "npu-smi"
    binary.write_bytes(b"\x7fELF\x00garbage")
    binary.chmod(0o755)
    result = host.run([str(binary)])
    assert result.status is CommandStatus.ERROR
    assert "could not be run" in result.describe_failure()


def test_denial_in_stderr_is_permission_denied(host: LiveHost) -> None:
    # What `dmesg` prints as non-root (util-linux).
    result = host.run([SH, "-c", "echo 'dmesg: read kernel buffer failed: Operation not permitted' >&2; exit 1"])
    assert result.status is CommandStatus.PERMISSION_DENIED
    assert result.returncode == 1
    assert "Operation not permitted" in result.stderr
    assert "Operation not permitted" in result.detail


def test_empty_argv_is_error(host: LiveHost) -> None:
    assert host.run([]).status is CommandStatus.ERROR


def test_output_is_bounded() -> None:
    host = LiveHost(timeout_s=5.0, max_output_bytes=1000)
    result = host.run([SH, "-c", "head -c 200000 /dev/zero | tr '\\0' x"])
    assert result.ok
    assert len(result.stdout) == 1000
    assert "stdout truncated" in result.detail


@pytest.mark.parametrize(
    ("rc", "stderr", "status"),
    [
        (0, "", CommandStatus.OK),
        (1, "some failure", CommandStatus.OK),
        (127, "sh: 1: npu-smi: not found", CommandStatus.NOT_FOUND),
        (127, "npu-smi: error while loading shared libraries: libdrvdsmi_host.so: cannot open "
              "shared object file: No such file or directory", CommandStatus.OK),
        (126, "sh: 1: ./npu-smi: Permission denied", CommandStatus.PERMISSION_DENIED),
        (126, "cannot execute binary file: Exec format error", CommandStatus.ERROR),
        (1, "dmesg: read kernel buffer failed: Operation not permitted", CommandStatus.PERMISSION_DENIED),
        (0, "warning: Permission denied on a side file", CommandStatus.OK),
    ],
)
def test_classify_exit(rc: int, stderr: str, status: CommandStatus) -> None:
    assert classify_exit(rc, stderr)[0] is status


def test_run_many_is_concurrent_and_ordered(host: LiveHost) -> None:
    one = host.run(["sleep", "0.5"])
    assert one.ok
    started = time.monotonic()
    results = host.run_many([[SH, "-c", f"sleep 0.5; echo {i}"] for i in range(3)])
    elapsed = time.monotonic() - started
    assert [r.stdout.strip() for r in results] == ["0", "1", "2"]
    # Serial would take about 3x a single run; concurrent about 1x.
    assert elapsed / one.duration_s < 2.0


def test_run_many_empty(host: LiveHost) -> None:
    assert host.run_many([]) == []


# -- files ------------------------------------------------------------------------------------


def test_read_files(host: LiveHost, tmp_path: Path) -> None:
    path = tmp_path / "version.info"
    path.write_bytes(b"Version=24.1.rc2\n\xff")
    assert host.read_bytes(str(path)) == b"Version=24.1.rc2\n\xff"
    assert host.read_text(str(path)) == "Version=24.1.rc2\n\ufffd"
    with host.open_binary(str(path)) as fh:
        assert fh.read(7) == b"Version"


def test_read_errors(host: LiveHost, tmp_path: Path) -> None:
    with pytest.raises(FileMissing):
        host.read_text(str(tmp_path / "absent"))
    with pytest.raises(FileMissing, match="directory"):
        host.read_text(str(tmp_path))
    with pytest.raises(FileMissing):
        host.read_text(str(tmp_path / "absent" / "child"))
    big = tmp_path / "big"
    big.write_bytes(b"x" * 100)
    with pytest.raises(FileTooLarge):
        host.read_bytes(str(big), max_bytes=99)
    assert host.read_bytes(str(big), max_bytes=100) == b"x" * 100


def test_proc_file_reporting_size_zero_is_bounded(host: LiveHost) -> None:
    assert os.stat("/proc/self/status").st_size == 0
    assert "Name:" in host.read_text("/proc/self/status")
    with pytest.raises(FileTooLarge):
        host.read_bytes("/proc/self/status", max_bytes=10)


def test_fifo_is_refused_without_blocking(host: LiveHost, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(FileMissing, match="not a regular file"):
        host.read_bytes(str(fifo))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads anything")
def test_unreadable_file(host: LiveHost, tmp_path: Path) -> None:
    path = tmp_path / "secret"
    path.write_text("x")
    path.chmod(0)
    with pytest.raises(FilePermissionDenied):
        host.read_text(str(path))


def test_directory_queries(host: LiveHost, tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a.info").write_text("x")
    (tmp_path / "latest").symlink_to("b")
    (tmp_path / "broken").symlink_to("nowhere")
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    assert host.listdir(str(tmp_path)) == ["a.info", "b", "broken", "latest", "loop1", "loop2"]
    assert host.listdir(str(tmp_path / "absent")) == []
    assert host.listdir(str(tmp_path / "a.info")) == []
    assert host.exists(str(tmp_path / "latest"))
    assert host.is_dir(str(tmp_path / "latest"))
    assert not host.exists(str(tmp_path / "broken"))
    assert not host.exists(str(tmp_path / "loop1"))
    assert host.readlink(str(tmp_path / "latest")) == "b"
    assert host.readlink(str(tmp_path / "a.info")) is None
    assert host.realpath(str(tmp_path / "latest")) == os.path.realpath(tmp_path / "b")
    host.realpath(str(tmp_path / "loop1"))  # returns, does not hang
    link = host.stat(str(tmp_path / "latest"))
    assert link is not None and link.is_symlink and link.is_dir
    info = host.stat(str(tmp_path / "a.info"))
    assert info is not None and info.is_file and info.size == 1 and stat.S_ISREG(info.mode)
    assert host.stat(str(tmp_path / "absent")) is None


# -- system facts ------------------------------------------------------------------------------


def test_system_facts(host: LiveHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_TEST_VAR", "1")
    assert host.env()["ASCEND_DOCTOR_TEST_VAR"] == "1"
    info = host.info()
    assert info.source == "live" and info.arch and info.kernel
    memory = host.memory()
    assert memory is not None and memory.total_bytes >= memory.available_bytes > 0
    assert (host.cpu_count() or 0) >= 1
    usage = host.disk_usage("/definitely/not/here/model")
    assert usage is not None and usage.path == "/" and usage.total_bytes > 0
    processes = host.processes()
    assert processes is not None
    assert any(p.pid == os.getpid() for p in processes)


def test_listening_sockets(host: LiveHost) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        listening = host.listening_sockets()
        if listening is None:
            pytest.skip("net_connections denied on this machine")
        assert any(s.port == port and s.address == "127.0.0.1" for s in listening)


def test_parse_os_release() -> None:
    text = 'NAME="openEuler"\nVERSION="22.03 (LTS-SP4)"\nPRETTY_NAME="openEuler 22.03 (LTS-SP4)"\n# c\nID=openEuler\n'
    parsed = parse_os_release(text)
    assert parsed["PRETTY_NAME"] == "openEuler 22.03 (LTS-SP4)"
    assert parsed["ID"] == "openEuler"


# -- the target Python --------------------------------------------------------------------------


def test_python_env_of_this_interpreter() -> None:
    env = LiveHost(timeout_s=30.0, python=sys.executable).python_env()
    assert env.error is None
    assert env.version == "{}.{}.{}".format(*sys.version_info[:3])
    assert env.package("click") is not None
    assert env.package("PyYAML") is not None  # name matching is PEP 503-style


def test_python_env_bogus_interpreter(tmp_path: Path) -> None:
    env = LiveHost(python=str(tmp_path / "no-python")).python_env()
    assert env.error == f"no such interpreter: {tmp_path / 'no-python'}"  # one line, not the probe's source
    assert env.version is None


def test_python_env_garbage_output(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'Python is not configured on this box'\n")
    fake.chmod(0o755)
    env = LiveHost(python=str(fake)).python_env()
    assert env.error and "did not print the expected JSON" in env.error


def test_python_env_hung_interpreter(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nsleep 30\n")
    fake.chmod(0o755)
    started = time.monotonic()
    env = LiveHost(timeout_s=0.5, python=str(fake)).python_env()
    assert time.monotonic() - started < 3
    assert env.error and "did not answer" in env.error


def test_target_python_prefers_virtualenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(sys.executable)
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path))
    assert LiveHost().target_python() == str(tmp_path / "bin" / "python")
    assert LiveHost(python="/opt/py/bin/python3").target_python() == "/opt/py/bin/python3"
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "gone"))
    assert LiveHost().target_python() != str(tmp_path / "gone" / "bin" / "python")


def test_probe_source_is_python36_syntax() -> None:
    ast.parse(pyprobe.probe_source(), feature_version=(3, 6))
    assert "import torch" not in pyprobe.probe_source()


def test_probe_fallback_scanner(tmp_path: Path) -> None:
    dist = tmp_path / "torch_npu-2.1.0.post8.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch-npu\nVersion: 2.1.0.post8\n\nName: fake\n")
    egg_dir = tmp_path / "te-0.4.0.egg-info"
    egg_dir.mkdir()
    (egg_dir / "PKG-INFO").write_text("Metadata-Version: 1.0\nName: te\nVersion: 0.4.0\n")
    (tmp_path / "hccl-0.1.0-py3.7.egg-info").write_text("Metadata-Version: 1.0\nName: hccl\nVersion: 0.1.0\n")
    broken = tmp_path / "op_gen-1.2.dist-info"
    broken.mkdir()  # no METADATA: the folder name still tells
    found = pyprobe.scan_distributions([str(tmp_path), str(tmp_path / "absent")])
    assert found == {"torch-npu": "2.1.0.post8", "te": "0.4.0", "hccl": "0.1.0", "op_gen": "1.2"}


def test_parse_probe_output_variants() -> None:
    good = json.dumps({"executable": "/x/python", "version": "3.10.2", "packages": {"torch": "2.1.0"}})
    env = pyprobe.parse_probe_output("banner from sitecustomize\n" + good + "\n", "/x/python")
    assert env.error is None and env.package("torch") == "2.1.0"
    assert pyprobe.parse_probe_output("{not json", "p").error
    assert pyprobe.parse_probe_output("", "p").error
    assert pyprobe.parse_probe_output('{"packages": []}', "p").error


def test_factory_makes_live_host() -> None:
    host = make_host(None, timeout_s=3.0, python="/usr/bin/python3")
    assert isinstance(host, LiveHost) and host.timeout_s == 3.0
    close_host(host)
    with open_host(None, 2.0, None) as opened:
        assert opened.info().source == "live"
