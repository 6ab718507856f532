"""ASC-SRV-015: the probe's own CPU did not limit the figures it reports."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint.sweep import CLIENT_BOUND_SHARE
from ascend_doctor.i18n import _

from ._probe import ProbeCheckContext, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-015",
    title="The probe client did not limit the measurement",
    suite="probe",
    what="For each load phase, the probe's own CPU time (every thread of this process) over the phase's wall "
         "time; at 80 % of one core or more (Python runs one thread at a time) the client, not the server, may "
         "have set the pace.",
    why="A benchmark client that cannot keep up reports its own limit as the server's: EvalScope's perf mode, "
        "for one, cannot saturate a server (https://github.com/modelscope/evalscope/issues/1101).",
    fix="Run the probe from a machine with a free core (not the serving node under load), or lower "
        "--concurrency / --sweep levels; compare with vLLM's benchmark or AISBench at the same settings.",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    phases: List[rec.LoadPhase] = [p for p in (facts.sequential, facts.concurrent) if p is not None]
    phases += facts.sweep
    if facts.stress is not None and facts.stress.phase is not None:
        phases.append(facts.stress.phase)
    shares: List[Tuple[str, float]] = [(p.name, p.client_cpu_share) for p in phases
                                       if p.client_cpu_share is not None and p.replies]
    if not shares:
        raise NotApplicable(facts.not_measured(_("the client's CPU use")))
    evidence = {"client_cpu_share": {name: round(share, 3) for name, share in shares},
                "limit_share": CLIENT_BOUND_SHARE}
    busy = [(name, share) for name, share in shares if share >= CLIENT_BOUND_SHARE]
    worst = max(shares, key=lambda item: item[1])
    if busy:
        names = ", ".join(f"{name} ({share:.0%})" for name, share in busy)
        yield Finding.warn(_("the probe used most of a CPU core during {names}: those figures may be the client's "
                             "limit, not the server's").format(names=names),
                           _("Probe from a machine with a free core, or with less concurrency."), **evidence)
        return
    yield Finding.passed(_("the probe used at most {share:.0%} of one core ({name}): the server set the pace").format(
        share=worst[1], name=worst[0]), **evidence)
