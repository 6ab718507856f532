"""The records of the ``npu`` facts, apart from their providers (ascend_doctor/facts/npu.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

if TYPE_CHECKING:
    from ascend_doctor.parsers.npu_smi_board import BoardInfo


class NpuBoards:
    """The board query of every NPU npu-smi lists: the running firmware and DCMI's verdict.

    ``boards`` maps NPU id -> BoardInfo for the queries that answered; ``failures`` maps NPU id
    -> why the query gave nothing usable (a 310P card whose npu-smi has no board query, a timeout);
    ``not_recorded`` lists the NPUs whose query a replayed snapshot does not hold (its capture did
    not run it: nothing is known about them, nothing is wrong).
    """

    __slots__ = ("boards", "failures", "not_recorded")

    def __init__(self, boards: Dict[int, BoardInfo], failures: Dict[int, str],
                 not_recorded: Tuple[int, ...] = ()) -> None:
        self.boards = boards
        self.failures = failures
        self.not_recorded = not_recorded

    def firmware_versions(self) -> Dict[str, List[int]]:
        """Running firmware version -> the NPU ids that run it."""
        out: Dict[str, List[int]] = {}
        for npu_id, board in sorted(self.boards.items()):
            if board.firmware_version:
                out.setdefault(board.firmware_version, []).append(npu_id)
        return out

    def running_firmware(self) -> Optional[str]:
        """The firmware every NPU runs, when they all run the same one."""
        versions = self.firmware_versions()
        return next(iter(versions)) if len(versions) == 1 else None

    def compatibility(self) -> Dict[str, List[int]]:
        """DCMI's verdict (OK, NOK, UNKNOWN, NOT SUPPORT) -> the NPU ids that print it."""
        out: Dict[str, List[int]] = {}
        for npu_id, board in sorted(self.boards.items()):
            if board.compatibility:
                out.setdefault(board.compatibility, []).append(npu_id)
        return out

    def to_dict(self) -> Dict[str, object]:
        return {"boards": {str(k): v.to_dict() for k, v in sorted(self.boards.items())},
                "failures": {str(k): v for k, v in sorted(self.failures.items())}}
