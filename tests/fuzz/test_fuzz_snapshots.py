"""Fuzzers for the snapshot loader: directory snapshots and archives built by the test.

A snapshot comes from someone else's machine. Whatever it holds (mutated JSON, FIFOs, links
out of the jail or into loops, deep folders, hostile archive members and corrupt archives), only
``SnapshotError`` may come out of opening it, only ``HostFileError`` out of reading from it, a
check run on it ends with a report (never "internal error" or a check that itself failed),
nothing is written outside its private folder, and that folder is gone after ``close()``.
"""

from __future__ import annotations

import io
import os
import tarfile
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

from hypothesis import given
from hypothesis import strategies as st

from ascend_doctor.cli import main
from ascend_doctor.host.base import HostFileError, SnapshotError
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.tempdirs import remove_tree

from ..clirunner import make_runner
from .harness import REPO, check_contract, mutated, slow_examples, watchdog

BASE = REPO / "fixtures" / "healthy-8x910B3"


def _base_files() -> Dict[str, bytes]:
    files: Dict[str, bytes] = {}
    for folder, _dirs, names in os.walk(BASE):
        for name in names:
            path = Path(folder, name)
            if not path.is_symlink():
                files[str(path.relative_to(BASE))] = path.read_bytes()
    return files


BASE_FILES = _base_files()
NAMES = sorted(BASE_FILES)
LINK_TARGETS = ["/etc/passwd", "../../../../../../etc/shadow", "..", ".", "snapshot.json", "loop", "/proc/kmsg",
                "/usr/local/Ascend/driver/version.info", "../" * 40 + "etc", "x" * 300]
CHECK = ["--select", "ASC-DRV,ASC-SMI,ASC-LOG,ASC-SYS,ASC-CTR,ASC-PY", "--format", "json"]


def exercise(host: SnapshotHost) -> None:
    """Every kind of read, each allowed to fail only with HostFileError."""
    reads: List[Callable[[], Any]] = [
        host.info, host.env, host.processes, host.listening_sockets, host.memory, host.cpu_count, host.python_env,
        lambda: host.run(["npu-smi", "info"]), lambda: host.run(["dmesg"]),
        lambda: host.read_text("/usr/local/Ascend/driver/version.info"),
        lambda: host.listdir("/usr/local/Ascend"), lambda: host.listdir("/root/ascend/log/debug/plog"),
        lambda: host.stat("/usr/local/Ascend/ascend-toolkit/latest"),
        lambda: host.realpath("/usr/local/Ascend/ascend-toolkit/latest/version.cfg"),
        lambda: host.exists("/dev/davinci0"), lambda: host.disk_usage("/data"),
    ]
    for read in reads:
        check_contract(read, (HostFileError,))


def grade(snapshot: str) -> None:
    """A check run on the snapshot ends in a report or a one-line refusal (exit 3)."""
    with watchdog():
        result = make_runner().invoke(main, ["check", "--from", snapshot, *CHECK])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 3), result.output[-500:]
    assert "error: internal error" not in result.output and "Traceback (most recent" not in result.output, \
        result.output[-500:]
    assert "the check itself failed" not in result.output, result.output[-2000:]


# -- directory snapshots ------------------------------------------------------------------------

@st.composite
def tree_changes(draw: Any) -> List[Tuple[str, str, Any]]:
    changes = []
    for _ in range(draw(st.integers(1, 4))):
        name = draw(st.sampled_from(NAMES))
        kind = draw(st.sampled_from(("content", "content", "symlink", "fifo", "delete", "deep")))
        if kind == "content":
            text = BASE_FILES[name].decode("utf-8", "replace")
            changes.append((name, kind, draw(mutated([text]))))
        elif kind == "symlink":
            changes.append((name, kind, draw(st.sampled_from(LINK_TARGETS))))
        elif kind == "deep":
            changes.append(("files/root/ascend/log/debug/plog", kind, draw(st.integers(1, 120))))
        else:
            changes.append((name, kind, None))
    return changes


def _apply(root: Path, changes: List[Tuple[str, str, Any]]) -> None:
    for name, kind, value in changes:
        path = root / name
        if kind == "deep":
            deep = path.joinpath(*(["d"] * value))
            deep.mkdir(parents=True, exist_ok=True)
            (deep / "plog-1_20990101000000000.log").write_text("EZ9999: Inner Error!\n")
            continue
        if os.path.islink(path) or (os.path.lexists(path) and not path.is_dir()):
            path.unlink()
        elif path.is_dir():
            continue  # a real folder (made by an earlier change): leave it
        if kind == "content":
            path.write_text(value, encoding="utf-8", errors="surrogateescape")
        elif kind == "symlink":
            os.symlink(value, path)
        elif kind == "fifo":
            os.mkfifo(path)


