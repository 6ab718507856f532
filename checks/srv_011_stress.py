"""ASC-SRV-011: under the longest prompt and the highest concurrency, the service serves or refuses
cleanly, and is still up afterwards."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec
from ascend_doctor.i18n import _

from ._probe import LOOK_AT_NPUS, ProbeCheckContext, hints, num, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-011",
    title="Under stress the service serves or refuses cleanly, and survives",
    suite="probe",
    what="With --stress: prompts as long as the model accepts (max_model_len from /v1/models, else "
         "--stress-tokens) at --stress-concurrency (default 64) for --duration seconds; clean refusals are 429/503 "
         "and length rejections, failures are resets, 5xx and broken streams; afterwards /v1/models (and the "
         "health route) must still answer.",
    why="Whether the service refuses first or falls over first under the worst load is worth more "
        "to operations than any benchmark figure.",
    fix="Cap what the engine accepts (batch size, context length, concurrent connections) so that overload is "
        "refused, not fatal; read the engine's log for what broke.",
)

BROKEN = (rec.RESET, rec.SERVER_ERROR, rec.BAD_REPLY, rec.HTTP_ERROR, rec.CONNECT)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    if not facts.settings.stress:
        yield Finding.skip(_("not asked for (--stress)"),
                           _("Before handing the service over: `ascend-doctor probe URL --stress --duration 60` "
                             "(sends the longest prompts at --stress-concurrency)."))
        return
    stress = facts.stress
    if stress is None or stress.phase is None or not stress.phase.replies:
        raise NotApplicable(facts.not_measured(_("the stress test")))
    phase = stress.phase
    look = hints(facts)
    served = len(phase.succeeded)
    refused = phase.count(rec.REFUSED)
    too_long = phase.count(rec.TOO_LONG)
    timeouts = phase.count(rec.TIMEOUT)
    broken = phase.count(*BROKEN)
    figures = (_("{sent} requests of ~{tokens} prompt tokens ({tokens_source}) at concurrency {concurrency} for "
                 "{seconds} s (interrupted): {served} served, {refused} refused (429/503), {too_long} rejected as too "
                 "long, {timeouts} timed out, {failed} failed") if phase.interrupted else
               _("{sent} requests of ~{tokens} prompt tokens ({tokens_source}) at concurrency {concurrency} for "
                 "{seconds} s: {served} served, {refused} refused (429/503), {too_long} rejected as too long, "
                 "{timeouts} timed out, {failed} failed")).format(
                   sent=len(phase.replies), tokens=stress.target_prompt_tokens, tokens_source=stress.target_source,
                   concurrency=phase.concurrency, seconds=num(phase.wall_s, 0), served=served, refused=refused,
                   too_long=too_long, timeouts=timeouts, failed=broken)
    evidence = stress.to_dict()
    caps = _("Make overload a refusal: {concurrency_limit}; {context_limit}. Read {logs} for what broke and "
             "{look_at_npus} (HBM at 95 % and more precedes out-of-memory).").format(
                 concurrency_limit=look.concurrency_limit, context_limit=look.context_limit, logs=look.logs,
                 look_at_npus=_(LOOK_AT_NPUS))
    if stress.alive_after is False:
        yield Finding.fail(_("{figures}; afterwards the service no longer answers ({detail})").format(
                               figures=figures, detail=stress.alive_detail),
                           _("The service died under load instead of refusing it. Restart it, then: {caps}").format(
                               caps=caps), **evidence)
        return
    if broken:
        yield Finding.fail(f"{figures}: {phase.first_detail(*BROKEN)}",
                           _("Requests failed instead of being refused. {caps}").format(caps=caps), **evidence)
        return
    if timeouts:
        yield Finding.warn(_("{figures}: requests hung past --timeout instead of being refused").format(
                               figures=figures),
                           _("The service queues without bound; clients hang. {caps}").format(caps=caps), **evidence)
        return
    if too_long and not served and not refused:
        yield Finding.warn(_("{figures}: every request was rejected as too long ({detail})").format(
                               figures=figures, detail=phase.first_detail(rec.TOO_LONG)),
                           _("The length estimate overshot what the engine accepts, so the load was never applied: "
                             "rerun with a smaller --stress-tokens."), **evidence)
        return
    alive = _("the service answered afterwards") if stress.alive_after else _("not checked afterwards")
    yield Finding.passed(f"{figures}; {alive}", **evidence)
