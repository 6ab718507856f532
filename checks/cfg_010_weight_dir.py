"""ASC-CFG-010: every configured weight path is a model directory on this host."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

CHECK = CheckSpec(
    id="ASC-CFG-010",
    title="Configured weight paths exist and hold config.json",
    what="Checks that each modelWeightPath / model_path / vLLM model path exists on this host, is a directory and "
    "holds config.json (a HuggingFace hub id such as deepseek-ai/DeepSeek-R1 is skipped: it is downloaded).",
    why="MindIE reads torch_dtype and vocab_size from the weight path's config.json at start-up; a wrong path is "
    "the most common reason a service that took minutes to start dies at once.",
    fix="Point the configuration at the directory holding config.json and the *.safetensors shards; run "
    "`ascend-doctor check --model DIR` on it for the full model checks.",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_weight_dirs, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    dirs = ctx.facts.get("serving_weight_dirs")
    if not dirs:
        raise NotApplicable("no local weight path in the configuration")
    yield from findings_weight_dirs(config, dirs)
