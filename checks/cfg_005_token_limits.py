"""ASC-CFG-005: MindIE token lengths are inside the ranges MindIE documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._serving import MINDIE_DOC, edit, usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

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
    findings = judge(usable_config(ctx))
    if not findings:
        raise NotApplicable("no MindIE token limits in this configuration")
    yield from findings


def judge(cfg: ServingConfig) -> List[Finding]:
    """MindIE token lengths are inside the ranges MindIE documents."""
    if not cfg.is_mindie:
        return []
    out: List[Finding] = []
    seq, inp, prefill = cfg.max_seq_len, cfg.max_input_token_len, cfg.max_prefill_tokens
    if seq and inp and inp > seq:
        out.append(Finding.warn(
            f"maxInputTokenLen {inp} exceeds maxSeqLen {seq}: MindIE clamps it to maxSeqLen - 1 = {seq - 1}, so "
            "longer prompts are cut or rejected",
            edit(cfg, f"set ModelDeployConfig.maxInputTokenLen to at most {seq - 1}, or raise maxSeqLen (more KV "
                      "cache per sequence)"), doc=MINDIE_DOC))
    effective_input = min(inp, seq - 1) if seq and inp else inp
    if prefill and effective_input and prefill < effective_input:
        out.append(Finding.fail(
            f"maxPrefillTokens {prefill} is below maxInputTokenLen {effective_input}: MindIE documents it must be "
            ">= maxInputTokenLen",
            edit(cfg, f"set ScheduleConfig.maxPrefillTokens to at least {effective_input}"), doc=MINDIE_DOC))
    if seq and cfg.max_iter_times and cfg.max_iter_times > seq:
        out.append(Finding.fail(
            f"maxIterTimes {cfg.max_iter_times} is above maxSeqLen {seq} (documented range [1, maxSeqLen])",
            edit(cfg, f"set ScheduleConfig.maxIterTimes to at most {seq}"), doc=MINDIE_DOC))
    if cfg.max_batch_size and cfg.max_prefill_batch_size and cfg.max_prefill_batch_size > cfg.max_batch_size:
        out.append(Finding.fail(
            f"maxPrefillBatchSize {cfg.max_prefill_batch_size} is above maxBatchSize {cfg.max_batch_size} "
            "(documented range [1, maxBatchSize])",
            edit(cfg, f"set ScheduleConfig.maxPrefillBatchSize to at most {cfg.max_batch_size}"), doc=MINDIE_DOC))
    if not out and (seq or inp or prefill):
        out.append(Finding.passed(f"maxSeqLen {seq}, maxInputTokenLen {inp}, maxPrefillTokens {prefill} are "
                                  "consistent"))
    return out
