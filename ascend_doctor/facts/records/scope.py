"""The records of the ``scope`` facts, apart from their providers (ascend_doctor/facts/scope.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, FrozenSet, Optional, Tuple

from msgspec import Struct

ChipKey = Tuple[int, int]  # (npu_id, chip_id) as npu-smi prints them


class NpuScope(Struct, frozen=True):
    in_container: bool
    owned: Optional[FrozenSet[ChipKey]]  # None: every chip npu-smi lists is in scope
    reason: str  # how the scope was decided, for messages
    visible_chip_count: Optional[int]  # devices the process can address (davinci nodes, else npu-smi chips)
    rt_visible: Optional[Tuple[int, ...]] = None
    out_of_range: Tuple[int, ...] = ()  # ASCEND_RT_VISIBLE_DEVICES indices >= visible_chip_count

    def owns(self, npu_id: int, chip_id: Optional[int]) -> bool:
        if self.owned is None:
            return True
        if chip_id is None:  # 950 process tables carry no chip column: any chip of the NPU
            return any(n == npu_id for n, _ in self.owned)
        return (npu_id, chip_id) in self.owned

    def owns_npu(self, npu_id: int) -> bool:
        return self.owned is None or any(n == npu_id for n, _ in self.owned)

    def to_dict(self) -> Dict[str, object]:
        return {"in_container": self.in_container,
                "owned": None if self.owned is None else sorted([list(k) for k in self.owned]),
                "reason": self.reason, "visible_chip_count": self.visible_chip_count,
                "rt_visible": list(self.rt_visible) if self.rt_visible is not None else None,
                "out_of_range": list(self.out_of_range)}
