"""The records of the ``logs`` facts, apart from their providers (ascend_doctor/facts/logs.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

import datetime as _dt
from typing import Dict, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.logscan.scanner import ScanResult


class DmesgScan(Struct, frozen=True):
    """What `dmesg` showed. ``status`` is ok | permission_denied | not_found | timeout | error."""

    status: str
    detail: str = ""
    result: Optional[ScanResult] = None

    def to_dict(self) -> Dict[str, object]:
        return {"status": self.status, "detail": self.detail,
                "result": self.result.to_dict() if self.result else None}


class LogFileScan(Struct, frozen=True):
    path: str
    size: int
    mtime: float
    result: Optional[ScanResult] = None
    error: str = ""  # why it could not be read
    start_offset: int = 0  # > 0 when only the tail of a large file was read

    @property
    def modified(self) -> str:
        """When the file was last written; "" when not known (a replayed snapshot that did not record it)."""
        return format_mtime(self.mtime) if self.mtime >= 0 else ""

    def to_dict(self) -> Dict[str, object]:
        return {"path": self.path, "size": self.size, "modified": self.modified, "error": self.error,
                "start_offset": self.start_offset, "result": self.result.to_dict() if self.result else None}


class LogFilesScan(Struct, frozen=True):
    roots: Tuple[str, ...]  # folders looked at
    existing_roots: Tuple[str, ...]  # of those, the ones that exist
    denied: Tuple[str, ...]  # folders that could not be listed (permission)
    candidates: int  # log files found
    files: Tuple[LogFileScan, ...]  # scanned, newest first
    bytes_scanned: int
    limits_hit: Tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> Dict[str, object]:
        return {"roots": list(self.roots), "existing_roots": list(self.existing_roots),
                "denied": list(self.denied), "candidates": self.candidates,
                "bytes_scanned": self.bytes_scanned, "limits_hit": list(self.limits_hit),
                "files": [f.to_dict() for f in self.files]}


def format_mtime(mtime: float) -> str:
    try:
        return _dt.datetime.fromtimestamp(mtime, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return "unknown time"
