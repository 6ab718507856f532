"""ASC-CFG-005: MindIE token lengths are inside the ranges MindIE documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    findings = judge(usable_config(ctx))
    if not findings:
        raise NotApplicable(_("no MindIE token limits in this configuration"))
    yield from findings


def judge(cfg: ServingConfig) -> List[Finding]:
    """MindIE token lengths are inside the ranges MindIE documents."""
    if not cfg.is_mindie:
        return []
    out: List[Finding] = []
    seq, inp, prefill = cfg.max_seq_len, cfg.max_input_token_len, cfg.max_prefill_tokens
    if seq and inp and inp > seq:
        out.append(Finding.warn(
            _("maxInputTokenLen {input} exceeds maxSeqLen {seq}: MindIE clamps it to maxSeqLen - 1 = {clamped}, so "
              "longer prompts are cut or rejected").format(input=inp, seq=seq, clamped=seq - 1),
            edit(cfg, _("set ModelDeployConfig.maxInputTokenLen to at most {clamped}, or raise maxSeqLen (more KV "
                        "cache per sequence)").format(clamped=seq - 1)), doc=MINDIE_DOC))
    effective_input = min(inp, seq - 1) if seq and inp else inp
    if prefill and effective_input and prefill < effective_input:
        out.append(Finding.fail(
            _("maxPrefillTokens {prefill} is below maxInputTokenLen {input}: MindIE documents it must be "
              ">= maxInputTokenLen").format(prefill=prefill, input=effective_input),
            edit(cfg, _("set ScheduleConfig.maxPrefillTokens to at least {input}").format(input=effective_input)),
            doc=MINDIE_DOC))
    if seq and cfg.max_iter_times and cfg.max_iter_times > seq:
        out.append(Finding.fail(
            _("maxIterTimes {iterations} is above maxSeqLen {seq} (documented range [1, maxSeqLen])").format(
                iterations=cfg.max_iter_times, seq=seq),
            edit(cfg, _("set ScheduleConfig.maxIterTimes to at most {seq}").format(seq=seq)), doc=MINDIE_DOC))
    if cfg.max_batch_size and cfg.max_prefill_batch_size and cfg.max_prefill_batch_size > cfg.max_batch_size:
        out.append(Finding.fail(
            _("maxPrefillBatchSize {prefill_batch} is above maxBatchSize {batch} "
              "(documented range [1, maxBatchSize])").format(prefill_batch=cfg.max_prefill_batch_size,
                                                             batch=cfg.max_batch_size),
            edit(cfg, _("set ScheduleConfig.maxPrefillBatchSize to at most {batch}").format(batch=cfg.max_batch_size)),
            doc=MINDIE_DOC))
    if not out and (seq or inp or prefill):
        out.append(Finding.passed(_("maxSeqLen {seq}, maxInputTokenLen {input}, maxPrefillTokens {prefill} are "
                                    "consistent").format(seq=seq, input=inp, prefill=prefill)))
    return out
