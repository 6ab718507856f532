"""One graded line of a report: what a check found, with its status, evidence and actions.

Its own module, below ``report.py`` and ``coverage.py``: the report counts coverage over its
results, and coverage reads results, so the record both need lives under them (a record in
report.py made coverage.py and report.py import each other).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.checkapi import FixAction, Status
from ascend_doctor.jsonutil import jsonable


class Result(Struct, frozen=True):
    """One graded line of the report (a check may produce several, each with a scope)."""

    id: str
    title: str
    status: Status
    message: str
    remediation: str = ""
    evidence: Mapping[str, Any] = field(default_factory=dict)
    scope: Optional[str] = None
    duration_s: float = 0.0
    actions: Tuple[FixAction, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status.value,
            "message": self.message,
            "remediation": self.remediation,
            "evidence": jsonable(dict(self.evidence)),
            "scope": self.scope,
            "duration_s": round(self.duration_s, 4),
            "actions": [a.to_dict() for a in self.actions],
        }
