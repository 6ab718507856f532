"""ASC-SRV-008: --concurrency requests at once are all served."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint.sweep import DEFINITIONS
from ascend_doctor.i18n import _

from ._probe import LOOK_AT_NPUS, ProbeCheckContext, hints, ms, num, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-008",
    title="Concurrent requests are all served",
    suite="probe",
    what="Streams 2 × --concurrency completions, --concurrency at a time "
         "(default 16, a starting figure; set your own), and counts "
         "requests/s, output tokens/s, TTFT under load, refusals (429/503), timeouts and failures (resets, 5xx, "
         "broken streams).",
    why="A service that answers one user can still fail sixteen: batch limits refuse requests, memory runs out "
        "under a full batch, queues grow past the clients' patience.",
    fix="Match the engine's batch limits to the load it must carry, and read its log for the failures.",
)

BROKEN = (rec.RESET, rec.SERVER_ERROR, rec.BAD_REPLY, rec.HTTP_ERROR, rec.CONNECT, rec.TOO_LONG)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    phase = facts.concurrent
    settings = facts.settings
    if phase is None:
        if settings.concurrency <= 1 and facts.sequential is not None:
            raise NotApplicable(_("--concurrency 1: nothing beyond the concurrency-1 measurement"))
        raise NotApplicable(facts.not_measured(_("throughput at concurrency {concurrency}").format(
            concurrency=settings.concurrency)))
    sent = len(phase.replies)
    if sent == 0:
        raise NotApplicable(facts.not_measured(_("throughput at concurrency {concurrency}").format(
            concurrency=phase.concurrency)))
    look = hints(facts)
    ok = len(phase.succeeded)
    refused = phase.count(rec.REFUSED)
    timeouts = phase.count(rec.TIMEOUT)
    failures = phase.count(*BROKEN)
    ttft = phase.ttft()
    figures = (_("{sent} requests at concurrency {concurrency} (interrupted): {served} served, {rps} requests/s, "
                 "{tps} output tokens/s, TTFT p50 {p50} / p95 {p95}; {refused} refused, {timeouts} timed out, "
                 "{failed} failed") if phase.interrupted else
               _("{sent} requests at concurrency {concurrency}: {served} served, {rps} requests/s, {tps} output "
                 "tokens/s, TTFT p50 {p50} / p95 {p95}; {refused} refused, {timeouts} timed out, {failed} "
                 "failed")).format(
                   sent=sent, concurrency=phase.concurrency, served=ok, rps=num(phase.requests_per_s, 2),
                   tps=num(phase.output_tokens_per_s), p50=ms(ttft.p50), p95=ms(ttft.p95), refused=refused,
                   timeouts=timeouts, failed=failures)
    evidence = phase.to_dict()
    evidence["definitions"] = DEFINITIONS  # as vLLM's benchmark and AIPerf define them
    evidence["tokens_counted_by"] = ("server usage" if phase.succeeded and all(
        r.tokens_counted_by_server for r in phase.succeeded) else "streamed chunks")
    if failures:
        yield Finding.fail(
            f"{figures}: {phase.first_detail(*BROKEN)}",
            _("Requests must be served or refused, never broken. Read {logs} at the time of the failures; "
              "{look_at_npus} (HBM near full under a full batch ends in out-of-memory); then cap the batch so "
              "that excess requests wait or are refused: {limit}.").format(
                logs=look.logs, look_at_npus=_(LOOK_AT_NPUS), limit=look.concurrency_limit), **evidence)
        return
    if timeouts:
        yield Finding.warn(
            _("{figures}: {timeouts} got no complete answer within --timeout {timeout} s").format(
                figures=figures, timeouts=timeouts, timeout=f"{settings.timeout_s:g}"),
            _("The service queues more than it serves in time. Compare the figures at concurrency 1: if one "
              "stream is fast, the batch is too large for the cards ({limit}); raise --timeout "
              "if your clients wait longer.").format(limit=look.concurrency_limit), **evidence)
        return
    if refused:
        yield Finding.warn(
            f"{figures}: {phase.first_detail(rec.REFUSED)}",
            _("The service limits concurrency below {concurrency}, cleanly. If it must carry {concurrency} users, "
              "raise {limit} (memory permitting).").format(concurrency=phase.concurrency,
                                                           limit=look.concurrency_limit), **evidence)
        return
    yield Finding.passed(figures, **evidence)
