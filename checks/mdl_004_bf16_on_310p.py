"""ASC-MDL-004: BF16 weights on a 310P card (BF16 support there is incomplete)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-004",
    title="Weights use a dtype the 310P handles well (FP16, not BF16)",
    what="On 310P hosts, warns when the floating-point weights are mostly BF16 (or config.json asks for "
    "bfloat16).",
    why="310P BF16 support is incomplete: some operators fall back to slow paths (field report, seed 003 "
    "§2.3), and MindIE's model support matrix lists BF16 as unsupported on 300I DUO.",
    fix="Serve in FP16 (vLLM: `--dtype float16`; MindIE: fp16 precision) or quantize from FP16 weights "
    "(W8A8).",
    requires=("model",),
    tags=("model", "fit"),
)


def _chip(ctx: CheckContext) -> Any:
    try:
        return ctx.facts.try_get("npu_chip")
    except KeyError:
        return None


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model.units import human_params

    facts: ModelFacts = ctx.facts.get("model")
    require_model(facts)
    chip = _chip(ctx)
    if chip is None or getattr(chip, "family", None) != "310P":
        raise NotApplicable("not a 310P host")
    bf16 = facts.params_by_dtype.get("BF16", 0)
    config_dtype = facts.config_value("torch_dtype")
    if facts.float_dtype == "BF16" or (not facts.params_by_dtype and config_dtype == "bfloat16"):
        what = f"{human_params(bf16)} BF16 parameters" if bf16 else "config.json torch_dtype=bfloat16"
        yield Finding.warn(
            f"{what} on {chip.name}: BF16 is poorly supported on 310P",
            f"vLLM-Ascend: add `--dtype float16` (e.g. `vllm serve {facts.path} --dtype float16`); MindIE: set "
            "the model precision to fp16; or quantize from FP16 weights with msmodelslim (W8A8).",
            params_by_dtype=dict(facts.params_by_dtype), torch_dtype=config_dtype,
        )
        return
    yield Finding.passed(f"floating-point weights are {facts.float_dtype or 'not BF16'} on {chip.name}")
