"""Named preconditions a check can list in ``CheckSpec.requires``.

An unmet precondition makes the runner report SKIP with the reason returned here, so
checks never need to open with "if there is no model, return".
"""

from __future__ import annotations

from typing import Optional

from ascend_doctor.checkapi import CheckContext, precondition


@precondition("model", "a model directory was given with --model")
def _model(ctx: CheckContext) -> Optional[str]:
    return None if ctx.options.model_dir else "no model given (use --model DIR)"


@precondition("manifest", "a manifest was given with --verify")
def _manifest(ctx: CheckContext) -> Optional[str]:
    if not ctx.options.model_dir:
        return "no model given (use --model DIR --verify MANIFEST)"
    return None if ctx.options.verify_manifest else "no manifest given (use --verify MANIFEST)"


@precondition("serving_config", "a serving configuration was given with --config or --vllm-args")
def _serving(ctx: CheckContext) -> Optional[str]:
    if ctx.options.serving_config or ctx.options.vllm_args:
        return None
    return "no serving configuration given (use --config FILE or --vllm-args \"...\")"


@precondition("npu_devices", "npu-smi answered and listed at least one NPU")
def _npu_devices(ctx: CheckContext) -> Optional[str]:
    info = ctx.facts.try_get("npu_smi")
    if info is None or not getattr(info, "devices", None):
        return "no NPU devices were listed by npu-smi"
    return None
