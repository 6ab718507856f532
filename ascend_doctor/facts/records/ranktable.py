"""The records of the ``ranktable`` facts, apart from their providers (ascend_doctor/facts/ranktable.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional

from msgspec import Struct

if TYPE_CHECKING:
    from ascend_doctor.parsers.rank_table import RankTable


class RankTableFacts(Struct, frozen=True):
    """The rank table and where it came from. ``table`` is None when ``error`` says why it could
    not be read or parsed; ``mode`` is the file's permission bits, None where not known
    (``mode_note`` says why)."""

    path: str
    source: str  # "--rank-table" or the environment variable that named it
    read_from: str  # READ_HERE / READ_SNAPSHOT
    table: Optional[RankTable] = None
    error: Optional[str] = None
    mode: Optional[int] = None
    mode_note: Optional[str] = None
    sha256: Optional[str] = None

    def to_dict(self) -> Dict[str, object]:
        return {"path": self.path, "source": self.source, "read_from": self.read_from,
                "table": self.table.to_dict() if self.table else None, "error": self.error,
                "mode": None if self.mode is None else f"{self.mode:04o}", "mode_note": self.mode_note,
                "sha256": self.sha256}
