"""``matrix plan``'s records: a complete recommended stack for a chip and an engine, with install
steps, and the components a caller may fix.

The plan itself is the resolver's (``ascend_doctor.resolve.plan.make_plan``): the matrix is data
and queries, and never imports the resolver that reads it.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.verdict import Verdict

PYTHONS = ("3.13", "3.12", "3.11", "3.10", "3.9", "3.8")
FIXABLE = ("driver", "firmware", "cann", "python", "torch", "torch_npu", "vllm", "version")


class PlanError(Exception):
    """No stack can be planned (unknown chip, unsupported engine, nothing satisfies the fixed parts).

    Raised with an ascend_doctor.i18n_text.Text: ``str(exc)`` is English (the CLI reads its start),
    ``localized(exc)`` the message in the run's language. The plan's titles, notes and reasons are
    Text too (the JSON stays English; the text view shows them with ``localized``)."""


class InstallStep(Struct, frozen=True):
    title: str
    commands: Tuple[str, ...] = ()
    note: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"title": self.title, "commands": list(self.commands)}
        if self.note:
            data["note"] = self.note
        return data


class StackPlan(Struct, frozen=True):
    chip: str
    family: str
    engine: str
    versions: Dict[str, str]
    pairings: Tuple[Tuple[str, Verdict], ...]
    steps: Tuple[InstallStep, ...]
    notes: Tuple[str, ...] = ()
    skipped: Tuple[str, ...] = ()  # higher releases that did not fit, and why
    fixed: Dict[str, str] = field(default_factory=dict)
    matrix: Dict[str, Any] = field(default_factory=dict)
    arches: Tuple[str, ...] = ("aarch64", "x86_64")  # the package names printed are for these

    def to_dict(self) -> Dict[str, Any]:
        return {
            "chip": self.chip,
            "family": self.family,
            "engine": self.engine,
            "arch": list(self.arches),
            "fixed": dict(self.fixed),
            "versions": dict(self.versions),
            "pairings": [{"pair": name, **verdict.to_dict()} for name, verdict in self.pairings],
            "steps": [step.to_dict() for step in self.steps],
            "notes": list(self.notes),
            "skipped": list(self.skipped),
            "matrix": dict(self.matrix),
        }


def normalize_fixed(fixed: Dict[str, str], engine: str) -> Dict[str, str]:
    result = {}
    for key, value in fixed.items():
        if value is None or str(value).strip() == "":
            continue
        name = key.strip().lower().replace("-", "_")
        if name in ("torchnpu", "torch_npu"):
            name = "torch_npu"
        elif name in (engine.replace("-", "_"), "engine", "engine_version"):
            name = "version"
        if name not in FIXABLE:
            raise PlanError(Text(N_("cannot fix {key} (fixable: {fixable})"), key=repr(key),
                                 fixable=", ".join(FIXABLE)))
        result[name] = str(value).strip()
    return result
