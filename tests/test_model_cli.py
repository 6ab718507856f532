"""`ascend-doctor model inspect | manifest | verify`: output, exit codes, progress only on stderr."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ascend_doctor.cli import main

from .clirunner import make_runner
from .test_model_inspect import HF_MODELING, make_fp8


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False)


def test_inspect_text_and_json(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "r1", HF_MODELING)
    result = invoke("model", "inspect", str(root))
    assert result.exit_code == 0, result.output
    assert "provenance: HuggingFace original FP8" in result.output
    assert "modeling_deepseek.py:4" in result.output and "No problems found." in result.output
    result = invoke("model", "inspect", str(root), "--format", "json", "-o", str(tmp_path / "f.json"))
    assert result.exit_code == 0
    doc = json.loads((tmp_path / "f.json").read_text())
    assert doc["provenance"]["kind"] == "hf-fp8" and doc["weights"]["params_by_dtype"]["F8_E4M3"] > 0


def test_inspect_exit_code_on_problems(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "r1")
    os.remove(root / "model-00002-of-00002.safetensors")
    result = invoke("model", "inspect", str(root))
    assert result.exit_code == 1 and "[shard-missing]" in result.output
    result = invoke("model", "inspect", str(tmp_path / "nowhere"))
    assert result.exit_code == 1 and "does not exist" in result.output


def test_manifest_then_verify(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "r1")
    manifest = tmp_path / "manifest.json"
    result = invoke("model", "manifest", str(root), "-o", str(manifest), "--no-progress", "-j", "2")
    assert result.exit_code == 0, result.output
    assert json.loads(manifest.read_text())["file_count"] == 6
    result = invoke("model", "verify", str(root), str(manifest))
    assert result.exit_code == 0 and result.output.startswith("OK: 6 matched")
    (root / "config.json").write_text("{}")
    result = invoke("model", "verify", str(root), str(manifest), "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["mismatched"][0]["path"] == "config.json"


def test_manifest_sha256sum_format_and_verify(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "r1")
    sums = tmp_path / "SHA256SUMS"
    assert invoke("model", "manifest", str(root), "--sha256sum", "-o", str(sums)).exit_code == 0
    assert len(sums.read_text().splitlines()) == 6
    assert invoke("model", "verify", str(root), str(sums)).exit_code == 0


def test_progress_goes_to_stderr_only(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "r1")
    result = make_runner().invoke(main, ["model", "manifest", str(root), "--progress"], catch_exceptions=False)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["format"] == "ascend-doctor-manifest"  # stdout is pure JSON


def test_unusable_inputs(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    root = make_fp8(tmp_path / "r1")
    result = invoke("model", "verify", str(root), str(bad))
    assert result.exit_code == 3 and "manifest unusable" in result.output
    result = invoke("model", "manifest", str(tmp_path / "nowhere"))
    assert result.exit_code == 2


def test_help_has_examples() -> None:
    for sub in ("inspect", "manifest", "verify"):
        result = invoke("model", sub, "--help")
        assert result.exit_code == 0 and "Examples:" in result.output
