"""Remove a temporary folder without recursion and without ever raising.

``shutil.rmtree`` recurses once per folder level: a 1,500-level folder from a hostile snapshot
archive raised RecursionError while cleaning up, which lost the report and left the folder in
the system temp directory. :func:`remove_tree` walks with an explicit stack and file
descriptors relative to the folder it is in (so depth is limited neither by the recursion limit
nor by PATH_MAX, and at most two descriptors are open), never follows a symlink, and reports
failure by returning False: a cleanup must not sink the run it follows.
"""

from __future__ import annotations

import contextlib
import os
import stat as statmod
from typing import List, Optional, Tuple

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def remove_tree(path: str) -> bool:
    """Delete ``path`` and everything under it. True when it is gone (or was never there)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not statmod.S_ISDIR(st.st_mode):
        return _unlink(path, None)
    try:
        fd = _open_dir(path, None)
    except OSError:
        return False
    ok = True
    # One entry per level below ``path``: (name in its parent, sub-folders still to remove).
    stack: List[Tuple[str, List[str]]] = []
    pending, ok = _clear_files(fd, ok)
    try:
        while True:
            if pending:
                name = pending.pop()
                try:
                    child = _open_dir(name, fd)
                except OSError:
                    ok = False
                    continue
                os.close(fd)
                fd = child
                stack.append((name, pending))
                pending, ok = _clear_files(fd, ok)
                continue
            if not stack:
                break
            name, pending = stack.pop()
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            if not _rmdir(name, fd):
                _make_writable(fd)
                ok = _rmdir(name, fd) and ok
    except OSError:
        ok = False
    finally:
        os.close(fd)
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        ok = False
    return ok and not os.path.lexists(path)


def _open_dir(name: str, dir_fd: Optional[int]) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:  # a folder made unreadable (an archive's 0o000 folder): let us in
        os.chmod(name, 0o700, dir_fd=dir_fd)
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def _clear_files(fd: int, ok: bool) -> Tuple[List[str], bool]:
    """Unlink every non-folder entry of the open folder ``fd``; return its sub-folders."""
    try:
        with os.scandir(fd) as entries:
            found = list(entries)
    except OSError:
        return [], False
    folders: List[str] = []
    writable_tried = False
    for entry in found:
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if is_dir:
            folders.append(entry.name)
            continue
        if _unlink(entry.name, fd):
            continue
        if not writable_tried:  # a read-only folder: make it writable once and retry
            writable_tried = True
            _make_writable(fd)
            if _unlink(entry.name, fd):
                continue
        ok = False
    return folders, ok


def _make_writable(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.fchmod(fd, 0o700)


def _rmdir(name: str, dir_fd: int) -> bool:
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _unlink(name: str, dir_fd: Optional[int]) -> bool:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True
