"""The memory plan: will a model fit on N Ascend cards, and what is left for the KV cache.

Pure arithmetic over an architecture (``arch.py``) or a tally of the checkpoint's safetensors
headers. The model is documented in ``docs/plan.md``; in short, per card::

    weights  = non-expert weights / TP  +  routed-expert weights / (EP x MoE-TP)
    kv cache = ceil(batch / DP) x max_seq_len x KV bytes per token on one card
    reserve  = fixed runtime reserve + a fraction of the card's memory
    free     = card memory - weights - kv cache - reserve

* Non-expert weights (attention, dense MLP, shared experts, embedding, output head) are split by
  tensor parallelism; norms and the router are tiny and counted as split too (< 0.1 % error).
* Routed experts are split over ``EP x MoE-TP`` cards: over every card when expert parallelism
  spans the whole group (vLLM ``--enable-expert-parallel``, MindIE ``moe_ep x moe_tp = worldSize``),
  over the TP group only when there is no EP (each DP replica then holds all experts).
* Quantized precisions keep the embedding, output head, norms, biases and the MoE router in
  BF16 (that is what msmodelslim W8A8 and the FP8 originals do); only linear-layer weights
  shrink. Scale/offset tensors are < 0.1 % and ignored when counting from the architecture
  (they are counted when the safetensors headers are read).
* The verdict needs the weights, the reserve and at least one ``max_seq_len`` sequence to fit;
  if the whole requested batch of full-length sequences does not, the plan says how many do.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.lazy import lazy_re
from ascend_doctor.model.arch import ModelArch, ParamBreakdown, count_params, kv_elements_per_token_per_card

GIB = 1024**3
MIB = 1024**2

VERDICT_FITS = "fits"
VERDICT_FEWER = "fits-fewer-sequences"
VERDICT_NO = "does-not-fit"
# the chip cannot load the weights in this precision (FP8 on Ascend; BF16 on 310P): whatever the memory says
VERDICT_NOT_LOADABLE = "not-loadable"

# Card counts tried when looking for the smallest deployment (Ascend servers come in 8s and 16s).
CARD_COUNTS: Tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)


class PlanError(ValueError):
    """A request the plan cannot answer (unknown precision or chip, inconsistent parallel sizes)."""


# -- precisions ---------------------------------------------------------------------------------


class Precision(Struct, frozen=True):
    name: str
    bits: int  # bits per linear-layer weight; 16-bit precisions store everything at 16 bits
    description: str
    ascend_loadable: bool = True
    # bits of the quantizable layers that are not routed experts (attention, dense MLP, shared experts)
    # in an MoE model; None: the same as ``bits``. W4A8 DeepSeek keeps them at 8 bit.
    moe_non_expert_bits: Optional[int] = None
    # the matrix's chip dtype that says whether a chip has a documented route for this precision
    chip_dtype: Optional[str] = None

    @property
    def quantized(self) -> bool:
        return self.bits < 16


PRECISIONS: Dict[str, Precision] = {
    "bf16": Precision("bf16", 16, "every weight in bfloat16"),
    "fp16": Precision("fp16", 16, "every weight in float16"),
    "w8a8": Precision("w8a8", 8, "int8 linear weights and activations (msmodelslim); embedding, lm_head, norms, "
                      "biases and MoE router kept in bf16"),
    "w8a16": Precision("w8a16", 8, "int8 linear weights, 16-bit activations; same bf16-kept tensors as w8a8"),
    "w4a8": Precision("w4a8", 4, "int4 linear weights, int8 activations; same bf16-kept tensors as w8a8. In an MoE "
                      "model only the routed experts are int4: attention, dense and shared-expert layers stay int8 "
                      "(the msmodelslim / MindIE DeepSeek W4A8 hybrid layout)", moe_non_expert_bits=8,
                      chip_dtype="int4"),
    "fp8": Precision("fp8", 8, "FP8 e4m3 block-quantized linear weights (the HF DeepSeek-V3/R1 original); "
                     "same bf16-kept tensors", ascend_loadable=False, chip_dtype="fp8"),
}

# Where the W4A8 hybrid layout is documented (routed experts int4; MLA and shared experts W8A8).
W4A8_LAYOUT_SOURCES = (
    "gitcode.com/Ascend/MindIE-LLM docs/en/user_guide/feature/w4a8_mixed_precision_quantization.md",
    "gitcode.com/Ascend/msit msmodelslim/lab_practice/deepseek_v3_2/deepseek_w4a8.yaml",
)
PRECISION_ALIASES = {
    "bfloat16": "bf16", "float16": "fp16", "half": "fp16", "int8": "w8a8", "w8a8_dynamic": "w8a8",
    "w8a8c8": "w8a8", "w8a8s": "w8a8", "w8a8sc": "w8a8", "int4": "w4a8", "fp8_e4m3": "fp8", "e4m3": "fp8",
}


def parse_precision(text: str) -> Precision:
    key = text.strip().lower().replace("-", "_")
    key = PRECISION_ALIASES.get(key, key)
    if key not in PRECISIONS:
        raise PlanError(Text(N_("unknown precision {value}; use one of {choices}"), value=repr(text),
                             choices=", ".join(PRECISIONS)))
    return PRECISIONS[key]


KV_DTYPE_BYTES: Dict[str, int] = {"bf16": 2, "fp16": 2, "int8": 1, "fp8": 1}
KV_DTYPE_ALIASES = {
    "bfloat16": "bf16", "float16": "fp16", "half": "fp16", "c8": "int8", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8",
    "fp8_ds_mla": "fp8",
}


def parse_kv_dtype(text: Optional[str]) -> Optional[str]:
    """Normalise a KV-cache dtype; ``None``/``auto`` mean "same as the activations" (16-bit)."""
    if text is None:
        return None
    key = text.strip().lower().replace("-", "_")
    if key in ("", "auto"):
        return None
    key = KV_DTYPE_ALIASES.get(key, key)
    if key not in KV_DTYPE_BYTES:
        raise PlanError(Text(N_("unknown KV-cache dtype {value}; use one of {choices}"), value=repr(text),
                             choices=", ".join(KV_DTYPE_BYTES)))
    return key


# -- chips --------------------------------------------------------------------------------------


class ChipMemory(Struct, frozen=True):
    name: str
    hbm_bytes: int
    note: str = ""
    family: Optional[str] = None
    # dtypes the chip does not have (310P: bf16): a plan never defaults to them and marks them
    # "not loadable", as FP8 on every NPU
    unsupported_dtypes: Tuple[str, ...] = ()
    # dtypes the matrix records as supported (True or "partial") on this chip
    supported_dtypes: Tuple[str, ...] = ()
    # precisions with no documented route on this chip (w4a8 on 310P): "unknown", not "not loadable"
    undocumented: Tuple[str, ...] = ()


# Advice the matrix's chip notes do not give: how to plan the other memory variant.
# (N_: shown translated by the plan command, piece by piece of the joined note.)
_MEMORY_HINTS = {
    "910B4": N_("most 910B4 have 32 GB; a 64 GB variant exists (npu-smi shows 65536 MB): use --mem-gb 64"),
    "910B": N_("an npu-smi Name of exactly '910B' is a first-generation 910 with 32 GB; for an Atlas A2 910B1-B4 "
               "give that name (or A2)"),
    "310P3": N_("Atlas 300I Pro / 300V Pro class, ~21 GiB usable per chip as npu-smi shows; the 96 GB Atlas 300I "
                "Duo shows ~44280 MB per chip: use --mem-gb 43"),
}


def chip_memory(name: str, matrix: Any = None) -> ChipMemory:
    """Memory of one chip by any name the compatibility matrix resolves (the one chip resolver of
    every command): an npu-smi Name (910B3, Ascend910, 910C1), a SoC (Ascend910_9392) or a family
    (A2, A3, 310P). Source of the numbers: the matrix's chips table (compat_facts.md §6.2)."""
    if matrix is None:  # the shipped matrix's chip tables alone, when that is the matrix in use
        from ascend_doctor.matrix.select import load_chip_index

        index = load_chip_index()
    else:
        index = matrix.chip_index
    info = index.lookup(name)
    if info is None:
        known = sorted({e.name for e in index.entries} | {f.family for f in index.families.values()})
        raise PlanError(Text(N_("unknown chip {name}; known: {known} (or give --mem-gb)"), name=repr(name),
                             known=", ".join(known)))
    notes: List[str] = []
    memory = info.memory_mb
    if not memory:  # a SoC pattern names the family only: size it as the family
        family = index.lookup(info.family)
        memory = family.memory_mb if family is not None else ()
        notes.append(Text(N_("{name} is sized as the {family} family"), name=repr(name), family=info.family))
    if not memory:
        raise PlanError(Text(N_("the matrix records no memory for {name}; give --mem-gb"), name=repr(name)))
    if info.is_family:
        notes.extend(info.notes[:1])
    hint = _MEMORY_HINTS.get(info.name)
    if hint:
        notes.append(hint)
    unsupported = tuple(d for d, entry in info.dtypes.items() if entry.supported is False)
    supported = tuple(d for d, entry in info.dtypes.items() if entry.supported in (True, "partial"))
    undocumented = tuple(p.name for p in PRECISIONS.values()
                         if p.chip_dtype and p.ascend_loadable and p.chip_dtype not in supported
                         and p.chip_dtype not in unsupported)
    return ChipMemory(info.name, memory[0] * MIB, "; ".join(notes), info.family, unsupported, supported, undocumented)


