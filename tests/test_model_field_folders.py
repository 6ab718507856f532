"""Model folders as the field makes them (issue 22, item 3), on real samples in tests/samples/model-dirs/:

* a config.json that writes "quantization_config" twice with MindIE's "quantize" / "mla_quantize" keys
  (vllm-project/vllm-ascend#1713): read as the engines read it (last value), judged by all the evidence
  (an Ascend-quantized W8A8 folder with a leftover FP8 block, not an FP8 original to convert);
* Huawei's published DeepSeek-V3 W8A8 config.json (vllm-project/vllm-ascend#119);
* msmodelslim's MindIE format and its AscendV1 names;
* FA3 and int8-KV-cache declarations (MindIE "FA3量化" and "KV Cache int8" pages) with what the engines need.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

from ascend_doctor.host.model_record import record_models
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.model import records as R
from ascend_doctor.model.inspect import inspect_model_dir

from . import model_fixtures as F
from .test_model_checks import A2, A3, P310, run, statuses
from .test_model_inspect import build_from_tree, codes, converted_config, inspect, make_fp8, sample, tree_names

DUPLICATE = "vllm-ascend-1713-r1-w8a8-config.json-duplicate-quantization_config.txt"
MODELZOO = "vllm-ascend-119-deepseek-v3-w8a8-modelzoo-config.json.txt"
FA3_DOC = "mindie-2.3.0-doc-fa3-w8a8-dir-and-quant_model_description.txt"
C8_DOC = "mindie-doc-w8a8-c8-dir-and-quant_model_description.txt"
ASCENDV1 = "msmodelslim-ascendv1-format-tree-and-description-keys.txt"
V2_LITE_TREE = "vllm-ascend-doc-deepseek-v2-lite-w8a8-tree.txt"
OLD_TREE = "vllm-ascend-doc-old-deepseek-v2-lite-w8a8-tree-description-suffix.txt"
VLLM = "vllm serve /data/models/x --quantization ascend"


def config_only(root: Path, text: str) -> Path:
    """A folder holding a config.json (as written, duplicates kept) and a tokenizer, no weights yet."""
    root.mkdir(parents=True)
    (root / "config.json").write_text(text, encoding="utf-8")
    F.write_tokenizer(str(root))
    return root


def w8a8_folder(root: Path, config_text: str, tree: str = V2_LITE_TREE) -> Path:
    """The vLLM-Ascend doc's W8A8 tree with msmodelslim tensors and the given config.json text."""
    build_from_tree(root, tree_names(sample(tree)), {})
    (root / "config.json").write_text(config_text, encoding="utf-8")
    return root


def documented_folder(root: Path, doc: str, config: Dict[str, Any], layer: Any = F.w8a8_dynamic_layer) -> Path:
    """A folder laid out as a MindIE page shows it, its description seeded with the page's entries (and
    the tensors those entries name, so that only the page's format is under test)."""
    tree, description = sample(doc).split("\n{", 1)
    seed = json.loads("{" + description)

    def with_seed(i: int) -> Dict[str, F.TensorSpec]:
        tensors = layer(i)
        for name, tag in seed.items():
            if "." in name:
                tensors[name] = ("F16", [4]) if tag == "FLOAT" else ("F32", [1])
        return tensors

    build_from_tree(root, tree_names(tree), config, layer=with_seed, description_seed=seed)
    return root


def float16(config: Dict[str, Any]) -> Dict[str, Any]:
    return dict(config, torch_dtype="float16")


def messages(rows: List[Any]) -> str:
    return " ".join(str(r[1]) for r in rows)


# -- duplicate keys: read as the engine would, judged by all the evidence ---------------------------

