"""The ASC-MDL checks: each status from small model directories, and remediations that work."""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from ascend_doctor.checkapi import CheckContext, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.facts.records import ChipSummary
from ascend_doctor.host.base import PythonEnv
from ascend_doctor.model.files import LocalFiles
from ascend_doctor.model.manifest import build_manifest
from ascend_doctor.options import RunOptions
from ascend_doctor.registry import load_catalogue
from ascend_doctor.requirements import unmet

from . import model_fixtures as F
from .test_model_inspect import HF_MODELING, build_from_tree, converted_config, make_fp8, sample, tree_names

A2 = ChipSummary(name="910B3", family="A2", chip_count=8, hbm_mb=65536)
A3 = ChipSummary(name="Ascend910", family="A3", chip_count=16, hbm_mb=65536)
P310 = ChipSummary(name="310P3", family="310P", chip_count=1, hbm_mb=24576)

Row = Tuple[str, str, str, Optional[str]]


class SeededFacts(Facts):
    """Real providers for the model facts, given values for the facts other engineers provide."""

    def __init__(self, options: RunOptions, seeded: Dict[str, Any]) -> None:
        super().__init__(LocalFiles(), options)  # type: ignore[arg-type]
        self.seed(**seeded)


def run(check: str, model_dir: Path, chip: Optional[ChipSummary] = None, env: Optional[PythonEnv] = None,
        vllm_args: Optional[str] = None, verify: Optional[str] = None) -> List[Row]:
    module = importlib.import_module(f"ascend_doctor.checks.{check}")
    options = RunOptions(model_dir=str(model_dir), vllm_args=vllm_args, verify_manifest=verify)
    facts = SeededFacts(options, {"npu_chip": chip, "python_env": env})
    ctx = CheckContext(facts=facts, matrix=None, options=options)
    missing = unmet(module.CHECK.requires, ctx)
    if missing:
        return [("SKIP", missing[1], "", None)]
    try:
        return [(f.status.value, f.message, f.remediation, f.scope) for f in module.run(ctx)]
    except NotApplicable as exc:
        return [("SKIP", str(exc), "", None)]


def statuses(rows: List[Row]) -> List[str]:
    return [r[0] for r in rows]


def make_w8a8(root: Path, tree: str = "vllm-ascend-doc-deepseek-v2-lite-w8a8-tree.txt") -> Path:
    build_from_tree(root, tree_names(sample(tree)), converted_config())
    return root


def make_bf16(root: Path) -> Path:
    root.mkdir(parents=True)
    F.write_json(str(root / "config.json"), converted_config())
    F.write_safetensors(str(root / "model.safetensors"), F.float_layer(0, "BF16"))
    F.write_tokenizer(str(root))
    return root


def test_catalogue_has_the_model_checks() -> None:
    checks, problems = load_catalogue()
    mine = [c for c in checks if c.spec.id.startswith("ASC-MDL-0") and int(c.spec.id[-3:]) < 20]
    assert not [p for p in problems if ".mdl_0" in p]
    assert len(mine) == 19
    for check in mine:
        assert set(check.spec.requires) <= {"model", "manifest"}
        assert check.module.rsplit(".", 1)[-1].startswith(f"mdl_{check.spec.id[-3:]}_")


def test_001_provenance(tmp_path: Path) -> None:
    rows = run("mdl_001_provenance", make_fp8(tmp_path / "fp8"))
    assert statuses(rows) == ["PASS"] and "F8_E4M3 tensors" in rows[0][1] and "weight_scale_inv" in rows[0][1]
    empty = tmp_path / "empty"
    empty.mkdir()
    rows = run("mdl_001_provenance", empty)
    assert statuses(rows) == ["FAIL"] and "holds no model" in rows[0][1]
    assert statuses(run("mdl_001_provenance", tmp_path / "absent")) == ["FAIL"]
    # the other model checks have nothing to say about a path with no model
    assert statuses(run("mdl_009_safetensors_headers", empty)) == ["SKIP"]


def test_002_fp8_on_910b_and_a3_fails_with_both_conversion_paths(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "DeepSeek-R1")
    for chip in (A2, A3):
        rows = run("mdl_002_fp8_on_ascend", root, chip=chip)
        assert statuses(rows) == ["FAIL"]
        fix = rows[0][2]
        assert "--from_fp8" in fix and "fp8_cast_bf16.py" in fix and "host RAM" in fix
        assert f"--model_path {root}" in fix and "DeepSeek-R1-W8A8" in fix
    assert statuses(run("mdl_002_fp8_on_ascend", root)) == ["WARN"]  # NPU unknown
    assert statuses(run("mdl_002_fp8_on_ascend", make_bf16(tmp_path / "bf16"), chip=A2)) == ["PASS"]