def loadable_on(precision: Precision, unsupported: Sequence[str], supported: Sequence[str] = ()) -> bool:
    """Whether an Ascend chip loads weights in this precision: not when the chip lacks the dtype (bf16 on
    310P), and FP8 only where the matrix records the chip supports it ("当前昇腾设备不支持FP8格式加载")."""
    if precision.name in unsupported or (precision.chip_dtype and precision.chip_dtype in unsupported):
        return False
    return precision.ascend_loadable or bool(precision.chip_dtype and precision.chip_dtype in supported)


class Route(Struct, frozen=True):
    """A documented way to serve a checkpoint whose precision the chip cannot load."""

    precision: str  # the precision to serve in
    how: str  # what to run (Text): fp8_cast_bf16.py, msmodelslim W8A8
    sources: Tuple[str, ...]

    def as_dict(self) -> Dict[str, Any]:
        return {"precision": self.precision, "how": self.how, "sources": list(self.sources)}


# DeepSeek's FP8 originals on Ascend: dequantize to BF16, or quantize to W8A8 (same size as FP8).
_FP8_ROUTE_SOURCES = ("https://www.hiascend.com/developer/techArticles/20250222-1",
                      "https://github.com/deepseek-ai/DeepSeek-V3 inference/fp8_cast_bf16.py")


