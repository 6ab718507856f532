"""`model manifest` then `model verify` of the same folder passes, in both formats, with the
manifest written inside the folder; every depth is covered; the file-count limit is named.

Rows refer to ../shared/research/hostile_inputs.md.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ascend_doctor.cli import main
from ascend_doctor.model.manifest import ManifestError, parse_manifest

from .clirunner import make_runner

REPO = Path(__file__).resolve().parent.parent
HEALTHY = REPO / "fixtures" / "healthy-8x910B3"
MODEL = REPO / "fixtures" / "w8a8-weights-ready" / "files" / "data" / "models" / "DeepSeek-R1-W8A8"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture()
def model(tmp_path: Path) -> Path:
    folder = tmp_path / "mdl"
    shutil.copytree(MODEL, folder)
    return folder


@pytest.mark.parametrize("name, extra", [("manifest.json", []), ("SHA256SUMS", ["--sha256sum"])])
def test_row_187_M25_manifest_inside_the_folder_verifies(model: Path, name: str, extra: list,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(model)
    for _ in range(2):  # written twice: the second run must not list the first manifest either
        result = invoke("model", "manifest", ".", *extra, "-o", name)
        assert result.exit_code == 0, result.output
    listed = (model / name).read_text()
    assert name not in listed
    verified = invoke("model", "verify", ".", name)
    assert verified.exit_code == 0, verified.output
    assert "EXTRA" not in verified.output and "DIFFERENT" not in verified.output
    # the documented multi-node check: check --model . --verify SHA256SUMS
    checked = invoke("check", "--model", ".", "--verify", name, "--select", "ASC-MDL-013", "--format", "json")
    rows = json.loads(checked.stdout)["results"]
    assert [r["status"] for r in rows] == ["PASS"], rows


def test_row_187_verify_output_into_the_model_folder_refused(model: Path) -> None:
    """A report written into the folder would be an "extra file" on the next verify."""
    assert invoke("model", "manifest", str(model), "-o", str(model / "manifest.json")).exit_code == 0
    result = invoke("model", "verify", str(model), str(model / "manifest.json"), "-o", str(model / "verify.txt"))
    assert result.exit_code == 2 and "inside the input folder" in result.output
    assert not (model / "verify.txt").exists()
    assert invoke("model", "verify", str(model), str(model / "manifest.json")).exit_code == 0


def test_row_98_M22_every_depth_is_hashed_and_verified(tmp_path: Path) -> None:
    m_depth = tmp_path / "m_depth5"
    deep = m_depth / "a" / "b" / "c" / "d" / "e"
    deep.mkdir(parents=True)
    (m_depth / "config.json").write_text("{}")
    (deep.parent / "w4.bin").write_bytes(b"4" * 100)
    (deep / "weights.safetensors").write_bytes(b"5" * 100)
    very_deep = m_depth.joinpath(*(["d"] * 200))
    very_deep.mkdir(parents=True)
    (very_deep / "bottom.bin").write_bytes(b"x")
    manifest = tmp_path / "d5.json"
    assert invoke("model", "manifest", str(m_depth), "-o", str(manifest)).exit_code == 0
    paths = {f["path"] for f in json.loads(manifest.read_text())["files"]}
    assert "a/b/c/d/e/weights.safetensors" in paths and "/".join(["d"] * 200) + "/bottom.bin" in paths
    assert invoke("model", "verify", str(m_depth), str(manifest)).exit_code == 0
    (deep / "weights.safetensors").write_bytes(b"6" * 100)  # corrupted, same size
    result = invoke("model", "verify", str(m_depth), str(manifest))
    assert result.exit_code == 1 and "a/b/c/d/e/weights.safetensors" in result.output


def test_row_M23_file_count_limit_is_named(tmp_path: Path) -> None:
    m_many = tmp_path / "m_many"
    m_many.mkdir()
    (m_many / "config.json").write_text("{}")
    for n in range(60):
        (m_many / f"f{n}.bin").write_bytes(b"")
    result = invoke("model", "manifest", str(m_many), "--max-files", "50", "-o", str(tmp_path / "m.json"))
    assert result.exit_code == 3
    assert "more than 50 files and folders" in result.output and "--max-files" in result.output
    assert not (tmp_path / "m.json").exists()
    assert invoke("model", "manifest", str(m_many), "--max-files", "100", "-o", str(tmp_path / "m.json")).exit_code == 0
    assert "10000" in invoke("model", "manifest", "--help").stdout  # the default limit is documented


def test_row_108_duplicate_entries_counted_once(model: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "man.json"
    assert invoke("model", "manifest", str(model), "-o", str(manifest)).exit_code == 0
    doc = json.loads(manifest.read_text())
    count = len(doc["files"])
    doc["files"] = doc["files"] * 2
    dup = tmp_path / "man_dup.json"
    dup.write_text(json.dumps(doc))
    result = invoke("model", "verify", str(model), str(dup), "--format", "json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["matched"] == count
    assert any("duplicate" in w for w in data["warnings"])
    sums = "".join(f"{f['sha256']}  {f['path']}\n" for f in doc["files"])
    assert len(parse_manifest(sums.encode()).entries) == count


def test_row_108_conflicting_duplicates_are_reported() -> None:
    text = f"{'a' * 64}  x.bin\n{'b' * 64}  x.bin\n"
    manifest = parse_manifest(text.encode())
    assert len(manifest.entries) == 1 and any("listed twice" in w for w in manifest.warnings)


def test_row_112_newer_manifest_version_refused(model: Path, tmp_path: Path) -> None:
    manifest = tmp_path / "man.json"
    assert invoke("model", "manifest", str(model), "-o", str(manifest)).exit_code == 0
    doc = json.loads(manifest.read_text())
    doc["version"] = 99
    (tmp_path / "man_version99.json").write_text(json.dumps(doc))
    result = invoke("model", "verify", str(model), str(tmp_path / "man_version99.json"))
    assert result.exit_code == 3 and "manifest version 99" in result.output
    with pytest.raises(ManifestError):
        parse_manifest(json.dumps({**doc, "version": True}).encode())


def test_manifest_refuses_device_output(tmp_path: Path, model: Path) -> None:
    os.mkfifo(tmp_path / "out.fifo")
    result = invoke("model", "manifest", str(model), "-o", str(tmp_path / "out.fifo"))
    assert result.exit_code == 2 and "FIFO" in result.output
