"""Small judging helpers shared by the model checks (ASC-MDL-*): turn the problems a model
inspection found (``ascend_doctor.model.records.Problem``) into findings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator, List, Optional, Sequence

from ascend_doctor.checkapi import Finding, NotApplicable, Status
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

# At most this many findings per check; the rest are summarised in one line.
MAX_FINDINGS = 20


def require_model(facts: ModelFacts) -> None:
    """Checks other than ASC-MDL-001 have nothing to say about a path that holds no model."""
    from ascend_doctor.model import records as R

    if facts.provenance.kind == R.NONE:
        raise NotApplicable(_("no model in the given directory (see ASC-MDL-001)"), see=("ASC-MDL-001",))


def findings_for(
    problems: Sequence[Problem],
    remediation: Callable[[Problem], str],
    status_for: Optional[Callable[[Problem], Status]] = None,
) -> Iterator[Finding]:
    """One finding per problem (FAIL for errors, WARN for warnings), capped at MAX_FINDINGS."""
    from ascend_doctor.model import records as R

    shown: List[Problem] = list(problems[:MAX_FINDINGS])
    for problem in shown:
        status = status_for(problem) if status_for else (Status.FAIL if problem.severity == R.ERROR else Status.WARN)
        finding = Finding(status, localized(problem.message), remediation(problem), {"code": problem.code})
        yield finding.scoped(problem.path) if problem.path else finding
    rest = list(problems[MAX_FINDINGS:])
    if rest:
        worst = Status.FAIL if any(p.severity == R.ERROR for p in rest) else Status.WARN
        yield Finding(worst, _("{count} more problem(s) of the same kind, e.g. {example}").format(
                          count=len(rest), example=localized(rest[0].message)),
                      remediation(rest[0]), {"code": rest[0].code, "count": len(rest)})