def test_duplicate_quantization_config_is_read_as_the_engine_reads_it(tmp_path: Path) -> None:
    facts = inspect(config_only(tmp_path / "r1", sample(DUPLICATE)))
    # Python's json keeps the last copy: that is what transformers, vLLM and MindIE see.
    assert facts.quantization_config is not None and facts.quantization_config["quant_method"] == "fp8"
    assert facts.config_duplicates == {"quantization_config": [{}, facts.quantization_config]}
    duplicate = facts.problems_with(R.CONFIG_DUPLICATE_KEY)[0]
    assert duplicate.severity == R.WARNING and "2 times" in duplicate.message and "keeps only the last" in \
        duplicate.message


def test_mindie_keys_make_it_an_ascend_folder_with_a_leftover_fp8_block_not_an_fp8_original(tmp_path: Path) -> None:
    root = config_only(tmp_path / "r1", sample(DUPLICATE))
    facts = inspect(root)
    prov = facts.provenance
    # Before: "HuggingFace original FP8 (declared by config.json only)" and ASC-MDL-002 FAIL "convert".
    assert prov.kind == R.MSMODELSLIM and prov.quant_type == "W8A8_DYNAMIC" and prov.declared_only
    assert '"mla_quantize": "w8a8"' in " ".join(prov.evidence)
    assert R.FP8_CONFIG_LEFTOVER in codes(facts) and R.DESCRIPTION_MISSING not in codes(facts)
    assert statuses(run("mdl_002_fp8_on_ascend", root, chip=A2)) == ["PASS"]
    rows = run("mdl_015_fp8_config_leftover", root)
    assert statuses(rows) == ["FAIL"] and "2 times" in rows[0][1]
    # The fix removes every copy (json.load keeps one), with a backup.
    subprocess.run(rows[0][2], shell=True, check=True)
    fixed = inspect(root)
    assert fixed.quantization_config is None and fixed.config_duplicates == {}
    assert R.FP8_CONFIG_LEFTOVER not in codes(fixed) and fixed.provenance.kind == R.MSMODELSLIM
    assert (root / "config.json.bak").read_text(encoding="utf-8") == sample(DUPLICATE)


def test_duplicate_with_w8a8_weights_points_config_check_at_the_removal(tmp_path: Path) -> None:
    root = w8a8_folder(tmp_path / "r1w8a8", sample(DUPLICATE))
    facts = inspect(root)
    assert facts.provenance.kind == R.MSMODELSLIM and facts.provenance.layout == R.LAYOUT_VLLM_ASCEND
    assert not facts.provenance.declared_only
    rows = run("mdl_007_config_json", root)
    assert statuses(rows) == ["WARN"] and "ASC-MDL-015" in rows[0][2]
    assert statuses(run("mdl_015_fp8_config_leftover", root)) == ["FAIL"]
    assert statuses(run("mdl_002_fp8_on_ascend", root, chip=A2)) == ["PASS"]


def test_a_duplicate_inside_a_nested_object_keeps_the_generic_message(tmp_path: Path) -> None:
    text = sample(MODELZOO).replace('"quant_method": "ascend"', '"quant_method": "ascend", "quant_method": "ascend"')
    facts = inspect(config_only(tmp_path / "v3", text))
    assert facts.config_duplicates == {}
    assert [p.message for p in facts.problems_with(R.CONFIG_DUPLICATE_KEY)] == [
        'config.json sets "quant_method" more than once; loaders keep only the last value']


# -- Huawei's published W8A8 config.json and the msmodelslim layouts ---------------------------------

def test_modelzoo_w8a8_config_is_ascend_quantized_and_needs_no_flag(tmp_path: Path) -> None:
    root = config_only(tmp_path / "v3", sample(MODELZOO))
    facts = inspect(root)
    # Before: "unknown", and --quantization ascend was called a mistake.
    assert facts.provenance.kind == R.MSMODELSLIM and facts.provenance.quant_type == "W8A8_DYNAMIC"
    assert "quant_method=ascend" in " ".join(facts.provenance.evidence)
    assert statuses(run("mdl_005_quant_engine_flag", root, vllm_args=VLLM)) == ["PASS"]
    assert statuses(run("mdl_005_quant_engine_flag", root, vllm_args="vllm serve /x")) == ["PASS"]


