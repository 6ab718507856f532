"""ASC-CFG-004: the MindIE weight path has no '.' (MindIE fails to start otherwise)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

CHECK = CheckSpec(
    id="ASC-CFG-004",
    title="MindIE modelWeightPath contains no '.'",
    what="Fails when a MindIE ModelConfig modelWeightPath (or the model_path of a seed-style config) contains a "
    "'.', e.g. /data/model/DeepSeek-V3.1-W8A8.",
    why="Huawei's DeepSeek guide: a weight path with '.' makes the MindIE service fail to start; use only letters, "
    "digits, '-' and '_' (support.huaweicloud.com/bestpractice-modelarts/modelarts_ds_infermix_s_908c15.html).",
    fix="Rename the directory without dots (mv /data/model/DeepSeek-V3.1-W8A8 /data/model/DeepSeek-V3-1-W8A8) and "
    "update modelWeightPath.",
    requires=("serving_config",),
    tags=("serving", "mindie"),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_weight_path, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    findings = findings_weight_path(config)
    if not findings:
        raise NotApplicable("no MindIE weight path in this configuration")
    yield from findings
