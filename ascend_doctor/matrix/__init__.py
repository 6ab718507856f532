"""The compatibility matrix: versioned YAML data with sources, and the queries checks call.

    from ascend_doctor.matrix import load_matrix as load_matrix, Verdict as Verdict, VerdictKind as VerdictKind
    m = load_matrix()                      # --matrix / $ASCEND_DOCTOR_MATRIX / updated copy / shipped
    m.cann_vs_driver("8.0.RC3", "24.1.rc2").kind   # VerdictKind.RECOMMENDED

Names are imported lazily so that ``ascend_doctor.matrix.meta`` (used by ``--version``) stays cheap.
"""

from __future__ import annotations as annotations

import importlib
from typing import TYPE_CHECKING as TYPE_CHECKING
from typing import Any as Any

if TYPE_CHECKING:
    from ascend_doctor.matrix.chips import ChipInfo as ChipInfo
    from ascend_doctor.matrix.errors import MatrixError as MatrixError
    from ascend_doctor.matrix.errors import Problem as Problem
    from ascend_doctor.matrix.model import Matrix as Matrix
    from ascend_doctor.matrix.plan import InstallStep as InstallStep
    from ascend_doctor.matrix.plan import PlanError as PlanError
    from ascend_doctor.matrix.plan import StackPlan as StackPlan
    from ascend_doctor.matrix.select import load_matrix as load_matrix
    from ascend_doctor.matrix.verdict import Verdict as Verdict
    from ascend_doctor.matrix.verdict import VerdictKind as VerdictKind

_EXPORTS = {
    "load_matrix": "ascend_doctor.matrix.select",
    "Matrix": "ascend_doctor.matrix.model",
    "MatrixError": "ascend_doctor.matrix.errors",
    "Problem": "ascend_doctor.matrix.errors",
    "Verdict": "ascend_doctor.matrix.verdict",
    "VerdictKind": "ascend_doctor.matrix.verdict",
    "ChipInfo": "ascend_doctor.matrix.chips",
    "StackPlan": "ascend_doctor.matrix.plan",
    "InstallStep": "ascend_doctor.matrix.plan",
    "PlanError": "ascend_doctor.matrix.plan",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ascend_doctor.matrix' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