def test_003_flash_attn_import_and_the_fix_works(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "hf", HF_MODELING)
    rows = run("mdl_003_flash_attn", root)
    assert statuses(rows) == ["WARN"] and "modeling_deepseek.py:4" in rows[0][1]
    command = rows[0][2].splitlines()[1].strip()
    assert command.startswith("sed -i.orig")
    subprocess.run(command, shell=True, check=True)
    ast.parse((root / "modeling_deepseek.py").read_text())  # still valid Python
    assert statuses(run("mdl_003_flash_attn", root)) == ["PASS"]
    assert statuses(run("mdl_003_flash_attn", make_bf16(tmp_path / "nocode"))) == ["SKIP"]


def test_004_bf16_on_310p(tmp_path: Path) -> None:
    root = make_bf16(tmp_path / "bf16")
    rows = run("mdl_004_bf16_on_310p", root, chip=P310)
    assert statuses(rows) == ["FAIL"] and "--dtype float16" in rows[0][2]  # the 310P has no BF16 (review row 14)
    assert statuses(run("mdl_004_bf16_on_310p", root, chip=A2)) == ["SKIP"]


def test_005_quantization_flag(tmp_path: Path) -> None:
    w8a8 = make_w8a8(tmp_path / "w8a8")
    rows = run("mdl_005_quant_engine_flag", w8a8, vllm_args=f"vllm serve {w8a8} --tensor-parallel-size 16")
    assert statuses(rows) == ["FAIL"] and "--quantization ascend" in rows[0][2]
    assert statuses(run("mdl_005_quant_engine_flag", w8a8, vllm_args=f"vllm serve {w8a8} --quantization ascend"))\
        == ["PASS"]
    assert statuses(run("mdl_005_quant_engine_flag", w8a8, vllm_args="vllm serve x -q=ascend")) == ["FAIL"]
    assert statuses(run("mdl_005_quant_engine_flag", w8a8, vllm_args="vllm serve x -q ascend")) == ["PASS"]
    assert statuses(run("mdl_005_quant_engine_flag", w8a8)) == ["SKIP"]
    bf16 = make_bf16(tmp_path / "bf16")
    rows = run("mdl_005_quant_engine_flag", bf16, vllm_args="vllm serve x --quantization=ascend")
    assert statuses(rows) == ["FAIL"] and "Remove" in rows[0][2]


def test_006_transformers_version(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "fp8")  # config.json says 4.46.3
    old = PythonEnv("/usr/bin/python3", "3.10.12", {"transformers": "4.44.2"})
    new = PythonEnv("/usr/bin/python3", "3.10.12", {"Transformers": "4.48.2"})
    rows = run("mdl_006_transformers_version", root, env=old)
    assert statuses(rows) == ["WARN"] and "4.46.3" in rows[0][2]
    assert statuses(run("mdl_006_transformers_version", root, env=new)) == ["PASS"]
    assert statuses(run("mdl_006_transformers_version", root)) == ["SKIP"]


def test_007_to_012_integrity(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "bad")
    cfg = (root / "config.json").read_text()
    (root / "config.json").write_text(cfg.replace('"vocab_size"', '"model_type": "x",\n    "vocab_size"'))
    os.remove(root / "model-00002-of-00002.safetensors")
    size = os.path.getsize(root / "model-00001-of-00002.safetensors")
    os.truncate(root / "model-00001-of-00002.safetensors", size - 10)
    (root / "tokenizer.json").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:" + "1" * 64 + "\n")
    (root / "x.safetensors.part").write_bytes(b"\0")
    assert statuses(run("mdl_007_config_json", root)) == ["WARN"]
    rows = run("mdl_008_shards", root)
    assert statuses(rows) == ["FAIL"] and rows[0][3] == "model-00002-of-00002.safetensors"
    assert "huggingface-cli download" in rows[0][2]
    assert statuses(run("mdl_009_safetensors_headers", root)) == ["FAIL"]
    assert statuses(run("mdl_010_incomplete_downloads", root)) == ["FAIL", "FAIL"]
    assert statuses(run("mdl_012_tokenizer", root)) == ["PASS"]  # the name is there; 010 says it is a pointer
    os.remove(root / "tokenizer.json")
    assert statuses(run("mdl_012_tokenizer", root)) == ["FAIL"]
    assert statuses(run("mdl_012_tokenizer", root, vllm_args="vllm serve x --tokenizer /orig")) == ["PASS"]
    good = make_fp8(tmp_path / "good")
    for check in ("mdl_007_config_json", "mdl_008_shards", "mdl_009_safetensors_headers",
                  "mdl_010_incomplete_downloads", "mdl_011_tensors", "mdl_012_tokenizer",
                  "mdl_017_directory_readable", "mdl_018_weights_summary"):
        assert statuses(run(check, good)) == ["PASS"], check


