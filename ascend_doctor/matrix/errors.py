"""Problems found in a matrix file, reported as ``file:line key.path: message``."""

from __future__ import annotations

from typing import List, Sequence

from msgspec import Struct


class Location(Struct, frozen=True):
    """Where a value was read: file name and 1-based line."""

    file: str = ""
    line: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


class Problem(Struct, frozen=True):
    file: str
    line: int
    path: str  # key path such as ``torch_npu[3].cann``; empty for file-level problems
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where} {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class MatrixError(Exception):
    """The matrix could not be loaded, or failed validation; ``problems`` lists every defect."""

    def __init__(self, problems: Sequence[Problem], summary: str = "") -> None:
        self.problems: List[Problem] = list(problems)
        self.summary = summary
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.summary:
            return self.summary
        if not self.problems:
            return "invalid compatibility matrix"
        first = str(self.problems[0])
        more = len(self.problems) - 1
        return first if not more else f"{first} (and {more} more problem{'s' if more > 1 else ''})"
