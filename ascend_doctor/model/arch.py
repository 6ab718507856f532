"""Model architecture records, parameter counting and KV-cache size, from a HF ``config.json``.

Pure code: it receives the already-parsed ``config.json`` dict and never touches a host.

Supported shapes (``model_type``):

* dense decoder with grouped-query attention: ``llama``, ``qwen2`` (and ``mistral``, same shape);
  Qwen2 has biases on the q/k/v projections, Llama has none;
* DeepSeek-V2/V3 (``deepseek_v2``, ``deepseek_v3``): Multi-head Latent Attention (MLA) and a
  MoE feed-forward with shared and routed experts after ``first_k_dense_replace`` dense layers.

Other ``model_type`` values with the usual llama-like keys are counted as a dense GQA model and
flagged ``approximate`` so the caller can say so.

Parameter counts are exact for the tensors the HF checkpoints hold (weights, biases, norms,
router, DeepSeek's ``e_score_correction_bias``); rotary tables and other buffers are not
parameters. DeepSeek's multi-token-prediction (MTP) layers (``num_nextn_predict_layers``) are
counted separately: the published "671B" excludes them, the HF checkpoint ("685B") includes them
together with their own copies of the embedding and output head.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional

from msgspec import Struct, structs

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text

DENSE_TYPES = ("llama", "qwen2", "mistral")
MLA_TYPES = ("deepseek_v2", "deepseek_v3")
# Qwen2 puts biases on q/k/v (its HF modeling code hard-wires bias=True for them).
QKV_BIAS_TYPES = ("qwen2",)


class ArchError(ValueError):
    """The config cannot describe a model we know how to count; the message says why."""


class ModelArch(Struct, frozen=True):
    """The architecture facts the memory plan needs, named as in HF ``config.json``."""

    name: str
    model_type: str
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool = False
    qkv_bias: bool = False
    max_position_embeddings: Optional[int] = None
    torch_dtype: Optional[str] = None
    quant_method: Optional[str] = None  # quantization_config.quant_method (e.g. "fp8") or MindIE "quantize"
    # MLA (DeepSeek-V2/V3); q_lora_rank None means a plain q_proj (V2-Lite)
    q_lora_rank: Optional[int] = None
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    # MoE (DeepSeek)
    n_routed_experts: int = 0
    n_shared_experts: int = 0
    moe_intermediate_size: int = 0
    num_experts_per_tok: int = 0
    first_k_dense_replace: int = 0
    moe_layer_freq: int = 1
    router_bias: bool = False  # V3's e_score_correction_bias (topk_method noaux_tc)
    num_nextn_predict_layers: int = 0
    approximate: bool = False  # unknown model_type counted as a dense GQA model

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def is_moe(self) -> bool:
        return self.n_routed_experts > 0

    def is_moe_layer(self, index: int) -> bool:
        return (
            self.is_moe
            and index >= self.first_k_dense_replace
            and index % max(1, self.moe_layer_freq) == 0
        )

    @property
    def moe_layer_count(self) -> int:
        """How many layers ``is_moe_layer`` (the multiples of the frequency from the first MoE
        layer on), counted without walking the layers: plan asks for it at every card count."""
        start = max(0, self.first_k_dense_replace)
        if not self.is_moe or self.num_hidden_layers <= start:
            return 0
        freq = max(1, self.moe_layer_freq)
        return -(-self.num_hidden_layers // freq) - -(-start // freq)

    @property
    def family(self) -> str:
        if self.is_mla and self.is_moe:
            return "MoE + MLA"
        if self.is_mla:
            return "MLA"
        if self.num_key_value_heads < self.num_attention_heads:
            return "dense, GQA"
        return "dense, MHA"


class ParamBreakdown(Struct, frozen=True):
    """Parameter counts by role; the roles decide quantization and sharding.

    ``kept`` are the tensors quantized checkpoints keep in 16-bit (embedding, output head, norms,
    biases, MoE router); ``routed_experts`` are split by expert parallelism, everything else by
    tensor parallelism. ``mtp`` is reported apart and not part of ``total``.
    """

    embedding: int
    lm_head: int
    attention: int
    dense_mlp: int
    shared_experts: int
    routed_experts: int
    router: int
    norms_and_biases: int
    mtp: int = 0

    @property
    def total(self) -> int:
        return (
            self.embedding + self.lm_head + self.attention + self.dense_mlp + self.shared_experts
            + self.routed_experts + self.router + self.norms_and_biases
        )

    @property
    def kept(self) -> int:
        """Parameters quantized checkpoints keep in 16-bit."""
        return self.embedding + self.lm_head + self.router + self.norms_and_biases

    @property
    def quantizable(self) -> int:
        """Linear-layer weights a W8A8/W8A16/W4A8/FP8 checkpoint stores in low precision."""
        return self.attention + self.dense_mlp + self.shared_experts + self.routed_experts

    @property
    def experts(self) -> int:
        return self.routed_experts

    @property
    def non_expert(self) -> int:
        return self.total - self.routed_experts

    def as_dict(self) -> Dict[str, int]:
        return {
            "embedding": self.embedding,
            "lm_head": self.lm_head,
            "attention": self.attention,
            "dense_mlp": self.dense_mlp,
            "shared_experts": self.shared_experts,
            "routed_experts": self.routed_experts,
            "router": self.router,
            "norms_and_biases": self.norms_and_biases,
            "total": self.total,
            "mtp_not_in_total": self.mtp,
        }


# -- reading a config.json dict ---------------------------------------------------------------


def _int(cfg: Mapping[str, Any], key: str, *, required: bool = True, default: int = 0, minimum: int = 1) -> int:
    value = cfg.get(key)
    if value is None:
        if required:
            raise ArchError(Text(N_("config.json has no {key}"), key=repr(key)))
        return default
    # bool is an int in Python; true/false is never a valid size
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ArchError(Text(N_("config.json {key} must be an integer, got {value}"), key=repr(key),
                                 value=repr(value)))
    if value < minimum:
        raise ArchError(Text(N_("config.json {key} must be >= {minimum}, got {value}"), key=repr(key),
                             minimum=minimum, value=value))
    return int(value)


def _opt_int(cfg: Mapping[str, Any], key: str, minimum: int = 1) -> Optional[int]:
    if cfg.get(key) is None:
        return None
    return _int(cfg, key, minimum=minimum)


def arch_from_hf_config(cfg: Mapping[str, Any], name: Optional[str] = None) -> ModelArch:
    """Build a ``ModelArch`` from a parsed HF ``config.json``; ``ArchError`` says what is wrong."""
    if not isinstance(cfg, Mapping):
        raise ArchError(Text(N_("config.json must be a JSON object, got {type}"), type=type(cfg).__name__))
    model_type = cfg.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ArchError(Text(N_("config.json has no {key}"), key=repr("model_type")))
    model_type = model_type.lower()
    hidden = _int(cfg, "hidden_size")
    layers = _int(cfg, "num_hidden_layers")
    heads = _int(cfg, "num_attention_heads")
    kv_heads = _int(cfg, "num_key_value_heads", required=False, default=heads)
    vocab = _int(cfg, "vocab_size")
    intermediate = _int(cfg, "intermediate_size")
    head_dim = _opt_int(cfg, "head_dim") or (hidden // heads)
    if head_dim * heads != hidden and cfg.get("head_dim") is None and model_type not in MLA_TYPES:
        raise ArchError(Text(N_("hidden_size {hidden} is not a multiple of num_attention_heads {heads}"),
                             hidden=hidden, heads=heads))
    if kv_heads > heads:
        raise ArchError(Text(N_("num_key_value_heads {kv_heads} exceeds num_attention_heads {heads}"),
                             kv_heads=kv_heads, heads=heads))
    quant = cfg.get("quantization_config")
    quant_method = None
    if isinstance(quant, Mapping) and isinstance(quant.get("quant_method"), str):
        quant_method = str(quant["quant_method"]).lower()
    elif isinstance(cfg.get("quantize"), str):  # MindIE / msmodelslim converted weights
        quant_method = str(cfg["quantize"]).lower()
    common: Dict[str, Any] = {
        "name": name or str(cfg.get("_name_or_path") or model_type),
        "model_type": model_type,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "intermediate_size": intermediate,
        "vocab_size": vocab,
        "tie_word_embeddings": bool(cfg.get("tie_word_embeddings", False)),
        "max_position_embeddings": _opt_int(cfg, "max_position_embeddings"),
        "torch_dtype": cfg.get("torch_dtype") if isinstance(cfg.get("torch_dtype"), str) else None,
        "quant_method": quant_method,
    }
    if model_type in MLA_TYPES:
        n_routed = _int(cfg, "n_routed_experts", required=False, default=0, minimum=0)
        arch = ModelArch(
            **common,
            q_lora_rank=_opt_int(cfg, "q_lora_rank"),
            kv_lora_rank=_int(cfg, "kv_lora_rank"),
            qk_nope_head_dim=_int(cfg, "qk_nope_head_dim"),
            qk_rope_head_dim=_int(cfg, "qk_rope_head_dim"),
            v_head_dim=_int(cfg, "v_head_dim"),
            n_routed_experts=n_routed,
            n_shared_experts=_int(cfg, "n_shared_experts", required=False, default=0, minimum=0),
            moe_intermediate_size=_int(cfg, "moe_intermediate_size", required=n_routed > 0, default=0, minimum=0),
            num_experts_per_tok=_int(cfg, "num_experts_per_tok", required=False, default=0, minimum=0),
            first_k_dense_replace=_int(cfg, "first_k_dense_replace", required=False, default=0, minimum=0),
            moe_layer_freq=_int(cfg, "moe_layer_freq", required=False, default=1),
            router_bias=str(cfg.get("topk_method", "")) == "noaux_tc",
            num_nextn_predict_layers=_int(cfg, "num_nextn_predict_layers", required=False, default=0, minimum=0),
        )
        if arch.first_k_dense_replace > layers:
            raise ArchError(Text(N_("first_k_dense_replace {value} exceeds {layers} layers"),
                                 value=arch.first_k_dense_replace, layers=layers))
        return arch
    return ModelArch(
        **common,
        qkv_bias=model_type in QKV_BIAS_TYPES or bool(cfg.get("attention_bias", False)),
        approximate=model_type not in DENSE_TYPES,
    )


# -- counting ----------------------------------------------------------------------------------


def _attention_params(arch: ModelArch) -> int:
    """Weights of one attention block (norms inside MLA included)."""
    h = arch.hidden_size
    if arch.is_mla:
        qk_head = arch.qk_nope_head_dim + arch.qk_rope_head_dim
        if arch.q_lora_rank:
            q = h * arch.q_lora_rank + arch.q_lora_rank + arch.q_lora_rank * arch.num_attention_heads * qk_head
        else:
            q = h * arch.num_attention_heads * qk_head
        kv_a = h * (arch.kv_lora_rank + arch.qk_rope_head_dim) + arch.kv_lora_rank  # + kv_a_layernorm
        kv_b = arch.kv_lora_rank * arch.num_attention_heads * (arch.qk_nope_head_dim + arch.v_head_dim)
        o = arch.num_attention_heads * arch.v_head_dim * h
        return q + kv_a + kv_b + o
    q_out = arch.num_attention_heads * arch.head_dim
    kv_out = arch.num_key_value_heads * arch.head_dim
    return h * q_out + 2 * h * kv_out + q_out * h


def _qkv_bias_params(arch: ModelArch) -> int:
    if not arch.qkv_bias or arch.is_mla:
        return 0
    return arch.num_attention_heads * arch.head_dim + 2 * arch.num_key_value_heads * arch.head_dim


def _mlp_params(hidden: int, intermediate: int) -> int:
    return 3 * hidden * intermediate  # gate, up, down projections (SwiGLU)


def _mla_norm_params(arch: ModelArch) -> int:
    """The q_a/kv_a layernorms counted inside the attention block, moved to norms."""
    if not arch.is_mla:
        return 0
    return (arch.q_lora_rank or 0) + arch.kv_lora_rank


def count_params(arch: ModelArch) -> ParamBreakdown:
    """Exact parameter count of the checkpoint's tensors, by role (MTP reported apart)."""
    h = arch.hidden_size
    layers = arch.num_hidden_layers
    attention_one = _attention_params(arch) - _mla_norm_params(arch)
    moe_layers = arch.moe_layer_count
    dense_layers = layers - moe_layers
    expert_one = _mlp_params(h, arch.moe_intermediate_size)
    router_one = arch.n_routed_experts * h + (arch.n_routed_experts if arch.router_bias else 0)
    norms_one = 2 * h + _mla_norm_params(arch) + _qkv_bias_params(arch)
    embedding = arch.vocab_size * h
    lm_head = 0 if arch.tie_word_embeddings else arch.vocab_size * h
    breakdown = ParamBreakdown(
        embedding=embedding,
        lm_head=lm_head,
        attention=attention_one * layers,
        dense_mlp=_mlp_params(h, arch.intermediate_size) * dense_layers,
        shared_experts=expert_one * arch.n_shared_experts * moe_layers,
        routed_experts=expert_one * arch.n_routed_experts * moe_layers,
        router=router_one * moe_layers,
        norms_and_biases=norms_one * layers + h,  # + final norm
    )
    mtp = 0
    if arch.num_nextn_predict_layers:
        # Each MTP module: one decoder layer (MoE when the main model is), enorm + hnorm,
        # eh_proj (2h -> h), its own output norm, and - as stored in the HF checkpoint - its
        # own copies of embed_tokens and the shared head.
        layer = attention_one + norms_one
        if arch.is_moe:
            layer += expert_one * (arch.n_routed_experts + arch.n_shared_experts) + router_one
        else:
            layer += _mlp_params(h, arch.intermediate_size)
        mtp_one = layer + 2 * h + 2 * h * h + h + 2 * embedding
        mtp = mtp_one * arch.num_nextn_predict_layers
    return structs.replace(breakdown, mtp=mtp)


