"""The version part of a report's fix plan: the resolver's steps for this machine, and which findings
they answer.

A check that judges a version pairing (driver with CANN, torch_npu with CANN, the engine's row)
knows one pairing; only the resolver sees them all at once. So the fix plan takes every version
step from one resolution, and a finding of these checks is answered by the step for its component
instead of carrying a command of its own that could pull the other way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from msgspec import Struct, structs

from ascend_doctor import shellcmd
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.resolve.model import KEEP, PlanStep, StackState, TargetStack, joined

if TYPE_CHECKING:
    from ascend_doctor.facts import Facts

# The checks whose findings are about a version the resolver chooses, and the components they are about.
VERSION_CHECKS: Dict[str, Tuple[str, ...]] = {
    "ASC-DRV-001": ("hdk",),
    "ASC-FW-001": ("hdk",),
    "ASC-FW-002": ("hdk",),
    "ASC-MIX-003": ("hdk",),
    "ASC-CANN-001": ("cann",),
    "ASC-CANN-002": ("hdk", "cann"),
    "ASC-OPS-001": ("kernels",),
    "ASC-OPS-002": ("kernels",),
    "ASC-NNAL-001": ("nnal",),
    "ASC-PY-001": ("torch",),
    "ASC-PY-002": ("torch",),
    "ASC-PY-003": ("torch",),
    "ASC-PY-004": ("python",),
    "ASC-ENG-002": ("hdk", "cann", "torch", "python", "engine"),
    "ASC-ENG-003": ("engine",),
}
# Of those, the checks whose every planned finding is about a version; the others (a driver whose
# version.info cannot be read, a firmware nobody queried) also give diagnostic advice that stays their own.
ALWAYS_VERSION = frozenset({"ASC-CANN-002", "ASC-OPS-001", "ASC-OPS-002", "ASC-NNAL-001", "ASC-PY-002",
                            "ASC-PY-003", "ASC-PY-004", "ASC-ENG-002"})
# The resolver's components as the plan's step kinds (torch and torch_npu are one step).
STEP_OF = {"hdk": "hdk", "cann": "cann", "kernels": "kernels", "nnal": "nnal", "torch": "torch",
           "torch_npu": "torch", "python": "python", "engine": "engine", "vllm": "engine"}


# The plan's step kinds that belong to a component (a component the plan cannot decide gets none of them).
STEP_KINDS_OF = {"hdk": ("hdk", "reboot"), "cann": ("cann", "kernels", "nnal", "cann_deps"), "torch": ("torch",),
                 "python": ("python",), "engine": ("engine",)}


class StackFix(Struct, frozen=True):
    """The resolution behind a report's version steps."""

    target: TargetStack
    steps: Tuple[PlanStep, ...]
    # components the plan cannot decide here (their findings keep their own advice)
    undecided: Tuple[str, ...] = ()

    def step_for(self, component: str) -> Optional[PlanStep]:
        kind = STEP_OF.get(component, component)
        return next((s for s in self.steps if s.component == kind), None)

    def covers(self, check_id: str) -> Tuple[str, ...]:
        return tuple(c for c in VERSION_CHECKS.get(check_id, ()) if c not in self.undecided)


def stack_fix(facts: Facts, matrix: Any, results: Sequence[Any]) -> Optional[StackFix]:
    """The version steps for the machine behind ``facts``: None when no finding is about a version."""
    from ascend_doctor.checkapi import Status

    planned = (Status.FAIL, Status.WARN)
    about: List[str] = []
    for result in results:
        if result.status in planned:
            about.extend(VERSION_CHECKS.get(result.id, ()))
    if not about:
        return None
    from ascend_doctor.resolve.state import state_from_facts

    state = state_from_facts(facts)
    return plan_for_state(matrix, state, about)


def plan_for_state(matrix: Any, state: StackState, about: Sequence[str]) -> StackFix:
    from ascend_doctor.resolve import resolve
    from ascend_doctor.resolve.steps import stack_steps

    engine = None
    pins: Dict[str, str] = {}
    if "engine" in about and state.engine is None and state.vllm and not state.engines \
            and "cann" not in state.unseen and _vllm_ascend_row_for(matrix, state.vllm):
        # vLLM without its Ascend plugin: plan the vLLM-Ascend row made for the installed vLLM, whole
        engine, pins = "vllm-ascend", {"vllm": state.vllm}
    chip = matrix.chip(state.chip) if state.chip else (matrix.chip(state.family) if state.family else None)
    undecided: List[str] = []
    if state.driver is None and (chip is None or state.in_container):
        # no driver seen, and either no chip family (HDK file names are per family) or a container (the driver
        # is the host's, which this run cannot see): no HDK can be planned; the finding keeps its own advice
        undecided.append("hdk")
    if "cann" in state.unseen:
        undecided += ["cann", "kernels", "nnal", "torch", "python", "engine"]
    about = [c for c in about if c not in undecided]
    if "cann" in state.unseen:
        # no toolkit found and no CANN environment loaded: CANN may be installed elsewhere. Nothing that
        # depends on which CANN it is can be planned
        about = [c for c in about if c == "hdk"]
    if state.engines and len(state.engines) > 1:
        # two engines share the environment: the fix is to separate them (ENG-001), never to move torch
        # under one of them
        about = [c for c in about if c in ("hdk", "cann", "kernels", "nnal")]
    target = resolve(matrix, state, engine=engine, pins=pins,
                     want=tuple(c for c in about if c in ("hdk", "cann", "torch", "python")))
    conflict: Tuple[PlanStep, ...] = ()
    if not target.ok:
        lines = tuple(shellcmd.comment(line) for line in target.conflicts)
        conflict = (PlanStep("engine", Text(N_("The installed engine cannot run on any stack this machine can have: "
                                               "decide about it first")), lines, "either", None,
                             joined(list(target.conflicts))),)
        conflict_lines = target.conflicts
        if state.engine is None and engine is None:
            return StackFix(target, conflict, tuple(undecided))
        # the rest of the stack still has a plan: resolved without the engine as its anchor
        target = resolve(matrix, structs.replace(state, engine=None, engine_version=None),
                         want=tuple(c for c in about if c in ("hdk", "cann", "torch", "python")))
        if not target.ok:
            return StackFix(target, conflict, tuple(undecided))
        target = structs.replace(target, conflicts=conflict_lines)
    arches = (state.arch,) if state.arch in ("aarch64", "x86_64") else ("aarch64", "x86_64")
    hidden = {kind for component in undecided for kind in STEP_KINDS_OF.get(component, (component,))}
    steps = [s for s in stack_steps(matrix, target, chip, arches, fresh=False, include=tuple(about))
             if s.component not in hidden]
    return StackFix(target, conflict + tuple(steps), tuple(undecided))


def _vllm_ascend_row_for(matrix: Any, vllm: str) -> bool:
    from ascend_doctor.resolve.provider import same_pypi

    return any(same_pypi(v, vllm) for row in matrix.vllm_ascend_rows for v in row.vllm)


def kept_text(target: TargetStack, components: Sequence[str]) -> str:
    """``CANN 8.2.RC1 (installed and fits ...)`` for the components a finding is about that the plan keeps."""
    from ascend_doctor.i18n_text import localized

    parts = []
    for component in components:
        pick = target.picks.get(component)
        if pick is not None and pick.change == KEEP:
            parts.append(Text(N_("{component} {version} ({reason})"), component=component, version=pick.version,
                              reason=pick.short or pick.reason))
    return localized(joined(parts))
