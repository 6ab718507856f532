"""ASC-SRV-003: the engine's health route reports healthy."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import engines
from ascend_doctor.i18n import _

from ._probe import LOOK_AT_NPUS, ProbeCheckContext, hints, ms, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-003",
    title="The engine's health endpoint reports healthy",
    suite="probe",
    what="GET the engine's health route: vLLM /health (200 alive, 503 engine dead); MindIE /v2/health/ready "
         "or /health (200 healthy), which MindIE serves on its management port (default 1026) unless "
         "--health-url points there.",
    why="A health route that says unhealthy explains failing requests; one that says healthy while requests "
        "fail (ASC-SRV-004) points at the inference path itself, not at the process.",
    fix="Read the engine's log; restart the engine; for MindIE give the management address with "
        "--health-url https://<managementIpAddress>:<managementPort>/v2/health/ready.",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    info = facts.health
    if info is None:
        raise NotApplicable(facts.not_measured(_("the health endpoint")))
    tried = ", ".join(f"{t.url}: {t.status or t.outcome}" for t in info.tried)
    evidence = {"tried": [t.to_dict() for t in info.tried], "source": info.source}
    if info.healthy is None:
        yield Finding.skip(
            _("no health route on this port ({tried})").format(tried=tried or _("none tried")),
            _("MindIE answers its health routes on the management port (ServerConfig.managementPort, default "
              "{port}, on managementIpAddress): rerun with --health-url {url}").format(
                port=engines.MINDIE_MANAGEMENT_PORT,
                url=f"https://<managementIpAddress>:{engines.MINDIE_MANAGEMENT_PORT}/v2/health/ready"),
            **evidence)
        return
    answer = info.answered
    assert answer is not None
    if not info.healthy:
        state = f"HTTP {answer.status}" if answer.status else (answer.detail or answer.outcome)
        yield Finding.fail(
            _("{url} says the engine is not healthy: {state} ({meaning})").format(
                url=answer.url, state=state, meaning=_(info.meaning)),
            _("Read {logs} for the error that stopped the engine, and {look_at_npus}; `ascend-doctor check` on the "
              "server grades the devices and the stack. Restart the engine once the cause is fixed.").format(
                logs=hints(facts).logs, look_at_npus=_(LOOK_AT_NPUS)), **evidence)
        return
    yield Finding.passed(_("{url}: HTTP 200 in {elapsed} ({source})").format(
        url=answer.url, elapsed=ms(answer.elapsed_s), source=info.source), **evidence)
