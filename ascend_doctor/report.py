"""The report: what a run found, independent of how it is shown.

``Report.to_dict()`` is the JSON contract described by ``docs/report-schema.json``
(``schema_version`` below); renderers read a ``Report`` and nothing else.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Dict, List, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.checkapi import Status
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.jsonutil import jsonable
from ascend_doctor.result import Result as Result  # the graded line, below coverage.py (which reads it)

# The results a fix plan is made from (fixplan.py); a run of PASS and SKIP alone has none.
PLANNED_STATUSES = (Status.FAIL, Status.WARN, Status.ERROR, Status.INFO)


# 2: the INFO status (recommendations), per-result "actions" and the report's "fix_plan".
REPORT_SCHEMA_VERSION = 2


class FixStep(Struct, frozen=True):
    """One step of the report's fix plan: what to do, where, and which findings it fixes."""

    order: int
    component: str
    summary: str
    commands: Tuple[str, ...] = ()
    where: str = "host"
    fixes: Tuple[str, ...] = ()  # result ids (with their scope, "ASC-DEV-001 [npu 3]")
    target: Optional[str] = None
    why: str = ""  # why this step was chosen when findings disagreed
    alternative: str = ""
    subject: str = ""  # what inside the component the target applies to (a package, a variable)

    def to_dict(self) -> Dict[str, Any]:
        return {"order": self.order, "component": self.component, "summary": self.summary,
                "commands": list(self.commands), "where": self.where, "fixes": list(self.fixes),
                "target": self.target, "why": self.why, "alternative": self.alternative, "subject": self.subject}


class Report(Struct):
    tool_version: str
    matrix: Dict[str, Any]
    host: Dict[str, Any]
    facts: Dict[str, Any]
    results: List[Result]
    fail_on: str = "fail"
    started_at: str = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    duration_s: float = 0.0
    notes: List[str] = field(default_factory=list)  # run-level remarks (e.g. snapshot warnings)
    fix_plan: List[FixStep] = field(default_factory=list)
    lang: str = "en"  # language of the human fields (titles, messages, remediations): "en" or "zh"

    def summary(self) -> Dict[str, int]:
        counts = {s.value: 0 for s in Status}
        for result in self.results:
            counts[result.status.value] += 1
        return counts

    @property
    def exit_code(self) -> ExitCode:
        code = exit_code_for(self.results, self.fail_on)
        if code is ExitCode.OK and self.too_little_to_judge():
            return ExitCode.INCOMPLETE  # "not enough to judge": never READY on a guess (coverage.py)
        return code

    def coverage(self) -> Dict[str, int]:
        """How many results were judged, do not apply, could not be judged, were not asked for."""
        from ascend_doctor.coverage import counts

        return counts(self.results, self.host.get("source"), self.facts)

    def too_little_to_judge(self) -> bool:
        """Fewer than a quarter of the checks that apply could be judged (coverage.py)."""
        from ascend_doctor.coverage import too_little_to_judge

        return too_little_to_judge(self.results, self.host.get("source"), self.facts)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "tool": {"name": "ascend-doctor", "version": self.tool_version},
            "matrix": jsonable(self.matrix),
            "host": jsonable(self.host),
            "started_at": self.started_at,
            "duration_s": round(self.duration_s, 3),
            "fail_on": self.fail_on,
            "lang": self.lang,
            "facts": jsonable(self.facts),
            "results": [r.to_dict() for r in self.results],
            "summary": self.summary(),
            "coverage": self.coverage(),
            "notes": list(self.notes),
            "fix_plan": [step.to_dict() for step in self.fix_plan],
            "exit_code": int(self.exit_code),
        }


def exit_code_for(results: List[Result], fail_on: str = "fail") -> ExitCode:
    """0 clean; 1 a FAIL (or a WARN with --fail-on warn); 3 an ERROR and nothing failed, or
    every result a SKIP, or no result at all (nothing was verified: a gate must not pass on that).

    INFO (a recommendation) never counts, whatever --fail-on says."""
    statuses = {r.status for r in results}
    if Status.FAIL in statuses or (fail_on == "warn" and Status.WARN in statuses):
        return ExitCode.FINDINGS
    if Status.ERROR in statuses:
        return ExitCode.INCOMPLETE
    if statuses <= {Status.SKIP, Status.INFO}:
        return ExitCode.INCOMPLETE
    return ExitCode.OK


def needs_fix_plan(results: Sequence[Result]) -> bool:
    """Whether any result can give a step of the fix plan: the runner imports fixplan.py only
    then (a ready machine's `check` does not load it)."""
    return any(result.status in PLANNED_STATUSES for result in results)
