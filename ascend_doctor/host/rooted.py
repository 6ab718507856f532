"""A live machine whose files are read from a tree mounted elsewhere (``RootedHost``).

Commands, the environment and the other host sources are this machine's (the wrapped LiveHost);
every path is resolved inside ``fs_root`` the way the kernel would resolve it under ``chroot``:
an absolute symlink target means a path of that tree, and ``..`` never climbs out of it. Used to
capture or check a machine tree that is not ``/`` (a copied root file system, a container's
``rootfs``), and by the tests, which build a fake machine under a temporary folder and prove that
``check`` on it and ``check --from`` its snapshot agree.
"""

from __future__ import annotations

import os
import stat as statmod
from typing import Any, BinaryIO, List, Optional

from ascend_doctor.host.base import (
    DEFAULT_MAX_READ_BYTES,
    FileMissing,
    FilePermissionDenied,
    FileStat,
    FileTooLarge,
    PathRefused,
)
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.snapshot import _Jail, _Loop, _Missing, _Resolved


class RootedHost:
    """``inner``'s commands and host sources; its files under ``fs_root``."""

    def __init__(self, inner: LiveHost, fs_root: str) -> None:
        self._inner = inner
        self.fs_root = os.path.abspath(fs_root)
        self._jail = _Jail(self.fs_root, reroot_absolute=True, label="root")

    def __getattr__(self, name: str) -> Any:  # commands, env, python, memory, processes...
        return getattr(self._inner, name)

    def _resolve(self, path: str, follow_last: bool = True) -> Optional[_Resolved]:
        try:
            return self._jail.resolve(path, follow_last)
        except (_Missing, _Loop):
            return None
        except PathRefused:  # ".." past the root: like the kernel at "/", nothing above exists
            return None

    # -- reading ------------------------------------------------------------------------
    def _open(self, path: str, max_bytes: Optional[int]) -> BinaryIO:
        resolved = self._resolve(path)
        if resolved is None:
            raise FileMissing(path, "no such file")
        mode = resolved.lstat.st_mode
        if statmod.S_ISDIR(mode):
            raise FileMissing(path, "is a directory, not a file")
        if not statmod.S_ISREG(mode):
            raise FileMissing(path, "not a regular file")  # devices and FIFOs are never read
        if max_bytes is not None and resolved.lstat.st_size > max_bytes:
            raise FileTooLarge(path, f"{resolved.lstat.st_size} bytes, more than the {max_bytes} allowed")
        try:
            fd = os.open(resolved.disk, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
        except PermissionError:
            raise FilePermissionDenied(path, "permission denied") from None
        except OSError as exc:
            raise FileMissing(path, exc.strerror or str(exc)) from None
        return os.fdopen(fd, "rb")

    def read_bytes(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> bytes:
        with self._open(path, max_bytes) as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise FileTooLarge(path, f"larger than {max_bytes} bytes")
        return data

    def read_text(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> str:
        return self.read_bytes(path, max_bytes).decode("utf-8", errors="replace")

    def open_binary(self, path: str) -> BinaryIO:
        return self._open(path, None)

    # -- existence ----------------------------------------------------------------------
    def exists(self, path: str) -> bool:
        return self._resolve(path) is not None

    def is_dir(self, path: str) -> bool:
        resolved = self._resolve(path)
        return resolved is not None and statmod.S_ISDIR(resolved.lstat.st_mode)

    def stat(self, path: str) -> Optional[FileStat]:
        own = self._resolve(path, follow_last=False)
        if own is None:
            return None
        st = own.lstat
        target = self._resolve(path) if statmod.S_ISLNK(st.st_mode) else own
        kind = target.lstat.st_mode if target is not None else st.st_mode
        return FileStat(path=path, size=st.st_size, is_dir=statmod.S_ISDIR(kind), is_file=statmod.S_ISREG(kind),
                        is_symlink=statmod.S_ISLNK(st.st_mode), mtime=st.st_mtime, mode=st.st_mode, uid=st.st_uid)

    def listdir(self, path: str) -> List[str]:
        resolved = self._resolve(path)
        if resolved is None or not statmod.S_ISDIR(resolved.lstat.st_mode):
            return []
        try:
            return sorted(os.listdir(resolved.disk))
        except PermissionError:
            raise FilePermissionDenied(path, "permission denied") from None
        except OSError:
            return []

    def readlink(self, path: str) -> Optional[str]:
        own = self._resolve(path, follow_last=False)
        if own is None or not statmod.S_ISLNK(own.lstat.st_mode):
            return None
        try:
            return os.readlink(own.disk)
        except OSError:
            return None

    def realpath(self, path: str) -> str:
        try:
            return "/" + "/".join(self._jail.lenient_parts(path))
        except PathRefused:
            return "/"
