"""ASC-SRV-008: --concurrency requests at once are all served."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec

from ._probe import LOOK_AT_NPUS, hints, ms, num, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-008",
    title="Concurrent requests are all served",
    suite="probe",
    what="Streams 2 × --concurrency completions, --concurrency at a time (default 16, seed 003 §6), and counts "
         "requests/s, output tokens/s, TTFT under load, refusals (429/503), timeouts and failures (resets, 5xx, "
         "broken streams).",
    why="A service that answers one user can still fail sixteen: batch limits refuse requests, memory runs out "
        "under a full batch, queues grow past the clients' patience.",
    fix="Match the engine's batch limits to the load it must carry, and read its log for the failures.",
)

BROKEN = (rec.RESET, rec.SERVER_ERROR, rec.BAD_REPLY, rec.HTTP_ERROR, rec.CONNECT, rec.TOO_LONG)


def run(ctx: CheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    phase = facts.concurrent
    settings = facts.settings
    if phase is None:
        if settings.concurrency <= 1 and facts.sequential is not None:
            raise NotApplicable("--concurrency 1: nothing beyond the concurrency-1 measurement")
        raise NotApplicable(facts.not_measured(f"throughput at concurrency {settings.concurrency}"))
    sent = len(phase.replies)
    if sent == 0:
        raise NotApplicable(facts.not_measured(f"throughput at concurrency {phase.concurrency}"))
    look = hints(facts)
    ok = len(phase.succeeded)
    refused = phase.count(rec.REFUSED)
    timeouts = phase.count(rec.TIMEOUT)
    failures = phase.count(*BROKEN)
    ttft = phase.ttft()
    cut = " (interrupted)" if phase.interrupted else ""
    figures = (f"{sent} requests at concurrency {phase.concurrency}{cut}: {ok} served, "
               f"{num(phase.requests_per_s, 2)} requests/s, {num(phase.output_tokens_per_s)} output tokens/s, "
               f"TTFT p50 {ms(ttft.p50)} / p95 {ms(ttft.p95)}; {refused} refused, {timeouts} timed out, "
               f"{failures} failed")
    evidence = phase.to_dict()
    if failures:
        yield Finding.fail(
            f"{figures}: {phase.first_detail(*BROKEN)}",
            f"Requests must be served or refused, never broken. Read {look.logs} at the time of the failures; "
            f"{LOOK_AT_NPUS} (HBM near full under a full batch ends in out-of-memory); then cap the batch so "
            f"that excess requests wait or are refused: {look.concurrency_limit}.", **evidence)
        return
    if timeouts:
        yield Finding.warn(
            f"{figures}: {timeouts} got no complete answer within --timeout {settings.timeout_s:g} s",
            f"The service queues more than it serves in time. Compare the figures at concurrency 1: if one "
            f"stream is fast, the batch is too large for the cards ({look.concurrency_limit}); raise --timeout "
            "if your clients wait longer.", **evidence)
        return
    if refused:
        yield Finding.warn(
            f"{figures}: {phase.first_detail(rec.REFUSED)}",
            f"The service limits concurrency below {phase.concurrency}, cleanly. If it must carry "
            f"{phase.concurrency} users, raise {look.concurrency_limit} (memory permitting).", **evidence)
        return
    yield Finding.passed(figures, **evidence)
