"""SnapshotHost: every layout rule of docs/snapshot-format.md, and every refusal."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from ascend_doctor.host.base import (
    CommandStatus,
    FileMissing,
    FileTooLarge,
    PathRefused,
    SnapshotError,
    command_file_name,
)
from ascend_doctor.host.factory import make_host, open_host
from ascend_doctor.host.snapshot import SnapshotHost, safe_extract

from .samples_util import sample_body

DRIVER_VERSION_INFO = sample_body("version-files/driver-version.info-24.1.rc2.2.txt")


def write(path: Path, text: str = "", mode: Optional[int] = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mode is not None:
        path.chmod(mode)
    return path


def build_snapshot(root: Path, **overrides: Any) -> Path:
    """A small but complete snapshot directory."""
    meta: Dict[str, Any] = {"format": 1, "hostname": "node-07", "arch": "aarch64",
                            "kernel": "5.10.0-182.0.0.95.oe2203sp3.aarch64",
                            "os": "openEuler 22.03 (LTS-SP3)", "captured_at": "2025-01-02T03:04:05Z",
                            "tool_version": "0.1.0"}
    meta.update(overrides)
    write(root / "snapshot.json", json.dumps(meta))
    write(root / "env.json", json.dumps({"ASCEND_TOOLKIT_HOME": "/usr/local/Ascend/ascend-toolkit/latest",
                                         "ASCEND_RT_VISIBLE_DEVICES": "0,1"}))
    write(root / "python.json", json.dumps({"executable": "/opt/venv/bin/python", "version": "3.10.14",
                                            "packages": {"torch": "2.1.0", "torch_npu": "2.1.0.post8"}}))
    cmds = root / "commands"
    write(cmds / "npu-smi_info.out", "+----+\n| npu-smi 24.1.rc2 |\n")
    write(cmds / "npu-smi_info_-t_board_-i_0.out", "NPU ID : 0\n")
    write(cmds / "dmesg.out", "")
    write(cmds / "dmesg.err", "dmesg: read kernel buffer failed: Operation not permitted\n")
    write(cmds / "dmesg.rc", "1\n")
    files = root / "files"
    write(files / "usr/local/Ascend/driver/version.info", DRIVER_VERSION_INFO)
    write(files / "usr/local/Ascend/ascend-toolkit/8.0.RC3/version.cfg", "runtime_running_version=[7.5.0:8.0.RC3]\n")
    (files / "usr/local/Ascend/ascend-toolkit/latest").symlink_to("8.0.RC3")
    (files / "usr/local/Ascend/ascend-toolkit/abs-latest").symlink_to("/usr/local/Ascend/ascend-toolkit/8.0.RC3")
    write(files / "dev/davinci0")
    write(files / "dev/davinci_manager")
    return root


@pytest.fixture()
def snap(tmp_path: Path) -> Path:
    return build_snapshot(tmp_path / "snap")


# -- metadata ---------------------------------------------------------------------------------


def test_info_env_and_python(snap: Path) -> None:
    host = SnapshotHost(str(snap))
    info = host.info()
    assert (info.source, info.hostname, info.arch) == ("snapshot", "node-07", "aarch64")
    assert info.origin == str(snap) and info.captured_at == "2025-01-02T03:04:05Z"
    assert info.tool_version == "0.1.0" and info.os == "openEuler 22.03 (LTS-SP3)"
    assert host.env()["ASCEND_RT_VISIBLE_DEVICES"] == "0,1"
    py = host.python_env()
    assert py.error is None and py.version == "3.10.14"
    assert py.package("torch-npu") == "2.1.0.post8"


def test_every_metadata_file_is_optional(tmp_path: Path) -> None:
    write(tmp_path / "s" / "commands" / "uname_-a.out", "Linux\n")
    host = SnapshotHost(str(tmp_path / "s"))
    assert host.info().hostname is None
    assert host.env() == {}
    assert host.python_env().error and "python.json" in (host.python_env().error or "")
    assert host.memory() is None and host.cpu_count() is None and host.processes() is None
    assert host.listening_sockets() is None and host.disk_usage("/") is None


def test_newer_format_is_refused(tmp_path: Path) -> None:
    root = build_snapshot(tmp_path / "s", format=2)
    with pytest.raises(SnapshotError, match="format 2 is newer"):
        SnapshotHost(str(root))


def test_format_must_be_integer(tmp_path: Path) -> None:
    root = build_snapshot(tmp_path / "s", format="one")
    with pytest.raises(SnapshotError, match="integer"):
        SnapshotHost(str(root))


@pytest.mark.parametrize("name", ["snapshot.json", "env.json", "python.json", "host.json"])
def test_malformed_json_is_a_snapshot_error(snap: Path, name: str) -> None:
    (snap / name).write_text('{"format": 1,')
    with pytest.raises(SnapshotError, match=f"{name} is not valid JSON") as info:
        SnapshotHost(str(snap))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", ["snapshot.json", "env.json", "python.json"])
def test_json_must_be_an_object(snap: Path, name: str) -> None:
    (snap / name).write_text("[1, 2]")
    with pytest.raises(SnapshotError, match="JSON object"):
        SnapshotHost(str(snap))


def test_env_values(snap: Path) -> None:
    (snap / "env.json").write_text(json.dumps({"A": "x", "N": 3, "GONE": None}))
    assert SnapshotHost(str(snap)).env() == {"A": "x", "N": "3"}
    (snap / "env.json").write_text(json.dumps({"A": {"nested": 1}}))
    with pytest.raises(SnapshotError, match="must be a string"):
        SnapshotHost(str(snap))


def test_missing_path_and_non_snapshot_inputs(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="no such file or directory"):
        SnapshotHost(str(tmp_path / "absent.tar.gz"))
    garbage = write(tmp_path / "notes.tar.gz", "this is not an archive")
    with pytest.raises(SnapshotError, match=r"not a snapshot directory or \.tar\.gz"):
        SnapshotHost(str(garbage))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SnapshotError, match="does not look like an ascend-doctor snapshot"):
        SnapshotHost(str(tmp_path / "empty"))


def test_single_inner_folder_is_the_root(tmp_path: Path) -> None:
    build_snapshot(tmp_path / "outer" / "snap-node-07")
    assert SnapshotHost(str(tmp_path / "outer")).info().hostname == "node-07"


def test_metadata_symlink_out_is_refused(snap: Path) -> None:
    (snap / "env.json").unlink()
    (snap / "env.json").symlink_to("/etc/passwd")
    with pytest.raises(SnapshotError, match=r"env\.json"):
        SnapshotHost(str(snap))


def test_files_folder_symlink_is_refused(snap: Path, tmp_path: Path) -> None:
    os.rename(snap / "files", tmp_path / "elsewhere")
    (snap / "files").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(SnapshotError, match="files/ is a symlink"):
        SnapshotHost(str(snap))


# -- commands ---------------------------------------------------------------------------------


def test_recorded_commands(snap: Path) -> None:
    host = SnapshotHost(str(snap))
    result = host.run(["npu-smi", "info"])
    assert result.ok and "npu-smi 24.1.rc2" in result.stdout
    assert host.run(["npu-smi", "info", "-t", "board", "-i", "0"]).stdout == "NPU ID : 0\n"
    dmesg = host.run(["dmesg"])
    assert dmesg.status is CommandStatus.PERMISSION_DENIED and dmesg.returncode == 1
    assert "Operation not permitted" in dmesg.stderr
    missing = host.run(["hccn_tool", "-i", "0", "-ip", "-g"])
    assert missing.status is CommandStatus.NOT_FOUND
    many = host.run_many([["npu-smi", "info"], ["lspci"]])
    assert [r.status for r in many] == [CommandStatus.OK, CommandStatus.NOT_FOUND]


def test_command_file_name_layout() -> None:
    assert command_file_name(["npu-smi", "info"]) == "npu-smi_info"
    assert command_file_name(["npu-smi", "info", "-t", "board", "-i", "0"]) == "npu-smi_info_-t_board_-i_0"
    assert command_file_name(["dmesg"]) == "dmesg"


def test_hung_command(snap: Path) -> None:
    write(snap / "commands" / "npu-smi_info.timeout", "10\n")
    result = SnapshotHost(str(snap)).run(["npu-smi", "info"], timeout=3)
    assert result.status is CommandStatus.TIMEOUT and result.timeout_s == 10.0
    assert "did not answer within 10 s" in result.describe_failure()
    write(snap / "commands" / "npu-smi_info.timeout", "")
    assert SnapshotHost(str(snap)).run(["npu-smi", "info"], timeout=3).timeout_s == 3


@pytest.mark.parametrize(
    ("rc", "err", "status"),
    [
        ("127", "sh: npu-smi: command not found\n", CommandStatus.NOT_FOUND),
        ("126", "sh: /usr/local/bin/npu-smi: Permission denied\n", CommandStatus.PERMISSION_DENIED),
        ("1", "Permission denied\n", CommandStatus.PERMISSION_DENIED),
        ("2", "some other failure\n", CommandStatus.OK),
        ("x1", "", CommandStatus.ERROR),
    ],
)
def test_recorded_exit_status(snap: Path, rc: str, err: str, status: CommandStatus) -> None:
    write(snap / "commands" / "lspci.out", "")
    write(snap / "commands" / "lspci.err", err)
    write(snap / "commands" / "lspci.rc", rc)
    assert SnapshotHost(str(snap)).run(["lspci"]).status is status


def test_run_never_executes(snap: Path, tmp_path: Path) -> None:
    marker = tmp_path / "was-run"
    result = SnapshotHost(str(snap)).run(["touch", str(marker)])
    assert result.status is CommandStatus.NOT_FOUND
    assert not marker.exists()


def test_command_symlink_out_is_refused(snap: Path) -> None:
    (snap / "commands" / "lspci.out").symlink_to("/etc/passwd")
    (snap / "commands" / "lsmod.out").symlink_to("../../../../../etc/passwd")
    for argv in (["lspci"], ["lsmod"]):
        result = SnapshotHost(str(snap)).run(argv)
        assert result.status is CommandStatus.ERROR
        assert "refused" in result.detail and "root:" not in result.stdout


# -- files ------------------------------------------------------------------------------------


def test_files_and_symlinks(snap: Path) -> None:
    host = SnapshotHost(str(snap))
    assert host.read_text("/usr/local/Ascend/driver/version.info").startswith("Version=24.1.rc2.2")
    for link in ("latest", "abs-latest"):
        path = f"/usr/local/Ascend/ascend-toolkit/{link}/version.cfg"
        assert "8.0.RC3" in host.read_text(path)
        assert host.realpath(path) == "/usr/local/Ascend/ascend-toolkit/8.0.RC3/version.cfg"
    assert host.readlink("/usr/local/Ascend/ascend-toolkit/latest") == "8.0.RC3"
    assert host.readlink("/usr/local/Ascend/ascend-toolkit/abs-latest") == "/usr/local/Ascend/ascend-toolkit/8.0.RC3"
    assert host.readlink("/usr/local/Ascend/driver/version.info") is None
    assert host.listdir("/usr/local/Ascend/ascend-toolkit") == ["8.0.RC3", "abs-latest", "latest"]
    assert host.listdir("/usr/local/Ascend/ascend-toolkit/latest") == ["version.cfg"]
    assert host.listdir("/nowhere") == [] and host.listdir("/usr/local/Ascend/driver/version.info") == []
    assert host.exists("/dev/davinci0") and not host.exists("/dev/davinci1")
    assert host.is_dir("/usr/local/Ascend/ascend-toolkit/latest") and not host.is_dir("/dev/davinci0")
    assert host.read_bytes("/dev/davinci0") == b""
    st = host.stat("/usr/local/Ascend/ascend-toolkit/latest")
    assert st is not None and st.is_symlink and st.is_dir
    assert host.stat("/absent") is None
    assert host.realpath("/usr/local/Ascend/ascend-toolkit/latest/missing/x") == \
        "/usr/local/Ascend/ascend-toolkit/8.0.RC3/missing/x"
    with host.open_binary("/usr/local/Ascend/driver/version.info") as fh:
        assert fh.read(8) == b"Version="


def test_file_errors(snap: Path) -> None:
    host = SnapshotHost(str(snap))
    with pytest.raises(FileMissing):
        host.read_text("/etc/ascend_install.info")
    with pytest.raises(FileMissing, match="directory"):
        host.read_text("/usr/local/Ascend")
    with pytest.raises(FileTooLarge):
        host.read_bytes("/usr/local/Ascend/driver/version.info", max_bytes=10)
    with pytest.raises(FileMissing):
        host.read_text("/usr/local/Ascend/driver/version.info/child")


def test_symlink_to_etc_passwd_is_never_read(snap: Path) -> None:
    files = snap / "files"
    (files / "usr/local/Ascend/escape").symlink_to("../../../../etc/passwd")
    (files / "usr/local/Ascend/abs").symlink_to("/etc/passwd")
    host = SnapshotHost(str(snap))
    with pytest.raises(PathRefused, match="outside the snapshot"):
        host.read_text("/usr/local/Ascend/escape")
    with pytest.raises(PathRefused):
        host.realpath("/usr/local/Ascend/escape")
    with pytest.raises(PathRefused):
        host.exists("/usr/local/Ascend/escape")
    # An absolute target means the captured machine's /etc/passwd: re-rooted, not ours.
    with pytest.raises(FileMissing):
        host.read_text("/usr/local/Ascend/abs")
    assert host.realpath("/usr/local/Ascend/abs") == "/etc/passwd"
    write(files / "etc/passwd", "captured:x:0:0\n")
    assert SnapshotHost(str(snap)).read_text("/usr/local/Ascend/abs") == "captured:x:0:0\n"


@pytest.mark.parametrize("path", ["../../etc/passwd", "/../../etc/passwd", "/usr/../../../etc/passwd"])
def test_dotdot_paths_are_refused(snap: Path, path: str) -> None:
    with pytest.raises(PathRefused):
        SnapshotHost(str(snap)).read_text(path)


def test_symlink_loop_is_an_error_not_a_hang(snap: Path) -> None:
    files = snap / "files"
    (files / "a").symlink_to("b")
    (files / "b").symlink_to("a")
    (files / "self").symlink_to("self/x")
    host = SnapshotHost(str(snap))
    with pytest.raises(FileMissing, match="loop"):
        host.read_text("/a")
    with pytest.raises(FileMissing, match="loop"):
        host.read_text("/self")
    assert not host.exists("/a") and not host.is_dir("/a") and host.listdir("/a") == []
    assert host.realpath("/a") == "/a"
    st = host.stat("/a")
    assert st is not None and st.is_symlink and not st.is_file


def test_fifo_in_a_snapshot_is_not_read(snap: Path) -> None:
    os.mkfifo(snap / "files" / "dev" / "fifo")
    with pytest.raises(FileMissing, match="not a regular file"):
        SnapshotHost(str(snap)).read_bytes("/dev/fifo")


# -- host.json --------------------------------------------------------------------------------


def test_host_json(snap: Path) -> None:
    (snap / "host.json").write_text(json.dumps({
        "memory": {"total_bytes": 1_649_267_441_664, "available_bytes": 1_500_000_000_000,
                   "swap_total_bytes": 0, "swap_free_bytes": 0},
        "cpu_count": 192,
        "disks": [{"path": "/", "total_bytes": 100, "free_bytes": 40},
                  {"path": "/data", "total_bytes": 1000, "free_bytes": 900},
                  {"path": "/bad"}],
        "processes": [{"pid": 1, "name": "systemd", "cmdline": ["/sbin/init"]},
                      {"pid": "x"}, {"pid": 42, "name": "mindie_llm_back", "cmdline": None}],
        "listening": [{"address": "0.0.0.0", "port": 1025, "pid": 42}, {"address": "::"}],
    }))
    host = SnapshotHost(str(snap))
    memory = host.memory()
    assert memory is not None and memory.total_bytes == 1_649_267_441_664
    assert host.cpu_count() == 192
    usage = host.disk_usage("/data/models/DeepSeek-R1")
    assert usage is not None and (usage.path, usage.free_bytes) == ("/data", 900)
    root = host.disk_usage("/database")
    assert root is not None and root.path == "/"
    processes = host.processes()
    assert processes is not None and [p.pid for p in processes] == [1, 42]
    assert processes[1].cmdline == ()
    sockets = host.listening_sockets()
    assert sockets is not None and [(s.port, s.pid) for s in sockets] == [(1025, 42)]


def test_host_json_bad_sections_give_none(snap: Path) -> None:
    (snap / "host.json").write_text(json.dumps({"memory": {"total_bytes": "lots"}, "cpu_count": True,
                                                "disks": {}, "processes": "none"}))
    host = SnapshotHost(str(snap))
    assert host.memory() is None and host.cpu_count() is None
    assert host.disk_usage("/") is None and host.processes() is None


# -- archives ---------------------------------------------------------------------------------


def make_tar(path: Path, source: Path, arcname: str) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        tar.add(str(source), arcname=arcname)
    return path


def test_tar_gz_round_trip_and_cleanup(snap: Path, tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "snap.tar.gz", snap, "snap-node-07")
    with SnapshotHost(str(archive)) as host:
        unpacked = host.root
        assert os.path.isdir(unpacked)
        assert host.run(["npu-smi", "info"]).ok
        assert "8.0.RC3" in host.read_text("/usr/local/Ascend/ascend-toolkit/latest/version.cfg")
        assert host.info().origin == str(archive)
    assert not os.path.exists(unpacked)
    flat = make_tar(tmp_path / "flat.tar.gz", snap, ".")
    host = make_host(str(flat), timeout_s=1.0, python=None)
    assert isinstance(host, SnapshotHost) and host.info().hostname == "node-07"
    host.close()
    host.close()  # twice is fine
    with open_host(str(snap), 1.0, None) as opened:
        assert opened.info().source == "snapshot"


def hostile_tar(path: Path, *members: tarfile.TarInfo, data: bytes = b"x") -> Path:
    with tarfile.open(path, "w:gz") as tar:
        meta = json.dumps({"format": 1}).encode()
        info = tarfile.TarInfo("snapshot.json")
        info.size = len(meta)
        tar.addfile(info, io.BytesIO(meta))
        for member in members:
            if member.isreg():
                member.size = len(data)
                tar.addfile(member, io.BytesIO(data))
            else:
                tar.addfile(member)
    return path


def member(name: str, kind: bytes = tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ([member("../x")], "'..'"),
        ([member("files/../../x")], "'..'"),
        ([member("/etc/cron.d/evil")], "absolute"),
        ([member("evil", tarfile.SYMTYPE, "/etc")], "absolute path '/etc'"),
        ([member("commands/npu-smi_info.out", tarfile.SYMTYPE, "/etc/passwd")], "absolute"),
        ([member("files/usr/x", tarfile.SYMTYPE, "../../../etc/passwd")], "outside files/"),
        ([member("files", tarfile.SYMTYPE, "/")], "absolute"),
        ([member("up", tarfile.SYMTYPE, "../..")], "outside the archive"),
        ([member("files/passwd", tarfile.LNKTYPE, "/etc/passwd")], "absolute"),
        ([member("files/passwd", tarfile.LNKTYPE, "../../etc/passwd")], "'..'"),
        ([member("files/x", tarfile.LNKTYPE, "files/not-yet")], "not an earlier file"),
        ([member("files/dev/davinci0", tarfile.CHRTYPE)], "device file"),
        ([member("files/dev/sda", tarfile.BLKTYPE)], "device file"),
        ([member("files/fifo", tarfile.FIFOTYPE)], "FIFO"),
    ],
)
def test_hostile_members_are_refused(tmp_path: Path, members: Any, message: str) -> None:
    archive = hostile_tar(tmp_path / "evil.tar.gz", *members)
    with pytest.raises(SnapshotError, match=message) as info:
        SnapshotHost(str(archive))
    assert members[0].name in str(info.value)


def test_member_written_through_an_earlier_symlink_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "victim"
    target.mkdir()
    # The link itself is allowed (absolute targets are re-rooted under files/ when read) ...
    archive = hostile_tar(tmp_path / "evil.tar.gz",
                          member("files/etc", tarfile.SYMTYPE, str(target)),
                          member("files/etc/passwd"))
    # ... but nothing may ever be written through it.
    with pytest.raises(SnapshotError, match="files/etc/passwd"):
        SnapshotHost(str(archive))
    assert list(target.iterdir()) == []


def test_hardlink_inside_the_archive_is_copied(tmp_path: Path) -> None:
    archive = hostile_tar(tmp_path / "ok.tar.gz", member("files/a"),
                          member("files/b", tarfile.LNKTYPE, "files/a"), data=b"hello")
    with SnapshotHost(str(archive)) as host:
        assert host.read_bytes("/b") == b"hello"


def test_huge_member_header_is_refused_before_reading(tmp_path: Path) -> None:
    info = tarfile.TarInfo("files/weights.bin")
    info.size = 50 * 1024 ** 3  # declared 50 GiB, nothing behind it
    archive = tmp_path / "huge.tar.gz"
    import gzip

    with gzip.open(archive, "wb") as fh:
        fh.write(info.tobuf(format=tarfile.GNU_FORMAT))
        fh.write(b"\0" * 1024)
    with pytest.raises(SnapshotError, match=r"files/weights\.bin"):
        SnapshotHost(str(archive))


def test_member_count_and_total_size_limits(tmp_path: Path) -> None:
    archive = hostile_tar(tmp_path / "many.tar.gz", *[member(f"files/f{i}") for i in range(20)])
    (tmp_path / "out1").mkdir()
    with pytest.raises(SnapshotError, match="more than 10 members"):
        safe_extract(str(archive), str(tmp_path / "out1"), max_members=10)
    (tmp_path / "out2").mkdir()
    with pytest.raises(SnapshotError, match="unpacks to more than"):
        safe_extract(str(archive), str(tmp_path / "out2"), max_total_bytes=10)
    (tmp_path / "out3").mkdir()
    with pytest.raises(SnapshotError, match="more than the 0 allowed"):
        safe_extract(str(archive), str(tmp_path / "out3"), max_member_bytes=0)


def test_truncated_archive(snap: Path, tmp_path: Path) -> None:
    archive = make_tar(tmp_path / "snap.tar.gz", snap, "snap")
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    with pytest.raises(SnapshotError):
        SnapshotHost(str(cut))


def test_failed_unpack_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    archive = hostile_tar(tmp_path / "evil.tar.gz", member("../x"))
    with pytest.raises(SnapshotError):
        SnapshotHost(str(archive))
    assert list((tmp_path / "tmp").iterdir()) == []
