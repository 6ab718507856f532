"""ASC-CFG-009: the configured weight precision can load on Ascend (no FP8)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import N_, _

from ._context import HostCheckContext
from ._serving import edit, usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

FACT_FP8 = N_(
    "Ascend devices do not load FP8 weights (\"当前昇腾设备不支持FP8格式加载\", "
    "https://www.hiascend.com/developer/techArticles/20250222-1)"
)
FACT_VLLM_QUANT = (
    "vLLM-Ascend needs --quantization ascend for msmodelslim weights "
    "(https://docs.vllm.ai/projects/ascend/en/v0.11.0/user_guide/feature_guide/quantization.html)"
)

CHECK = CheckSpec(
    id="ASC-CFG-009",
    title="Configured precision loads on Ascend",
    what="Fails when the configuration asks for FP8 weights (a precision: fp8 setting, vLLM --quantization fp8).",
    why="Ascend devices do not load FP8 weights (hiascend 'DeepSeek 应用最佳实践之量化'; vLLM-Ascend quantization "
    "guide): a deployment configured for FP8 (e.g. precision fp8 on 16 x 910B) cannot start.",
    fix="Serve W8A8 weights converted with msmodelslim (quant_deepseek_w8a8.py --from_fp8; vLLM: --quantization "
    "ascend) or BF16 weights (fp8_cast_bf16.py).",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    config = usable_config(ctx)
    if not config.models:
        raise NotApplicable(_("no model in the configuration"))
    # The msmodelslim-vs-flag comparison needs the weights: ASC-MDL-005 does it with --model.
    findings = judge(config, None)
    if not findings:
        raise NotApplicable(_("the configuration sets no precision (MindIE takes it from the weights' config.json)"))
    yield from findings


def judge(cfg: ServingConfig, checkpoint_precision: Optional[str]) -> List[Finding]:
    """The configured precision and quantization settings can load on Ascend (with the weights'
    own precision, when known, for vLLM's --quantization ascend)."""
    out: List[Finding] = []
    for model in cfg.models:
        if model.precision and model.precision.lower() in ("fp8", "fp8_e4m3"):
            out.append(Finding.fail(
                f"{model.where}: precision fp8 - " + _(FACT_FP8),
                edit(cfg, _("use W8A8 weights (msmodelslim, e.g. quant_deepseek_w8a8.py --from_fp8) with precision "
                            "w8a8/int8, or BF16 weights (DeepSeek's fp8_cast_bf16.py) with precision bf16")),
                fact=FACT_FP8).scoped(model.where))
        if cfg.is_vllm:
            if checkpoint_precision in ("w8a8", "w8a16", "w4a8") and model.quantization != "ascend":
                weights = str(checkpoint_precision).upper()
                if model.quantization:
                    message = _("the weights are msmodelslim {weights} but the launch line has --quantization "
                                "{quantization}").format(weights=weights, quantization=model.quantization)
                else:
                    message = _("the weights are msmodelslim {weights} but the launch line has no "
                                "--quantization").format(weights=weights)
                out.append(Finding.fail(message, _("Add --quantization ascend to the vllm serve line."),
                                        fact=FACT_VLLM_QUANT))
            elif model.quantization == "ascend" and checkpoint_precision in ("bf16", "fp16"):
                out.append(Finding.warn(
                    _("--quantization ascend is set but the weights are {weights} (no msmodelslim "
                      "quant_model_description.json)").format(weights=checkpoint_precision),
                    _("Drop --quantization ascend, or point the model at the W8A8 directory."), fact=FACT_VLLM_QUANT))
    shown = [str(v) for v in (m.precision or m.quantization or m.dtype for m in cfg.models) if v]
    if not out and shown:
        out.append(Finding.passed(_("configured precision loads on Ascend ({precisions})").format(
            precisions=", ".join(shown))))
    return out
