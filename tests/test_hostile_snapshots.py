"""Hostile snapshot archives and snapshot.json values (docs/input-limits.md).

``test_row<N>_...`` reproduces row N of the field review of hostile inputs (shared research
notes, "hostile_inputs.md"), building the input as its section 5 describes.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import time
import tracemalloc
import zlib
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from ascend_doctor.cli import main
from ascend_doctor.host import snapshot as snapmod
from ascend_doctor.host import snapshot_layout
from ascend_doctor.host.base import SnapshotError
from ascend_doctor.host.snapshot import MAX_MEMBER_DEPTH, SnapshotHost, safe_extract
from ascend_doctor.tempdirs import remove_tree

from .clirunner import make_runner

REPO = Path(__file__).resolve().parent.parent


def _meta(fmt: Any = 1, **extra: Any) -> Tuple[tarfile.TarInfo, bytes]:
    data = json.dumps({"format": fmt, **extra}).encode()
    info = tarfile.TarInfo("snapshot.json")
    info.size = len(data)
    return info, data


def _archive(path: Path, members: List[Tuple[tarfile.TarInfo, bytes]], fmt: int = tarfile.GNU_FORMAT) -> Path:
    with tarfile.open(path, "w:gz", format=fmt) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data))
    return path


def _file(name: str, data: bytes = b"") -> Tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _raw_gz(path: Path, *blocks: bytes) -> Path:
    with gzip.open(path, "wb") as fh:
        for block in blocks:
            fh.write(block)
    return path


def _check(archive: Path, *extra: str) -> Any:
    return make_runner().invoke(main, ["check", "--from", str(archive), "--select", "ASC-DRV,ASC-LOG,ASC-CTR-001",
                                     *extra], catch_exceptions=False)


# -- damaged and bombed archives (rows 17, 21, 22) ---------------------------------------------


def test_row17_truncated_member_data_is_a_damaged_archive(tmp_path: Path) -> None:
    info, data = _meta()
    dmesg = tarfile.TarInfo("commands/dmesg.out")
    dmesg.size = 100 * 1024 * 1024  # declares 100 MiB, only "abc" follows
    archive = _raw_gz(tmp_path / "truncated_data.tar.gz", info.tobuf(format=tarfile.GNU_FORMAT),
                      data + b"\0" * (-len(data) % 512), dmesg.tobuf(format=tarfile.GNU_FORMAT), b"abc")
    with pytest.raises(SnapshotError, match="damaged archive"):
        SnapshotHost(str(archive))
    result = _check(archive)
    assert result.exit_code == 3 and "internal error" not in result.output and "ReadError" not in result.output


def _header_bomb(path: Path, kind: bytes, declared: int, present: int) -> Path:
    """A long-name (``L``) or pax (``x``) header declaring ``declared`` bytes, ``present`` of them
    written (the review used 2 GiB of "A"s; the refusal must come before any is read)."""
    info = tarfile.TarInfo("././@LongLink" if kind == tarfile.GNUTYPE_LONGNAME else "pax")
    info.type = kind
    info.size = declared
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as fh:
        fh.write(squeeze.compress(info.tobuf(format=tarfile.GNU_FORMAT)))
        for _ in range(present // (1 << 20)):
            fh.write(squeeze.compress(b"A" * (1 << 20)))
        fh.write(squeeze.flush())
    return path


@pytest.mark.parametrize("row, kind, label", [(21, tarfile.GNUTYPE_LONGNAME, "GNU long-name"),
                                              (22, tarfile.XHDTYPE, "pax")])
def test_row21_row22_header_bombs_are_refused_before_reading(tmp_path: Path, row: int, kind: bytes,
                                                             label: str) -> None:
    archive = _header_bomb(tmp_path / f"bomb{row}.tar.gz", kind, 2 << 30, 64 << 20)
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(SnapshotError, match=f"archive refused: a {label} header of 2147483648 bytes"):
            SnapshotHost(str(archive))
        elapsed = time.monotonic() - started
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert elapsed < 2 and peak < 8 * 1024 * 1024, (elapsed, peak)


def test_chained_long_name_headers_do_not_recurse(tmp_path: Path) -> None:
    blocks = []
    for _ in range(3000):  # tarfile recurses once per header: 3000 would hit the recursion limit
        info = tarfile.TarInfo("././@LongLink")
        info.type = tarfile.GNUTYPE_LONGNAME
        info.size = 4
        blocks += [info.tobuf(format=tarfile.GNU_FORMAT), b"abc\0" + b"\0" * 508]
    archive = _raw_gz(tmp_path / "chain.tar.gz", *_meta_blocks(), *blocks)
    with pytest.raises(SnapshotError, match="extension headers in a row"):
        SnapshotHost(str(archive))


def _meta_blocks() -> List[bytes]:
    info, data = _meta()
    return [info.tobuf(format=tarfile.GNU_FORMAT), data + b"\0" * (-len(data) % 512)]


def test_pax_gnu_sparse_map_is_refused_before_it_is_read(tmp_path: Path) -> None:
    info = tarfile.TarInfo("files/sparse.bin")
    info.size = 512
    info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.name": "files/sparse.bin",
                        "GNU.sparse.realsize": "1"}
    pax = info.tobuf(format=tarfile.PAX_FORMAT)  # the pax header, then the member header
    body = b"99999999999\n" + b"1\n" * 250  # "this many blocks follow": tarfile would read to the end
    archive = _raw_gz(tmp_path / "sparse.tar.gz", *_meta_blocks(), pax, body + b"\0" * (-len(body) % 512))
    with pytest.raises(SnapshotError, match="sparse file"):
        SnapshotHost(str(archive))


def test_too_many_extension_bytes_in_the_archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshot_layout, "MAX_EXTENSION_TOTAL", 4096)  # the limits snapshot_archive reads
    members = [_meta()] + [_file("files/" + "x" * 150 + str(i)) for i in range(40)]
    archive = _archive(tmp_path / "long.tar.gz", members)
    with pytest.raises(SnapshotError, match="bytes of extension headers"):
        SnapshotHost(str(archive))


def test_real_long_names_still_unpack(tmp_path: Path) -> None:
    long_name = "files/var/log/" + "/".join(["a" * 60] * 20) + "/plog-1.log"
    for fmt in (tarfile.GNU_FORMAT, tarfile.PAX_FORMAT):
        archive = _archive(tmp_path / f"long{fmt}.tar.gz", [_meta(), _file(long_name, b"hello")], fmt)
        with SnapshotHost(str(archive)) as host:
            assert host.read_bytes(long_name[len("files"):]) == b"hello"


# -- many members (rows 23, 24) ----------------------------------------------------------------


def test_row23_more_members_than_allowed_are_refused(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "many.tar.gz", [_meta()] + [_file(f"files/dev/davinci{i}") for i in range(60)])
    (tmp_path / "out").mkdir()
    with pytest.raises(SnapshotError, match="more than 50 members"):
        safe_extract(str(archive), str(tmp_path / "out"), max_members=50)
    assert snapmod.MAX_MEMBERS >= 1000  # far above a real capture (a few hundred entries)


def test_row24_unpacking_costs_no_lstat_per_member(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear and lean: folders made once are remembered, not re-checked for every member."""
    names = [f"files/usr/local/Ascend/driver/lib64/f{i}" for i in range(2000)]
    archive = _archive(tmp_path / "many_ok.tar.gz", [_meta()] + [_file(n) for n in names])
    calls = {"lstat": 0}
    real_lstat = os.lstat

    def counting(path: Any, *args: Any, **kwargs: Any) -> Any:
        calls["lstat"] += 1
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(snapmod.os, "lstat", counting)
    (tmp_path / "out").mkdir()
    started = time.monotonic()
    safe_extract(str(archive), str(tmp_path / "out"))
    assert calls["lstat"] < 10
    assert time.monotonic() - started < 20
    assert len(os.listdir(tmp_path / "out/files/usr/local/Ascend/driver/lib64")) == 2000