def test_quantize_key_with_the_default_description_is_the_vllm_ascend_layout(tmp_path: Path) -> None:
    facts = inspect(w8a8_folder(tmp_path / "v3", sample(MODELZOO)))
    # msmodelslim writes "quantize" in both layouts; before, this read "layout unknown".
    assert facts.provenance.layout == R.LAYOUT_VLLM_ASCEND
    assert "written in both layouts" in " ".join(facts.provenance.evidence)


def test_mindie_format_is_labelled_and_judged_for_vllm_ascend(tmp_path: Path) -> None:
    # What msmodelslim --mindie_format writes (tools/copy_config_files.py modify_config_json and
    # example/DeepSeek/quant_deepseek_w8a8.py): the suffixed description, the kv/fa block in config.json
    # quantization_config, and model_type "deepseekv2".
    config = json.loads(sample(MODELZOO))
    config.update(model_type="deepseekv2",
                  quantization_config={"kv_quant_type": None, "fa_quant_type": "FAQuant", "group_size": 0})
    root = tmp_path / "mindie"
    build_from_tree(root, tree_names(sample(OLD_TREE)), config)
    facts = inspect(root)
    prov = facts.provenance
    assert prov.layout == R.LAYOUT_MINDIE and "MindIE format" in prov.label
    assert "--mindie_format" in " ".join(prov.evidence) and "model_type=deepseekv2" in " ".join(prov.evidence)
    assert facts.attention_quant == (R.AttentionQuant("fa3", "fa_quant_type", "FAQuant",
                                                      "config.json quantization_config"),)
    rows = run("mdl_014_quant_layout", root, vllm_args=VLLM)
    # For vLLM-Ascend: MindIE's model_type name (with the command that restores the HF one), then the
    # description name vLLM-Ascend cannot find.
    assert statuses(rows) == ["WARN", "FAIL"] and "deepseekv2" in rows[0][1]
    subprocess.run(rows[0][2], shell=True, check=True)
    assert json.loads((root / "config.json").read_text())["model_type"] == "deepseek_v3"
    subprocess.run(rows[1][2], shell=True, check=True)
    assert statuses(run("mdl_014_quant_layout", root, vllm_args=VLLM)) == ["PASS"]
    assert statuses(run("mdl_014_quant_layout", root)) == ["PASS"]


def test_ascendv1_weight_names_are_msmodelslim_names(tmp_path: Path) -> None:
    names = [n for n in tree_names(sample(ASCENDV1)) if "." in n]
    assert "quant_model_weights.safetensors" in names
    root = tmp_path / "v1"
    build_from_tree(root, names, converted_config())
    facts = inspect(root)
    assert facts.provenance.kind == R.MSMODELSLIM
    assert "weights named quant_model_weights.safetensors" in " ".join(facts.provenance.evidence)


def test_tensors_outrank_config_keys(tmp_path: Path) -> None:
    fp8 = make_fp8(tmp_path / "fp8")
    config = json.loads((fp8 / "config.json").read_text())
    config["quantize"] = "w8a8_dynamic"
    F.write_json(str(fp8 / "config.json"), config)
    facts = inspect(fp8)
    assert facts.provenance.kind == R.HF_FP8
    assert "no tensor is int8" in " ".join(facts.provenance.evidence)


def test_another_tools_quant_method_is_not_taken_for_msmodelslim(tmp_path: Path) -> None:
    config = json.loads(sample(MODELZOO))
    config["quantization_config"] = {"quant_method": "compressed-tensors", "format": "int-quantized"}
    root = config_only(tmp_path / "ct", json.dumps(config))
    assert inspect(root).provenance.kind != R.MSMODELSLIM


# -- FA3 / int8 KV cache: declared, and what the engine needs -----------------------------------------

