"""ASC-SRV-004: a completion is served within --timeout ("healthy but not serving" fails)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec

from ._probe import LOOK_AT_NPUS, hints, probe_facts, secs

CHECK = CheckSpec(
    id="ASC-SRV-004",
    title="A completion is served within --timeout",
    suite="probe",
    what="Sends one small chat completion (the seed's \"用一句话解释什么是 RAG\", temperature 0, a fixed seed) and "
         "waits at most --timeout; falls back to /v1/completions where the engine has no chat API.",
    why="A service whose health route and model list answer can still hang every request (a stuck scheduler, "
        "a hung collective between cards): the only proof of serving is a served completion.",
    fix="Read the engine's log around the request, look at npu-smi info while a request hangs, and run "
        "`ascend-doctor check` on the server.",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    record = facts.deterministic
    if record is None:
        raise NotApplicable(facts.not_measured("a completion"))
    reply = record.reply
    timeout = facts.settings.timeout_s
    evidence = {"path": record.path, **reply.to_dict()}
    if reply.ok:
        tokens = f"{reply.output_tokens} tokens, " if reply.completion_tokens is not None else ""
        yield Finding.passed(f"POST {record.path} answered in {secs(reply.total_s)} ({tokens}finish_reason "
                             f"{reply.finish_reason or '?'})", **evidence)
        return
    if reply.outcome == rec.CANCELLED:
        raise NotApplicable(facts.not_measured("a completion"))
    look = hints(facts)
    if reply.outcome == rec.TIMEOUT:
        health = facts.health
        healthy = bool(health and health.healthy)
        listed = bool(facts.models and facts.models.answer.status == 200)
        if healthy or listed:
            said = []
            if healthy and health is not None:
                said.append(f"{health.path} answers 200")
            if listed:
                said.append(f"/v1/models lists {facts.model}")
            yield Finding.fail(
                f"healthy but not serving: {' and '.join(said)}, yet POST {record.path} got no answer within "
                f"--timeout {timeout:g} s",
                "Find where the request stops, in this order:\n"
                f"1. {look.logs}: the request arriving and what the engine did with it (a scheduler stuck, an "
                "HCCL timeout between cards, an operator error); `ascend-doctor diagnose LOGFILE` explains "
                "Ascend error codes in it.\n"
                f"2. {LOOK_AT_NPUS}: AICore at 0 % with HBM held means the chips wait on something (a hung "
                "collective, a dead worker process).\n"
                "3. The first request after a start can compile graphs for minutes: if later requests are "
                "fast, rerun with a larger --timeout.\n"
                "4. `ascend-doctor check` on the server: device health, driver and CANN pairing.",
                **evidence)
            return
        yield Finding.fail(f"POST {record.path} got no answer within --timeout {timeout:g} s",
                           f"Read {look.logs}; raise --timeout if the first request compiles graphs.", **evidence)
        return
    if reply.outcome == rec.REFUSED:
        yield Finding.fail(f"the service refused the first request: {reply.detail}",
                           "The engine is still starting (weights loading, graphs compiling) or already "
                           f"saturated: wait and rerun; see {look.logs}.", **evidence)
        return
    if reply.outcome == rec.HTTP_ERROR and reply.status == 404:
        yield Finding.fail(f"POST {record.path}: {reply.detail}",
                           "Use a served model name (--model, see ASC-SRV-002) and the engine's own port.",
                           **evidence)
        return
    yield Finding.fail(f"POST {record.path} failed: {reply.detail or reply.outcome}",
                       f"Read {look.logs} for the request's error; {LOOK_AT_NPUS}.", **evidence)