def loading_routes(precision: Precision, unsupported: Sequence[str]) -> List[Route]:
    """The Ascend routes for a precision the chip cannot load: BF16 (fp8_cast_bf16) where the chip has
    BF16, else FP16 (310P), and msmodelslim W8A8, which is the same size as FP8. Never fp16 on a chip
    that has BF16: fp16 is not a documented DeepSeek route there."""
    routes: List[Route] = []
    if precision.name == "fp8":
        if "bf16" not in unsupported:
            routes.append(Route("bf16", Text(N_("convert the FP8 weights to BF16 with DeepSeek's fp8_cast_bf16.py")),
                                _FP8_ROUTE_SOURCES))
        else:
            routes.append(Route("fp16", Text(N_("convert the FP8 weights to BF16 with fp8_cast_bf16.py, then serve "
                                                "them in float16 (this chip has no BF16)")), _FP8_ROUTE_SOURCES))
        if "w8a8" not in unsupported:
            routes.append(Route("w8a8", Text(N_("quantize to W8A8 with msmodelslim (int8 weights: the same size as "
                                                "FP8)")), _FP8_ROUTE_SOURCES[:1]))
    elif precision.name == "bf16" and "bf16" in unsupported:
        routes.append(Route("fp16", Text(N_("serve the 16-bit weights in float16 (--dtype float16 / MindIE fp16)")),
                            ()))
    return routes


# -- reserve ------------------------------------------------------------------------------------


class Reserve(Struct, frozen=True):
    """Memory a card cannot give to weights or KV cache.

    ``fixed_bytes`` covers what the driver, runtime and HCCL hold before any model loads (npu-smi
    shows ~3.3 GiB used on an idle 64 GB 910B: "3396 / 65536", compat_facts §6.2) plus operator
    workspace; ``fraction`` is the head-room the engines keep (vLLM's --gpu-memory-utilization
    defaults to 0.9; MindIE's NPU_MEMORY_FRACTION to 0.8), which also absorbs activations and
    fragmentation.
    """

    fixed_bytes: int = 3 * GIB
    fraction: float = 0.10

    def bytes_for(self, hbm_bytes: int) -> int:
        return int(self.fixed_bytes + self.fraction * hbm_bytes)

    def as_dict(self) -> Dict[str, Any]:
        return {"fixed_gib": round(self.fixed_bytes / GIB, 2), "fraction": self.fraction}


