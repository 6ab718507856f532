"""`snapshot --model DIR`: model metadata (never the weights) recorded, then graded with `check --from`."""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from ascend_doctor import capture
from ascend_doctor.host.base import HostFileError
from ascend_doctor.host.model_record import MODEL_LISTING, record_models
from ascend_doctor.host.snapshot import SnapshotHost

from .test_snapshot_capture import FakeLiveHost

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Real-format model folders of the scenario fixtures: one ready, three with the problems the
# model checks exist for (a half download, a copied HF cache of links, FP8 weights on 910B).
MODELS = [
    ("w8a8-weights-ready", "/data/models/DeepSeek-R1-W8A8"),
    ("half-downloaded-weights", "/data/models/DeepSeek-R1-BF16"),
    ("hf-cache-copied-links", "/data/models/DeepSeek-R1-Distill-Qwen-1.5B"),
    ("hf-fp8-weights-on-910b", "/data/models/DeepSeek-R1"),
]


def _capture(tmp_path: Path, fixture: str, model: str) -> Path:
    """A snapshot taken as `snapshot -o DIR/ --model MODEL` would, on a fake machine tree."""
    fs_root = str(FIXTURES / fixture / "files")
    out = tmp_path / "snap"
    capture.capture_snapshot(f"{out}/", timeout_s=1.0, host=FakeLiveHost({}), fs_root=fs_root)
    record_models(str(out), [model], fs_root=fs_root)
    return out


def _check(*args: str) -> Dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--format", "json",
                           "--select", "ASC-MDL", *args], capture_output=True, timeout=300)
    assert done.returncode in (0, 1, 3), done.stderr.decode()
    report: Dict[str, Any] = json.loads(done.stdout)
    return report


def _statuses(report: Dict[str, Any]) -> List[Tuple[str, str]]:
    return sorted((r["id"], r["status"]) for r in report["results"])


@pytest.mark.parametrize("fixture,model", MODELS)
def test_check_from_snapshot_grades_the_model_like_the_folder_itself(tmp_path: Path, fixture: str,
                                                                     model: str) -> None:
    snap = _capture(tmp_path, fixture, model)
    folder = FIXTURES / fixture / "files" / model.lstrip("/")
    from_snapshot = _check("--from", str(snap), "--model", model)
    on_folder = _check("--model", str(folder))
    assert _statuses(from_snapshot) == _statuses(on_folder)
    assert any(status != "SKIP" for _, status in _statuses(from_snapshot))


def test_record_holds_headers_sizes_and_links_never_tensor_data(tmp_path: Path) -> None:
    snap = _capture(tmp_path, "w8a8-weights-ready", "/data/models/DeepSeek-R1-W8A8")
    listing = json.loads((snap / MODEL_LISTING).read_text())
    entries = listing["entries"]
    folder = FIXTURES / "w8a8-weights-ready/files/data/models/DeepSeek-R1-W8A8"
    for path in folder.iterdir():
        entry = entries[f"/data/models/DeepSeek-R1-W8A8/{path.name}"]
        assert entry["size"] == path.stat().st_size
        if path.name.endswith(".safetensors"):
            raw = path.read_bytes()
            (length,) = struct.unpack("<Q", raw[:8])
            stored = (snap / "model/files/data/models/DeepSeek-R1-W8A8" / path.name).read_bytes()
            assert stored == raw[:8 + length] and len(stored) < len(raw)
    assert (snap / "model/files/data/models/DeepSeek-R1-W8A8/config.json").read_bytes() == \
        (folder / "config.json").read_bytes()
    assert not (snap / "model/files/data/models/DeepSeek-R1-W8A8/README.md").exists()


def test_links_of_a_copied_hf_cache_are_recorded_with_their_targets(tmp_path: Path) -> None:
    model = "/data/models/DeepSeek-R1-Distill-Qwen-1.5B"
    snap = _capture(tmp_path, "hf-cache-copied-links", model)
    entries = json.loads((snap / MODEL_LISTING).read_text())["entries"]
    folder = FIXTURES / "hf-cache-copied-links/files" / model.lstrip("/")
    links = [p for p in folder.iterdir() if p.is_symlink()]
    assert links
    for link in links:
        assert entries[f"{model}/{link.name}"]["target"] == os.readlink(link)
    host = SnapshotHost(str(snap))
    assert host.readlink(f"{model}/{links[0].name}") == os.readlink(links[0])


