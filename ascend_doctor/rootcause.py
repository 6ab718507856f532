"""One root cause leads: when one finding explains others, the report says so first.

No driver (or an npu-smi that does not answer) leaves no devices, no NPU network and no CANN
pairing to judge; a container started without the host's device nodes and driver mounts has no
npu-smi and no driver files; a run that could judge almost nothing has nothing to say. In each
case the report opens with one sentence naming the cause, folds the findings that follow from it
under it, and the fix plan starts with the step that removes it; tuning (INFO) comes last.

Applied after ``fixplan.build_fix_plan`` (``lead_the_plan``): the merger's order is kept otherwise,
so a step that must come before another (firmware before driver, reboot after) stays so.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Set, Tuple

from msgspec import Struct

from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import gettext as _
from ascend_doctor.report import FixStep, Report, Result

PROBLEMS = (Status.FAIL, Status.WARN, Status.ERROR)
CONTAINER = "container-without-npus"
NO_NPU = "no-npu"
TOO_LITTLE = "too-little-to-judge"
# Checks that cannot be right while no NPU is visible: they read the devices, the NPU network, the
# firmware on the devices, or pair CANN with a running driver.
_NEEDS_AN_NPU_AREAS = ("DEV", "NET", "FW")
_NEEDS_AN_NPU = ("ASC-CANN-002", "ASC-MIX-001", "ASC-MIX-003", "ASC-DRV-002", "ASC-OPS-002", "ASC-CTR-001")


class RootCause(Struct, frozen=True):
    """What explains the other findings: ``kind`` (one of the constants above), the result that
    leads (None when nothing could be judged), and the names of the findings it explains."""

    kind: str
    lead: Optional[Result]
    follows: Tuple[str, ...]  # result names ("ASC-CTR-002 [/usr/local/dcmi]"), in report order

    def sentence(self, report: Report) -> str:
        """The one sentence the report opens with, in the current language."""
        if self.kind == CONTAINER:
            return _("This container cannot use the NPUs: it was started without the host's device nodes or "
                     "driver mounts; re-create it (fix plan step 1) and the findings that follow from it go "
                     "away with it.")
        if self.kind == NO_NPU and self.lead is not None:
            return _("No Ascend NPU is visible on this machine: {reason} Until it is, the devices, the NPU "
                     "network and the CANN/driver pairing cannot be judged.").format(
                         reason=_first_sentence(self.lead.message))
        counts = report.coverage()
        return _("Not enough to judge: {judged} of the {applicable} checks that apply here could be judged; "
                 "the commands listed below would show the rest.").format(
                     judged=counts["judged"], applicable=counts["judged"] + counts["not_judged"])


def name_of(result: Result) -> str:
    """``ASC-DEV-010 [npu 3]``: as the fix plan's ``fixes`` name results."""
    return f"{result.id} [{result.scope}]" if result.scope else result.id


def find_root_cause(report: Report) -> Optional[RootCause]:
    """The cause that explains other findings, or None when the findings stand on their own."""
    results = report.results
    failing = {r.id for r in results if r.status is Status.FAIL}
    container = _first(results, "ASC-CTR-001", "ASC-CTR-002")
    # Only when the container cannot use the NPUs at all (no device nodes, or npu-smi fails); a
    # missing mount beside working NPUs is one finding among others.
    blind = bool(failing & {"ASC-CTR-001", "ASC-SMI-001"})
    if container is not None and _in_container(report) and blind:
        return RootCause(CONTAINER, container, _follows(report, container, container_case=True))
    lead = _first(results, "ASC-DRV-001", "ASC-SMI-001")
    if lead is not None and ("ASC-SMI-001" in failing or "ASC-DRV-001" in failing):
        return RootCause(NO_NPU, lead, _follows(report, lead, container_case=False))
    if report.too_little_to_judge():
        return RootCause(TOO_LITTLE, None, ())
    return None


def lead_the_plan(steps: Sequence[FixStep], results: Sequence[Result], cause: Optional[RootCause]
                  ) -> List[FixStep]:
    """The fix plan with the root cause's step first and the steps that only fix recommendations
    (INFO: tuning) last, renumbered; the merger's order otherwise."""
    lead_name = name_of(cause.lead) if cause is not None and cause.lead is not None else None

    def rank(step: FixStep) -> int:
        if lead_name is not None and lead_name in step.fixes:
            return 0
        return 2 if only_tunes(step, results) else 1

    ordered = sorted(steps, key=rank)  # stable: equal ranks keep their order
    return [_renumbered(step, number) for number, step in enumerate(ordered, start=1)]


def only_tunes(step: FixStep, results: Sequence[Result]) -> bool:
    """Whether a step fixes findings and none of them is a problem (FAIL, WARN, ERROR): tuning.
    A name can stand for several results (a PASS and an INFO of one check): any problem counts."""
    wanted = set(step.fixes)
    named = [r for r in results if name_of(r) in wanted]
    return any(r.status is Status.INFO for r in named) and not any(r.status in PROBLEMS for r in named)


def start_with(report: Report, cause: Optional[RootCause]) -> Optional[Result]:
    """The finding to start with: the root cause, else what step 1 of the plan fixes (its first
    FAIL, else its first problem), else the first FAIL: the "Start with" line and step 1 agree."""
    if cause is not None and cause.lead is not None:
        return cause.lead
    by_name = {name_of(r): r for r in report.results}
    if report.fix_plan:
        fixed = [by_name[name] for name in report.fix_plan[0].fixes if name in by_name]
        for wanted in (Status.FAIL, Status.ERROR, Status.WARN):
            for result in fixed:
                if result.status is wanted:
                    return result
    failures = [r for r in report.results if r.status is Status.FAIL]
    return failures[0] if failures else None


def _follows(report: Report, lead: Result, container_case: bool) -> Tuple[str, ...]:
    """The problems the cause explains: those its fix step also fixes, and those that need an NPU."""
    lead_name = name_of(lead)
    same_step: Set[str] = set()
    for step in report.fix_plan:
        if lead_name in step.fixes:
            same_step.update(step.fixes)
    out = []
    for result in report.results:
        if result.status not in PROBLEMS or result is lead:
            continue
        area = result.id.split("-")[1] if result.id.count("-") >= 2 else ""
        explained = name_of(result) in same_step or (
            not container_case and (area in _NEEDS_AN_NPU_AREAS or result.id in _NEEDS_AN_NPU))
        if container_case and result.id in ("ASC-CTR-001", "ASC-CTR-002", "ASC-CTR-003"):
            explained = True  # the other missing mounts and devices: the same re-created container
        if explained:
            out.append(name_of(result))
    return tuple(out)


def _first(results: Sequence[Result], *ids: str) -> Optional[Result]:
    for check_id in ids:
        for result in results:
            if result.id == check_id and result.status is Status.FAIL:
                return result
    return None


def _in_container(report: Report) -> bool:
    container = (report.facts or {}).get("container")
    return isinstance(container, dict) and bool(container.get("in_container"))


def _first_sentence(message: str) -> str:
    text = message.strip()
    end = text.find(". ")
    return text if end < 0 else text[:end + 1]


def _renumbered(step: FixStep, order: int) -> FixStep:
    if step.order == order:
        return step
    return FixStep(order, step.component, step.summary, step.commands, step.where, step.fixes, step.target,
                   step.why, step.alternative, step.subject)
