"""ASC-MDL-005: msmodelslim weights need the engine's Ascend quantization (vLLM: --quantization ascend)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized
from ascend_doctor.shellcmd import argv

from ._context import HostCheckContext
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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.parsers.engine_args import parse_engine_args

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    args = parse_engine_args(ctx.options.vllm_args)
    if not args.given:
        raise NotApplicable(_("no engine arguments given (use --vllm-args \"...\")"))
    quantized = facts.provenance.kind == R.MSMODELSLIM
    flag = (args.quantization or "").lower()
    qc = facts.quantization_config or {}
    declared = str(qc.get("quant_method", "")).lower()
    if quantized:
        if flag == "ascend":
            yield Finding.passed(_("{provenance} served with --quantization ascend").format(
                provenance=localized(facts.provenance.label)))
        elif declared == "ascend":
            yield Finding.passed(_("config.json declares quantization_config.quant_method=ascend, so vLLM selects "
                                   "the Ascend quantization without the flag"))
        else:
            if args.quantization:
                message = _("{provenance} but the vLLM arguments have --quantization {quantization}").format(
                    provenance=localized(facts.provenance.label), quantization=args.quantization)
            else:
                message = _("{provenance} but the vLLM arguments have no --quantization").format(
                    provenance=localized(facts.provenance.label))
            yield Finding.fail(
                message,
                _("Serve with the Ascend quantization: `{command}` (vLLM-Ascend >= 0.9.0rc2).").format(
                    command=argv("vllm", "serve", facts.path, "--quantization", "ascend", "...")),
                quantization=args.quantization, provenance=facts.provenance.kind,
            )
        return
    if flag == "ascend":
        yield Finding.fail(
            _("--quantization ascend is set but the weights are {provenance} (no "
              "quant_model_description.json)").format(provenance=localized(facts.provenance.label)),
            _("Remove `--quantization ascend` for unquantized weights, or point --model at the msmodelslim output."),
            quantization=args.quantization, provenance=facts.provenance.kind,
        )
        return
    yield Finding.passed(_("{provenance}: no Ascend quantization flag needed").format(
        provenance=localized(facts.provenance.label))
        + (f" (--quantization {args.quantization})" if args.quantization else ""))