def test_011_undescribed_weights(tmp_path: Path) -> None:
    root = make_w8a8(tmp_path / "w")
    desc = json.loads((root / "quant_model_description.json").read_text())
    del desc["model.layers.1.mlp.experts.0.gate_proj.weight"]
    F.write_json(str(root / "quant_model_description.json"), desc)
    rows = run("mdl_011_tensors", root)
    assert statuses(rows) == ["WARN"] and "FLOAT" in rows[0][2]


def test_013_manifest(tmp_path: Path) -> None:
    root = make_w8a8(tmp_path / "w")
    manifest, _ = build_manifest(LocalFiles(), str(root))
    path = tmp_path / "manifest.json"
    path.write_text(manifest.to_json())
    rows = run("mdl_013_manifest_verify", root, verify=str(path))
    assert statuses(rows) == ["PASS"]
    (root / "config.json").write_text("{}")
    rows = run("mdl_013_manifest_verify", root, verify=str(path))
    assert statuses(rows) == ["FAIL"] and rows[0][3] == "config.json"
    assert statuses(run("mdl_013_manifest_verify", root)) == ["SKIP"]
    (tmp_path / "bad.json").write_text("{nope")
    rows = run("mdl_013_manifest_verify", root, verify=str(tmp_path / "bad.json"))
    assert statuses(rows) == ["FAIL"] and "cannot be used" in rows[0][1]


def test_014_description_name_for_vllm_ascend(tmp_path: Path) -> None:
    old = make_w8a8(tmp_path / "old", "vllm-ascend-doc-old-deepseek-v2-lite-w8a8-tree-description-suffix.txt")
    rows = run("mdl_014_quant_layout", old, vllm_args="vllm serve x --quantization ascend")
    assert statuses(rows) == ["FAIL"]
    subprocess.run(rows[0][2].split("#")[0], shell=True, check=True)
    assert statuses(run("mdl_014_quant_layout", old, vllm_args="vllm serve x --quantization ascend")) == ["PASS"]
    assert statuses(run("mdl_014_quant_layout", make_bf16(tmp_path / "bf16"))) == ["SKIP"]