DEFAULT_RESERVE = Reserve()


# -- parallel layout ----------------------------------------------------------------------------


class Layout(Struct, frozen=True):
    """How the model is spread: ``cards = tp x dp``; routed experts over ``ep x moe_tp`` cards."""

    cards: int
    tp: int
    dp: int
    ep: int
    moe_tp: int

    @property
    def expert_shards(self) -> int:
        return self.ep * self.moe_tp

    def as_dict(self) -> Dict[str, int]:
        return {"cards": self.cards, "tp": self.tp, "dp": self.dp, "ep": self.ep, "moe_tp": self.moe_tp}


def _positive(name: str, value: Optional[int]) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PlanError(Text(N_("{name} must be a positive integer, got {value}"), name=name, value=repr(value)))
    return value


def make_layout(
    cards: Optional[int] = None,
    tp: Optional[int] = None,
    dp: Optional[int] = None,
    ep: Optional[int] = None,
    moe_tp: Optional[int] = None,
    moe: bool = True,
) -> Layout:
    """Fill in and check a layout. Defaults: one DP replica, TP over every card, no EP."""
    cards, tp, dp = _positive("cards", cards), _positive("tp", tp), _positive("dp", dp)
    ep, moe_tp = _positive("ep", ep), _positive("moe_tp", moe_tp)
    if dp is None and cards is not None and tp is not None:
        if cards % tp:
            raise PlanError(Text(N_("tp={tp} does not divide {cards} cards"), tp=tp, cards=cards))
        dp = cards // tp
    dp = dp or 1
    if cards is None:
        cards = (tp or 1) * dp
    if tp is None:
        if cards % dp:
            raise PlanError(Text(N_("{cards} cards cannot be split into dp={dp} replicas"), cards=cards, dp=dp))
        tp = cards // dp
    if tp * dp != cards:
        raise PlanError(Text(N_("tp x dp = {tp} x {dp} = {product}, but {cards} cards were given"), tp=tp, dp=dp,
                             product=tp * dp, cards=cards))
    if not moe:
        return Layout(cards, tp, dp, 1, tp)
    if ep is None and moe_tp is None:
        return Layout(cards, tp, dp, 1, tp)
    if ep is None:
        assert moe_tp is not None
        if cards % moe_tp:
            raise PlanError(Text(N_("moe_tp={moe_tp} does not divide {cards} cards"), moe_tp=moe_tp, cards=cards))
        ep = cards // moe_tp
    if moe_tp is None:
        if cards % ep:
            raise PlanError(Text(N_("ep={ep} does not divide {cards} cards"), ep=ep, cards=cards))
        moe_tp = cards // ep
    if ep * moe_tp != cards:
        raise PlanError(Text(N_("ep x moe_tp = {ep} x {moe_tp} = {product}, but {cards} cards were given"), ep=ep,
                             moe_tp=moe_tp, product=ep * moe_tp, cards=cards))
    return Layout(cards, tp, dp, ep, moe_tp)


def search_layout(cards: int, moe: bool) -> Layout:
    """The layout used to find the smallest card count: everything split over every card."""
    return make_layout(cards=cards, tp=cards, dp=1, ep=cards if moe else None, moe=moe)


def search_layouts(cards: int, arch: ModelArch) -> List[Layout]:
    """Layouts tried at one card count, best first: TP over every card, then, for MLA, attention data
    parallelism (TP cards/2, cards/4, ... x DP, experts still over every card).

    An MLA KV cache is replicated on every TP rank (one latent per token), so adding TP never shrinks
    it; DP replicas split the batch instead (vLLM-Ascend / MindIE DeepSeek deployments run attention
    DP with EP over all cards). Larger TP first: it keeps the most weight memory free.
    """
    layouts = [search_layout(cards, arch.is_moe)]
    if arch.is_mla:
        tp = cards // 2
        while tp >= 1:
            layouts.append(make_layout(cards=cards, tp=tp, dp=cards // tp, ep=cards if arch.is_moe else None,
                                       moe=arch.is_moe))
            tp //= 2
    return layouts


# -- weights ------------------------------------------------------------------------------------


class WeightTally(Struct, frozen=True):
    """What the checkpoint's safetensors headers say (bytes as stored, by role)."""

    total_bytes: int
    expert_bytes: int
    mtp_bytes: int
    kept_bytes: int
    tensor_count: int
    file_count: int
    dtype_bytes: Mapping[str, int] = field(default_factory=dict)
    detected_precision: Optional[str] = None

    @property
    def main_bytes(self) -> int:
        return self.total_bytes - self.mtp_bytes


