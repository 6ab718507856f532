"""ASC-CFG-009: the configured weight precision can load on Ascend (no FP8)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

CHECK = CheckSpec(
    id="ASC-CFG-009",
    title="Configured precision loads on Ascend",
    what="Fails when the configuration asks for FP8 weights (seed-style precision: fp8, vLLM --quantization fp8).",
    why="Ascend devices do not load FP8 weights (hiascend 'DeepSeek 应用最佳实践之量化'; vLLM-Ascend quantization "
    "guide): the seed's §4.2 example (precision fp8 on 16 x 910B) cannot start.",
    fix="Serve W8A8 weights converted with msmodelslim (quant_deepseek_w8a8.py --from_fp8; vLLM: --quantization "
    "ascend) or BF16 weights (fp8_cast_bf16.py).",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_precision, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    if not config.models:
        raise NotApplicable("no model in the configuration")
    # The msmodelslim-vs-flag comparison needs the weights: ASC-MDL-005 does it with --model.
    findings = findings_precision(config, None)
    if not findings:
        raise NotApplicable("the configuration sets no precision (MindIE takes it from the weights' config.json)")
    yield from findings
