"""ASC-SRV-010: replies do not repeat themselves."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint.repetition import RepetitionScore
from ascend_doctor.i18n import _

from ._probe import ProbeCheckContext, probe_facts, quote, threshold_source

CHECK = CheckSpec(
    id="ASC-SRV-010",
    title="Replies do not repeat themselves",
    suite="probe",
    what="The share of repeated 4-grams in each reply (words; single characters for Chinese), reasoning "
         "included: seq-rep-4 of Welleck et al. 2019. WARN above --max-repeat-ratio (default 0.30). The timed "
         "replies are sampled at temperature 0.6; the greedy (temperature 0) reply is judged apart.",
    why="Repeated fragments are the visible symptom of quantization that sharpened the attention "
        "(INT8 weights in particular), and R1 itself tends to loop at low temperature.",
    fix="Sample with temperature ≤ 0.6 and repetition_penalty ≈ 1.05; if it still repeats, quantize per group "
        "instead of per channel.",
)

DETERMINISTIC_PREFIX = "deterministic"


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    if not facts.repetition:
        raise NotApplicable(facts.not_measured(_("repetition")))
    limit = facts.thresholds.max_repeat_ratio
    source = facts.thresholds.source("max_repeat_ratio")
    shown_source = threshold_source(facts, "max_repeat_ratio")
    judged: List[Tuple[str, RepetitionScore]] = [(k, v) for k, v in facts.repetition.items() if v.ratio is not None]
    if not judged:
        raise NotApplicable(_("no reply was long enough to judge (fewer than 32 {n}-grams); raise "
                              "--max-tokens").format(n=facts.thresholds.repeat_ngram))
    sampled = [(k, v) for k, v in judged if not k.startswith(DETERMINISTIC_PREFIX)]
    greedy = [(k, v) for k, v in judged if k.startswith(DETERMINISTIC_PREFIX)]
    over = [(k, v) for k, v in sampled if (v.ratio or 0) > limit]
    evidence = {"threshold": limit, "threshold_source": source, "judged": len(judged),
                "scores": {k: round(v.ratio or 0.0, 4) for k, v in judged}}
    if over:
        label, worst = max(over, key=lambda kv: kv[1].ratio or 0)
        yield Finding.warn(
            _("{over} of {sampled} sampled replies repeat themselves: worst {ratio} of {n}-grams repeated in "
              "{label} (\"{fragment}\" ×{count}); threshold {limit} ({source})").format(
                over=len(over), sampled=len(sampled), ratio=f"{worst.ratio:.2f}", n=worst.n, label=label,
                fragment=quote(worst.top_fragment, 40), count=worst.top_count, limit=f"{limit:g}",
                source=shown_source),
            _("In this order:") + "\n"
            + _("1. sample with temperature ≤ 0.6 and repetition_penalty ≈ 1.05 (request fields `temperature`, "
                "`repetition_penalty`; these replies were already sampled at 0.6);") + "\n"
            + _("2. if it still repeats on INT8 weights, quantize per group instead of per channel (msModelSlim), "
                "and compare with the FP16 weights to confirm quantization is the cause."), **evidence)
        return
    greedy_over = [(k, v) for k, v in greedy if (v.ratio or 0) > limit]
    if greedy_over:
        label, worst = greedy_over[0]
        text = (_("the greedy (temperature 0) reply repeats itself ({ratio} of {n}-grams, \"{fragment}\" ×{count}); "
                  "sampled replies do not") if sampled else
                _("the greedy (temperature 0) reply repeats itself ({ratio} of {n}-grams, \"{fragment}\" ×{count}); "
                  "no sampled reply was measured"))
        yield Finding.info(
            text.format(ratio=f"{worst.ratio:.2f}", n=worst.n, fragment=quote(worst.top_fragment, 40),
                        count=worst.top_count),
            _("DeepSeek-R1's model card recommends temperature 0.5-0.7 (0.6) to prevent endless repetitions: "
              "keep temperature 0 for comparisons only."), **evidence)
        return
    worst = max(judged, key=lambda kv: kv[1].ratio or 0)[1]
    yield Finding.passed(_("worst repeated {n}-gram share {ratio} over {count} replies (threshold {limit}: "
                           "{source})").format(n=worst.n, ratio=f"{worst.ratio:.2f}", count=len(judged),
                                               limit=f"{limit:g}", source=shown_source), **evidence)