class WeightPlan(Struct, frozen=True):
    """Weights of the whole model in one precision, split into the two sharding buckets."""

    non_expert_bytes: int
    expert_bytes: int
    source: str  # "safetensors headers" | "architecture"

    @property
    def total_bytes(self) -> int:
        return self.non_expert_bytes + self.expert_bytes


def _mtp_split(arch: ModelArch, params: ParamBreakdown) -> Tuple[int, int, int]:
    """(kept, routed-expert, other) parameters of the MTP modules."""
    if not params.mtp:
        return 0, 0, 0
    n = arch.num_nextn_predict_layers
    kept = 2 * arch.vocab_size * arch.hidden_size * n
    experts = 3 * arch.hidden_size * arch.moe_intermediate_size * arch.n_routed_experts * n
    return kept, experts, params.mtp - kept - experts


def weights_from_arch(arch: ModelArch, precision: Precision, include_mtp: bool = False) -> WeightPlan:
    params = count_params(arch)
    low = precision.bits / 8
    high = 2.0
    if not precision.quantized:
        low = high = precision.bits / 8
    # quantizable layers outside the routed experts: W4A8 MoE checkpoints keep them at int8
    middle = (precision.moe_non_expert_bits / 8) if (precision.moe_non_expert_bits and params.routed_experts) \
        else low
    experts = params.routed_experts * low
    non_expert = params.kept * high + (params.quantizable - params.routed_experts) * middle
    if include_mtp:
        kept, mtp_experts, other = _mtp_split(arch, params)
        experts += mtp_experts * low
        non_expert += kept * high + other * middle
    return WeightPlan(int(non_expert), int(experts), "architecture")


# Below this share of what the architecture implies, a header tally is a partial download (or a
# truncated conversion), not a checkpoint: planning from it would call a 2-of-163-shard 671B "fits".
COMPLETE_TALLY_FRACTION = 0.8


def tally_shortfall(tally: WeightTally, arch: ModelArch) -> Optional[str]:
    """Why the header tally cannot stand for the whole model (None when it can).

    Compares the tensors the headers declare (MTP layers apart) with the architecture's count in
    the checkpoint's own precision. An architecture we only approximate is not a yardstick.
    """
    if arch.approximate or not tally.detected_precision:
        return None
    try:
        precision = parse_precision(tally.detected_precision)
    except PlanError:
        return None
    expected = weights_from_arch(arch, precision).total_bytes
    if expected <= 0:
        return None
    share = tally.main_bytes / expected
    if share >= COMPLETE_TALLY_FRACTION:
        return None
    percent = f"{share:.1%}" if share >= 0.001 else "<0.1%"
    return Text(N_("the safetensors headers hold {size} ({percent}) of the {expected} the architecture implies in "
                   "{precision}"), size=_binary_size(tally.main_bytes), percent=percent,
                expected=_binary_size(expected), precision=precision.name)


def _binary_size(count: int) -> str:
    """GiB for model-sized numbers, smaller units for the scraps a partial download leaves."""
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", 1024)):
        if count >= size:
            return f"{count / size:,.1f} {unit}"
    return f"{count} B"


def weights_from_tally(tally: WeightTally, include_mtp: bool = False) -> WeightPlan:
    mtp = tally.mtp_bytes if include_mtp else 0
    # MTP tensors go to the TP bucket: a slight over-estimate when EP spreads experts wider.
    return WeightPlan(tally.main_bytes - tally.expert_bytes + mtp, tally.expert_bytes, "safetensors headers")


# -- safetensors tally (the headers are read by ascend_doctor.model.safetensors) --------------

_LAYER_RE = lazy_re(r"(?:^|\.)layers\.(\d+)\.")
_AUX_WORDS = ("scale", "offset", "quant_bias")


class TensorEntry(Struct, frozen=True):
    """One tensor as a safetensors header declares it: name, dtype, bytes stored."""

    name: str
    dtype: str
    nbytes: int


def _is_aux(last: str) -> bool:
    return last not in ("weight", "bias") and any(word in last for word in _AUX_WORDS)


