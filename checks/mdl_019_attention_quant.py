"""ASC-MDL-019: the folder's FA3 / int8 KV-cache quantization is one the engine documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.facts.records import ChipSummary
    from ascend_doctor.model.quant_features import EngineRequirement
    from ascend_doctor.model.records import AttentionQuant, ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-019",
    title="Attention quantization (FA3, int8 KV cache) is one the engine serves",
    what="For msmodelslim folders that declare fa_quant_type (FA3) or kv_quant_type / kv_cache_type (int8 KV "
    "cache), in quant_model_description.json or config.json quantization_config: states what each engine "
    "documents for it and compares that with the NPU, the weights, config.json torch_dtype and the engine given "
    "(--vllm-args).",
    why="MindIE serves FA3 only on Atlas 800I A2 / A3 with W8A8 DeepSeek-R1/V3 weights, in float16, with the KV "
    "cache in NZ format (MindIE 2.3.0 'FA3量化'), and its int8 KV cache only on Atlas 800I A2 with W8A8, in "
    "float16 (MindIE 'KV Cache int8'). No vLLM-Ascend release note records either (RFCs vllm-project/"
    "vllm-ascend#6437 and #6769), so a vLLM-Ascend deployment of such a folder is unproven.",
    fix="Serve FA3 / int8-KV folders with MindIE on the hardware and dtype its page names; for vLLM-Ascend, "
    "quantize without FA3 (msmodelslim quant_deepseek_w8a8.py without --fa_quant).",
    requires=("model",),
    tags=("model", "fit", "serving"),
)

_NAMES = {"fa3": "FA3", "kv-int8": "int8 KV cache (C8)"}
_ENGINES = {"mindie": "MindIE", "vllm-ascend": "vLLM-Ascend"}


def _chip(ctx: HostCheckContext) -> Optional[ChipSummary]:
    from ascend_doctor.facts import Facts

    try:
        return ctx.facts.maybe(Facts.npu_chip)
    except KeyError:  # provider not available in this build
        return None


def _declared(quant: AttentionQuant) -> str:
    return f"{quant.key}={quant.value} ({quant.source})"


def _mindie_gaps(req: EngineRequirement, facts: ModelFacts, family: Optional[str]) -> Tuple[List[str], List[str]]:
    """(hard, soft) differences between MindIE's documented conditions and this folder / host.
    Hard: the page excludes it (other NPU, other weights). Soft: worth a look (dtype, model)."""
    hard: List[str] = []
    soft: List[str] = []
    if family and req.chip_families and family not in req.chip_families:
        hard.append(_("the NPU is {family}; the page lists {families}").format(
            family=family, families=", ".join(req.chip_families)))
    quant_type = facts.provenance.quant_type or ""
    if req.weights and quant_type and not quant_type.startswith(req.weights):
        hard.append(_("the weights are {quant_type}; the page allows only {weights}").format(
            quant_type=quant_type, weights=req.weights))
    dtype = facts.config_value("torch_dtype")
    if req.dtype and isinstance(dtype, str) and dtype != req.dtype:
        soft.append(_("config.json torch_dtype is {dtype}; the page supports only {required} (MindIE takes the "
                      "inference dtype from config.json)").format(dtype=dtype, required=req.dtype))
    architectures = facts.config_value("architectures")
    if req.kind == "fa3" and isinstance(architectures, list) and "DeepseekV3ForCausalLM" not in architectures:
        soft.append(_("architectures {architectures}; the page lists only {models}").format(
            architectures=architectures, models=", ".join(req.models)))
    return hard, soft


def _requirements_line(req: EngineRequirement) -> str:
    parts: List[str] = []
    if req.chip_families:
        parts.append(_("NPU {families}").format(families="/".join(req.chip_families)))
    if req.weights:
        parts.append(_("{weights} weights").format(weights=req.weights))
    if req.models:
        parts.append(", ".join(req.models))
    if req.dtype:
        parts.append(req.dtype)
    parts.extend(req.needs)
    return _("{engine} {release} documents it with: {conditions} ({source})").format(
        engine=_ENGINES[req.engine], release=req.documented_in, conditions="; ".join(parts), source=req.source)


def _unknown_line(engine: str, req: Optional[EngineRequirement]) -> str:
    if req is None:
        return _("{engine}: no source records its support (unknown)").format(engine=_ENGINES[engine])
    return _("{engine}: support unknown: {note} ({source})").format(engine=_ENGINES[engine], note=req.note,
                                                                    source=req.source)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.model.quant_features import QuantFeatureDataError, requirement
    from ascend_doctor.parsers.engine_args import parse_engine_args

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    if facts.provenance.kind != R.MSMODELSLIM:
        raise NotApplicable(_("weights are not msmodelslim quantized"))
    if not facts.attention_quant:
        yield Finding.passed(_("{provenance}: no FA3 or int8 KV-cache quantization declared (fa_quant_type / "
                               "kv_quant_type / kv_cache_type), so the engine needs nothing beyond the weights' "
                               "own quantization").format(provenance=localized(facts.provenance.label)))
        return
    chip = _chip(ctx)
    family: Optional[str] = getattr(chip, "family", None)
    vllm = parse_engine_args(ctx.options.vllm_args).given
    for quant in facts.attention_quant:
        name = _NAMES.get(quant.kind, quant.kind)
        try:
            mindie = requirement(quant.kind, "mindie")
            other = requirement(quant.kind, "vllm-ascend")
        except QuantFeatureDataError as exc:
            raise NotApplicable(_("the engine requirements could not be read: {error}").format(error=exc)) from None
        evidence = {"declared": quant.to_dict(), "chip_family": family, "quant_type": facts.provenance.quant_type,
                    "torch_dtype": facts.config_value("torch_dtype")}
        mindie_ok = mindie is not None and mindie.status == "supported"
        if vllm and not (other is not None and other.status == "supported"):
            route = _requirements_line(mindie) if mindie_ok and mindie is not None else ""
            yield Finding.warn(
                _("{feature} declared ({declared}) and the folder is served by vLLM-Ascend (--vllm-args): "
                  "{unknown}").format(feature=name, declared=_declared(quant), unknown=_unknown_line("vllm-ascend",
                                                                                                   other)),
                _("Check your vLLM-Ascend release notes for {feature} before serving this folder; otherwise quantize "
                  "it again without FA3 (msmodelslim example/DeepSeek/quant_deepseek_w8a8.py without --fa_quant) or "
                  "serve it with MindIE.").format(feature=name) + (("\n" + route) if route else ""),
                **evidence)
            continue
        if not mindie_ok or mindie is None:
            yield Finding.info(
                _("{feature} declared ({declared}); {unknown}").format(
                    feature=name, declared=_declared(quant), unknown=_unknown_line("mindie", mindie)),
                _("Check the engine's documentation for {feature} before serving this folder.").format(feature=name),
                **evidence)
            continue
        hard, soft = _mindie_gaps(mindie, facts, family)
        line = _requirements_line(mindie)
        if hard:
            yield Finding.fail(
                _("{feature} declared ({declared}) but MindIE does not serve it here: {gaps}").format(
                    feature=name, declared=_declared(quant), gaps="; ".join(hard)),
                _("Use weights quantized without it for this host (msmodelslim without --fa_quant / kv-cache "
                  "quantization), or serve on the hardware the page names.") + "\n" + line,
                **evidence)
        elif soft:
            yield Finding.warn(
                _("{feature} declared ({declared}): {gaps}").format(
                    feature=name, declared=_declared(quant), gaps="; ".join(soft)),
                line, **evidence)
        else:
            yield Finding.info(
                _("{feature} declared ({declared}); {requirements}; {unknown}").format(
                    feature=name, declared=_declared(quant), requirements=line,
                    unknown=_unknown_line("vllm-ascend", other)),
                _("Serve it with MindIE as its page says, including the settings this tool cannot see: "
                  "{needs}.").format(needs=", ".join(mindie.needs) or _("none listed")),
                **evidence)
