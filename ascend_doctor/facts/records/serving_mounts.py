"""The records of the ``serving_mounts`` facts, apart from their providers (ascend_doctor/facts/serving_mounts.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct


class ServingMounts(Struct, frozen=True):
    shm_total_bytes: Optional[int]  # None when the size of /dev/shm itself is not known here
    hccn_tool: Optional[str]  # where hccn_tool was found, None when absent
    hccn_tool_paths: Tuple[str, ...]  # where it was looked for
    hccn_conf: bool

    def to_dict(self) -> Dict[str, object]:
        return {"shm_total_bytes": self.shm_total_bytes, "hccn_tool": self.hccn_tool,
                "hccn_tool_paths": list(self.hccn_tool_paths), "hccn_conf": self.hccn_conf}
