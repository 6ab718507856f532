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