def test_015_fp8_config_left_after_conversion_and_the_fix_works(tmp_path: Path) -> None:
    root = make_bf16(tmp_path / "bf16")
    cfg = converted_config()
    cfg["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
    F.write_json(str(root / "config.json"), cfg)
    rows = run("mdl_015_fp8_config_leftover", root)
    assert statuses(rows) == ["FAIL"]
    subprocess.run(rows[0][2], shell=True, check=True)
    assert statuses(run("mdl_015_fp8_config_leftover", root)) == ["PASS"]
    assert (root / "config.json.bak").exists()
    assert statuses(run("mdl_015_fp8_config_leftover", make_fp8(tmp_path / "fp8"))) == ["SKIP"]


def test_016_dot_in_path(tmp_path: Path) -> None:
    dotted = make_bf16(tmp_path / "DeepSeek-V3.1-W8A8")
    rows = run("mdl_016_path_dot", dotted)
    assert statuses(rows) == ["WARN"] and "DeepSeek-V3_1-W8A8" in rows[0][2]
    assert statuses(run("mdl_016_path_dot", make_bf16(tmp_path / "plain"))) == ["PASS"]


def test_017_symlink_loop(tmp_path: Path) -> None:
    root = make_bf16(tmp_path / "l")
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    rows = run("mdl_017_directory_readable", root)
    assert statuses(rows) == ["FAIL", "FAIL"] and "loop" in rows[0][1]


def test_018_summary(tmp_path: Path) -> None:
    rows = run("mdl_018_weights_summary", make_fp8(tmp_path / "fp8"))
    assert statuses(rows) == ["PASS"] and "F8_E4M3" in rows[0][1]


@pytest.mark.parametrize("check", [f"mdl_{n:03d}" for n in range(1, 19)])
def test_every_model_check_survives_hostile_directories(tmp_path: Path, check: str) -> None:
    """Garbage everywhere: each check gives graded results, never an exception."""
    root = tmp_path / "hostile"
    root.mkdir()
    (root / "config.json").write_bytes(b"\xff\xfe garbage")
    (root / "model.safetensors.index.json").write_text('{"weight_map": [1, 2]}')
    (root / "quant_model_description.json").write_text("[]")
    (root / "model.safetensors").write_bytes((2**63).to_bytes(8, "little") + b"{}")
    (root / "modeling_deepseek.py").write_bytes(b"\x00\xff" * 10)
    os.symlink("model.safetensors", root / "self-loop")
    os.symlink("self-loop2", root / "self-loop2")
    module = next(m for m in os.listdir(Path(__file__).parent.parent / "checks") if m.startswith(check))[:-3]
    rows = run(module, root, chip=A2, vllm_args='vllm serve "unbalanced', verify=str(root / "config.json"))
    assert rows and all(r[0] in ("PASS", "WARN", "FAIL", "SKIP") for r in rows)


# -- a HuggingFace cache snapshot copied without its blobs ----------------------------------------


def copied_hub_snapshot(root: Path, real: Tuple[str, ...] = ()) -> Path:
    """What `cp -r .../snapshots/<rev> DIR` leaves: relative links to ../../blobs/<hash> that lead
    nowhere (SHA-1 names for small files, SHA-256 for LFS ones), except ``real`` names."""
    import hashlib

    staging = make_bf16(root.parent / (root.name + "-staging"))
    root.mkdir(parents=True)
    for name in sorted(os.listdir(staging)):
        data = (staging / name).read_bytes()
        if name in real:
            (root / name).write_bytes(data)
            continue
        digest = hashlib.sha256(data).hexdigest() if name.endswith(".safetensors") else hashlib.sha1(data).hexdigest()
        os.symlink(f"../../blobs/{digest}", root / name)
    return root


def test_017_a_folder_of_dangling_hub_links_is_reported_and_fixed(tmp_path: Path) -> None:
    root = copied_hub_snapshot(tmp_path / "DeepSeek-R1-Distill-Qwen-1.5B")
    provenance = run("mdl_001_provenance", root)
    assert statuses(provenance) == ["FAIL"]
    assert "broken symbolic links" in provenance[0][1] and "config.json" in provenance[0][1]
    assert "0 other file" not in provenance[0][1] and "cp -rL" in provenance[0][2]
    rows = run("mdl_017_directory_readable", root)
    assert statuses(rows) == ["FAIL"]  # runs although no model is readable: the links are its subject
    message, fix = rows[0][1], rows[0][2]
    assert "config.json" in message and "model.safetensors" in message and "../../blobs/" in message
    assert "HuggingFace cache" in message
    assert "cp -rL" in fix and "models--deepseek-ai--DeepSeek-R1-Distill-Qwen-1.5B/snapshots/" in fix
    assert "huggingface-cli download deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B --local-dir" in fix
    # the other checks still have nothing to say
    assert statuses(run("mdl_007_config_json", root)) == ["SKIP"]


def test_007_names_a_config_json_that_is_a_broken_link(tmp_path: Path) -> None:
    root = copied_hub_snapshot(tmp_path / "copied", real=("model.safetensors",))
    rows = run("mdl_007_config_json", root)
    assert statuses(rows) == ["FAIL"]
    assert rows[0][1].startswith("config.json is a broken link to ../../blobs/") and "missing" not in rows[0][1]
    tokenizer = run("mdl_012_tokenizer", root)
    assert statuses(tokenizer) == ["FAIL"] and "tokenizer.json is there but cannot be read" in tokenizer[0][1]
    # an unread config.json is not evidence of "no quantization_config", nor of "no FP8"
    provenance = run("mdl_001_provenance", root)
    assert statuses(provenance) == ["PASS"] and "has no quantization_config" not in provenance[0][1]
    assert statuses(run("mdl_015_fp8_config_leftover", root)) == ["SKIP"]
    # a link that is not a hub blob keeps the per-link finding
    other = make_bf16(tmp_path / "plain")
    os.symlink("/nonexistent/tokenizer.model", other / "tokenizer.model")
    rows = run("mdl_017_directory_readable", other)
    assert statuses(rows) == ["FAIL"] and "broken link to /nonexistent/tokenizer.model" in rows[0][1]
    assert "HuggingFace cache" not in rows[0][1]


def test_001_says_an_unparseable_config_could_not_be_read(tmp_path: Path) -> None:
    root = make_bf16(tmp_path / "edited")
    text = (root / "config.json").read_text()
    (root / "config.json").write_text(text.rstrip().rstrip("}") + ",\n}")  # a trailing comma left by an edit
    rows = run("mdl_001_provenance", root)
    assert statuses(rows) == ["PASS"] and "config.json could not be read" in rows[0][1]
    assert "has no quantization_config" not in rows[0][1]
    assert statuses(run("mdl_001_provenance", make_bf16(tmp_path / "fine")))[0] == "PASS"
    assert "has no quantization_config" in run("mdl_001_provenance", tmp_path / "fine")[0][1]


def test_016_subject_and_verb_agree(tmp_path: Path) -> None:
    if "." in str(tmp_path):
        pytest.skip("the temporary directory itself has a '.' in its path")
    one = run("mdl_016_path_dot", make_bf16(tmp_path / "DeepSeek-V3.1-W8A8"))
    assert one[0][1].endswith("'DeepSeek-V3.1-W8A8' contains '.'")
    two = run("mdl_016_path_dot", make_bf16(tmp_path / "v1.2" / "DeepSeek-V3.1-W8A8"))
    assert two[0][1].endswith("'v1.2', 'DeepSeek-V3.1-W8A8' contain '.'")