def _is_kept(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return (
        "embed_tokens" in name or "lm_head" in name or "norm" in name or name.endswith(".mlp.gate.weight")
        or "e_score_correction_bias" in name or (last == "bias" and "quant" not in name)
    )


_DTYPE_PRECISION = {"I8": "w8a8", "F8_E4M3": "fp8", "F8_E5M2": "fp8", "BF16": "bf16", "F16": "fp16"}


def tally_tensors(entries: Iterable[TensorEntry], num_hidden_layers: int, file_count: int = 1,
                  quant_type: Optional[str] = None) -> WeightTally:
    """Sum tensor bytes by role. ``quant_type`` (e.g. from quant_model_description.json) wins over
    the dtype-based guess of the checkpoint's precision."""
    total = experts = mtp = kept = count = 0
    by_dtype: Dict[str, int] = {}
    linear_dtypes: Dict[str, int] = {}
    for entry in entries:
        count += 1
        total += entry.nbytes
        by_dtype[entry.dtype] = by_dtype.get(entry.dtype, 0) + entry.nbytes
        match = _LAYER_RE.search(entry.name)
        if match and int(match.group(1)) >= num_hidden_layers:
            mtp += entry.nbytes
            continue
        if ".mlp.experts." in entry.name:
            experts += entry.nbytes
        last = entry.name.rsplit(".", 1)[-1]
        if _is_kept(entry.name):
            kept += entry.nbytes
        elif last == "weight" and not _is_aux(last):
            linear_dtypes[entry.dtype] = linear_dtypes.get(entry.dtype, 0) + entry.nbytes
    detected = None
    if quant_type:
        try:
            detected = parse_precision(quant_type).name
        except PlanError:
            detected = None
    if detected is None and linear_dtypes:
        detected = _DTYPE_PRECISION.get(max(linear_dtypes.items(), key=lambda kv: kv[1])[0])
    return WeightTally(total, experts, mtp, kept, count, file_count, by_dtype, detected)


# -- the plan -----------------------------------------------------------------------------------


class CardPlan(Struct, frozen=True):
    hbm_bytes: int
    weights_bytes: int
    kv_bytes: int  # KV cache for the requested batch (or the fixed MindIE npuMemSize pool)
    reserve_bytes: int
    free_bytes: int  # may be negative
    kv_per_sequence_bytes: int
    sequences_requested: int  # per DP replica
    sequences_fit: int  # full-length sequences the remaining memory holds, per DP replica
    verdict: str

    @property
    def margin_fraction(self) -> float:
        return self.free_bytes / self.hbm_bytes if self.hbm_bytes else 0.0


class MemoryPlan(Struct, frozen=True):
    model_name: str
    arch: ModelArch
    params: ParamBreakdown
    precision: Precision
    kv_dtype: str
    hbm_bytes: int
    layout: Layout
    max_seq_len: int
    batch: int
    reserve: Reserve
    weights: WeightPlan
    card: CardPlan
    include_mtp: bool = False
    kv_budget_bytes: Optional[int] = None
    notes: Tuple[str, ...] = ()

    @property
    def fits(self) -> bool:
        return self.card.verdict == VERDICT_FITS

    def as_dict(self) -> Dict[str, Any]:
        card = self.card
        return {
            "model": self.model_name,
            "architecture": self.arch.family,
            "params": self.params.as_dict(),
            "weights_from": self.weights.source,
            "precision": self.precision.name,
            "kv_dtype": self.kv_dtype,
            "max_seq_len": self.max_seq_len,
            "batch": self.batch,
            "include_mtp": self.include_mtp,
            "layout": self.layout.as_dict(),
            "reserve": self.reserve.as_dict(),
            "model_weights_bytes": self.weights.total_bytes,
            "per_card": {
                "hbm_bytes": card.hbm_bytes,
                "weights_bytes": card.weights_bytes,
                "kv_cache_bytes": card.kv_bytes,
                "reserve_bytes": card.reserve_bytes,
                "free_bytes": card.free_bytes,
                "kv_per_sequence_bytes": card.kv_per_sequence_bytes,
                "sequences_requested_per_replica": card.sequences_requested,
                "sequences_fit_per_replica": card.sequences_fit,
                "margin_fraction": round(card.margin_fraction, 4),
                "verdict": card.verdict,
            },
            "kv_budget_bytes": self.kv_budget_bytes,
            "notes": list(self.notes),
        }


def kv_bytes_per_token_per_card(arch: ModelArch, tp: int, kv_dtype: str) -> int:
    return kv_elements_per_token_per_card(arch, tp) * KV_DTYPE_BYTES[kv_dtype]


def _default_kv_dtype(precision: Precision) -> str:
    return "fp16" if precision.name == "fp16" else "bf16"


def _notes(arch: ModelArch, precision: Precision, layout: Layout, max_seq_len: int, include_mtp: bool,
           tally: Optional[WeightTally]) -> List[str]:
    # Notes are ``Text``: English in the plan's JSON, translated where a person reads them.
    notes: List[str] = []
    if not precision.ascend_loadable:
        notes.append(Text(N_("Ascend does not load FP8 weights: convert to BF16 (fp8_cast_bf16.py) or W8A8 "
                             "(msmodelslim); fp8 is shown for comparison with 1-byte weights only")))
    if precision.moe_non_expert_bits and arch.is_moe and (tally is None or tally.detected_precision != precision.name):
        notes.append(Text(N_("W4A8 layout assumed: routed experts in int4; attention, dense and shared-expert layers "
                             "in int8; embedding, output head and norms in bf16 (the msmodelslim / MindIE DeepSeek "
                             "W4A8 hybrid quantization: {sources})"), sources="; ".join(W4A8_LAYOUT_SOURCES)))
    if arch.approximate:
        notes.append(Text(N_("model_type {model_type} is not one we know; counted as a dense GQA decoder"),
                          model_type=repr(arch.model_type)))
    if arch.is_moe and layout.ep == 1 and layout.dp > 1:
        notes.append(Text(N_("no expert parallelism: every DP replica holds all routed experts (split over its TP "
                             "group)")))
    if not arch.is_moe and layout.cards > 1 and layout.ep > 1:
        notes.append(Text(N_("EP has no effect on a dense model")))
    if not arch.is_mla and layout.tp > arch.num_key_value_heads:
        notes.append(Text(N_("TP {tp} exceeds the {heads} KV heads: KV heads are replicated"), tp=layout.tp,
                          heads=arch.num_key_value_heads))
    if arch.max_position_embeddings and max_seq_len > arch.max_position_embeddings:
        notes.append(Text(N_("max_seq_len {max_seq_len} exceeds the model's max_position_embeddings {maximum}"),
                          max_seq_len=max_seq_len, maximum=arch.max_position_embeddings))
    if arch.num_nextn_predict_layers and not include_mtp:
        notes.append(Text(N_("the MTP (multi-token prediction) layer is not counted; add it when serving with MTP "
                             "speculative decoding")))
    if tally is not None and tally.detected_precision and tally.detected_precision != precision.name:
        notes.append(Text(N_("the checkpoint on disk is {on_disk}; {precision} weights computed from the "
                             "architecture"), on_disk=tally.detected_precision, precision=precision.name))
    return notes


def plan_memory(
    arch: ModelArch,
    precision: Precision,
    hbm_bytes: int,
    layout: Layout,
    *,
    max_seq_len: int = 4096,
    batch: int = 1,
    kv_dtype: Optional[str] = None,
    reserve: Reserve = DEFAULT_RESERVE,
    tally: Optional[WeightTally] = None,
    include_mtp: bool = False,
    kv_budget_bytes: Optional[int] = None,
    name: Optional[str] = None,
    loadable: bool = True,
) -> MemoryPlan:
    """The per-card memory plan for one deployment (``loadable=False``: the chip cannot load this
    precision; the arithmetic is kept for comparison and the verdict is ``not-loadable``)."""
    if hbm_bytes <= 0:
        raise PlanError(Text(N_("card memory must be positive")))
    for label, value in (("max_seq_len", max_seq_len), ("batch", batch)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise PlanError(Text(N_("{name} must be a positive integer, got {value}"), name=label, value=repr(value)))
    kv_name = parse_kv_dtype(kv_dtype) or _default_kv_dtype(precision)
    if tally is not None and tally.detected_precision == precision.name:
        weights = weights_from_tally(tally, include_mtp)
    else:
        weights = weights_from_arch(arch, precision, include_mtp)
    card_weights = math.ceil(weights.non_expert_bytes / layout.tp) + math.ceil(
        weights.expert_bytes / layout.expert_shards)
    per_sequence = max_seq_len * kv_bytes_per_token_per_card(arch, layout.tp, kv_name)
    sequences = math.ceil(batch / layout.dp)
    reserve_bytes = reserve.bytes_for(hbm_bytes)
    room = hbm_bytes - card_weights - reserve_bytes
    if kv_budget_bytes is not None:
        kv = kv_budget_bytes
        fit = kv_budget_bytes // per_sequence if per_sequence else 0
        free = room - kv
        enough_room = free >= 0 and fit >= 1
    else:
        kv = sequences * per_sequence
        fit = max(0, room // per_sequence) if per_sequence else 0
        free = room - kv
        enough_room = room >= per_sequence
    if not loadable:
        verdict = VERDICT_NOT_LOADABLE
    elif not enough_room:
        verdict = VERDICT_NO
    elif fit < sequences:
        verdict = VERDICT_FEWER
    else:
        verdict = VERDICT_FITS
    card = CardPlan(hbm_bytes, card_weights, kv, reserve_bytes, free, per_sequence, sequences, int(fit), verdict)
    return MemoryPlan(
        model_name=name or arch.name,
        arch=arch,
        params=count_params(arch),
        precision=precision,
        kv_dtype=kv_name,
        hbm_bytes=hbm_bytes,
        layout=layout,
        max_seq_len=max_seq_len,
        batch=batch,
        reserve=reserve,
        weights=weights,
        card=card,
        include_mtp=include_mtp,
        kv_budget_bytes=kv_budget_bytes,
        notes=tuple(_notes(arch, precision, layout, max_seq_len, include_mtp, tally)),
    )


def smallest_cards(
    arch: ModelArch,
    precision: Precision,
    hbm_bytes: int,
    *,
    max_seq_len: int = 4096,
    batch: int = 1,
    kv_dtype: Optional[str] = None,
    reserve: Reserve = DEFAULT_RESERVE,
    tally: Optional[WeightTally] = None,
    include_mtp: bool = False,
    candidates: Sequence[int] = CARD_COUNTS,
    attention_dp: bool = False,
) -> Optional[MemoryPlan]:
    """The plan at the smallest card count (from ``candidates``) where the whole batch fits. With
    ``attention_dp``, MLA models also try attention-DP layouts at each count (``search_layouts``); the
    result's layout then says which (a caller that prints only a card count keeps it False)."""
    for cards in candidates:
        layouts = search_layouts(cards, arch) if attention_dp else [search_layout(cards, arch.is_moe)]
        for layout in layouts:
            plan = plan_memory(
                arch, precision, hbm_bytes, layout, max_seq_len=max_seq_len,
                batch=batch, kv_dtype=kv_dtype, reserve=reserve, tally=tally, include_mtp=include_mtp,
            )
            if plan.fits:
                return plan
    return None


def smallest_cards_for_weights(
    arch: ModelArch,
    precision: Precision,
    hbm_bytes: int,
    *,
    candidates: Sequence[int] = CARD_COUNTS,
    **kwargs: Any,
) -> Optional[MemoryPlan]:
    """The smallest card count where the weights and one full-length sequence fit.

    When no count holds a whole batch (a KV-bound batch of long sequences), this is the answer that
    is still true: MindIE and vLLM size their block pool from the memory left and queue the rest,
    so "does not fit on 128 cards" would be wrong; "weights need N cards, K sequences fit" is not.
    """
    for cards in candidates:
        plan = plan_memory(arch, precision, hbm_bytes, search_layout(cards, arch.is_moe), **kwargs)
        if plan.card.verdict != VERDICT_NO:
            return plan
    return None


def smallest_cards_by_precision(
    arch: ModelArch,
    hbm_bytes: int,
    *,
    precisions: Sequence[str] = tuple(PRECISIONS),
    **kwargs: Any,
) -> Dict[str, Optional[int]]:
    """``{precision: smallest card count or None}`` for every precision."""
    return {name: (layout.cards if layout else None)
            for name, layout in smallest_layouts_by_precision(arch, hbm_bytes, precisions=precisions,
                                                              **kwargs).items()}


def smallest_layouts_by_precision(
    arch: ModelArch,
    hbm_bytes: int,
    *,
    precisions: Sequence[str] = tuple(PRECISIONS),
    **kwargs: Any,
) -> Dict[str, Optional[Layout]]:
    """``{precision: the smallest layout that fits, or None}`` for every precision."""
    out: Dict[str, Optional[Layout]] = {}
    for name in precisions:
        plan = smallest_cards(arch, PRECISIONS[name], hbm_bytes, **kwargs)
        out[name] = plan.layout if plan else None
    return out


def gib(value: int) -> float:
    return value / GIB


def format_gib(value: int) -> str:
    return f"{value / GIB:,.1f} GiB"
