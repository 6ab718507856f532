"""A host that records into the snapshot everything asked of it (``CapturingHost``).

The capture reads the machine's variables (install roots, log folders, the target Python...) and
runs the adaptive providers (ascend_doctor/facts/reads.py) through it, so what they read on this
machine lands in the snapshot as they read it: a command's result, a file's content, a path's
existence, a folder's entries, a disk's usage.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Dict, List, Mapping, Optional, Sequence

from ascend_doctor.capture.tree import SnapshotTree
from ascend_doctor.host.base import DEFAULT_MAX_READ_BYTES, CommandResult, DiskUsage, FileStat


class CapturingHost:
    """Delegates to ``inner`` and records each read into ``tree``."""

    def __init__(self, inner: Any, tree: SnapshotTree) -> None:
        self._inner = inner
        self._tree = tree
        self.disks: Dict[str, Optional[DiskUsage]] = {}

    def __getattr__(self, name: str) -> Any:  # info, env, python_env, memory, processes...: host.json
        return getattr(self._inner, name)

    # -- commands ---------------------------------------------------------------------
    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        result: CommandResult = self._inner.run(argv, timeout)
        self._tree.command(result)
        return result

    def run_many(self, commands: Sequence[Sequence[str]], timeout: Optional[float] = None) -> List[CommandResult]:
        results: List[CommandResult] = self._inner.run_many(commands, timeout)
        for result in results:
            self._tree.command(result)
        return results

    # -- files --------------------------------------------------------------------------
    def read_bytes(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> bytes:
        self._tree.copy(path)
        data: bytes = self._inner.read_bytes(path, max_bytes)
        return data

    def read_text(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> str:
        self._tree.copy(path)
        text: str = self._inner.read_text(path, max_bytes)
        return text

    def open_binary(self, path: str) -> BinaryIO:
        self._tree.copy(path)
        stream: BinaryIO = self._inner.open_binary(path)
        return stream

    def exists(self, path: str) -> bool:
        self._tree.present(path)
        return bool(self._inner.exists(path))

    def is_dir(self, path: str) -> bool:
        self._tree.present(path)
        return bool(self._inner.is_dir(path))

    def stat(self, path: str) -> Optional[FileStat]:
        self._tree.present(path)
        st: Optional[FileStat] = self._inner.stat(path)
        return st

    def readlink(self, path: str) -> Optional[str]:
        self._tree.present(path)
        target: Optional[str] = self._inner.readlink(path)
        return target

    def realpath(self, path: str) -> str:
        self._tree.present(path)
        real: str = self._inner.realpath(path)
        return real

    def listdir(self, path: str) -> List[str]:
        self._tree.listing(path)
        names: List[str] = self._inner.listdir(path)
        return names

    # -- host sources that depend on the question -----------------------------------------
    def disk_usage(self, path: str) -> Optional[DiskUsage]:
        usage: Optional[DiskUsage] = self._inner.disk_usage(path)
        self.disks[path] = usage
        return usage

    def env(self) -> Mapping[str, str]:
        env: Mapping[str, str] = self._inner.env()
        return env
