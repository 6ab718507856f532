"""ASC-SRV-004: a completion is served within --timeout ("healthy but not serving" fails)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.endpoint import records as rec
from ascend_doctor.i18n import _

from ._probe import LOOK_AT_NPUS, ProbeCheckContext, hints, probe_facts, secs

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


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    record = facts.deterministic
    if record is None and _answered_without_a_model(facts):
        # A server answered, but nothing could be asked (a static web server, a wrong base path): the
        # probe judged nothing about serving, and that must not pass a gate (exit 3, not 0).
        yield Finding(Status.ERROR, _("no completion was asked, so serving was not judged: {reason}").format(
                          reason=facts.stopped_because),
                      _("Name a served model with --model NAME, and check that URL is the engine's OpenAI-compatible "
                        "root (vLLM: http://HOST:8000, MindIE: http://HOST:1025), not another web server."),
                      {"models_status": facts.models.answer.status if facts.models else None})
        return
    if record is None:
        raise NotApplicable(facts.not_measured(_("a completion")))
    reply = record.reply
    timeout = facts.settings.timeout_s
    evidence = {"path": record.path, **reply.to_dict()}
    if reply.ok:
        text = (_("POST {path} answered in {elapsed} ({tokens} tokens, finish_reason {reason})")
                if reply.completion_tokens is not None else
                _("POST {path} answered in {elapsed} (finish_reason {reason})"))
        yield Finding.passed(text.format(path=record.path, elapsed=secs(reply.total_s), tokens=reply.output_tokens,
                                         reason=reply.finish_reason or '?'), **evidence)
        return
    if reply.outcome == rec.CANCELLED:
        raise NotApplicable(facts.not_measured(_("a completion")))
    look = hints(facts)
    if reply.outcome == rec.TIMEOUT:
        health = facts.health
        healthy = bool(health and health.healthy)
        listed = bool(facts.models and facts.models.answer.status == 200)
        if healthy or listed:
            health_path = health.path if healthy and health is not None else None
            if health_path and listed:
                said = _("{health_path} answers 200 and /v1/models lists {model}")
            elif health_path:
                said = _("{health_path} answers 200")
            else:
                said = _("/v1/models lists {model}")
            yield Finding.fail(
                _("healthy but not serving: {evidence}, yet POST {path} got no answer within --timeout {timeout} "
                  "s").format(evidence=said.format(health_path=health_path, model=facts.model), path=record.path,
                              timeout=f"{timeout:g}"),
                _("Find where the request stops, in this order:") + "\n"
                + _("1. {logs}: the request arriving and what the engine did with it (a scheduler stuck, an HCCL "
                    "timeout between cards, an operator error); `ascend-doctor diagnose LOGFILE` explains Ascend "
                    "error codes in it.").format(logs=look.logs) + "\n"
                + _("2. {look_at_npus}: AICore at 0 % with HBM held means the chips wait on something (a hung "
                    "collective, a dead worker process).").format(look_at_npus=_(LOOK_AT_NPUS)) + "\n"
                + _("3. The first request after a start can compile graphs for minutes: if later requests are "
                    "fast, rerun with a larger --timeout.") + "\n"
                + _("4. `ascend-doctor check` on the server: device health, driver and CANN pairing."),
                **evidence)
            return
        yield Finding.fail(_("POST {path} got no answer within --timeout {timeout} s").format(
                               path=record.path, timeout=f"{timeout:g}"),
                           _("Read {logs}; raise --timeout if the first request compiles graphs.").format(
                               logs=look.logs), **evidence)
        return
    if reply.outcome == rec.REFUSED:
        yield Finding.fail(_("the service refused the first request: {detail}").format(detail=reply.detail),
                           _("The engine is still starting (weights loading, graphs compiling) or already "
                             "saturated: wait and rerun; see {logs}.").format(logs=look.logs), **evidence)
        return
    if reply.outcome == rec.HTTP_ERROR and reply.status == 404:
        yield Finding.fail(_("POST {path}: {detail}").format(path=record.path, detail=reply.detail),
                           _("Use a served model name (--model, see ASC-SRV-002) and the engine's own port."),
                           **evidence)
        return
    yield Finding.fail(_("POST {path} failed: {detail}").format(path=record.path, detail=reply.detail or reply.outcome),
                       _("Read {logs} for the request's error; {look_at_npus}.").format(
                           logs=look.logs, look_at_npus=_(LOOK_AT_NPUS)), **evidence)


def _answered_without_a_model(facts: rec.ProbeFacts) -> bool:
    """The endpoint answered /v1/models (not with 401/403: ASC-SRV-002 fails that) yet no model was chosen."""
    if facts.interrupted or facts.model or facts.models is None:
        return False
    status = facts.models.answer.status
    return status is not None and status not in (401, 403)
