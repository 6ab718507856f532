"""ASC-SRV-013: the measured figures are within the band of published results for the same deployment."""

from __future__ import annotations

from typing import Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint import references as refs
from ascend_doctor.endpoint.families import engine_key, family_of
from ascend_doctor.i18n import _
from ascend_doctor.matrix import serving_refs
from ascend_doctor.matrix.serving_refs import RefQuery

from ._probe import ProbeCheckContext, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-013",
    title="Serving speed compared with published results",
    suite="probe",
    what="With --chip, --cards, --precision (and --deployment): picks the published results for the same chip, "
         "model family (from the served model's name), precision, cards and deployment "
         "(compat_matrix/serving_refs.yaml, each with its source), and compares TPOT (excluding the first token), "
         "TTFT and output tokens/s measured at the same input/output lengths and concurrency (--like-reference "
         "runs at them). Within 20 % above the published figure is within the band.",
    why="\"Is this TPOT normal for my chip, cards, model and precision?\" has no answer without a reference taken "
        "in the same scenario; a figure from another length, concurrency or precision says nothing.",
    fix="When slower: the causes the sources name first (graph mode instead of eager, MTP on where the reference "
        "used it, the reference's TP/DP/EP layout), then `ascend-doctor check` on the servers.",
)


def _measured(facts: rec.ProbeFacts) -> Optional[refs.Measured]:
    phase = facts.concurrent or facts.sequential
    if phase is None or not phase.succeeded:
        return None
    ok = phase.succeeded
    prompts = sorted(r.prompt_tokens for r in ok if r.prompt_tokens is not None)
    outputs = sorted(r.output_tokens for r in ok)
    tpot = phase.tpot().p50
    ttft = phase.ttft().p50
    return refs.Measured(concurrency=phase.concurrency,
                         input_tokens=prompts[len(prompts) // 2] if prompts else facts.settings.prompt_tokens,
                         output_tokens=outputs[len(outputs) // 2] if outputs else None,
                         tpot_ms=None if tpot is None else tpot * 1000, ttft_s=ttft,
                         output_tps=phase.output_tokens_per_s)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    s = facts.settings
    if s.chip is None and s.cards is None and s.precision is None:
        raise NotApplicable(_("give --chip, --cards and --precision (and --deployment) to compare with published "
                              "results"))
    measured = _measured(facts)
    if measured is None:
        raise NotApplicable(facts.not_measured(_("serving speed under load")))
    query = RefQuery(chip=s.chip, cards=s.cards, family=family_of(facts.model), precision=s.precision,
                     deployment=s.deployment, engine=engine_key(facts.engine))
    graded = refs.grade(serving_refs.load_refs(), query, measured)
    evidence = {"grade": graded.to_dict(), "query": {"chip": query.chip, "cards": query.cards,
                                                     "family": query.family, "precision": query.precision,
                                                     "deployment": query.deployment, "engine": query.engine},
                "measured": {"concurrency": measured.concurrency, "input_tokens": measured.input_tokens,
                             "output_tokens": measured.output_tokens, "tpot_ms": measured.tpot_ms,
                             "ttft_s": measured.ttft_s, "output_tps": measured.output_tps}}
    row = graded.row
    where = (_("{id} ({engine}, {hardware}, {cards} cards, {lengths}; {source})").format(
        id=row.id, engine=row.engine, hardware=row.hardware, cards=row.cards,
        lengths=row.as_published or f"{row.input_tokens}+{row.output_tokens}", source=row.source) if row else "")
    if graded.verdict == refs.NOT_COMPARABLE:
        text = _("no comparable published result: {reason}").format(reason=graded.reason)
        if where:
            text += "; " + _("nearest: {where}").format(where=where)
        yield Finding.info(text, _("Run with --like-reference to use the reference's lengths and concurrency, or "
                                   "check the keys given (--chip a2|a3|310p, --cards, --precision, --deployment "
                                   "single|pd)."), **evidence)
        return
    if graded.verdict == refs.WITHIN:
        yield Finding.passed(_("{reason}: {where}").format(reason=graded.reason, where=where), **evidence)
        return
    causes = "; ".join(graded.causes)
    yield Finding.warn(_("{reason}: {where}").format(reason=graded.reason, where=where),
                       _("Causes the sources name for slower results: {causes}.").format(causes=causes), **evidence)
