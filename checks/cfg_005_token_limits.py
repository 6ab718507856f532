"""ASC-CFG-005: MindIE token lengths are inside the ranges MindIE documents."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

CHECK = CheckSpec(
    id="ASC-CFG-005",
    title="MindIE token limits are consistent",
    what="maxInputTokenLen <= maxSeqLen (WARN: MindIE clamps it to maxSeqLen - 1); maxPrefillTokens >= "
    "maxInputTokenLen, maxIterTimes <= maxSeqLen, maxPrefillBatchSize <= maxBatchSize (FAIL: outside the "
    "documented ranges).",
    why="Values outside MindIE's documented ranges are rejected at start-up or make long prompts fail with an "
    "error instead of being served.",
    fix="In config.json keep maxInputTokenLen < maxSeqLen, maxPrefillTokens >= maxInputTokenLen, maxIterTimes <= "
    "maxSeqLen and maxPrefillBatchSize <= maxBatchSize.",
    requires=("serving_config",),
    tags=("serving", "mindie"),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_token_limits, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    findings = findings_token_limits(config)
    if not findings:
        raise NotApplicable("no MindIE token limits in this configuration")
    yield from findings