def test_later_member_replaces_an_earlier_file_but_never_a_folder_or_a_link_target(tmp_path: Path) -> None:
    link = tarfile.TarInfo("files/x")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc"
    archive = _archive(tmp_path / "dup.tar.gz", [_meta(), _file("files/a", b"1"), _file("files/a", b"22"),
                                                  (link, b""), _file("files/x", b"file now")])
    with SnapshotHost(str(archive)) as host:
        assert host.read_bytes("/a") == b"22" and host.read_bytes("/x") == b"file now"
    archive = _archive(tmp_path / "through.tar.gz", [_meta(), (link, b""), _file("files/x/passwd", b"owned")])
    with pytest.raises(SnapshotError, match="not a folder"):
        SnapshotHost(str(archive))
    archive = _archive(tmp_path / "overdir.tar.gz", [_meta(), _file("files/etc/x"), _file("files/etc")])
    with pytest.raises(SnapshotError, match="replaces a folder"):
        SnapshotHost(str(archive))


# -- deep folders (rows 25, 26) ----------------------------------------------------------------


@pytest.mark.parametrize("row, depth", [(25, 3000), (26, 1500)])
def test_row25_row26_deep_archives_fail_in_one_line_and_leave_nothing(tmp_path: Path, row: int,
                                                                       depth: int) -> None:
    name = "files/root/ascend/log/debug/plog/" + "d/" * depth + "plog-1.log"
    archive = _archive(tmp_path / "deep.tar.gz", [_meta(), _file(name, b"x")])
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch))
    proc = subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--from", str(archive), "--select",
                           "ASC-DRV,ASC-LOG,ASC-CTR-001"], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr
    assert f"more than the {MAX_MEMBER_DEPTH} allowed" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not list(scratch.iterdir())  # the unpack folder is gone


