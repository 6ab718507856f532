"""`ascend-doctor snapshot`: capture a machine, then read it back with SnapshotHost."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

from ascend_doctor.capture import run as capture
from ascend_doctor.capture import tree as capture_tree
from ascend_doctor.host.base import CommandResult, CommandStatus, FileMissing, FileTooLarge, PythonEnv
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.snapshot import SnapshotHost

from .samples_util import sample_body

# source: GitHub Pages Jekyll blog post "Atlas 800I A2 推理服务器开箱安装全流程：驱动/固件安装与MCU升级" (2025-07-17), public GitHub file  # noqa: E501
# what: npu-smi info -l on 8x 910B4 (Total Count 8, one chip per NPU); 8-space indent preserved
# (first NPUs of corpus npu-smi-other/blog-800IA2-info-l-8x910B4.txt)
NPU_SMI_INFO_L = """        Total Count                    : 8

        NPU ID                         : 0
        Chip Count                     : 1

        NPU ID                         : 1
        Chip Count                     : 1
"""

# source: GitHub markdown (pyACL/ATC notes on a 300I Pro box, "查看AI处理器版本号"), public GitHub file
# what: npu-smi info, npu-smi 23.0.0, single 310P3 with non-zero NPU id 24
# (corpus npu-smi-info/blog-310P3-23.0.0-npu24.txt)
NPU_SMI_INFO_310P3 = """\
+--------------------------------------------------------------------------------------------------------+
| npu-smi 23.0.0                                   Version: 23.0.0                                       |
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |
| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |
+===============================+=================+======================================================+
| 24      310P3                 | OK              | NA           29                0     / 0             |
| 0       0                     | 0000:04:00.0    | 0            1832 / 21527                            |
+===============================+=================+======================================================+
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Chip                  | Process id      | Process name             | Process memory(MB)        |
+===============================+=================+======================================================+
| No running processes found in NPU 24                                                                   |
+===============================+=================+======================================================+
"""

DRIVER_VERSION_INFO = sample_body("version-files/driver-version.info-24.1.rc2.2.txt")

# source: GitHub markdown "硬件信息/软件信息" deployment notes for 4x Atlas 800I A2 (MindIE 2.1.RC1 DeepSeek-R1), public GitHub file  # noqa: E501
# what: CANN 8.2.RC1 aarch64-linux/ascend_toolkit_install.info (corpus version-files/notes-800IA2-cann-toolkit-version.info-8.2.RC1.txt)  # noqa: E501
TOOLKIT_INSTALL_INFO = """package_name=Ascend-cann-toolkit
version=8.2.RC1
innerversion=V100R001C22SPC001B231
compatible_version=[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],[V100R001C23]
arch=aarch64
os=linux
path=/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux
"""

# source: GitHub markdown notes (Atlas 800 training 910 setup: driver 23.0.rc1 + firmware 6.3.0.1.241, CANN 6.3.RC1), public GitHub file  # noqa: E501
# what: /etc/ascend_install.info (corpus version-files/etc-ascend_install.info-910-23.0.rc1.txt)
ASCEND_INSTALL_INFO = """UserName=HwHiAiUser
UserGroup=HwHiAiUser
Firmware_Install_Type=full
Firmware_Install_Path_Param=/usr/local/Ascend
Driver_Install_Type=full
Driver_Install_Path_Param=/usr/local/Ascend
Driver_Install_For_All=yes
"""


TORCH_CONFIG_FILE = "torch/share/cmake/Torch/TorchConfig.cmake"


class FakeLiveHost(LiveHost):
    """A LiveHost whose commands answer from a table (this machine has no NPU)."""

    def __init__(self, answers: Dict[tuple, CommandResult]) -> None:
        super().__init__(timeout_s=1.0)
        self.answers = answers
        self.ran: List[tuple] = []

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        key = tuple(argv)
        self.ran.append(key)
        return self.answers.get(key, CommandResult(key, CommandStatus.NOT_FOUND))

    def python_probe(self) -> Tuple[PythonEnv, Dict[str, Any]]:
        raw = {"executable": "/opt/venv/bin/python", "version": "3.10.14",
               "packages": {"torch": "2.1.0", "torch-npu": "2.1.0.post8"},
               "path": ["/opt/venv/lib/python310.zip", "/opt/venv/lib/python3.10/site-packages"]}
        return PythonEnv(raw["executable"], raw["version"], raw["packages"]), raw

    def env(self) -> Dict[str, str]:
        return {"ASCEND_RT_VISIBLE_DEVICES": "0,1", "HF_TOKEN": "hf_abc", "OPENAI_API_KEY": "sk-1",
                "https_proxy": "http://alice:s3cret@proxy.example:8080", "PATH": "/usr/bin"}


def ok(argv: Sequence[str], stdout: str) -> CommandResult:
    return CommandResult(tuple(argv), CommandStatus.OK, returncode=0, stdout=stdout)


def write(path: Path, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture()
def fake_root(tmp_path: Path) -> Path:
    """A machine tree with the Ascend layout (files from the corpus)."""
    root = tmp_path / "machine"
    ascend = root / "usr/local/Ascend"
    write(root / "etc/ascend_install.info", ASCEND_INSTALL_INFO)
    write(ascend / "driver/version.info", DRIVER_VERSION_INFO)
    write(ascend / "ascend-toolkit/8.2.RC1/aarch64-linux/ascend_toolkit_install.info", TOOLKIT_INSTALL_INFO)
    write(ascend / "ascend-toolkit/8.2.RC1/aarch64-linux/lib64/libascendcl.so", "binary")
    (ascend / "ascend-toolkit/latest").symlink_to("8.2.RC1")
    (ascend / "ascend-toolkit/set_env.sh").write_text("export X=1\n")
    write(ascend / "firmware/version.info", "x" * (capture_tree.MAX_FILE_BYTES + 1))
    # A link that leads out of the captured areas: kept as a link, its target not copied.
    write(root / "root/secret/version.info", "PRIVATE\n")
    (ascend / "mindie").mkdir()
    (ascend / "mindie/latest").symlink_to("/root/secret")
    (ascend / "nnae").mkdir()
    (ascend / "nnae/latest").symlink_to("latest")  # a loop
    write(root / "dev/davinci0", "")
    write(root / "dev/davinci_manager", "")
    write(root / "dev/null", "")
    write(root / "opt/venv/lib/python3.10/site-packages" / TORCH_CONFIG_FILE, "torch cmake config\n")
    write(root / "opt/venv/lib/python3.10/site-packages/torch/__init__.py", "")
    return root


def test_capture_fake_machine_and_read_back(fake_root: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    ecc = ("npu-smi", "info", "-t", "ecc", "-i", "24")
    board = ("npu-smi", "info", "-t", "board", "-i", "24")
    hung = CommandResult(ecc, CommandStatus.TIMEOUT, stdout="partial", duration_s=1.0, timeout_s=1.0)
    denied = CommandResult(("dmesg",), CommandStatus.PERMISSION_DENIED, returncode=1,
                           stderr="dmesg: read kernel buffer failed: Operation not permitted\n",
                           detail="permission denied; stdout truncated at 4194304 bytes")
    fake = FakeLiveHost({
        ("npu-smi", "info"): ok(["npu-smi", "info"], NPU_SMI_INFO_310P3),
        ecc: hung,
        ("dmesg",): denied,
        board: ok(list(board), "board of NPU 24\n"),
    })
    out = tmp_path / "node07.tar.gz"
    messages: List[str] = []
    summary = capture.capture_snapshot(str(out), timeout_s=1.0, progress=messages.append, host=fake,
                                       fs_root=str(fake_root))
    # Every NPU id npu-smi lists (24 here, not 0) gets the per-NPU queries the providers declare.
    assert messages and board in fake.ran and ecc in fake.ran
    assert ("npu-smi", "info", "-t", "topo") not in fake.ran  # no provider reads it: not captured
    assert summary.commands >= 4

    with SnapshotHost(str(out)) as host:
        # commands
        assert host.run(["npu-smi", "info"]).stdout == NPU_SMI_INFO_310P3
        assert host.run(list(board)).stdout == "board of NPU 24\n"
        replayed = host.run(list(ecc))
        assert replayed.status is CommandStatus.TIMEOUT and replayed.timeout_s == 1.0 and replayed.stdout == "partial"
        dmesg = host.run(["dmesg"])
        assert dmesg.status is CommandStatus.PERMISSION_DENIED and dmesg.returncode == 1
        assert host.run(["lspci"]).status is CommandStatus.NOT_FOUND
        # what the capture asked is known: a command it ran and found missing is missing, not unrecorded
        assert host.captured_command(["id"]) and not host.captured_command(["lspci"])
        # files, with symlinks kept
        assert host.read_text("/usr/local/Ascend/driver/version.info") == DRIVER_VERSION_INFO
        assert host.read_text("/etc/ascend_install.info") == ASCEND_INSTALL_INFO
        via_latest = "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info"
        assert host.read_text(via_latest) == TOOLKIT_INSTALL_INFO
        assert host.readlink("/usr/local/Ascend/ascend-toolkit/latest") == "8.2.RC1"
        assert host.realpath(via_latest).startswith("/usr/local/Ascend/ascend-toolkit/8.2.RC1/")
        # a declared listing: folders, links, and the rest as empty files (set_env.sh exists, no content)
        assert host.listdir("/usr/local/Ascend/ascend-toolkit") == ["8.2.RC1", "latest", "set_env.sh"]
        assert host.read_bytes("/usr/local/Ascend/ascend-toolkit/set_env.sh") == b""
        assert host.listdir("/usr/local/Ascend/ascend-toolkit/latest") == ["aarch64-linux"]
        assert not host.exists("/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux/lib64/libascendcl.so")
        assert host.exists("/dev/davinci0") and host.read_bytes("/dev/davinci0") == b""
        assert host.captured("/usr/local/Ascend/driver/version.info") and not host.captured("/root/secret/x")
        # bounded, and nothing outside the declared areas
        with pytest.raises(FileTooLarge):  # as on the machine: it exists, and is refused for its size
            host.read_text("/usr/local/Ascend/firmware/version.info")
        assert host.readlink("/usr/local/Ascend/mindie/latest") == "/root/secret"
        with pytest.raises(FileMissing):
            host.read_text("/usr/local/Ascend/mindie/latest/version.info")
        notes = " ".join(host.metadata["capture_notes"])
        assert "`dmesg`: stdout truncated at 4194304 bytes" in notes  # hostile review row 198
        assert "outside the declared reads" in notes and "more than" in notes
        assert "symlink loop" in notes and "hung" in notes
        # env (redacted), python, host facts
        env = host.env()
        assert env["HF_TOKEN"] == "<redacted>" and env["OPENAI_API_KEY"] == "<redacted>"
        assert env["https_proxy"] == "http://<redacted>@proxy.example:8080"
        assert env["ASCEND_RT_VISIBLE_DEVICES"] == "0,1"
        assert host.python_env().package("torch_npu") == "2.1.0.post8"
        site = "/opt/venv/lib/python3.10/site-packages"
        assert host.read_text(f"{site}/{TORCH_CONFIG_FILE}") == "torch cmake config\n"
        assert not host.exists(f"{site}/torch/__init__.py")
        assert host.info().tool_version and host.info().captured_at
        assert host.memory() is not None and host.cpu_count()
        assert host.disk_usage("/dev/shm") is not None and host.captured_disk("/dev/shm")


def test_capture_into_a_folder(fake_root: Path, tmp_path: Path) -> None:
    out = tmp_path / "snapdir"
    capture.capture_snapshot(str(out) + "/", host=FakeLiveHost({}), fs_root=str(fake_root))
    assert (out / "snapshot.json").is_file() and (out / "files").is_dir()
    assert not (out / "commands" / "npu-smi_info.out").exists()  # not installed
    assert SnapshotHost(str(out)).run(["npu-smi", "info"]).status is CommandStatus.NOT_FOUND
    with pytest.raises(FileExistsError):
        capture.capture_snapshot(str(out) + "/", host=FakeLiveHost({}), fs_root=str(fake_root))


def test_write_command_round_trip(tmp_path: Path) -> None:
    tree = tmp_path / "s"
    tree.mkdir()
    results = [
        CommandResult(("a",), CommandStatus.OK, returncode=0, stdout="out"),
        CommandResult(("b", "-x"), CommandStatus.OK, returncode=2, stdout="", stderr="bad flag"),
        CommandResult(("c",), CommandStatus.NOT_FOUND),
        CommandResult(("d",), CommandStatus.PERMISSION_DENIED, detail="Permission denied"),
        CommandResult(("e",), CommandStatus.TIMEOUT, timeout_s=7.5),
        CommandResult(("f",), CommandStatus.ERROR, detail="exec format error (built for another architecture?)"),
    ]
    for result in results:
        capture_tree.write_command(str(tree), result)
    host = SnapshotHost(str(tree))
    replay = host.run_many([r.argv for r in results])
    assert [r.status for r in replay] == [r.status for r in results]
    assert replay[1].returncode == 2 and replay[1].stderr == "bad flag"
    assert replay[4].timeout_s == 7.5


def test_install_roots_from_install_info_and_env(tmp_path: Path) -> None:
    """The roots the capture expands {root} with come from the same function the checks use."""
    from ascend_doctor.facts.variables import read_variables
    from ascend_doctor.host.rooted import RootedHost

    write(tmp_path / "etc/ascend_install.info", "Driver_Install_Path_Param=/opt/Ascend\n")
    (tmp_path / "opt/Ascend").mkdir(parents=True)
    (tmp_path / "home/u/Ascend/ascend-toolkit").mkdir(parents=True)

    class Env(FakeLiveHost):
        def env(self) -> Dict[str, str]:
            return {"ASCEND_TOOLKIT_HOME": "/home/u/Ascend/ascend-toolkit/latest", "PATH": "/usr/bin"}

    roots = read_variables(RootedHost(Env({}), str(tmp_path)))["root"]
    assert "/opt/Ascend" in roots and "/home/u/Ascend" in roots and "/usr/local/Ascend" in roots


def test_cli_snapshot_of_this_machine(tmp_path: Path) -> None:
    out = tmp_path / "me.tar.gz"
    proc = subprocess.run(
        [sys.executable, "-m", "ascend_doctor", "snapshot", "-o", str(out), "--timeout", "5",
         "--python", sys.executable],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # progress goes to stderr only
    assert "snapshot written to" in proc.stderr
    live = LiveHost(timeout_s=5)
    with SnapshotHost(str(out)) as host:
        assert host.info().hostname == socket.gethostname()
        assert host.run(["id"]).stdout == live.run(["id"]).stdout
        assert host.run(["npu-smi", "info"]).status is live.run(["npu-smi", "info"]).status
        assert host.python_env().version == "{}.{}.{}".format(*sys.version_info[:3])
        thp = "/sys/kernel/mm/transparent_hugepage/enabled"
        if os.path.exists(thp):
            assert host.read_text(thp) == Path(thp).read_text()
        assert host.exists("/.dockerenv") == os.path.exists("/.dockerenv")
        meta = host.metadata
        assert meta["format"] == 1
    # the archive is a single folder named after the file
    import tarfile

    with tarfile.open(out) as tar:
        assert {m.name.split("/")[0] for m in tar.getmembers()} == {"me"}
    json.dumps(meta)


def test_cli_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    cases = [
        (["-o", str(tmp_path / "busy") + "/"], "not empty"),
        (["-o", str(tmp_path / "busy")], "is a folder"),
        (["-o", str(tmp_path / "no" / "such" / "x.tar.gz")], "does not exist"),
    ]
    for args, message in cases:
        proc = subprocess.run([sys.executable, "-m", "ascend_doctor", "snapshot", *args, "--timeout", "1"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr
