"""What a check module looks like, and what it gets to work with.

A check is a module in ``checks/`` (shipped as ``ascend_doctor.checks``) that defines::

    CHECK = CheckSpec(
        id="ASC-DRV-001",
        title="Ascend driver is installed",
        requires=("npus",),              # see ascend_doctor/requirements.py; unmet -> SKIP
        what="...", why="...", fix="...",  # printed by `ascend-doctor explain ID`
    )

    def run(ctx: CheckContext[Facts]) -> Iterator[Finding]:
        yield Finding.passed("driver 24.1.rc2 at /usr/local/Ascend/driver")

Checks read facts (``ctx.facts``) and the compatibility matrix (``ctx.matrix``) only; they
never touch the host. Each suite has its own facts, and its checks the context typed over them:
``CheckContext[Facts]`` for the ``check`` suite (``HostCheckContext`` in checks/_context.py),
``CheckContext[FleetFacts]`` for ``fleet`` and ``SuiteContext[ProbeFacts]`` for ``probe`` (a probe
has no matrix). This module names no facts type, so that what imports it (the renderers, for
``Status``) never reaches the facts, not even for the type checker. A check that discovers late
that it does not apply raises ``NotApplicable``; any other exception becomes an ERROR result and the run goes on.

**The public check API** (``API_VERSION``). A check shipped by another package (a site's own checks,
loaded through the entry-point group ``ascend_doctor.checks``; see ascend_doctor/plugins.py and
docs/plugins.md) may import only the modules of ``PUBLIC_MODULES``:

* ``ascend_doctor.checkapi``: ``CheckSpec``, ``CheckContext`` (``SuiteContext``), ``Finding``, ``FixAction``,
  ``Status``, ``NotApplicable``;
* ``ascend_doctor.facts``: ``Fact``, ``Facts``, ``FactUnavailable``, ``Reads``, ``provider`` (a fact of
  its own, read through ``facts.host``);
* ``ascend_doctor.host.base``: ``HostFileError`` (what a missing or unreadable file raises);
* ``ascend_doctor.shellcmd``: every command a finding prints.

Everything else is internal and may change in any release. ``API_VERSION`` changes when one of those
names changes in a way that breaks a check written for the previous version; such a check declares
the version it was written for (``CHECK_API = 1`` in its module) and is refused, with one line that says
why, by a version that no longer supports it.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, Callable, Dict, Generic, Iterable, List, Mapping, Optional, Tuple, TypeVar

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.options import RunOptions

# The version of the public check API (see the module's docstring), and the versions a plugin may be
# written for: a later version that only adds names keeps the earlier one here.
API_VERSION = 1
SUPPORTED_API_VERSIONS = (1,)
PUBLIC_MODULES = ("ascend_doctor.checkapi", "ascend_doctor.facts", "ascend_doctor.host.base", "ascend_doctor.shellcmd")

# ascend-doctor's own checks are ASC-<AREA>-<NNN>; a plugin's are <SITE>-<AREA>-<NNN> with a site prefix of
# its own (2-8 letters or digits, starting with a letter), never ASC, so that an id names its owner.
CHECK_ID_RE = lazy_re(r"^ASC-[A-Z0-9]{2,6}-\d{3}$")
PLUGIN_CHECK_ID_RE = lazy_re(r"^(?!ASC-)[A-Z][A-Z0-9]{1,7}-[A-Z0-9]{2,6}-\d{3}$")
SUITES = ("check", "probe", "fleet")


class Status(str, enum.Enum):
    """How a finding is graded.

    INFO is a recommendation (a tuning variable, a better default): shown with its fix, but it
    never changes the exit code, not even with ``--fail-on warn``, so that a healthy host passes
    a strict gate.
    """

    PASS = "PASS"
    INFO = "INFO"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"
    ERROR = "ERROR"

    @property
    def rank(self) -> int:
        """Severity order used for sorting and the exit code."""
        return _RANK[self.value]


_RANK = {"PASS": 0, "SKIP": 1, "INFO": 2, "WARN": 3, "ERROR": 4, "FAIL": 5}


class NotApplicable(Exception):
    """Raised by a check that finds out it does not apply; becomes SKIP with this reason.

    ``see`` names the checks whose results say why (the one that reports the unreadable input,
    say); the runner puts them in the SKIP's evidence as ``{"see": [...]}`` so that tools can
    follow the link instead of parsing the prose.
    """

    def __init__(self, reason: str = "", see: Tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.see = tuple(see)


# The components a fix can act on, in the order a person applies them (the fix plan's order):
# hardware-facing packages first, then what runs on top, then what the user configures.
FIX_COMPONENTS = (
    "system", "container", "hdk", "firmware", "driver", "reboot", "cann", "kernels", "nnal", "environment",
    "python", "engine", "config", "model", "other",
)
FIX_WHERE = ("host", "container", "either")
FIX_DIRECTIONS = ("install", "upgrade", "downgrade", "reinstall", "remove", "set", "run", "")


class FixAction(Struct, frozen=True):
    """One machine-readable remediation step a finding proposes; the report merges the actions of
    all findings into one ordered fix plan (see ascend_doctor/fixplan.py).

    ``target`` is the version the step sets ``component`` (and ``subject``, e.g. the package) to,
    and ``accepts`` the versions that would fix the finding just as well (``"25.0.*"`` for any
    25.0 release), so that the plan can pick one version that satisfies every finding pulling on
    the same component instead of printing two contradicting steps.
    """

    component: str
    summary: str
    commands: Tuple[str, ...] = ()
    where: str = "host"
    target: Optional[str] = None
    direction: str = ""
    alternative: str = ""  # a second way, stated but not chosen (e.g. roll the firmware back instead)
    subject: str = ""  # what inside the component: "torch", "transformers", a file...
    accepts: Tuple[str, ...] = ()
    # "component=version" the step was computed for ("cann=8.0.0"): when the plan moves that component
    # elsewhere, the step is restated for the new version instead of undoing it.
    depends: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        return {"component": self.component, "summary": self.summary, "commands": list(self.commands),
                "where": self.where, "target": self.target, "direction": self.direction,
                "alternative": self.alternative, "subject": self.subject, "accepts": list(self.accepts),
                "depends": list(self.depends)}


class Finding(Struct, frozen=True):
    """One graded statement a check makes. A check yields one or more."""

    status: Status
    message: str
    remediation: str = ""
    evidence: Mapping[str, Any] = field(default_factory=dict)
    # Scope narrows a finding to one object (an NPU, a file) so that a check can report
    # several, e.g. "npu 3 chip 0".
    scope: Optional[str] = None
    actions: Tuple[FixAction, ...] = ()

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
    def info(cls, message: str, remediation: str, **evidence: Any) -> Finding:
        """A recommendation: below WARN, never counted by the exit code."""
        return cls(Status.INFO, message, remediation, dict(evidence))

    @classmethod
    def skip(cls, message: str, remediation: str = "", **evidence: Any) -> Finding:
        return cls(Status.SKIP, message, remediation, dict(evidence))

    def scoped(self, scope: str) -> Finding:
        return Finding(self.status, self.message, self.remediation, self.evidence, scope, self.actions)

    def with_actions(self, *actions: FixAction) -> Finding:
        """The same finding with machine-readable fix steps for the report's fix plan."""
        return Finding(self.status, self.message, self.remediation, self.evidence, self.scope,
                       self.actions + tuple(actions))


class CheckSpec(Struct, frozen=True):
    """Static description of a check: identity, applicability and its user-facing docs."""

    id: str
    title: str
    what: str
    why: str
    fix: str
    requires: Tuple[str, ...] = ()
    tags: Tuple[str, ...] = ()
    # Which command grades this check: "check" (a machine or snapshot), "probe" (a serving
    # endpoint), "fleet" (several node reports). `explain` and `checks` know every suite.
    suite: str = "check"

    @property
    def area(self) -> str:
        return self.id.split("-")[1]


# The facts of a suite. Covariant: a context is only read, so the runner may hand any suite's
# context on as a SuiteContext[object].
F_co = TypeVar("F_co", covariant=True)


class SuiteContext(Struct, Generic[F_co]):
    """What a check's ``run`` receives: its suite's facts and the run's options."""

    facts: F_co
    options: RunOptions


class CheckContext(SuiteContext[F_co]):
    """The context of a suite that also judges against the compatibility matrix (``check``, ``fleet``)."""

    matrix: Matrix  # imported for type checking only: a run that needs no matrix does not load it


# A check's ``run`` takes its own suite's context (``spec.suite`` says which). The catalogue holds
# the checks of every suite side by side, and the runner hands each the context of the suite it
# runs; which facts a run function reads is known to the function, not to the list.
RunFunc = Callable[[Any], Iterable[Finding]]


class Check(Struct, frozen=True):
    spec: CheckSpec
    run: RunFunc
    module: str
    # The distribution that installed a plugin check ("acme-ascend-checks 0.1.0"); empty for our own.
    package: str = ""


def validate_spec(spec: CheckSpec, plugin: bool = False) -> List[str]:
    """Problems with a spec (used by the registry and by the catalogue tests); ``plugin``: a check
    another package ships, whose id has a site prefix of its own."""
    problems = []
    if spec.suite not in SUITES:
        problems.append(f"{spec.id}: suite must be one of {', '.join(SUITES)}")
    if plugin and not PLUGIN_CHECK_ID_RE.match(spec.id):
        problems.append(f"{spec.id}: a plugin's check id must look like <SITE>-<AREA>-<NNN>, with a site prefix "
                        "other than ASC (reserved for ascend-doctor's own checks)")
    if not plugin and not CHECK_ID_RE.match(spec.id):
        problems.append(f"{spec.id}: id must look like ASC-<AREA>-<NNN>")
    for attr in ("title", "what", "why", "fix"):
        if not getattr(spec, attr).strip():
            problems.append(f"{spec.id}: empty {attr}")
    return problems