def fa3(tmp_path: Path, dtype: Optional[str] = "float16") -> Path:
    config = converted_config() if dtype is None else dict(converted_config(), torch_dtype=dtype)
    return documented_folder(tmp_path / "fa3", FA3_DOC, config)


def test_fa3_is_read_from_the_description(tmp_path: Path) -> None:
    facts = inspect(fa3(tmp_path))
    assert facts.problems == []
    assert facts.attention_quant == (R.AttentionQuant("fa3", "fa_quant_type", "FAKQuant",
                                                      "quant_model_description.json"),)
    assert facts.to_dict()["weights"]["attention_quant"][0]["value"] == "FAKQuant"


def test_fa3_on_a2_in_float16_states_mindies_conditions(tmp_path: Path) -> None:
    rows = run("mdl_019_attention_quant", fa3(tmp_path), chip=A2)
    assert statuses(rows) == ["INFO"]
    assert "mindie_llm0502" in rows[0][1] and "KV Cache NZ format enabled" in rows[0][2]
    assert "vllm-ascend/issues/6437" in rows[0][1]


def test_fa3_in_bfloat16_warns_with_the_page(tmp_path: Path) -> None:
    rows = run("mdl_019_attention_quant", fa3(tmp_path, "bfloat16"), chip=A3)
    assert statuses(rows) == ["WARN"] and "bfloat16" in rows[0][1] and "mindie_llm0502" in rows[0][2]


def test_fa3_on_310p_fails(tmp_path: Path) -> None:
    rows = run("mdl_019_attention_quant", fa3(tmp_path), chip=P310)
    assert statuses(rows) == ["FAIL"] and "310P" in rows[0][1]


def test_fa3_served_by_vllm_ascend_is_unknown_not_unsupported(tmp_path: Path) -> None:
    rows = run("mdl_019_attention_quant", fa3(tmp_path), chip=A2, vllm_args=VLLM)
    assert statuses(rows) == ["WARN"] and "unknown" in rows[0][1] and "--fa_quant" in rows[0][2]


def test_int8_kv_cache_is_read_and_judged(tmp_path: Path) -> None:
    root = documented_folder(tmp_path / "c8", C8_DOC, float16(converted_config()), layer=F.w8a8_static_layer)
    facts = inspect(root)
    assert [(a.kind, a.key, a.value) for a in facts.attention_quant] == [("kv-int8", "kv_cache_type", "C8")]
    assert statuses(run("mdl_019_attention_quant", root, chip=A2)) == ["INFO"]
    rows = run("mdl_019_attention_quant", root, chip=A3)  # MindIE's page names only the 800I A2
    assert statuses(rows) == ["FAIL"] and "mindie_llm0292" in rows[0][2]


def test_no_attention_quantization_passes_and_float_weights_skip(tmp_path: Path) -> None:
    root = w8a8_folder(tmp_path / "plain", sample(MODELZOO))
    assert statuses(run("mdl_019_attention_quant", root, chip=A2)) == ["PASS"]
    assert statuses(run("mdl_019_attention_quant", make_fp8(tmp_path / "fp8"), chip=A2)) == ["SKIP"]


# -- snapshot --model keeps all of it ------------------------------------------------------------------

def test_snapshot_record_reads_the_same(tmp_path: Path) -> None:
    folder = w8a8_folder(tmp_path / "models" / "r1", sample(DUPLICATE))
    fa3_folder = fa3(tmp_path / "models")
    out = tmp_path / "snap"
    out.mkdir()
    record_models(str(out), [str(folder), str(fa3_folder)])
    with SnapshotHost(str(out)) as snap:
        for path in (folder, fa3_folder):
            recorded = inspect_model_dir(snap, str(path))
            live = inspect(path)
            assert recorded.provenance == live.provenance
            assert recorded.config_duplicates == live.config_duplicates
            assert recorded.attention_quant == live.attention_quant
