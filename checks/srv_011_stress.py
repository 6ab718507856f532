"""ASC-SRV-011: under the longest prompt and the highest concurrency, the service serves or refuses
cleanly, and is still up afterwards (seed 003 §6 "预算内的崩溃测试")."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec

from ._probe import LOOK_AT_NPUS, hints, num, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-011",
    title="Under stress the service serves or refuses cleanly, and survives",
    suite="probe",
    what="With --stress: prompts as long as the model accepts (max_model_len from /v1/models, else "
         "--stress-tokens) at --stress-concurrency (default 64) for --duration seconds; clean refusals are 429/503 "
         "and length rejections, failures are resets, 5xx and broken streams; afterwards /v1/models (and the "
         "health route) must still answer.",
    why="Seed 003 §6: whether the service refuses first or falls over first under the worst load is worth more "
        "to operations than any benchmark figure.",
    fix="Cap what the engine accepts (batch size, context length, concurrent connections) so that overload is "
        "refused, not fatal; read the engine's log for what broke.",
)

BROKEN = (rec.RESET, rec.SERVER_ERROR, rec.BAD_REPLY, rec.HTTP_ERROR, rec.CONNECT)


def run(ctx: CheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    if not facts.settings.stress:
        yield Finding.skip("not asked for (--stress)",
                           "Before handing the service over: `ascend-doctor probe URL --stress --duration 60` "
                           "(sends the longest prompts at --stress-concurrency).")
        return
    stress = facts.stress
    if stress is None or stress.phase is None or not stress.phase.replies:
        raise NotApplicable(facts.not_measured("the stress test"))
    phase = stress.phase
    look = hints(facts)
    served = len(phase.succeeded)
    refused = phase.count(rec.REFUSED)
    too_long = phase.count(rec.TOO_LONG)
    timeouts = phase.count(rec.TIMEOUT)
    broken = phase.count(*BROKEN)
    cut = " (interrupted)" if phase.interrupted else ""
    figures = (f"{len(phase.replies)} requests of ~{stress.target_prompt_tokens} prompt tokens "
               f"({stress.target_source}) at concurrency {phase.concurrency} for {num(phase.wall_s, 0)} s{cut}: "
               f"{served} served, {refused} refused (429/503), {too_long} rejected as too long, {timeouts} timed "
               f"out, {broken} failed")
    evidence = stress.to_dict()
    caps = (f"Make overload a refusal: {look.concurrency_limit}; {look.context_limit}. Read {look.logs} for what "
            f"broke and {LOOK_AT_NPUS} (HBM at 95 % and more precedes out-of-memory).")
    if stress.alive_after is False:
        yield Finding.fail(f"{figures}; afterwards the service no longer answers ({stress.alive_detail})",
                           "The service died under load instead of refusing it. Restart it, then: " + caps, **evidence)
        return
    if broken:
        yield Finding.fail(f"{figures}: {phase.first_detail(*BROKEN)}",
                           "Requests failed instead of being refused. " + caps, **evidence)
        return
    if timeouts:
        yield Finding.warn(f"{figures}: requests hung past --timeout instead of being refused",
                           "The service queues without bound; clients hang. " + caps, **evidence)
        return
    if too_long and not served and not refused:
        yield Finding.warn(f"{figures}: every request was rejected as too long ({phase.first_detail(rec.TOO_LONG)})",
                           "The length estimate overshot what the engine accepts, so the load was never applied: "
                           "rerun with a smaller --stress-tokens.", **evidence)
        return
    alive = "the service answered afterwards" if stress.alive_after else "not checked afterwards"
    yield Finding.passed(f"{figures}; {alive}", **evidence)