# -- KV cache ----------------------------------------------------------------------------------


def kv_elements_per_token(arch: ModelArch) -> int:
    """Cached elements per token for the whole model (all layers, all heads).

    MLA caches the compressed latent and the decoupled rope key:
    ``(kv_lora_rank + qk_rope_head_dim) x layers``. GQA caches K and V for each KV head:
    ``2 x kv_heads x head_dim x layers``.
    """
    if arch.is_mla:
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * arch.num_hidden_layers
    return 2 * arch.num_key_value_heads * arch.head_dim * arch.num_hidden_layers


def kv_elements_per_token_per_card(arch: ModelArch, tp: int) -> int:
    """What one card of a TP group caches per token.

    GQA splits the KV heads over the TP ranks; when TP exceeds the KV heads each rank still holds
    one head (heads are replicated), hence the ceiling. MLA's latent is shared by all heads, so
    every TP rank keeps the whole latent: it does not shrink with TP.
    """
    if arch.is_mla:
        return kv_elements_per_token(arch)
    heads_per_card = math.ceil(arch.num_key_value_heads / max(1, tp))
    return 2 * heads_per_card * arch.head_dim * arch.num_hidden_layers


def describe(arch: ModelArch) -> List[str]:
    """Short human lines about the architecture (for plan output; ``Text``, shown with ``localized``)."""
    lines: List[str] = [Text(N_("{model_type}: {family}, {layers} layers, hidden {hidden}"), model_type=arch.model_type,
                             family=arch.family, layers=arch.num_hidden_layers, hidden=arch.hidden_size)]
    if arch.is_mla:
        lines.append(f"MLA: kv_lora_rank {arch.kv_lora_rank} + qk_rope_head_dim {arch.qk_rope_head_dim}")
    else:
        lines.append(Text(N_("attention: {heads} heads, {kv_heads} KV heads x {head_dim}"),
                          heads=arch.num_attention_heads, kv_heads=arch.num_key_value_heads, head_dim=arch.head_dim))
    if arch.is_moe:
        lines.append(Text(N_("MoE: {routed} routed + {shared} shared experts in {layers} layers ({per_token} per "
                             "token)"), routed=arch.n_routed_experts, shared=arch.n_shared_experts,
                          layers=arch.moe_layer_count, per_token=arch.num_experts_per_tok))
    return lines
