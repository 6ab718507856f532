"""The records of the ``file_modes`` facts, apart from their providers (ascend_doctor/facts/file_modes.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct


class PathMode(Struct, frozen=True):
    path: str
    role: str  # ROLE_*
    is_dir: bool
    mode: Optional[int]  # permission bits (0o640), None when unknown
    uid: Optional[int]  # owner, None when this host cannot tell

    @property
    def known(self) -> bool:
        return self.mode is not None and self.uid is not None

    def to_dict(self) -> Dict[str, object]:
        return {"path": self.path, "role": self.role, "is_dir": self.is_dir,
                "mode": None if self.mode is None else oct(self.mode), "uid": self.uid}


class FileModes(Struct, frozen=True):
    entries: Tuple[PathMode, ...]
    missing: Tuple[str, ...] = ()  # paths named but absent (ASC-CFG-010 / MDL-001 report those)
    truncated: bool = False

    def to_dict(self) -> Dict[str, object]:
        return {"entries": [e.to_dict() for e in self.entries], "missing": list(self.missing),
                "truncated": self.truncated}
