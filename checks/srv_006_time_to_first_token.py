"""ASC-SRV-006: time to first token at concurrency 1 is within the threshold."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint.sweep import DEFINITIONS
from ascend_doctor.endpoint.thresholds import DEFAULTS_MAX_PARAMS_B, defaults_apply
from ascend_doctor.i18n import _

from ._probe import LOOK_AT_NPUS, ProbeCheckContext, hints, ms, probe_facts, threshold_source

CHECK = CheckSpec(
    id="ASC-SRV-006",
    title="Time to first token at concurrency 1 is within the threshold",
    suite="probe",
    what="Streams --requests completions one at a time and times the first token of each (TTFT); the median "
         "must stay below --max-ttft-ms (default 500 ms: this tool's starting figure for a 7B model on a 910B, "
         "not a published one; applied only to models up to 8B, set your own). Also fails"
         " when "
         "no streamed request succeeds.",
    why="TTFT is what a user waits before anything appears; at concurrency 1 it measures the prefill path "
        "alone, without queueing.",
    fix="Look at what else runs on the NPUs, the model size against the threshold, and (multi-card) the "
        "communication between cards; set --max-ttft-ms for models larger than 7B.",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    phase = facts.sequential
    if phase is None:
        raise NotApplicable(facts.not_measured(_("TTFT at concurrency 1")))
    sent = len(phase.replies)
    ok = phase.succeeded
    failed = [r for r in phase.replies if not r.ok and r.outcome != rec.CANCELLED]
    if not ok:
        if not failed:
            raise NotApplicable(facts.not_measured(_("TTFT at concurrency 1")))
        yield Finding.fail(_("none of {sent} streamed requests succeeded: {detail}").format(
                               sent=sent, detail=failed[0].detail or failed[0].outcome),
                           _("Non-streamed requests work (ASC-SRV-004) but streamed ones do not: read {logs}; a proxy "
                             "in front of the engine may buffer or cut SSE (text/event-stream) replies.").format(
                               logs=hints(facts).logs), outcomes=phase.outcomes())
        return
    applies, size = defaults_apply(facts.thresholds, "max_ttft_ms", facts.model)
    if not applies:
        raise NotApplicable(_("the default figure is for a 7B model on one 910B; {model} has {size}B parameters, "
                              "larger than {limit}B, and is not graded against it: give {option}, or "
                              "`--chip/--cards/--precision` to compare with published results").format(
                                  model=facts.model, size=f"{size:g}", limit=f"{DEFAULTS_MAX_PARAMS_B:g}",
                                  option="--max-ttft-ms"))
    ttft = phase.ttft()
    limit_ms = facts.thresholds.max_ttft_ms
    source = facts.thresholds.source("max_ttft_ms")
    shown_source = threshold_source(facts, "max_ttft_ms")
    figures = (_("TTFT p50 {p50}, p95 {p95} over {count} requests (interrupted)") if phase.interrupted else
               _("TTFT p50 {p50}, p95 {p95} over {count} requests")).format(
                   p50=ms(ttft.p50), p95=ms(ttft.p95), count=ttft.count)
    evidence = {"ttft_s": ttft.to_dict(), "definition": DEFINITIONS["ttft"], "threshold_ms": limit_ms,
                "threshold_source": source,
                "outcomes": phase.outcomes()}
    if ttft.p50 is None:
        raise NotApplicable(_("no request produced a first token to time"))
    if ttft.p50 * 1000 > limit_ms:
        yield Finding.warn(
            _("{figures}: the median is above {limit} ms ({source})").format(
                figures=figures, limit=f"{limit_ms:g}", source=shown_source),
            _("If the model is larger than the threshold's 7B, set your own figure with --max-ttft-ms. Otherwise "
              "look at: {look_at_npus} (another job on the same chips slows prefill); the first requests after a "
              "start (graph compilation: rerun); on several cards, the communication between them "
              "(the expert-parallel settings first); `ascend-doctor check` on the server.").format(
                  look_at_npus=_(LOOK_AT_NPUS)),
            **evidence)
    else:
        yield Finding.passed(_("{figures} (threshold {limit} ms: {source})").format(
            figures=figures, limit=f"{limit_ms:g}", source=shown_source), **evidence)
    if failed:
        yield Finding.warn(_("{failed} of {sent} streamed requests at concurrency 1 failed: {detail}").format(
                               failed=len(failed), sent=sent, detail=failed[0].detail or failed[0].outcome),
                           _("One request at a time should never fail: read {logs}.").format(logs=hints(facts).logs),
                           outcomes=phase.outcomes())
