"""The records of the ``npu_ecc`` facts, apart from their providers (ascend_doctor/facts/npu_ecc.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Tuple

if TYPE_CHECKING:
    from ascend_doctor.parsers.npu_smi_ecc import EccInfo


class NpuEcc:
    """``by_npu`` maps NPU id -> EccInfo for the queries that answered; ``failures`` maps NPU id ->
    why the query gave nothing usable; ``not_recorded`` lists the NPUs a snapshot has no answer for."""

    __slots__ = ("by_npu", "failures", "not_recorded")

    def __init__(self, by_npu: Dict[int, EccInfo], failures: Dict[int, str],
                 not_recorded: Tuple[int, ...] = ()) -> None:
        self.by_npu = by_npu
        self.failures = failures
        self.not_recorded = not_recorded

    def to_dict(self) -> Dict[str, object]:
        return {"by_npu": {str(k): v.to_dict() for k, v in sorted(self.by_npu.items())},
                "failures": {str(k): v for k, v in sorted(self.failures.items())},
                "not_recorded": list(self.not_recorded)}
