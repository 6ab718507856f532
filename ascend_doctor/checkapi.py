"""What a check module looks like, and what it gets to work with.

A check is a module in ``checks/`` (shipped as ``ascend_doctor.checks``) that defines::

    CHECK = CheckSpec(
        id="ASC-DRV-001",
        title="Ascend driver is installed",
        requires=("npu_host",),          # preconditions; unmet -> SKIP with the reason
        what="...", why="...", fix="...",  # printed by `ascend-doctor explain ID`
    )

    def run(ctx: CheckContext) -> Iterator[Finding]:
        yield Finding.passed("driver 24.1.rc2 at /usr/local/Ascend/driver")

Checks read facts (``ctx.facts``) and the compatibility matrix (``ctx.matrix``) only; they
never touch the host. A check that discovers late that it does not apply raises
``NotApplicable``; any other exception becomes an ERROR result and the run goes on.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

if TYPE_CHECKING:
    from ascend_doctor.facts import Facts
    from ascend_doctor.options import RunOptions

CHECK_ID_RE = re.compile(r"^ASC-[A-Z0-9]{2,6}-\d{3}$")


class Status(str, enum.Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"
    ERROR = "ERROR"

    @property
    def rank(self) -> int:
        """Severity order used for sorting and the exit code."""
        return {"PASS": 0, "SKIP": 1, "WARN": 2, "ERROR": 3, "FAIL": 4}[self.value]


class NotApplicable(Exception):
    """Raised by a check that finds out it does not apply; becomes SKIP with this reason."""


@dataclass(frozen=True)
class Finding:
    """One graded statement a check makes. A check yields one or more."""

    status: Status
    message: str
    remediation: str = ""
    evidence: Mapping[str, Any] = field(default_factory=dict)
    # Scope narrows a finding to one object (an NPU, a file) so that a check can report
    # several, e.g. "npu 3 chip 0".
    scope: Optional[str] = None

    @classmethod
    def passed(cls, message: str, **evidence: Any) -> Finding:
        return cls(Status.PASS, message, "", dict(evidence))

    @classmethod
    def warn(cls, message: str, remediation: str, **evidence: Any) -> Finding:
        return cls(Status.WARN, message, remediation, dict(evidence))

    @classmethod
    def fail(cls, message: str, remediation: str, **evidence: Any) -> Finding:
        return cls(Status.FAIL, message, remediation, dict(evidence))

    @classmethod
    def skip(cls, message: str, remediation: str = "", **evidence: Any) -> Finding:
        return cls(Status.SKIP, message, remediation, dict(evidence))

    def scoped(self, scope: str) -> Finding:
        return Finding(self.status, self.message, self.remediation, self.evidence, scope)


@dataclass(frozen=True)
class CheckSpec:
    """Static description of a check: identity, applicability and its user-facing docs."""

    id: str
    title: str
    what: str
    why: str
    fix: str
    requires: Tuple[str, ...] = ()
    tags: Tuple[str, ...] = ()

    @property
    def area(self) -> str:
        return self.id.split("-")[1]


@dataclass
class CheckContext:
    """What a check's ``run`` receives."""

    facts: Facts
    matrix: Any  # ascend_doctor.matrix.Matrix; typed loosely to keep imports lazy
    options: RunOptions


RunFunc = Callable[[CheckContext], Iterable[Finding]]


@dataclass(frozen=True)
class Check:
    spec: CheckSpec
    run: RunFunc
    module: str


@dataclass(frozen=True)
class Precondition:
    """A named applicability test; returns None when met, else the SKIP reason."""

    name: str
    test: Callable[[CheckContext], Optional[str]]
    description: str


PRECONDITIONS: Dict[str, Precondition] = {}


def precondition(name: str, description: str) -> Callable[[Callable[[CheckContext], Optional[str]]], Any]:
    def register(func: Callable[[CheckContext], Optional[str]]) -> Callable[[CheckContext], Optional[str]]:
        PRECONDITIONS[name] = Precondition(name, func, description)
        return func

    return register


def validate_spec(spec: CheckSpec) -> List[str]:
    """Problems with a spec (used by the registry and by the catalogue tests)."""
    problems = []
    if not CHECK_ID_RE.match(spec.id):
        problems.append(f"{spec.id}: id must look like ASC-<AREA>-<NNN>")
    for attr in ("title", "what", "why", "fix"):
        if not getattr(spec, attr).strip():
            problems.append(f"{spec.id}: empty {attr}")
    return problems
