"""ASC-MDL-020: the model fits in the NPUs' memory with the serving settings (or the defaults)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, TypedDict

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized
from ascend_doctor.shellcmd import argv

from ._context import HostCheckContext

if TYPE_CHECKING:
    from ascend_doctor.facts.records import ChipSummary
    from ascend_doctor.facts.records.serving import PlanModel
    from ascend_doctor.model.arch import ModelArch
    from ascend_doctor.model.plan import Layout, MemoryPlan, Precision, Reserve, WeightTally
    from ascend_doctor.model.serving_plan import PlanInputs
    from ascend_doctor.parsers.serving_config import ServingConfig

# The planner and the serving configuration are imported on use: every check module is imported
# to read CHECK, and a run without --model / --config never needs them.

QUANTIZED = ("w8a8", "w8a16", "w4a8")


class PlanSettings(TypedDict):
    """The serving settings every plan of one run shares (keywords of model/plan.py's planners)."""

    max_seq_len: int
    batch: int
    kv_dtype: Optional[str]
    reserve: Reserve
    tally: Optional[WeightTally]
    include_mtp: bool

CHECK = CheckSpec(
    id="ASC-MDL-020",
    title="Model fits in NPU memory",
    what="Plans the memory of one card for the model (--model, or the serving configuration's weight path, or a "
    "built-in DeepSeek name): weights split by TP/EP, KV cache for the configured max sequence length and batch, "
    "a runtime reserve. FAIL when the weights plus one full-length sequence do not fit; WARN when the configured "
    "batch of full-length sequences does not. FP8 weights on an NPU that cannot load them FAIL, with the plans of "
    "their W8A8 and BF16 conversions; a partial download is sized from the architecture, not from the shards "
    "present.",
    why="An out-of-memory at load time costs many minutes per attempt (EL0004 'Memory Allocation Failure'); the "
    "card count is a purchasing decision that should be made before the hardware arrives.",
    fix="Use more cards (the finding names how many), 8-bit weights (W8A8), a shorter maxSeqLen / --max-model-len, "
    "or a smaller batch; `ascend-doctor plan --model ... --chip ...` shows the arithmetic.",
    requires=(),
    tags=("model", "fit", "serving"),
)


def _gib(value: int) -> str:
    from ascend_doctor.model.plan import GIB

    return f"{value / GIB:,.1f} GiB"


def _serving(ctx: HostCheckContext) -> Optional[ServingConfig]:
    from ascend_doctor.parsers.serving_config import ServingConfig

    if not (ctx.options.serving_config or ctx.options.vllm_args):
        return None
    config = ctx.facts.maybe(Facts.serving_config)
    return config if isinstance(config, ServingConfig) and config.ok else None


def _precision(inputs: PlanInputs, checkpoint: Optional[str], notes: List[str]) -> str:
    """The configured precision; with vLLM's --quantization ascend, the msmodelslim type of the weights."""
    if inputs.precision:
        return inputs.precision
    if inputs.ascend_quantization:
        if checkpoint in QUANTIZED:
            return str(checkpoint)
        notes.append("--quantization ascend with weights whose msmodelslim type is not known here: planned as W8A8")
        return "w8a8"
    return checkpoint or "bf16"


def _layout(plan: MemoryPlan) -> str:
    layout = plan.layout
    return f"TP {layout.tp} x DP {layout.dp}" + (f", EP {layout.ep} x MoE-TP {layout.moe_tp}" if plan.arch.is_moe
                                                 else "")


def _message(plan: MemoryPlan, chip_name: str) -> str:
    card, layout = plan.card, plan.layout
    return _("{model} {precision} on {cards} x {chip} ({hbm}; {layout}): per card weights {weights}, KV cache {kv} "
             "({sequences} x {seq_len} tokens), reserve {reserve}, free {free}").format(
        model=plan.model_name, precision=plan.precision.name, cards=layout.cards, chip=chip_name,
        hbm=_gib(card.hbm_bytes), layout=_layout(plan), weights=_gib(card.weights_bytes), kv=_gib(card.kv_bytes),
        sequences=card.sequences_requested, seq_len=plan.max_seq_len, reserve=_gib(card.reserve_bytes),
        free=_gib(card.free_bytes))


def _evidence(plan: MemoryPlan) -> Dict[str, object]:
    data = plan.as_dict()
    return {"plan": data, "notes": list(plan.notes)}


_NO_FP8_FAMILIES = ("A2", "A3", "310P", "310B", "910")  # as ASC-MDL-002 (research/model_facts.md)


def _fp8_loads(ctx: HostCheckContext, chip: Optional[ChipSummary]) -> Optional[bool]:
    """Whether this host's NPU loads FP8 weights: the matrix's word for the chip, else its family."""
    name = getattr(chip, "name", None)
    if ctx.matrix is not None and name:
        try:
            info = ctx.matrix.chip(str(name))
        except Exception:  # a broken matrix must not hide the plan; the family still decides
            info = None
        supported = info.dtype_supported("fp8") if info is not None else None
        if supported is True or supported is False:
            return supported
    family = getattr(chip, "family", None)
    if family in _NO_FP8_FAMILIES:
        return False
    return None


def _weights_need(arch: ModelArch, precision: Precision, hbm: int, common: PlanSettings, chip_name: str) -> str:
    """"the weights need N x chip; there K of B full-length sequences per replica" (row 15/16 of the
    field review: a KV-bound batch is not "does not fit on 128 cards", and DP replication is not a
    card count)."""
    from ascend_doctor.model.plan import smallest_cards_for_weights

    plan = smallest_cards_for_weights(arch, precision, hbm, **common)
    if plan is None:
        return _("does not fit on up to 128 x {chip}, not even the weights").format(chip=chip_name)
    card = plan.card
    text = _("needs {cards} x {chip} for the weights ({layout})").format(cards=plan.layout.cards, chip=chip_name,
                                                                          layout=_layout(plan))
    if card.sequences_fit < card.sequences_requested:
        text += "; " + _("there at most {fit} of the {requested} full-length sequences fit per replica (the engine "
                         "queues the rest)").format(fit=card.sequences_fit, requested=card.sequences_requested)
    return text


def _verdict(plan: MemoryPlan) -> str:
    from ascend_doctor.model.plan import VERDICT_FEWER, VERDICT_FITS

    card = plan.card
    if card.verdict == VERDICT_FITS:
        return _("fits, {free} free per card").format(free=_gib(card.free_bytes))
    if card.verdict == VERDICT_FEWER:
        return _("the weights fit, the KV cache only {fit} of {requested} full-length sequence(s)").format(
            fit=card.sequences_fit, requested=card.sequences_requested)
    return _("does not fit, short by {short} per card").format(short=_gib(-card.free_bytes))


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    if not (ctx.options.model_dir or ctx.options.serving_config or ctx.options.vllm_args):
        raise NotApplicable(_("no model given (use --model DIR|NAME, or --config / --vllm-args)"))
    from ascend_doctor.model.plan import (
        DEFAULT_RESERVE,
        GIB,
        MIB,
        VERDICT_FEWER,
        VERDICT_FITS,
        PlanError,
        Reserve,
        make_layout,
        parse_precision,
        plan_memory,
        smallest_cards,
    )
    from ascend_doctor.model.serving_plan import plan_inputs

    model = ctx.facts.plan_model
    if model.error or model.arch is None:
        raise NotApplicable(_("cannot plan memory: {error}").format(
            error=localized(model.error) if model.error else _("no architecture")))
    arch = model.arch
    chip = ctx.facts.maybe(Facts.npu_chip)
    hbm_mb = getattr(chip, "hbm_mb", None)
    if not hbm_mb:
        raise NotApplicable(_("npu-smi reports no NPU memory on this host; plan offline with `{command}`").format(
            command=argv("ascend-doctor", "plan", "--model", model.ref, "--chip", "910B3")))
    hbm = int(hbm_mb) * MIB
    chip_name = str(getattr(chip, "name", "NPU"))
    config = _serving(ctx)
    inputs = plan_inputs(config, arch.max_position_embeddings)
    cards = inputs.cards or int(getattr(chip, "chip_count", 0) or 1)
    extra_notes: List[str] = []
    try:
        layout = make_layout(cards=cards, tp=inputs.tp, dp=inputs.dp, ep=inputs.ep, moe_tp=inputs.moe_tp,
                             moe=arch.is_moe)
        precision = parse_precision(_precision(inputs, model.checkpoint_precision, extra_notes))
        reserve = DEFAULT_RESERVE if inputs.reserve_fraction is None else Reserve(
            DEFAULT_RESERVE.fixed_bytes, max(0.0, inputs.reserve_fraction))
        kv_budget = inputs.kv_budget_gib * GIB if inputs.kv_budget_gib else None
        common = PlanSettings(max_seq_len=inputs.max_seq_len, batch=inputs.batch, kv_dtype=inputs.kv_dtype,
                              reserve=reserve, tally=model.tally, include_mtp=inputs.include_mtp)
        plan = plan_memory(arch, precision, hbm, layout, kv_budget_bytes=kv_budget, name=model.name,
                           **common)
    except PlanError as exc:
        raise NotApplicable(_("the parallel settings cannot be planned ({error}); see ASC-CFG-003").format(
                                error=localized(exc)),
                            see=("ASC-CFG-003",)) from exc
    notes = list(inputs.notes) + extra_notes + list(model.notes) + list(plan.notes)
    evidence = _evidence(plan)
    evidence["notes"] = notes
    message = _message(plan, chip_name)
    if model.weights_reason:
        message += " " + _("[weights from the architecture: {reason}]").format(reason=localized(model.weights_reason))
    card = plan.card
    if precision.name == "fp8":
        loads = _fp8_loads(ctx, chip)
        if loads is not True:
            yield _fp8_finding(ctx, model, arch, chip, chip_name, hbm, layout, kv_budget, common, loads, evidence)
            return
    if card.verdict == VERDICT_FITS:
        yield Finding.passed(_("{plan}: fits, margin {margin} of the card").format(
            plan=message, margin=f"{card.margin_fraction:.0%}"), **evidence)
        return
    if card.verdict == VERDICT_FEWER:
        yield Finding.warn(
            _("{plan}: the weights fit but the KV cache holds only {fit} of the {requested} full-length sequence(s) "
              "per replica").format(plan=message, fit=card.sequences_fit, requested=card.sequences_requested),
            _("Expect queuing under full load, or lower the batch (MindIE maxBatchSize / vLLM --max-num-seqs) or the "
              "max sequence length, use an 8-bit KV cache, or add cards. Details: `{command}`").format(
                command=argv("ascend-doctor", "plan", "--model", model.ref, "--mem-gb", f"{hbm / GIB:g}", "--cards",
                             str(layout.cards), "--max-seq-len", str(plan.max_seq_len), "--batch", str(plan.batch))),
            **evidence)
        return
    better = smallest_cards(arch, precision, hbm, **common)
    if better is not None:
        need = _("needs {cards} x {chip} at {precision}").format(cards=better.layout.cards, chip=chip_name,
                                                                 precision=precision.name)
    else:
        need = _weights_need(arch, precision, hbm, common, chip_name)
    int8 = (smallest_cards(arch, parse_precision("w8a8"), hbm, **common) if precision.name in ("bf16", "fp16")
            else None)
    command = argv("ascend-doctor", "plan", "--model", model.ref, "--mem-gb", f"{hbm / GIB:g}")
    if int8 is not None:
        fix = _("It {need} or {cards} x {chip} with W8A8 weights (msmodelslim) (now {now}); or lower the max sequence "
                "length. Arithmetic: `{command}`").format(need=need, cards=int8.layout.cards, chip=chip_name,
                                                          now=layout.cards, command=command)
    else:
        fix = _("It {need} (now {now}); or lower the max sequence length. Arithmetic: `{command}`").format(
            need=need, now=layout.cards, command=command)
    yield Finding.fail(_("{plan}: does not fit, short by {short} per card").format(
        plan=message, short=_gib(-card.free_bytes)), fix, **evidence)


def _fp8_finding(ctx: HostCheckContext, model: PlanModel, arch: ModelArch, chip: Optional[ChipSummary],
                 chip_name: str, hbm: int, layout: Layout, kv_budget: Optional[int], common: PlanSettings,
                 loads: Optional[bool], evidence: Dict[str, object]) -> Finding:
    """FP8 weights on an NPU that cannot load them: no FP8 plan is worth a PASS. Plan the two
    conversions instead (W8A8 and BF16) on the same cards and say how many each needs."""
    from ascend_doctor.model.plan import GIB, parse_precision, plan_memory

    family = getattr(chip, "family", None)
    parts: List[str] = []
    needs: List[str] = []
    converted: Dict[str, object] = {}
    shape = ""
    for name, label in (("w8a8", "W8A8 (msmodelslim)"), ("bf16", "BF16 (fp8_cast_bf16.py)")):
        precision = parse_precision(name)
        plan = plan_memory(arch, precision, hbm, layout, kv_budget_bytes=kv_budget, name=model.name, **common)
        converted[name] = plan.as_dict()
        shape = _layout(plan)
        parts.append(_("{conversion}: weights {size} per card, {verdict}").format(
            conversion=label, size=_gib(plan.card.weights_bytes), verdict=_verdict(plan)))
        if plan.fits:
            needs.append(_("{conversion} fits the {cards} x {chip} configured").format(
                conversion=label, cards=layout.cards, chip=chip_name))
            continue
        # The smallest count is searched with TP (and EP) over every card (a sensible layout, not the
        # configured DP replication), for the weights plus one sequence: engines queue the rest.
        needs.append(f"{label} " + _weights_need(arch, precision, hbm, common, chip_name))
    evidence = dict(evidence, converted_plans=converted, fp8_loads=loads)
    fix = _("Convert the weights (ASC-MDL-002 gives both commands) and set the precision to match: {needs}. "
            "Arithmetic: `{command}`").format(
        needs="; ".join(needs),
        command=argv("ascend-doctor", "plan", "--model", model.ref, "--precision", "w8a8", "--mem-gb", f"{hbm / GIB:g}",
                     "--cards", str(layout.cards)))
    if loads is False:
        npu = f"{chip_name} ({family})" if family else chip_name
        return Finding.fail(
            _("{model} is planned in FP8, but {npu} NPUs do not load FP8 weights, so no FP8 plan can pass. "
              "Converted, on the same {cards} x {chip} ({layout}): {plans}").format(
                model=model.name, npu=npu, cards=layout.cards, chip=chip_name, layout=shape, plans="; ".join(parts)),
            fix, **evidence)
    return Finding.warn(
        _("{model} is planned in FP8 on {chip}, an NPU not known to load FP8 (910B, A3 and 310P do not). "
          "If it cannot, converted on the same {cards} x {chip} ({layout}): {plans}").format(
            model=model.name, chip=chip_name, cards=layout.cards, layout=shape, plans="; ".join(parts)),
        fix, **evidence)
