"""Memory plan: architecture counting, KV per token, the seed 003 §4.1 table, layouts, the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.model import plan as P
from ascend_doctor.model.arch import (
    ArchError,
    arch_from_hf_config,
    count_params,
    kv_elements_per_token,
    kv_elements_per_token_per_card,
)
from ascend_doctor.model.families import FamilyDataError, find_family, load_families, parse_families

from .clirunner import make_runner

SAMPLES = Path(__file__).parent / "samples" / "serving-configs"
GB64 = P.chip_memory("910B3").hbm_bytes


def sample_body(name: str) -> str:
    """A copied sample without its `# source:` / `# what:` / `# ---` header."""
    text = (SAMPLES / name).read_text(encoding="utf-8")
    return text.split("# ---\n", 1)[1]


def arch_of(name: str) -> Any:
    family = find_family(name)
    assert family is not None, name
    return family.arch()


def plan(name: str, precision: str, cards: int, hbm: int = GB64, **kw: Any) -> P.MemoryPlan:
    arch = arch_of(name)
    layout_keys = {k: kw.pop(k) for k in ("tp", "dp", "ep", "moe_tp") if k in kw}
    layout = P.make_layout(cards=cards, moe=arch.is_moe, **layout_keys)
    return P.plan_memory(arch, P.parse_precision(precision), hbm, layout, **kw)


# -- parameter counts -------------------------------------------------------------------------

# Published sizes (HF model pages); the test allows 2 %.
PUBLISHED_B = {
    "DeepSeek-V3": 671.0,
    "DeepSeek-R1": 671.0,
    "DeepSeek-R1-Distill-Qwen-1.5B": 1.78,  # untied lm_head; the Qwen2.5 base it came from is 1.54B
    "DeepSeek-R1-Distill-Qwen-7B": 7.6,
    "DeepSeek-R1-Distill-Qwen-14B": 14.8,
    "DeepSeek-R1-Distill-Qwen-32B": 32.8,
    "DeepSeek-R1-Distill-Llama-8B": 8.0,
    "DeepSeek-R1-Distill-Llama-70B": 70.6,
}


@pytest.mark.parametrize("name,expected", sorted(PUBLISHED_B.items()))
def test_param_count_of_each_builtin(name: str, expected: float) -> None:
    total = count_params(arch_of(name)).total / 1e9
    assert abs(total / expected - 1) < 0.02, (name, total)


def test_deepseek_v3_count_excludes_mtp_and_checkpoint_includes_it() -> None:
    params = count_params(arch_of("DeepSeek-V3"))
    assert 670.5e9 < params.total < 671.5e9  # 671B excludes the MTP module
    assert 13e9 < params.mtp < 14.5e9  # HF: "685B ... includes 14B of the MTP module"
    assert 684e9 < params.total + params.mtp < 686e9
    assert params.routed_experts > 0.97 * params.total


def test_real_r1_config_counts_like_the_builtin() -> None:
    cfg = json.loads(sample_body("model-config-hf-deepseek-r1-fp8.txt"))
    arch = arch_from_hf_config(cfg)
    assert arch.quant_method == "fp8" and arch.is_mla and arch.is_moe
    assert count_params(arch) == count_params(arch_of("DeepSeek-R1"))
    assert arch.moe_layer_count == 58


def test_families_are_sourced_and_names_resolve() -> None:
    families = load_families()
    assert len(families) == 8
    for family in families:
        assert family.sources and all(s.startswith("http") or "corpus" in s for s in family.sources)
    assert find_family("deepseek-ai/DeepSeek-R1").name == "DeepSeek-R1"
    assert find_family("r1_distill_qwen_32b").name == "DeepSeek-R1-Distill-Qwen-32B"
    assert find_family("no-such-model") is None
    assert find_family("") is None


def test_family_data_validation() -> None:
    with pytest.raises(FamilyDataError, match="schema"):
        parse_families({"schema": 2, "families": []})
    with pytest.raises(FamilyDataError, match="sources"):
        parse_families({"schema": 1, "families": [{"name": "x", "config": {}, "published_params_b": 1}]})
    bad = {"name": "x", "sources": ["s"], "published_params_b": 1, "config": {"model_type": "llama"}}
    with pytest.raises(FamilyDataError, match="hidden_size"):
        parse_families({"schema": 1, "families": [bad]})
    with pytest.raises(FamilyDataError):
        parse_families(["not", "a", "mapping"])


def test_shipped_yaml_is_safe_loadable() -> None:
    path = Path(__file__).parents[1] / "compat_matrix" / "model_families.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert len(parse_families(data)) == 8


@pytest.mark.parametrize("cfg,message", [
    ({}, "model_type"),
    ({"model_type": "llama", "hidden_size": -1}, ">= 1"),
    ({"model_type": "llama", "hidden_size": "4096"}, "integer"),
    ({"model_type": "llama", "hidden_size": True}, "integer"),
    ({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 32,
      "num_key_value_heads": 64, "vocab_size": 10, "intermediate_size": 10}, "exceeds"),
])
def test_bad_configs_are_clear_errors(cfg: Dict[str, Any], message: str) -> None:
    with pytest.raises(ArchError, match=message):
        arch_from_hf_config(cfg)


def test_non_dict_config_is_an_error() -> None:
    with pytest.raises(ArchError, match="object"):
        arch_from_hf_config([1, 2])  # type: ignore[arg-type]


def test_unknown_model_type_is_approximate() -> None:
    arch = arch_from_hf_config({"model_type": "mystery", "hidden_size": 64, "num_hidden_layers": 2,
                                "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128})
    assert arch.approximate and arch.num_key_value_heads == 4


# -- KV cache per token -----------------------------------------------------------------------


def test_mla_kv_per_token_by_hand() -> None:
    arch = arch_of("DeepSeek-R1")
    # (kv_lora_rank 512 + qk_rope_head_dim 64) x 61 layers
    assert kv_elements_per_token(arch) == 576 * 61 == 35136
    # the latent is shared by all heads: TP does not shrink it
    assert kv_elements_per_token_per_card(arch, 16) == 35136
    assert P.kv_bytes_per_token_per_card(arch, 1, "bf16") == 70272


def test_gqa_kv_per_token_by_hand() -> None:
    arch = arch_of("DeepSeek-R1-Distill-Qwen-7B")
    # 2 (K and V) x 4 KV heads x 128 head_dim x 28 layers
    assert kv_elements_per_token(arch) == 2 * 4 * 128 * 28 == 28672
    assert kv_elements_per_token_per_card(arch, 2) == 2 * 2 * 128 * 28
    # TP 8 > 4 KV heads: one head per card, replicated
    assert kv_elements_per_token_per_card(arch, 8) == 2 * 1 * 128 * 28
    llama70 = arch_of("DeepSeek-R1-Distill-Llama-70B")
    assert kv_elements_per_token(llama70) == 2 * 8 * 128 * 80


# -- seed 003 §4.1 --------------------------------------------------------------------------


def test_seed_7b_fp16_is_about_14_gib_and_fits_one_card() -> None:
    p = plan("DeepSeek-R1-Distill-Qwen-7B", "fp16", 1, max_seq_len=4096)
    assert 14.0 <= P.gib(p.weights.total_bytes) <= 15.2
    assert p.card.verdict == P.VERDICT_FITS
    # ...and on a 310P3 it fits with little to spare, as the seed says
    small = plan("DeepSeek-R1-Distill-Qwen-7B", "fp16", 1, hbm=P.chip_memory("310P3").hbm_bytes)
    assert small.fits and P.gib(small.card.free_bytes) < 3


def test_seed_32b_fp16_does_not_fit_one_910b_but_w8a8_does() -> None:
    assert plan("DeepSeek-R1-Distill-Qwen-32B", "fp16", 1).card.verdict == P.VERDICT_NO
    assert plan("DeepSeek-R1-Distill-Qwen-32B", "bf16", 1).card.verdict == P.VERDICT_NO
    int8 = plan("DeepSeek-R1-Distill-Qwen-32B", "w8a8", 1)
    assert int8.fits and 30 < P.gib(int8.weights.total_bytes) < 34


def test_seed_70b_int8_needs_two_cards() -> None:
    assert not plan("DeepSeek-R1-Distill-Llama-70B", "w8a8", 1).fits
    assert plan("DeepSeek-R1-Distill-Llama-70B", "w8a8", 2).fits


def test_seed_671b_w8a8_fits_16_not_8_and_bf16_needs_32() -> None:
    assert plan("DeepSeek-R1", "w8a8", 16).fits
    assert plan("DeepSeek-R1", "w8a8", 8).card.verdict == P.VERDICT_NO
    assert not plan("DeepSeek-R1", "bf16", 16).fits
    assert plan("DeepSeek-R1", "bf16", 32).fits
    table = P.smallest_cards_by_precision(arch_of("DeepSeek-R1"), GB64)
    assert table["w8a8"] == 16 and table["bf16"] == 32 and table["fp16"] == 32


def test_w8a8_keeps_embedding_head_norms_in_bf16() -> None:
    arch = arch_of("DeepSeek-R1")
    params = count_params(arch)
    w8 = P.weights_from_arch(arch, P.PRECISIONS["w8a8"])
    assert w8.total_bytes == params.kept * 2 + params.quantizable  # 16-bit kept, 1 byte the rest
    # the seed's "671 GB at 8 bits" ignores the ~3.9 GB kept in bf16
    assert 672e9 < w8.total_bytes < 674e9


def test_seed_section_4_2_layout_tp2_ep8_on_16_cards() -> None:
    p = plan("DeepSeek-R1", "fp8", 16, tp=2, ep=8, max_seq_len=8192, batch=64, kv_dtype="fp8")
    assert p.layout == P.Layout(cards=16, tp=2, dp=8, ep=8, moe_tp=2)
    assert p.card.sequences_requested == 8  # 64 sequences over 8 DP replicas
    assert p.fits
    assert any("FP8" in note for note in p.notes)


def test_large_batch_gives_fewer_sequences_not_a_crash() -> None:
    p = plan("DeepSeek-R1", "w8a8", 16, tp=8, dp=2, ep=16, max_seq_len=32768, batch=200)
    assert p.card.verdict == P.VERDICT_FEWER
    assert 0 < p.card.sequences_fit < p.card.sequences_requested


def test_fixed_kv_budget_mindie_npu_mem_size() -> None:
    ok = plan("DeepSeek-R1-Distill-Qwen-7B", "bf16", 1, kv_budget_bytes=8 * P.GIB)
    assert ok.fits and ok.card.kv_bytes == 8 * P.GIB
    too_big = plan("DeepSeek-R1-Distill-Qwen-7B", "bf16", 1, kv_budget_bytes=60 * P.GIB)
    assert too_big.card.verdict == P.VERDICT_NO


# -- layouts and inputs -------------------------------------------------------------------------


def test_layout_defaults_and_errors() -> None:
    assert P.make_layout(cards=8) == P.Layout(8, 8, 1, 1, 8)
    assert P.make_layout(tp=4, dp=2) == P.Layout(8, 4, 2, 1, 4)
    assert P.make_layout(cards=16, tp=8, ep=16) == P.Layout(16, 8, 2, 16, 1)
    assert P.make_layout(cards=8, ep=4, moe=False) == P.Layout(8, 8, 1, 1, 8)
    with pytest.raises(P.PlanError, match="tp x dp"):
        P.make_layout(cards=8, tp=4, dp=4)
    with pytest.raises(P.PlanError, match="does not divide"):
        P.make_layout(cards=8, ep=3)
    with pytest.raises(P.PlanError, match="positive"):
        P.make_layout(cards=-1)
    with pytest.raises(P.PlanError, match="ep x moe_tp"):
        P.make_layout(cards=16, tp=16, ep=4, moe_tp=2)


def test_precisions_chips_and_kv_dtypes() -> None:
    assert P.parse_precision("INT8").name == "w8a8"
    assert P.parse_precision("bfloat16").name == "bf16"
    with pytest.raises(P.PlanError, match="unknown precision"):
        P.parse_precision("int3")
    assert P.chip_memory("Ascend910B3").hbm_bytes == 64 * P.GIB
    assert P.chip_memory("910B4").hbm_bytes == 32 * P.GIB
    assert P.chip_memory("A3").hbm_bytes == 64 * P.GIB
    assert P.chip_memory("310P3").hbm_bytes == 21534 * P.MIB
    with pytest.raises(P.PlanError, match="unknown chip"):
        P.chip_memory("H100")
    assert P.parse_kv_dtype("auto") is None and P.parse_kv_dtype("C8") == "int8"
    with pytest.raises(P.PlanError):
        P.parse_kv_dtype("int2")


def test_plan_rejects_nonsense_numbers() -> None:
    arch = arch_of("DeepSeek-R1-Distill-Qwen-7B")
    layout = P.make_layout(cards=1)
    for kw in ({"max_seq_len": 0}, {"batch": -3}):
        with pytest.raises(P.PlanError):
            P.plan_memory(arch, P.PRECISIONS["bf16"], GB64, layout, **kw)
    with pytest.raises(P.PlanError):
        P.plan_memory(arch, P.PRECISIONS["bf16"], 0, layout)


def test_tally_from_safetensors_entries() -> None:
    entries = [
        P.TensorEntry("model.embed_tokens.weight", "BF16", 1000),
        P.TensorEntry("lm_head.weight", "BF16", 1000),
        P.TensorEntry("model.layers.0.self_attn.q_a_proj.weight", "I8", 500),
        P.TensorEntry("model.layers.0.self_attn.q_a_proj.weight_scale", "F32", 8),
        P.TensorEntry("model.layers.3.mlp.experts.7.up_proj.weight", "I8", 4000),
        P.TensorEntry("model.layers.3.mlp.gate.weight", "BF16", 100),
        P.TensorEntry("model.layers.61.mlp.experts.0.up_proj.weight", "I8", 999),  # MTP layer
        P.TensorEntry("model.norm.weight", "BF16", 10),
    ]
    tally = P.tally_tensors(entries, num_hidden_layers=61)
    assert tally.detected_precision == "w8a8"
    assert tally.mtp_bytes == 999 and tally.expert_bytes == 4000
    assert tally.main_bytes == 1000 + 1000 + 500 + 8 + 4000 + 100 + 10
    weights = P.weights_from_tally(tally)
    assert weights.expert_bytes == 4000 and weights.source == "safetensors headers"
    assert P.tally_tensors(entries, 61, quant_type="W4A8").detected_precision == "w4a8"


def test_plan_uses_tally_only_for_the_checkpoint_precision() -> None:
    arch = arch_of("DeepSeek-R1-Distill-Qwen-7B")
    tally = P.tally_tensors([P.TensorEntry("model.layers.0.mlp.up_proj.weight", "BF16", 15 * P.GIB)], 28)
    same = P.plan_memory(arch, P.PRECISIONS["bf16"], GB64, P.make_layout(cards=1), tally=tally)
    assert same.weights.source == "safetensors headers" and same.weights.total_bytes == 15 * P.GIB
    other = P.plan_memory(arch, P.PRECISIONS["w8a8"], GB64, P.make_layout(cards=1), tally=tally)
    assert other.weights.source == "architecture"
    assert any("on disk is bf16" in note for note in other.notes)


# -- the CLI ------------------------------------------------------------------------------------


def run_plan(*args: str) -> Any:
    from ascend_doctor.cli.plan_cmd import plan as plan_command

    return make_runner().invoke(plan_command, list(args))


def test_cli_fits_exit_0_and_json() -> None:
    result = run_plan("--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B3", "--cards", "16",
                      "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["plan"]["per_card"]["verdict"] == "fits"
    assert data["smallest_cards"]["w8a8"] == 16 and data["smallest_cards"]["bf16"] == 32


def test_cli_does_not_fit_exit_1_and_text() -> None:
    result = run_plan("--model", "DeepSeek-R1", "--precision", "w8a8", "--mem-gb", "64", "--cards", "8")
    assert result.exit_code == 1, result.output
    assert "does not fit" in result.output
    assert "smallest card count" in result.output.lower()


def test_cli_without_cards_prints_smallest_counts() -> None:
    result = run_plan("--model", "r1-distill-qwen-32b", "--chip", "910B3", "--precision", "fp16")
    assert result.exit_code == 0, result.output
    assert "2 cards" in result.output or "2 x" in result.output


def test_cli_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_plan("--model", "DeepSeek-R1", "--chip", "H100").exit_code == 2
    assert run_plan("--model", "no-such-model-name", "--chip", "910B3").exit_code == 2
    assert run_plan("--model", "DeepSeek-R1", "--chip", "910B3", "--cards", "16", "--tp", "3").exit_code == 2
    bad = tmp_path / "config.json"
    bad.write_text("{not json", encoding="utf-8")
    result = run_plan("--model", str(bad), "--chip", "910B3")
    assert result.exit_code == 2 and "JSON" in result.output


def test_cli_reads_a_config_json(tmp_path: Path) -> None:
    cfg = tmp_path / "config.json"
    cfg.write_text(sample_body("model-config-hf-deepseek-r1-fp8.txt"), encoding="utf-8")
    result = run_plan("--model", str(cfg), "--precision", "w8a8", "--chip", "A3", "--cards", "16", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["plan"]["params"]["total"] == count_params(arch_of("DeepSeek-R1")).total


# -- a model directory: weights from the safetensors headers --------------------------------------

TINY_CONFIG = {
    "model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 256, "tie_word_embeddings": False,
    "torch_dtype": "bfloat16", "max_position_embeddings": 4096,
}


def write_safetensors(path: Path, tensors: Dict[str, Any]) -> int:
    """A real-format safetensors file (8-byte length, JSON header, zeroed data); returns data bytes."""
    import struct

    header: Dict[str, Any] = {}
    offset = 0
    for name, shape in tensors.items():
        count = 1
        for dim in shape:
            count *= dim
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + 2 * count]}
        offset += 2 * count
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * offset)
    return offset


def tiny_model_dir(tmp_path: Path) -> Any:
    model = tmp_path / "tiny-llama"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(TINY_CONFIG), encoding="utf-8")
    h, i, v, kv = 64, 128, 256, 2 * 16
    tensors: Dict[str, Any] = {"model.embed_tokens.weight": (v, h), "lm_head.weight": (v, h), "model.norm.weight": (h,)}
    for layer in range(2):
        p = f"model.layers.{layer}."
        tensors.update({
            p + "self_attn.q_proj.weight": (h, h), p + "self_attn.k_proj.weight": (kv, h),
            p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.o_proj.weight": (h, h),
            p + "mlp.gate_proj.weight": (i, h), p + "mlp.up_proj.weight": (i, h), p + "mlp.down_proj.weight": (h, i),
            p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,),
        })
    data_bytes = write_safetensors(model / "model.safetensors", tensors)
    return model, data_bytes


def test_model_directory_uses_the_safetensors_headers(tmp_path: Path) -> None:
    model, data_bytes = tiny_model_dir(tmp_path)
    arch = arch_from_hf_config(TINY_CONFIG)
    assert data_bytes == 2 * count_params(arch).total  # the header sums agree with the architecture
    result = run_plan("--model", str(model), "--mem-gb", "8", "--cards", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["model"]["kind"] == "directory" and data["model"]["checkpoint_precision"] == "bf16"
    assert data["plan"]["weights_from"] == "safetensors headers"
    assert data["plan"]["model_weights_bytes"] == data_bytes
    other = json.loads(run_plan("--model", str(model), "--mem-gb", "8", "--cards", "1", "--precision", "w8a8",
                                "--format", "json").output)
    assert other["plan"]["weights_from"] == "architecture"
    assert any("on disk is bf16" in note for note in other["notes"])


def test_plan_model_fact_reads_the_model_option(tmp_path: Path) -> None:
    from ascend_doctor.facts import Facts
    from ascend_doctor.host.live import LiveHost
    from ascend_doctor.options import RunOptions

    model, data_bytes = tiny_model_dir(tmp_path)
    facts = Facts(LiveHost(timeout_s=5.0), RunOptions(model_dir=str(model)))
    resolved = facts.plan_model
    assert resolved.kind == "directory" and resolved.tally is not None
    assert resolved.tally.total_bytes == data_bytes and resolved.checkpoint_precision == "bf16"
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("[]", encoding="utf-8")
    bad = Facts(LiveHost(timeout_s=5.0), RunOptions(model_dir=str(broken))).plan_model
    assert bad.error and bad.arch is None



def test_tally_shortfall_against_the_architecture() -> None:
    arch = arch_of("DeepSeek-R1")
    full = P.weights_from_arch(arch, P.PRECISIONS["w8a8"]).total_bytes
    # 2 of 163 shards of a 671B W8A8 download: a sliver of the model, never sized from its headers
    partial = P.tally_tensors([P.TensorEntry("model.layers.3.mlp.experts.0.up_proj.weight", "I8", full * 2 // 163)],
                              61)
    why = P.tally_shortfall(partial, arch)
    assert why is not None and "1.2%" in why and "in w8a8" in why and "GiB" in why
    whole = P.tally_tensors([P.TensorEntry("model.layers.3.mlp.experts.0.up_proj.weight", "I8", full)], 61)
    assert P.tally_shortfall(whole, arch) is None
    near = P.tally_tensors([P.TensorEntry("model.layers.3.mlp.experts.0.up_proj.weight", "I8", full * 81 // 100)],
                           61)
    assert P.tally_shortfall(near, arch) is None  # within the 80 % bound
    # an architecture we only approximate is no yardstick
    odd = arch_from_hf_config(dict(TINY_CONFIG, model_type="somethingelse"))
    assert odd.approximate and P.tally_shortfall(partial, odd) is None


def test_half_downloaded_directory_is_planned_from_the_architecture(tmp_path: Path) -> None:
    from ascend_doctor.facts.serving import load_plan_model
    from ascend_doctor.host.live import LiveHost

    host = LiveHost(timeout_s=5.0)
    model, _ = tiny_model_dir(tmp_path)
    (model / "model.safetensors").rename(model / "model-00001-of-00002.safetensors")
    raw = (model / "model-00001-of-00002.safetensors").read_bytes()
    header = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    weight_map = {name: "model-00001-of-00002.safetensors" for name in header}
    weight_map["model.layers.9.mlp.up_proj.weight"] = "model-00002-of-00002.safetensors"
    (model / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}), encoding="utf-8")
    resolved = load_plan_model(host, str(model))
    assert resolved.tally is None and resolved.checkpoint_precision == "bf16"
    assert resolved.weights_reason is not None and "model-00002-of-00002.safetensors" in resolved.weights_reason
    assert any("computed from the architecture" in note for note in resolved.notes)
    plan = json.loads(run_plan("--model", str(model), "--mem-gb", "8", "--cards", "1", "--format", "json").output)
    assert plan["plan"]["weights_from"] == "architecture"
    # the complete directory is still sized from its headers
    (tmp_path / "complete").mkdir()
    complete, _ = tiny_model_dir(tmp_path / "complete")
    assert load_plan_model(host, str(complete)).tally is not None


def test_memory_fit_says_why_the_headers_were_not_used(tmp_path: Path) -> None:
    import importlib

    from ascend_doctor.checkapi import CheckContext
    from ascend_doctor.facts import Facts
    from ascend_doctor.facts.records import ChipSummary
    from ascend_doctor.host.live import LiveHost
    from ascend_doctor.options import RunOptions

    from . import model_fixtures as F

    # an R1 config with one small W8A8 layer: the headers are a sliver of what the config describes
    model = tmp_path / "DeepSeek-R1-W8A8"
    model.mkdir()
    family = find_family("DeepSeek-R1")
    assert family is not None
    cfg = dict(family.config)
    cfg.pop("quantization_config", None)
    F.write_json(str(model / "config.json"), cfg)
    tensors = F.w8a8_dynamic_layer(3)
    F.write_safetensors(str(model / "quant_model_weight_w8a8_dynamic.safetensors"), tensors)
    F.write_json(str(model / "quant_model_description.json"),
                 dict(F.description_for(tensors, "W8A8_DYNAMIC"), model_quant_type="W8A8_DYNAMIC"))
    facts = Facts(LiveHost(timeout_s=5.0), RunOptions(model_dir=str(model)))
    facts.seed(npu_chip=ChipSummary(name="910B3", family="A2", chip_count=8, hbm_mb=65536))
    check = importlib.import_module("ascend_doctor.checks.mdl_020_memory_fit")
    findings = list(check.run(CheckContext(facts=facts, matrix=None, options=facts.options)))
    assert findings[0].status.value == "FAIL"  # 671B in W8A8 on 8 x 64 GiB: the headers' few KiB would "fit"
    assert "[weights from the architecture: the safetensors headers hold" in findings[0].message
    assert "w8a8" in findings[0].message


CONFIG_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**5),
                          st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
                          st.lists(st.integers(), max_size=2))


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.sampled_from(list(TINY_CONFIG) + ["kv_lora_rank", "qk_rope_head_dim", "q_lora_rank",
                                                           "n_routed_experts", "moe_intermediate_size",
                                                           "first_k_dense_replace", "head_dim"]),
                       CONFIG_VALUES, max_size=12),
       st.sampled_from(["llama", "qwen2", "deepseek_v3", "other"]))
def test_any_config_counts_or_says_why(cfg: Dict[str, Any], model_type: str) -> None:
    cfg = dict(cfg, model_type=model_type)
    try:
        arch = arch_from_hf_config(cfg)
    except ArchError:
        return
    params = count_params(arch)
    assert params.total > 0 and kv_elements_per_token(arch) > 0
    P.plan_memory(arch, P.PRECISIONS["w8a8"], GB64, P.make_layout(cards=2, moe=arch.is_moe))


def test_cli_without_a_chip_on_a_host_without_npu_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_doctor.cli import plan_cmd

    monkeypatch.setattr(plan_cmd, "_host_chip", lambda: (None, None))
    result = run_plan("--model", "DeepSeek-R1")
    assert result.exit_code == 2 and "--chip" in result.output
    assert run_plan("--model", "DeepSeek-R1", "--chip", "910B3", "--mem-gb", "64").exit_code == 2


@settings(max_examples=300, deadline=None)
@given(layers=st.integers(-3, 200), first_dense=st.integers(-3, 210), freq=st.integers(-2, 7),
       experts=st.sampled_from([0, 8, 256]))
def test_moe_layer_count_is_the_layers_is_moe_layer_names(layers: int, first_dense: int, freq: int,
                                                          experts: int) -> None:
    from msgspec import structs

    arch = structs.replace(find_family("DeepSeek-R1").arch(), num_hidden_layers=layers,  # type: ignore[union-attr]
                               first_k_dense_replace=first_dense, moe_layer_freq=freq, n_routed_experts=experts)
    assert arch.moe_layer_count == sum(1 for i in range(layers) if arch.is_moe_layer(i))