def test_tensor_data_is_not_in_the_snapshot(tmp_path: Path) -> None:
    """A 2 GiB (sparse) shard: only its header is recorded; reading past it says why."""
    root = tmp_path / "machine"
    folder = root / "data/models/big"
    folder.mkdir(parents=True)
    header = json.dumps({"w": {"dtype": "BF16", "shape": [1024, 1024, 1024], "data_offsets": [0, 2 ** 31]}}).encode()
    shard = folder / "model.safetensors"
    with shard.open("wb") as fh:
        fh.write(struct.pack("<Q", len(header)) + header)
        fh.truncate(8 + len(header) + 2 ** 31)
    (folder / "config.json").write_text('{"model_type": "llama"}')
    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "snapshot.json").write_text("{}")
    record_models(str(snap), ["/data/models/big"], fs_root=str(root))
    stored = snap / "model/files/data/models/big/model.safetensors"
    assert stored.stat().st_size == 8 + len(header)
    host = SnapshotHost(str(snap))
    st = host.stat("/data/models/big/model.safetensors")
    assert st is not None and st.size == 8 + len(header) + 2 ** 31
    with host.open_binary("/data/models/big/model.safetensors") as fh:
        assert fh.read(8 + len(header)).endswith(header)
        with pytest.raises(HostFileError, match="are in the snapshot"):
            fh.read(1024)


def test_model_not_in_the_snapshot_is_skipped_not_failed(tmp_path: Path) -> None:
    snap = _capture(tmp_path, "w8a8-weights-ready", "/data/models/DeepSeek-R1-W8A8")
    report = _check("--from", str(snap), "--model", "/data/models/Other-Model")
    assert not [r for r in report["results"] if r["status"] == "FAIL"]
    assert any("/data/models/Other-Model is not in the snapshot" in r["message"] for r in report["results"])


def test_verify_on_a_recorded_model_is_skipped(tmp_path: Path) -> None:
    model = "/data/models/DeepSeek-R1-W8A8"
    snap = _capture(tmp_path, "w8a8-weights-ready", model)
    report = _check("--from", str(snap), "--model", model, "--verify",
                    str(FIXTURES / "w8a8-weights-ready/manifest.json"))
    verify = [r for r in report["results"] if r["id"] == "ASC-MDL-013"]
    assert verify and verify[0]["status"] == "SKIP" and "not in the snapshot" in verify[0]["message"]


def test_hostile_model_listing_cannot_read_outside_the_snapshot(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    (snap / "model").mkdir(parents=True)
    (snap / "snapshot.json").write_text("{}")
    (tmp_path / "secret").write_text("secret")
    listing = {"format": 1, "models": [{"path": "/m"}], "entries": {
        "/m": {"type": "dir"},
        "/m/config.json": {"type": "link", "target": "../../../secret", "real": "/../../secret"},
        "/../../secret": {"type": "file", "size": 6, "stored": 6},
        "/m/a.json": {"type": "file", "size": 6, "stored": 6}}}
    (snap / MODEL_LISTING).write_text(json.dumps(listing))
    host = SnapshotHost(str(snap))
    for path in ("/m/config.json", "/m/a.json"):
        with pytest.raises(HostFileError):
            host.read_bytes(path)
    assert host.listdir("/m") == ["a.json", "config.json"]


@pytest.mark.parametrize("kind", ["link-out", "file", "absent"])
def test_the_model_folder_is_looked_for_as_every_other_file(tmp_path: Path, kind: str) -> None:
    """SnapshotHost looks for model/ before it imports the module that reads a recorded model:
    a link out of the snapshot is still refused, and a file or nothing there means no model."""
    from ascend_doctor.host.base import SnapshotError

    snap = tmp_path / "snap"
    snap.mkdir()
    (snap / "snapshot.json").write_text("{}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "model.json").write_text(json.dumps({"format": 1, "models": [], "entries": {}}))
    if kind == "link-out":
        (snap / "model").symlink_to(outside)
        with pytest.raises(SnapshotError, match=re.escape("model/model.json")):
            SnapshotHost(str(snap))
        return
    if kind == "file":
        (snap / "model").write_text("not a folder")
    host = SnapshotHost(str(snap))
    assert not host.recorded_model("/m")