@slow_examples
@given(changes=tree_changes())
def test_fuzz_directory_snapshot(changes: List[Tuple[str, str, Any]]) -> None:
    work = Path(tempfile.mkdtemp(prefix="fuzz-snapdir-"))
    try:
        snap = work / "snap"
        for name, data in BASE_FILES.items():
            (snap / name).parent.mkdir(parents=True, exist_ok=True)
            (snap / name).write_bytes(data)
        os.symlink("8.0.0", snap / "files/usr/local/Ascend/ascend-toolkit/latest")
        _apply(snap, changes)
        host = check_contract(lambda: SnapshotHost(str(snap)), (SnapshotError,))
        if host is not None:
            exercise(host)
            host.close()
        grade(str(snap))
    finally:
        assert remove_tree(str(work))


# -- archives -----------------------------------------------------------------------------------

_SEGMENTS = ["files", "commands", "usr", "local", "Ascend", "driver", "version.info", "..", ".", "", "d",
             "root", "ascend", "log", "plog-1.log", "é名", "x" * 120, "snapshot.json", "npu-smi_info.out"]
_TYPES = [tarfile.REGTYPE, tarfile.REGTYPE, tarfile.REGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE,
          tarfile.CHRTYPE, tarfile.FIFOTYPE]


@st.composite
def members(draw: Any) -> List[Tuple[str, bytes, str, bytes]]:
    """(name, type, link target, data) of each archive member."""
    out = []
    if draw(st.booleans()):
        out.append(("snapshot.json", tarfile.REGTYPE, "", BASE_FILES["snapshot.json"]))
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            name = draw(st.sampled_from(NAMES))
        else:
            name = "/".join(draw(st.lists(st.sampled_from(_SEGMENTS), min_size=1, max_size=6)))
            if draw(st.integers(0, 9)) == 0:
                name = "/" + name
        kind = draw(st.sampled_from(_TYPES))
        link = draw(st.sampled_from(LINK_TARGETS + NAMES[:5])) if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE) else ""
        data = b""
        if kind == tarfile.REGTYPE:
            seed = BASE_FILES.get(name, b"Version=24.1.rc2.2\n").decode("utf-8", "replace")
            data = draw(mutated([seed], max_steps=2)).encode("utf-8", "surrogateescape")
        out.append((name, kind, link, data))
    return out


def _write_archive(path: Path, entries: List[Tuple[str, bytes, str, bytes]], fmt: int) -> None:
    with tarfile.open(path, "w:gz", format=fmt) as tar:
        for name, kind, link, data in entries:
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = link
            info.size = len(data) if kind == tarfile.REGTYPE else 0
            info.mtime = 1_700_000_000
            tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


@given(entries=members(), fmt=st.sampled_from([tarfile.GNU_FORMAT, tarfile.PAX_FORMAT]),
       damage=st.one_of(st.none(), st.tuples(st.sampled_from(["cut", "flip"]), st.floats(0, 1))))
def test_fuzz_snapshot_archive(entries: List[Tuple[str, bytes, str, bytes]], fmt: int, damage: Any) -> None:
    work = Path(tempfile.mkdtemp(prefix="fuzz-snaptar-"))
    unpack_here = work / "tmp"
    unpack_here.mkdir()
    saved = tempfile.tempdir
    try:
        archive = work / "snap.tar.gz"
        _write_archive(archive, entries, fmt)
        if damage is not None:
            data = bytearray(archive.read_bytes())
            where = int(damage[1] * (len(data) - 1))
            if damage[0] == "cut":
                del data[where:]
            else:
                data[where] ^= 0xFF
            archive.write_bytes(bytes(data))
        tempfile.tempdir = str(unpack_here)  # where SnapshotHost unpacks, to check it is cleaned
        host = check_contract(lambda: SnapshotHost(str(archive)), (SnapshotError,))
        if host is not None:
            exercise(host)
            host.close()
        assert os.listdir(unpack_here) == []  # the private copy is gone, refused or not
        assert sorted(os.listdir(work)) == ["snap.tar.gz", "tmp"]  # nothing written beside it
    finally:
        tempfile.tempdir = saved
        assert remove_tree(str(work))


@slow_examples
@given(changes=st.lists(st.sampled_from(NAMES), min_size=1, max_size=3), data=st.data())
def test_fuzz_snapshot_archive_grades(changes: List[str], data: Any) -> None:
    """A well-formed archive with mutated content grades like a directory snapshot."""
    work = Path(tempfile.mkdtemp(prefix="fuzz-snapgrade-"))
    try:
        files = dict(BASE_FILES)
        for name in changes:
            files[name] = data.draw(mutated([files[name].decode("utf-8", "replace")])).encode("utf-8",
                                                                                             "surrogateescape")
        archive = work / "snap.tar.gz"
        _write_archive(archive, [(n, tarfile.REGTYPE, "", d) for n, d in files.items()], tarfile.PAX_FORMAT)
        grade(str(archive))
    finally:
        assert remove_tree(str(work))
