"""ASC-MDL-005: msmodelslim weights need the engine's Ascend quantization (vLLM: --quantization ascend)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-005",
    title="Engine quantization flag matches the weights",
    what="Compares the vLLM arguments (--vllm-args) with the weights: msmodelslim-quantized weights need "
    "`--quantization ascend`; unquantized weights must not have it.",
    why="vLLM-Ascend loads msmodelslim weights only with `--quantization ascend` (since 0.9.0rc2; vLLM-Ascend "
    "quantization guide). Without it the int8 tensors do not match the float model; with it on float weights "
    "it stops with 'ModelSlim Quantization Config Not Found'.",
    fix="Add `--quantization ascend` to `vllm serve` for msmodelslim weights; remove it for BF16/FP16 weights.",
    requires=("model",),
    tags=("model", "fit", "serving"),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.parsers.engine_args import parse_engine_args

    facts: ModelFacts = ctx.facts.get("model")
    require_model(facts)
    args = parse_engine_args(ctx.options.vllm_args)
    if not args.given:
        raise NotApplicable("no engine arguments given (use --vllm-args \"...\")")
    quantized = facts.provenance.kind == R.MSMODELSLIM
    flag = (args.quantization or "").lower()
    qc = facts.quantization_config or {}
    declared = str(qc.get("quant_method", "")).lower()
    if quantized:
        if flag == "ascend":
            yield Finding.passed(f"{facts.provenance.label} served with --quantization ascend")
        elif declared == "ascend":
            yield Finding.passed("config.json declares quantization_config.quant_method=ascend, so vLLM selects "
                                 "the Ascend quantization without the flag")
        else:
            got = f"--quantization {args.quantization}" if args.quantization else "no --quantization"
            yield Finding.fail(
                f"{facts.provenance.label} but the vLLM arguments have {got}",
                f"Serve with the Ascend quantization: `vllm serve {facts.path} --quantization ascend ...` "
                "(vLLM-Ascend >= 0.9.0rc2).",
                quantization=args.quantization, provenance=facts.provenance.kind,
            )
        return
    if flag == "ascend":
        yield Finding.fail(
            f"--quantization ascend is set but the weights are {facts.provenance.label} (no "
            "quant_model_description.json)",
            "Remove `--quantization ascend` for unquantized weights, or point --model at the msmodelslim output.",
            quantization=args.quantization, provenance=facts.provenance.kind,
        )
        return
    yield Finding.passed(f"{facts.provenance.label}: no Ascend quantization flag needed"
                         + (f" (--quantization {args.quantization})" if args.quantization else ""))
