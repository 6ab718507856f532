"""Helpers shared by the ASC-SRV-* checks (the ``probe`` suite); not a check (the registry skips
``_`` modules). The probe measures first (ascend_doctor/endpoint/measure.py) and hands the checks
a ``ProbeFacts`` as ``ctx.facts``; the checks compare it with thresholds and nothing else."""

from __future__ import annotations

from typing import Optional

from ascend_doctor.checkapi import NotApplicable, SuiteContext
from ascend_doctor.endpoint import engines
from ascend_doctor.endpoint.records import ProbeFacts
from ascend_doctor.i18n import N_, _

# What a probe check receives: the measurements as facts (a probe judges no matrix).
ProbeCheckContext = SuiteContext[ProbeFacts]


def probe_facts(ctx: ProbeCheckContext) -> ProbeFacts:
    facts: object = ctx.facts  # a test or a plugin may still hand a probe check another suite's facts
    if not isinstance(facts, ProbeFacts):
        raise NotApplicable(_("graded by `ascend-doctor probe URL` only"))
    return facts


def hints(facts: ProbeFacts) -> engines.EngineHints:
    """The engine's hints in the current language (their texts are ``N_``-marked in endpoint/engines.py)."""
    found = engines.hints(facts.engine)
    return engines.EngineHints(name=_(found.name) if found is engines.GENERIC else found.name,
                               logs=_(found.logs), context_limit=_(found.context_limit),
                               concurrency_limit=_(found.concurrency_limit),
                               reasoning_parser=_(found.reasoning_parser))


def threshold_source(facts: ProbeFacts, name: str) -> str:
    """Where a threshold comes from, for a message in the current language (the evidence keeps
    ``Thresholds.source``, in English)."""
    from ascend_doctor.endpoint.thresholds import OPTIONS, SOURCES

    if name in facts.thresholds.overridden:
        return _("set with {option}").format(option=OPTIONS.get(name, name))
    return _(SOURCES.get(name, ""))


def ms(seconds: Optional[float]) -> str:
    return "?" if seconds is None else f"{seconds * 1000:.0f} ms"


def secs(seconds: Optional[float]) -> str:
    return "?" if seconds is None else f"{seconds:.2f} s"


def num(value: Optional[float], digits: int = 1) -> str:
    return "?" if value is None else f"{value:.{digits}f}"


def quote(text: str, limit: int = 80) -> str:
    """A short excerpt of model output, on one line, for a message."""
    one = " ".join(text.split())
    return (one[:limit] + "…") if len(one) > limit else one


LOOK_AT_NPUS = N_("`npu-smi info`: the chips' health, AICore % and HBM in use while the probe runs, "
                  "and which processes hold them")  # translated where it is used: _(LOOK_AT_NPUS)
