"""ASC-SRV-007: decode speed at concurrency 1 meets the threshold."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint.sweep import DEFINITIONS
from ascend_doctor.endpoint.thresholds import DEFAULTS_MAX_PARAMS_B, defaults_apply
from ascend_doctor.i18n import _

from ._probe import LOOK_AT_NPUS, ProbeCheckContext, ms, num, probe_facts, threshold_source

CHECK = CheckSpec(
    id="ASC-SRV-007",
    title="Decode speed at concurrency 1 meets the threshold",
    suite="probe",
    what="For each streamed request at concurrency 1: (tokens - 1) / (time of the last token - time of the "
         "first), tokens from the server's usage when it reports them, else the streamed chunks; the median must "
         "reach --min-decode-tps (default 30 tokens/s: this tool's starting figure for a 7B model on a 910B, "
         "not a published one; applied only to models up to 8B, set your own). Inter-token"
         " gaps "
         "(p50/p95) are reported with it.",
    why="Decode speed is how fast an answer is written once it starts; a slow single stream means every user "
        "waits longer, whatever the batch size.",
    fix="Look at what else runs on the NPUs, the precision the model runs in on this chip, and (multi-card) the "
        "communication between cards; set --min-decode-tps for models larger than 7B.",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    phase = facts.sequential
    if phase is None or not phase.succeeded:
        raise NotApplicable(facts.not_measured(_("decode speed at concurrency 1")))
    applies, size = defaults_apply(facts.thresholds, "min_decode_tps", facts.model)
    if not applies:
        raise NotApplicable(_("the default figure is for a 7B model on one 910B; {model} has {size}B parameters, "
                              "larger than {limit}B, and is not graded against it: give {option}, or "
                              "`--chip/--cards/--precision` to compare with published results").format(
                                  model=facts.model, size=f"{size:g}", limit=f"{DEFAULTS_MAX_PARAMS_B:g}",
                                  option="--min-decode-tps"))
    decode = phase.decode()
    if decode.p50 is None:
        raise NotApplicable(_("the replies were too short to time decoding (fewer than 2 tokens): raise "
                              "--max-tokens"))
    gaps = phase.inter_token()
    by_server = all(r.tokens_counted_by_server for r in phase.succeeded)
    counted = _("tokens from the server's usage") if by_server else _("tokens counted as streamed chunks")
    minimum = facts.thresholds.min_decode_tps
    source = facts.thresholds.source("min_decode_tps")
    shown_source = threshold_source(facts, "min_decode_tps")
    figures = (_("decode p50 {p50}, p95 {p95} tokens/s (slowest {slowest}), inter-token p50 {gap_p50}, p95 {gap_p95} "
                 "over {count} requests (interrupted) ({counted})") if phase.interrupted else
               _("decode p50 {p50}, p95 {p95} tokens/s (slowest {slowest}), inter-token p50 {gap_p50}, p95 {gap_p95} "
                 "over {count} requests ({counted})")).format(
                   p50=num(decode.p50), p95=num(decode.p95), slowest=num(decode.minimum), gap_p50=ms(gaps.p50),
                   gap_p95=ms(gaps.p95), count=decode.count, counted=counted)
    evidence = {"decode_tps": decode.to_dict(2), "tpot_s": phase.tpot().to_dict(), "inter_token_s": gaps.to_dict(),
                "definitions": {"decode_tps": "(output tokens - 1) / (last token - first token): 1 / TPOT",
                                "tpot": DEFINITIONS["tpot"], "itl": DEFINITIONS["itl"]},
                "threshold_tps": minimum,
                "threshold_source": source, "tokens_counted_by": "server usage" if by_server else "streamed chunks"}
    if decode.p50 < minimum:
        yield Finding.warn(
            _("{figures}: the median is below {minimum} tokens/s ({source})").format(
                figures=figures, minimum=f"{minimum:g}", source=shown_source),
            _("If the model is larger than the threshold's 7B, set your own figure with --min-decode-tps. Otherwise "
              "look at: {look_at_npus}; the precision on this chip (310P has no BF16: FP16 or INT8 weights); "
              "on several cards, the communication between them; `ascend-doctor "
              "check`.").format(look_at_npus=_(LOOK_AT_NPUS)),
            **evidence)
        return
    yield Finding.passed(_("{figures} (threshold {minimum} tokens/s: {source})").format(
        figures=figures, minimum=f"{minimum:g}", source=shown_source), **evidence)