def test_allowed_depth_unpacks_and_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    name = "files/root/ascend/log/" + "d/" * (MAX_MEMBER_DEPTH - 6) + "plog-1.log"
    archive = _archive(tmp_path / "deepok.tar.gz", [_meta(), _file(name, b"x")])
    with SnapshotHost(str(archive)) as host:
        assert host.read_bytes(name[len("files"):]) == b"x"
        unpacked = host._tmpdir
    assert unpacked is not None and not os.path.exists(unpacked)


def test_remove_tree_handles_deep_folders_without_recursion(tmp_path: Path) -> None:
    top = tmp_path / "deep"
    top.mkdir()
    os.chdir(top)  # relative mkdir: the chain is deeper than any recursion limit
    try:
        for _ in range(3000):
            os.mkdir("d")
            os.chdir("d")
        Path("f").write_text("x")
    finally:
        os.chdir(tmp_path)
    read_only = tmp_path / "deep/d/d"
    os.chmod(read_only, 0o500)  # a folder we cannot write into: remove_tree lets itself in
    assert remove_tree(str(top)) is True
    assert not top.exists()
    assert remove_tree(str(top)) is True  # already gone
    (tmp_path / "file").write_text("x")
    assert remove_tree(str(tmp_path / "file")) and not (tmp_path / "file").exists()


