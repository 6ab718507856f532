"""Manifests: write, parse (ours and sha256sum), verify in parallel, report each difference."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import threading
from pathlib import Path
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.model.files import LocalFiles
from ascend_doctor.model.manifest import (
    Manifest,
    ManifestEntry,
    ManifestError,
    build_manifest,
    hash_file,
    parse_manifest,
    parse_sha256sum,
    verify_manifest,
)

SAMPLES = Path(__file__).parent / "samples" / "model-dirs"
SRC = LocalFiles()


def make_dir(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text('{"model_type": "deepseek_v3"}')
    for i in range(1, 4):
        (root / f"model-0000{i}-of-00003.safetensors").write_bytes(os.urandom(1000 * i) * 300)
    (root / "sub").mkdir()
    (root / "sub" / "tokenizer.json").write_text("{}")
    cache = root / ".cache" / "huggingface"
    cache.mkdir(parents=True)
    (cache / "x.metadata").write_text("per-node state, not part of the model")
    return root


def test_manifest_round_trip_and_verify_ok(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "m")
    manifest, problems = build_manifest(SRC, str(root), workers=3)
    assert problems == []
    paths = [e.path for e in manifest.entries]
    assert paths == sorted(paths) and "sub/tokenizer.json" in paths
    assert not any(p.startswith(".cache") for p in paths)
    entry = manifest.entries[0]
    assert entry.sha256 == hashlib.sha256((root / entry.path).read_bytes()).hexdigest()
    reparsed = parse_manifest(manifest.to_json().encode())
    assert reparsed.entries == manifest.entries and reparsed.kind == "json"
    result = verify_manifest(SRC, str(root), reparsed, workers=2)
    assert result.ok and result.matched == len(paths)
    assert result.bytes_hashed == sum((root / p).stat().st_size for p in paths)


def test_each_difference_is_reported(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "m")
    manifest, _ = build_manifest(SRC, str(root))
    # same size, different bytes -> sha256 mismatch; different size -> size mismatch (not hashed)
    data = bytearray((root / "model-00001-of-00003.safetensors").read_bytes())
    data[-1] ^= 0xFF
    (root / "model-00001-of-00003.safetensors").write_bytes(bytes(data))
    with open(root / "model-00002-of-00003.safetensors", "ab") as fh:
        fh.write(b"x")
    os.remove(root / "model-00003-of-00003.safetensors")
    (root / "stray.bin").write_bytes(b"1")
    result = verify_manifest(SRC, str(root), manifest)
    assert not result.ok
    assert [(m.path, m.reason) for m in result.mismatched] == [
        ("model-00001-of-00003.safetensors", "sha256"), ("model-00002-of-00003.safetensors", "size")]
    assert result.missing == ["model-00003-of-00003.safetensors"]
    assert result.extra == ["stray.bin"]
    doc = result.to_dict()
    assert doc["ok"] is False and doc["mismatched"][1]["expected"] == str(600_000)


def test_sha256sum_file_from_coreutils_is_accepted(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "m")
    out = subprocess.run("sha256sum config.json model-*.safetensors sub/tokenizer.json", shell=True, cwd=root,
                         capture_output=True, text=True, check=True).stdout
    manifest = parse_manifest(out.encode())
    assert manifest.kind == "sha256sum" and len(manifest.entries) == 5
    assert verify_manifest(SRC, str(root), manifest).ok
    # and ours can be checked by sha256sum -c
    ours, _ = build_manifest(SRC, str(root))
    (tmp_path / "SUMS").write_text(ours.to_sha256sum())
    check = subprocess.run(["sha256sum", "-c", str(tmp_path / "SUMS")], cwd=root, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_real_modelscope_listing_parses() -> None:
    body = (SAMPLES / "ecotech-qwen3-235b-w8a8-quarot-sha256-listing.txt").read_text().split("# ---\n", 1)[1]
    manifest = parse_sha256sum(body)
    names = [e.path for e in manifest.entries]
    assert len(names) == 20 and manifest.warnings == []
    assert "quant_model_weight_w8a8_dynamic.safetensors.index.json" in names
    assert manifest.entries[2] == ManifestEntry(
        "config.json", "299bbed39b8e408b9cec48be37b681361e673d36de7c3261f3bcea5b8e5b17f4")


def test_sha256sum_variants() -> None:
    h = "a" * 64
    text = (f"{h}  plain.json\n{h} *binary.bin\n\\{h}  we\\\\ird\\nname\nSHA256 (tagged.txt) = {h}\n"
            f"{h}  ./dotted.txt\n{h}  ../escape\n{h}  /abs\nnot a line\n")
    manifest = parse_sha256sum(text)
    assert [e.path for e in manifest.entries] == ["plain.json", "binary.bin", "we\\ird\nname", "tagged.txt",
                                                  "dotted.txt"]
    assert len(manifest.warnings) == 3


@pytest.mark.parametrize("data, needle", [
    (b"", "no sha256sum lines"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b'{"format": "other"}', "not an ascend-doctor-manifest"),
    (b'{"format": "ascend-doctor-manifest", "files": []}', "lists no files"),
    (b'{"format": "ascend-doctor-manifest", "files": [{"path": "../x", "sha256": "' + b"a" * 64 + b'"}]}',
     "lists no files"),
    (b"{broken", "invalid JSON"),
])
def test_unusable_manifests(data: bytes, needle: str) -> None:
    with pytest.raises(ManifestError) as err:
        parse_manifest(data)
    assert needle in str(err.value)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=512))
def test_parse_manifest_never_crashes(data: bytes) -> None:
    try:
        manifest = parse_manifest(data)
    except ManifestError:
        return
    assert manifest.entries


def test_sparse_file_sizes_settle_mismatch_without_reading(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    with open(root / "big.safetensors", "wb") as fh:
        fh.truncate(100 * 2**30)  # 100 GiB sparse: a size mismatch must not hash it
    manifest = Manifest([ManifestEntry("big.safetensors", "0" * 64, 5)])
    result = verify_manifest(SRC, str(root), manifest)
    assert result.mismatched[0].reason == "size" and result.bytes_hashed == 0


def test_progress_callback_counts_every_byte_across_threads(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "p")
    total: List[int] = []
    lock = threading.Lock()

    def advance(n: int) -> None:
        with lock:
            total.append(n)

    manifest, _ = build_manifest(SRC, str(root), workers=4, on_bytes=advance)
    assert sum(total) == manifest.total_bytes


def test_hash_file_matches_hashlib(tmp_path: Path) -> None:
    path = tmp_path / "f"
    data = os.urandom(9 * 1024 * 1024 + 7)  # spans several 4 MiB chunks
    path.write_bytes(data)
    assert hash_file(SRC, str(path)) == (hashlib.sha256(data).hexdigest(), len(data))


def test_unreadable_and_broken_link_entries(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "u")
    manifest, _ = build_manifest(SRC, str(root))
    os.remove(root / "config.json")
    os.symlink("nowhere", root / "config.json")
    result = verify_manifest(SRC, str(root), manifest)
    assert result.unreadable and result.unreadable[0][0] == "config.json"
    assert result.missing == []


def test_json_manifest_shape(tmp_path: Path) -> None:
    root = make_dir(tmp_path / "j")
    manifest, _ = build_manifest(SRC, str(root))
    doc = json.loads(manifest.to_json())
    assert doc["format"] == "ascend-doctor-manifest" and doc["version"] == 1 and doc["algorithm"] == "sha256"
    assert doc["file_count"] == 5 and set(doc["files"][0]) == {"path", "size", "sha256"}
