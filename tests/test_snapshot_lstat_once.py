"""SnapshotHost asks the disk about each path of the snapshot once per run (start-up: a check run
resolves some 250 paths, most under the same few folders), with the same answers as before."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List

import pytest

from ascend_doctor.host.base import FileMissing, PathRefused
from ascend_doctor.host.snapshot import SnapshotHost

from .test_host_snapshot import build_snapshot, write


def _counting_lstat(monkeypatch: pytest.MonkeyPatch) -> List[str]:
    seen: List[str] = []
    real = os.lstat

    def lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        seen.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", lstat)
    return seen


def test_each_folder_is_looked_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build_snapshot(tmp_path / "snap")
    for name in ("a.info", "b.info", "c.info"):
        write(root / "files/usr/local/Ascend/driver" / name, f"{name}\n")
    host = SnapshotHost(str(root))
    seen = _counting_lstat(monkeypatch)
    for _ in range(2):
        for name in ("a.info", "b.info", "c.info", "missing.info"):
            path = f"/usr/local/Ascend/driver/{name}"
            if name == "missing.info":
                assert not host.exists(path)
            else:
                assert host.read_text(path) == f"{name}\n"
    # usr, local, Ascend, driver and the four names: each once, however often it is asked for
    assert len(seen) == len(set(seen)) == 8


def test_answers_are_the_same_the_second_time(tmp_path: Path) -> None:
    root = build_snapshot(tmp_path / "snap")
    write(root / "files/etc/real.conf", "x=1\n")
    os.symlink("/etc/real.conf", root / "files/etc/link.conf")
    os.symlink("../../../../outside", root / "files/etc/escape")
    os.symlink("loop", root / "files/etc/loop")
    host = SnapshotHost(str(root))
    for _ in range(2):
        assert host.read_text("/etc/link.conf") == "x=1\n"
        assert host.realpath("/etc/link.conf") == "/etc/real.conf"
        assert not host.exists("/etc/nothing/below")
        assert not host.exists("/etc/loop")
        with pytest.raises(FileMissing):
            host.read_text("/etc/real.conf/below")
        with pytest.raises(PathRefused):
            host.read_text("/etc/escape")


def test_host_info_is_made_once_per_origin(tmp_path: Path) -> None:
    root = build_snapshot(tmp_path / "snap")
    host = SnapshotHost(str(root))
    first = host.info()
    assert host.info() is first and first.origin == str(root) and first.hostname == "node-07"
    host.origin = "ticket-1234.txt"  # what a pasted-text host does after SnapshotHost.__init__
    assert host.info().origin == "ticket-1234.txt" and host.info().hostname == "node-07"


def test_a_command_is_looked_for_in_one_listing_of_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = build_snapshot(tmp_path / "snap")
    host = SnapshotHost(str(root))
    seen = _counting_lstat(monkeypatch)
    assert host.run(["npu-smi", "info"]).stdout.startswith("+----+")
    assert host.run(["dmesg"]).returncode == 1
    assert host.run(["hccn_tool", "-i", "0", "-ip", "-g"]).status.value == "not_found"
    # commands/ itself and the three files that are there; no lstat of a name the folder lacks
    assert sorted(p.rsplit("/", 1)[-1] for p in seen) == ["commands", "dmesg.err", "dmesg.out", "dmesg.rc",
                                                         "npu-smi_info.out"]


def test_a_linked_commands_folder_or_command_file_is_still_refused(tmp_path: Path) -> None:
    root = build_snapshot(tmp_path / "snap")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.out").write_text("not in the snapshot\n")
    os.symlink(str(tmp_path / "outside" / "secret.out"), root / "commands" / "cat_secret.out")
    host = SnapshotHost(str(root))
    assert host.run(["cat", "secret"]).status.value == "error"
    linked = build_snapshot(tmp_path / "linked")
    os.rename(linked / "commands", tmp_path / "real-commands")
    os.symlink(str(tmp_path / "real-commands"), linked / "commands")
    result = SnapshotHost(str(linked)).run(["npu-smi", "info"])
    assert result.status.value == "error" and "refused" in result.detail and not result.stdout