def test_row_51_deep_log_folder_in_a_directory_snapshot_is_fine(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    (snap / "files").mkdir(parents=True)
    (snap / "snapshot.json").write_text('{"format": 1, "hostname": "deep"}')
    where = snap / "files/root/ascend/log/debug"
    where.mkdir(parents=True)
    os.chdir(where)
    try:
        for _ in range(1200):
            os.mkdir("d")
            os.chdir("d")
        Path("plog-1.log").write_text("x")
    finally:
        os.chdir(tmp_path)
    try:
        result = _check(snap)
        assert result.exit_code in (0, 1) and "internal error" not in result.output
    finally:
        assert remove_tree(str(snap))  # pytest's own clean-up of old temp folders recurses


# -- snapshot.json values (rows 29-35) ---------------------------------------------------------


@pytest.mark.parametrize("row, meta", [
    (29, {"format": -1}),
    (27, {"format": "1"}),
    (28, {"format": 1.0}),
    (0, {"format": 0}),
])
def test_row29_format_must_be_a_positive_integer(tmp_path: Path, row: int, meta: Dict[str, Any]) -> None:
    info, data = _meta(**{k: v for k, v in meta.items() if k != "format"}, fmt=meta["format"])
    archive = _archive(tmp_path / "st.tar.gz", [(info, data)])
    with pytest.raises(SnapshotError, match='"format" must be a positive integer'):
        SnapshotHost(str(archive))


@pytest.mark.parametrize("row, text", [
    (30, '{"format": 1, "hostname": {"a": [1, 2]}, "arch": 12, "kernel": null, "captured_at": ["x"]}'),
    (33, '{"format": 1, "hostname": 1' + "0" * 4000 + "}"),
    (35, '{"format": 1, "hostname": NaN, "arch": -Infinity}'),
])
def test_row30_row33_row35_wrongly_typed_header_values_are_not_printed(tmp_path: Path, row: int,
                                                                      text: str) -> None:
    info = tarfile.TarInfo("snapshot.json")
    info.size = len(text)
    archive = _archive(tmp_path / f"st{row}.tar.gz", [(info, text.encode())])
    with SnapshotHost(str(archive)) as host:
        shown = host.info()
    assert shown.hostname is None and shown.arch is None and shown.captured_at is None
    result = _check(archive)
    header = result.output.splitlines()[:3]  # host, matrix, facts (the root cause's sentence follows)
    assert "internal error" not in result.output
    assert not any(bad in line for line in header for bad in ("{'a'", "0000000000", "nan", "inf", "['x']"))


def test_long_and_multiline_header_strings_are_bounded(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "long.tar.gz", [_meta(hostname="node\n\x1b[31mFAKE" + "x" * 5000, kernel="5.10")])
    with SnapshotHost(str(archive)) as host:
        shown = host.info()
    assert shown.hostname is not None and len(shown.hostname) <= snapmod.MAX_META_TEXT
    assert "\n" not in shown.hostname and "\x1b" not in shown.hostname
    assert shown.kernel == "5.10"


def test_nested_snapshot_json_is_refused_in_one_line(tmp_path: Path) -> None:
    text = '{"format": 1, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    info = tarfile.TarInfo("snapshot.json")
    info.size = len(text)
    archive = _archive(tmp_path / "nested.tar.gz", [(info, text.encode())])
    with pytest.raises(SnapshotError, match=r"snapshot\.json: the JSON is nested too deeply"):
        SnapshotHost(str(archive))


def test_row37_a_link_leading_outside_is_a_clear_result_not_a_bug(tmp_path: Path) -> None:
    snap = tmp_path / "d_symlink_out2"
    import shutil

    shutil.copytree(REPO / "fixtures/plog-aicore-error", snap, symlinks=True)
    for rel, target in (("files/etc/ascend_install.info", "../../../../../../../../etc/shadow"),
                        ("commands/dmesg.out", "/etc/shadow")):
        (snap / rel).parent.mkdir(parents=True, exist_ok=True)
        (snap / rel).unlink(missing_ok=True)
        (snap / rel).symlink_to(target)
    result = _check(snap, "--format", "json")
    assert "the check itself failed" not in result.output and "bug in ascend-doctor" not in result.output
    report = json.loads(result.output)
    refused = [r for r in report["results"] if "leads outside the snapshot" in r["message"]]
    assert refused and all(r["status"] == "ERROR" for r in refused)
    assert "root:" not in result.output  # /etc/shadow was not read


def test_link_to_a_name_longer_than_name_max_reads_as_missing(tmp_path: Path) -> None:
    """Found by the directory fuzzer: ENAMETOOLONG from lstat escaped as 'check itself failed'."""
    import shutil

    snap = tmp_path / "snap"
    shutil.copytree(REPO / "fixtures/healthy-8x910B3", snap, symlinks=True)
    for rel in ("env.json", "files/usr/local/Ascend/firmware/version.info"):
        (snap / rel).unlink(missing_ok=True)
        (snap / rel).symlink_to("x" * 300)
    result = _check(snap, "--format", "json")
    report = json.loads(result.output)
    assert not [r for r in report["results"] if r["status"] == "ERROR"], result.output[-1000:]
