"""The records of the ``resources`` facts, apart from their providers (ascend_doctor/facts/resources.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.host.base import MemoryInfo


class DiskSpace(Struct, frozen=True):
    """Free space of the filesystem holding one or more of the interesting paths."""

    mount: str  # the path the host reported the usage for (mount point or nearest existing parent)
    total_bytes: int
    free_bytes: int
    holds: Tuple[str, ...]  # "what" of every path found on it ("model weights", "operator cache"...)
    paths: Tuple[str, ...]

    def to_dict(self) -> Dict[str, object]:
        return {"mount": self.mount, "total_bytes": self.total_bytes, "free_bytes": self.free_bytes,
                "holds": list(self.holds), "paths": list(self.paths)}


class HostResources(Struct, frozen=True):
    memory: Optional[MemoryInfo]
    cpu_count: Optional[int]
    governor: Optional[str]  # performance / powersave / ondemand / schedutil...; None when not exposed
    thp: Optional[str]  # the selected transparent-hugepage mode: always / madvise / never
    nofile_soft: Optional[int]  # None when unknown; -1 for "unlimited"
    nofile_hard: Optional[int]
    nofile_source: Optional[str]
    disks: Tuple[DiskSpace, ...] = ()
    notes: Tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> Dict[str, object]:
        mem = self.memory
        return {
            "memory": None if mem is None else {
                "total_bytes": mem.total_bytes, "available_bytes": mem.available_bytes,
                "swap_total_bytes": mem.swap_total_bytes, "swap_free_bytes": mem.swap_free_bytes},
            "cpu_count": self.cpu_count, "governor": self.governor, "thp": self.thp,
            "nofile_soft": self.nofile_soft, "nofile_hard": self.nofile_hard, "nofile_source": self.nofile_source,
            "disks": [d.to_dict() for d in self.disks], "notes": list(self.notes),
        }
