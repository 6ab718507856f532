"""Model inspection: one small directory per provenance and per defect, built from the real samples.

The config.json content and the directory layouts come from ``tests/samples/model-dirs/``
(copies of the corpus files, headers kept); tensors are tiny with real safetensors headers, and
"large" files are sparse.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import pytest

from ascend_doctor.host.base import FilePermissionDenied
from ascend_doctor.model import records as R
from ascend_doctor.model.files import LocalFiles
from ascend_doctor.model.inspect import InspectLimits, inspect_model_dir
from ascend_doctor.model.records import ModelFacts

from . import model_fixtures as F

SAMPLES = Path(__file__).parent / "samples" / "model-dirs"
SRC = LocalFiles()


def sample(name: str) -> str:
    """The body of a sample file (after its ``# ---`` header line)."""
    return (SAMPLES / name).read_text(encoding="utf-8").split("# ---\n", 1)[1]


def r1_config() -> Dict:
    return json.loads(sample("hf-deepseek-r1-original-config.json-fp8.txt"))


def converted_config() -> Dict:
    """The R1 config with quantization_config deleted, as Huawei's guides instruct."""
    cfg = r1_config()
    del cfg["quantization_config"]
    return cfg


def tree_names(text: str) -> List[str]:
    names = []
    for line in text.splitlines():
        name = re.sub(r"^[\s│├└─|`\-]+", "", line).strip()
        if name and name != "." and not name.startswith("{") and re.match(r"^[\w.\-]+$", name):
            names.append(name)
    return names


def inspect(path: Path) -> ModelFacts:
    return inspect_model_dir(SRC, str(path))


def codes(facts: ModelFacts) -> List[str]:
    return sorted(p.code for p in facts.problems)


def build_from_tree(root: Path, names: List[str], config: Dict, layer: Callable = F.w8a8_dynamic_layer,
                    description_seed: Optional[Dict] = None) -> Dict[str, F.TensorSpec]:
    """Create every file a sample tree lists, with quantized tensors spread over the shards."""
    root.mkdir(parents=True, exist_ok=True)
    shards = [n for n in names if n.endswith(".safetensors")]
    all_tensors: Dict[str, F.TensorSpec] = {}
    per_shard: Dict[str, Dict[str, F.TensorSpec]] = {}
    for i, shard in enumerate(shards):
        per_shard[shard] = layer(i)
        F.write_safetensors(str(root / shard), per_shard[shard])
        all_tensors.update(per_shard[shard])
    for name in names:
        path = root / name
        if name == "config.json":
            F.write_json(str(path), config)
        elif name.endswith(".safetensors.index.json"):
            F.write_index(str(root), name, per_shard)
        elif name.startswith("quant_model_description"):
            match = re.match(r"quant_model_description(?:_(\w+))?\.json", name)
            qtype = (match.group(1) or "W8A8_DYNAMIC").upper() if match else "W8A8_DYNAMIC"
            desc = dict(description_seed or {})
            desc.update(F.description_for(all_tensors, desc.get("model_quant_type", qtype)))
            F.write_json(str(path), desc)
        elif name.endswith(".safetensors"):
            continue
        elif name.endswith(".py"):
            path.write_text("import torch\nimport torch_npu\n")
        elif name.endswith(".json"):
            F.write_json(str(path), {})
        else:
            path.write_text("text\n")
    return all_tensors


# -- provenance ----------------------------------------------------------------------------------

def make_fp8(root: Path, modeling: str = "") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    F.write_json(str(root / "config.json"), r1_config())
    shards = {"model-00001-of-00002.safetensors": F.fp8_layer(3), "model-00002-of-00002.safetensors": F.fp8_layer(4)}
    for name, tensors in shards.items():
        F.write_safetensors(str(root / name), tensors)
    F.write_index(str(root), "model.safetensors.index.json", shards)
    F.write_tokenizer(str(root))
    if modeling:
        (root / "modeling_deepseek.py").write_text(modeling)
    return root


HF_MODELING = (
    "import torch\n"
    "from transformers.utils import is_flash_attn_2_available\n"
    "if is_flash_attn_2_available():\n"
    "    from flash_attn import flash_attn_func, flash_attn_varlen_func\n"
    "    from flash_attn.bert_padding import index_first_axis, pad_input, unpad_input  # noqa\n"
)


def test_hf_fp8_original_says_what_and_why(tmp_path: Path) -> None:
    facts = inspect(make_fp8(tmp_path / "r1", HF_MODELING))
    prov = facts.provenance
    assert prov.kind == R.HF_FP8
    assert "128x128" in prov.label
    why = " ".join(prov.evidence)
    assert "F8_E4M3 tensors (e.g. model.layers.3.mlp.experts.0.down_proj.weight)" in why
    assert "weight_scale_inv" in why and "weight_block_size=[128,128]" in why
    assert facts.modeling.state == "hf-original"
    assert [line for _, line, _ in facts.modeling.flash_attn_imports] == [4, 5]
    assert facts.problems == []
    assert facts.params_by_dtype["F8_E4M3"] == 2 * 3 * 256 * 256
    assert facts.to_dict()["provenance"]["kind"] == "hf-fp8"


def test_converted_bf16(tmp_path: Path) -> None:
    root = tmp_path / "r1-bf16"
    root.mkdir()
    F.write_json(str(root / "config.json"), converted_config())
    F.write_safetensors(str(root / "model.safetensors"), F.float_layer(0, "BF16"))
    F.write_tokenizer(str(root))
    (root / "modeling_deepseek.py").write_text("import torch\nimport torch_npu\n")
    facts = inspect(root)
    assert facts.provenance.kind == R.FLOAT_BF16
    assert facts.provenance.converted_from_fp8 is True
    assert "converted from the FP8 original" in facts.provenance.label
    assert facts.modeling.state == "ascend-adapted"
    assert facts.problems == []


def test_bf16_with_fp8_config_left_over(tmp_path: Path) -> None:
    root = tmp_path / "leftover"
    root.mkdir()
    F.write_json(str(root / "config.json"), r1_config())
    F.write_safetensors(str(root / "model.safetensors"), F.float_layer(0, "BF16"))
    F.write_tokenizer(str(root))
    facts = inspect(root)
    assert facts.provenance.kind == R.FLOAT_BF16
    assert codes(facts) == [R.FP8_CONFIG_LEFTOVER]


def test_msmodelslim_vllm_ascend_layout_from_the_vllm_ascend_docs_tree(tmp_path: Path) -> None:
    names = tree_names(sample("vllm-ascend-doc-deepseek-v2-lite-w8a8-tree.txt"))
    assert "quant_model_weight_w8a8_dynamic-00004-of-00004.safetensors" in names
    build_from_tree(tmp_path / "v2lite", names, converted_config())
    facts = inspect(tmp_path / "v2lite")
    prov = facts.provenance
    assert prov.kind == R.MSMODELSLIM and prov.layout == R.LAYOUT_VLLM_ASCEND
    assert prov.quant_type == "W8A8_DYNAMIC"
    why = " ".join(prov.evidence)
    assert "quant_model_description.json" in why and "weight_scale" in why and "int8 weights" in why
    assert facts.problems == []
    assert facts.params_by_dtype["I8"] == 4 * 3 * 256 * 256


def test_msmodelslim_single_file_w8a8_tree(tmp_path: Path) -> None:
    names = tree_names(sample("vllm-ascend-doc-msmodelslim-w8a8-dir-tree.txt"))
    build_from_tree(tmp_path / "qwq", names, converted_config(), layer=F.w8a8_static_layer)
    facts = inspect(tmp_path / "qwq")
    assert facts.provenance.kind == R.MSMODELSLIM
    assert facts.provenance.quant_type == "W8A8_DYNAMIC"  # the description's model_quant_type wins
    assert "deq_scale" in " ".join(facts.provenance.evidence)
    assert facts.problems == []


def test_old_suffixed_description_is_mindie_naming(tmp_path: Path) -> None:
    names = tree_names(sample("vllm-ascend-doc-old-deepseek-v2-lite-w8a8-tree-description-suffix.txt"))
    build_from_tree(tmp_path / "old", names, converted_config())
    facts = inspect(tmp_path / "old")
    assert facts.provenance.layout == R.LAYOUT_MINDIE
    assert facts.description_files == ("quant_model_description_w8a8_dynamic.json",)
    assert "vLLM-Ascend reads only quant_model_description.json" in " ".join(facts.provenance.evidence)


def test_mindie_docs_layout_with_its_description(tmp_path: Path) -> None:
    body = sample("mindie-doc-w8a8-c8-dir-and-quant_model_description.txt")
    tree, desc_text = body.split("\n{", 1)
    seed = json.loads("{" + desc_text)
    assert seed["model_quant_type"] == "W8A8"
    config = converted_config()
    config["quantize"] = "w8a8"  # msmodelslim --mindie_format adds it
    names = tree_names(tree)
    root = tmp_path / "mindie"

    def layer(i: int) -> Dict[str, F.TensorSpec]:
        tensors = F.w8a8_static_layer(i)
        for name, tag in seed.items():
            if "." in name:
                tensors[name] = ("F16", [4]) if tag == "FLOAT" else ("F32", [1])
        return tensors

    build_from_tree(root, names, config, layer=layer, description_seed=seed)
    facts = inspect(root)
    assert facts.provenance.kind == R.MSMODELSLIM
    assert facts.provenance.layout == R.LAYOUT_MINDIE and facts.provenance.quant_type == "W8A8"
    assert "--mindie_format" in " ".join(facts.provenance.evidence)
    assert facts.problems == []


def test_unknown_when_only_pickle_weights(tmp_path: Path) -> None:
    root = tmp_path / "bin"
    root.mkdir()
    F.write_json(str(root / "config.json"), converted_config())
    (root / "pytorch_model-00001-of-00001.bin").write_bytes(b"PK\x03\x04" + b"\0" * 64)
    F.write_tokenizer(str(root))
    facts = inspect(root)
    assert facts.provenance.kind == R.UNKNOWN
    assert "pickle" in " ".join(facts.provenance.evidence)
    assert codes(facts) == [R.PICKLE_WEIGHTS]


def test_no_model(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    facts = inspect(tmp_path)
    assert facts.provenance.kind == R.NONE
    assert codes(facts) == [R.NO_MODEL]


def test_missing_path_and_file_path(tmp_path: Path) -> None:
    assert codes(inspect(tmp_path / "nope")) == [R.NOT_FOUND]
    (tmp_path / "f.safetensors").write_bytes(b"x")
    assert codes(inspect(tmp_path / "f.safetensors")) == [R.NOT_A_DIRECTORY]


# -- integrity defects ---------------------------------------------------------------------------

def test_missing_and_extra_shards(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "m")
    os.remove(root / "model-00002-of-00002.safetensors")
    F.write_safetensors(str(root / "model-extra.safetensors"), F.fp8_layer(9))
    facts = inspect(root)
    assert codes(facts) == [R.SHARD_EXTRA, R.SHARD_MISSING]
    missing = facts.problems_with(R.SHARD_MISSING)[0]
    assert missing.path == "model-00002-of-00002.safetensors" and "7 tensors" in missing.message


def test_shard_series_gap_from_the_real_qwen3_listing(tmp_path: Path) -> None:
    listing = sample("ecotech-qwen3-235b-w8a8-quarot-sha256-listing.txt")
    names = [line.split("  ", 1)[1] for line in listing.splitlines() if "  " in line]
    names = [n for n in names if not n.endswith(".index.json")]  # no index: the names must speak
    build_from_tree(tmp_path / "qwen3", names, converted_config())
    facts = inspect(tmp_path / "qwen3")
    gap = facts.problems_with(R.SHARD_SERIES_GAP)
    assert len(gap) == 1
    assert "47 of 56 shards of quant_model_weight_w8a8_dynamic are missing" in gap[0].message
    assert gap[0].path == "quant_model_weight_w8a8_dynamic-00006-of-00056.safetensors"


def test_lfs_pointers_and_partial_downloads(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "lfs")
    pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 123\n"
    (root / "model-00001-of-00002.safetensors").write_text(pointer)
    (root / "tokenizer.json").write_text(pointer)
    cache = root / ".cache" / "huggingface" / "download"
    cache.mkdir(parents=True)
    (cache / "model-00002-of-00002.safetensors.incomplete").write_bytes(b"\0" * 10)
    (root / "model-00002-of-00002.safetensors.aria2").write_bytes(b"\0" * 10)
    facts = inspect(root)
    assert codes(facts).count(R.LFS_POINTER) == 2
    partial = sorted(p.path or "" for p in facts.problems_with(R.PARTIAL_DOWNLOAD))
    assert partial == [".cache/huggingface/download/model-00002-of-00002.safetensors.incomplete",
                       "model-00002-of-00002.safetensors.aria2"]
    # tool folders are not part of the model
    assert all(not rel.startswith(".cache") for rel, _ in facts.files)


def test_zero_filled_and_truncated_shards(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "z")
    size = os.path.getsize(root / "model-00001-of-00002.safetensors")
    with open(root / "model-00001-of-00002.safetensors", "wb") as fh:
        fh.truncate(size)
    os.truncate(root / "model-00002-of-00002.safetensors", size - 1000)
    facts = inspect(root)
    assert codes(facts) == [R.HEADER_INVALID, R.SIZE_MISMATCH]
    assert "zero-filled" in facts.problems_with(R.HEADER_INVALID)[0].message
    assert "1000 bytes missing" in facts.problems_with(R.SIZE_MISMATCH)[0].message


def test_tensor_missing_from_shard_named_by_index(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "t")
    layer = F.fp8_layer(4)
    del layer["model.layers.4.mlp.experts.0.up_proj.weight"]
    F.write_safetensors(str(root / "model-00002-of-00002.safetensors"), layer)
    facts = inspect(root)
    assert codes(facts) == [R.TENSOR_MISSING]
    assert "model.layers.4.mlp.experts.0.up_proj.weight" in facts.problems[0].message


def test_description_and_weights_disagree(tmp_path: Path) -> None:
    names = tree_names(sample("vllm-ascend-doc-msmodelslim-w8a8-dir-tree.txt"))
    root = tmp_path / "d"
    build_from_tree(root, names, converted_config())
    desc = json.loads((root / "quant_model_description.json").read_text())
    desc["model.layers.9.self_attn.q_proj.weight"] = "W8A8_DYNAMIC"  # described, not stored
    del desc["model.layers.0.mlp.experts.0.up_proj.weight"]  # stored, not described
    F.write_json(str(root / "quant_model_description.json"), desc)
    facts = inspect(root)
    assert codes(facts) == [R.TENSOR_MISSING, R.TENSOR_UNDESCRIBED]
    assert "model.layers.9.self_attn.q_proj.weight" in facts.problems_with(R.TENSOR_MISSING)[0].message
    assert "model.layers.0.mlp.experts.0.up_proj.weight" in facts.problems_with(R.TENSOR_UNDESCRIBED)[0].message


def test_int8_weights_without_description(tmp_path: Path) -> None:
    root = tmp_path / "nodesc"
    root.mkdir()
    F.write_json(str(root / "config.json"), converted_config())
    F.write_safetensors(str(root / "model.safetensors"), F.w8a8_dynamic_layer(0))
    F.write_tokenizer(str(root))
    facts = inspect(root)
    assert facts.provenance.kind == R.MSMODELSLIM and facts.provenance.layout == R.LAYOUT_UNKNOWN
    assert codes(facts) == [R.DESCRIPTION_MISSING]


def test_tokenizer_and_config_problems(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "c")
    os.remove(root / "tokenizer.json")
    (root / "config.json").write_text('{"model_type": "deepseek_v3", "model_type": "x", "vocab_size": 1}')
    facts = inspect(root)
    assert codes(facts) == [R.CONFIG_DUPLICATE_KEY, R.TOKENIZER_MISSING]
    (root / "config.json").write_text('{"model_type": ')
    facts = inspect(root)
    assert R.CONFIG_INVALID in codes(facts)
    assert "invalid JSON" in (facts.config_error or "")
    os.remove(root / "config.json")
    assert R.CONFIG_MISSING in codes(inspect(root))


def test_symlinks_loops_and_broken(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "s")
    os.symlink("loop-b", root / "loop-a")
    os.symlink("loop-a", root / "loop-b")
    os.symlink("gone.safetensors", root / "broken.safetensors")
    os.symlink(str(tmp_path), root / "parent-link")  # a directory link is never followed
    start = time.monotonic()
    facts = inspect(root)
    assert time.monotonic() - start < 5
    assert codes(facts).count(R.SYMLINK_LOOP) == 2
    assert R.SYMLINK_BROKEN in codes(facts)
    assert R.SPECIAL_FILE in codes(facts)


def test_hf_cache_layout_of_symlinks_to_blobs(tmp_path: Path) -> None:
    blobs = tmp_path / "blobs"
    real = make_fp8(blobs / "real")
    snap = tmp_path / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    for name in os.listdir(real):
        os.symlink(real / name, snap / name)
    facts = inspect(snap)
    assert facts.provenance.kind == R.HF_FP8 and facts.problems == []


def test_many_files_are_bounded(tmp_path: Path) -> None:
    # The default bound is 10 000 entries; a smaller one keeps this test fast on slow filesystems.
    assert InspectLimits().max_entries == 10_000
    root = make_fp8(tmp_path / "many")
    junk = root / "junk"
    junk.mkdir()
    for i in range(1_050):
        (junk / f"f{i}").touch()
    start = time.monotonic()
    facts = inspect_model_dir(SRC, str(root), InspectLimits(max_entries=1_000))
    assert time.monotonic() - start < 5
    assert R.LISTING_TRUNCATED in codes(facts)


def test_sparse_100_gib_shard_is_inspected_from_its_header(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    F.write_json(str(root / "config.json"), converted_config())
    F.write_safetensors(str(root / "model.safetensors"), {"huge.weight": ("BF16", [50 * 1024, 1024 * 1024])})
    F.write_tokenizer(str(root))
    start = time.monotonic()
    facts = inspect(root)
    assert time.monotonic() - start < 2
    assert facts.problems == [] and facts.total_bytes > 100 * 2**30
    assert facts.params_by_dtype == {"BF16": 50 * 2**30}


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads everything")
def test_unreadable_files(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "perm")
    os.chmod(root / "model-00001-of-00002.safetensors", 0)
    os.chmod(root / "config.json", 0)
    try:
        facts = inspect(root)
    finally:
        os.chmod(root / "model-00001-of-00002.safetensors", 0o644)
        os.chmod(root / "config.json", 0o644)
    assert R.HEADER_UNREADABLE in codes(facts) and R.CONFIG_INVALID in codes(facts)


class DenyingSource(LocalFiles):
    """Local files, except that some paths are permission-denied (tests run as root)."""

    def __init__(self, denied: List[str]) -> None:
        self.denied = denied

    def _check(self, path: str) -> None:
        if any(path.endswith(d) for d in self.denied):
            raise FilePermissionDenied(path, "permission denied")

    def open_binary(self, path: str):  # type: ignore[no-untyped-def]
        self._check(path)
        return super().open_binary(path)

    def listdir(self, path: str) -> List[str]:
        self._check(path)
        return super().listdir(path)


def test_permission_denied_is_a_finding_even_as_root(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "deny")
    (root / "sub").mkdir()
    facts = inspect_model_dir(DenyingSource(["model-00001-of-00002.safetensors", "config.json", "/sub"]),
                              str(root))
    assert R.HEADER_UNREADABLE in codes(facts) and R.CONFIG_INVALID in codes(facts)
    assert R.UNREADABLE in codes(facts)  # the directory that could not be listed
    assert "permission denied" in facts.problems_with(R.HEADER_UNREADABLE)[0].message


def test_hostile_json_sizes_are_refused(tmp_path: Path) -> None:
    root = make_fp8(tmp_path / "huge-json")
    with open(root / "model.safetensors.index.json", "wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # sparse: nothing is read beyond the bound
    facts = inspect_model_dir(SRC, str(root), InspectLimits(max_json_bytes=1024 * 1024))
    invalid = facts.problems_with(R.INDEX_INVALID)
    assert invalid and "refused" in invalid[0].message


def test_inspection_through_a_snapshot_host(tmp_path: Path) -> None:
    """The provider reads through facts.host: a snapshot's files/ tree works like a live host."""
    from ascend_doctor.host.snapshot import SnapshotHost

    snap = tmp_path / "node07"
    root = make_fp8(snap / "files" / "data" / "models" / "R1", HF_MODELING)
    (snap / "snapshot.json").write_text('{"format": 1, "hostname": "node07"}')
    os.symlink("/etc/passwd", root / "escape.json")  # leaves the snapshot: refused, reported
    host = SnapshotHost(str(snap))
    facts = inspect_model_dir(host, "/data/models/R1")
    assert facts.provenance.kind == R.HF_FP8 and facts.modeling.state == "hf-original"
    assert [p.path for p in facts.problems] == ["escape.json"]
