"""The snapshot being written: files/, commands/ and the notes of what was left out.

Everything a capture records goes through :class:`SnapshotTree`, which reads the machine only
through a :class:`~ascend_doctor.host.base.Host` (so devices and FIFOs are never opened, and a
rooted fake machine is captured exactly like a real one) and writes only inside its own folder:

* a path is walked component by component and every symlink met on the way is recorded as a
  symlink (absolute targets mean paths of the captured machine, as ``SnapshotHost`` reads them);
* content is copied only from declared files whose real path stays in the machine's declared
  areas (capture/declared.py ``content_allowed``), so a link cannot smuggle ``/root/.ssh`` into a
  snapshot; anything else is recorded as an empty file of the same name ("it exists");
* sizes, counts and link chains are bounded, and every cut is a note in snapshot.json.
"""

from __future__ import annotations

import os
import stat as statmod
from typing import Callable, Dict, List, Optional, Tuple

from ascend_doctor.host.base import (
    CommandResult,
    CommandStatus,
    FilePermissionDenied,
    FileStat,
    FileTooLarge,
    HostFileError,
    command_file_name,
)

MAX_FILE_BYTES = 1024 * 1024  # one copied file
MAX_TOTAL_BYTES = 64 * 1024 * 1024  # all copied files and log tails together
MAX_LINKS = 40  # symlinks followed while walking one path (the kernel's own limit)
MAX_ENTRIES = 20000  # files, folders and links recorded in all


class SnapshotTree:
    """Writes one snapshot folder from reads made through ``host``."""

    def __init__(self, tree: str, host: object, content_allowed: Callable[[str, str], bool]) -> None:
        self.tree = tree
        self.files_dir = os.path.join(tree, "files")
        self.host = host
        self.content_allowed = content_allowed
        self.notes: List[str] = []
        self.copied_bytes = 0
        self.entries = 0
        self.files = 0
        self.commands: Dict[Tuple[str, ...], CommandResult] = {}
        self.unreadable: Dict[str, Dict[str, str]] = {}  # real path -> kind, message (snapshot.json)
        self._done: Dict[Tuple[str, str], bool] = {}
        os.makedirs(self.files_dir, exist_ok=True)

    # -- notes --------------------------------------------------------------------------
    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    # -- commands -----------------------------------------------------------------------
    def command(self, result: CommandResult) -> None:
        """Store one result as commands/<name>.out/.err/.rc/.timeout (docs/snapshot-format.md)."""
        if result.argv in self.commands:
            return
        self.commands[result.argv] = result
        if result.status is CommandStatus.TIMEOUT:
            self.note(f"`{result.command_line}` hung and was killed after {result.timeout_s or 0:g} s")
        for piece in (result.detail or "").split("; "):
            if "truncated at" in piece:  # the host kept only the first bytes: the snapshot says so
                self.note(f"`{result.command_line}`: {piece}")
        write_command(self.tree, result)

    # -- paths --------------------------------------------------------------------------
    def copy(self, path: str) -> None:
        """Record ``path`` with its content (bounded; only where content may be copied)."""
        self._record(path, "copy")

    def present(self, path: str) -> None:
        """Record that ``path`` exists, and its kind, without its content."""
        self._record(path, "present")

    def listing(self, path: str) -> None:
        """Record the entries of the folder ``path`` (folders, links, and empty files for the rest)."""
        self._record(path, "list")

    def write_file(self, host_path: str, data: bytes, mtime: Optional[float] = None) -> bool:
        """Put ``data`` at ``host_path`` (a log tail read by the caller); False when refused."""
        if self.copied_bytes + len(data) > MAX_TOTAL_BYTES:
            self.note("capture size limit reached: some files were not copied")
            return False
        staged = self._staged(host_path)
        if staged is None or os.path.lexists(staged):
            return False
        with open(staged, "xb") as fh:
            fh.write(data)
        self.copied_bytes += len(data)
        self.files += 1
        self.entries += 1
        if mtime is not None:
            os.utime(staged, (mtime, mtime))
        return True

    def _record(self, path: str, mode: str) -> None:
        key = (path, mode)
        if key in self._done or not path.startswith("/"):
            return
        self._done[key] = True
        if self.entries >= MAX_ENTRIES:
            self.note(f"more than {MAX_ENTRIES} paths: the rest was not recorded")
            return
        walked = self._walk(path)
        if walked is None:
            return
        real, st = walked
        if st.is_dir:
            self._mkdirs(real)
            if mode == "list":
                self._list(real)
            return
        if mode == "copy" and st.is_file:
            self._copy(path, real)
            return
        self._placeholder(real)

    def _walk(self, path: str) -> Optional[Tuple[str, FileStat]]:
        """Follow ``path`` like the kernel, recording each symlink; (real path, its stat) or None."""
        pending = [p for p in path.split("/") if p not in ("", ".")]
        current: List[str] = []
        links = 0
        st: Optional[FileStat] = None
        while pending:
            name = pending.pop(0)
            if name == "..":
                if current:
                    current.pop()
                st = None
                continue
            here = "/" + "/".join([*current, name])
            st = self.host.stat(here)  # type: ignore[attr-defined]
            if st is None:
                return None
            if st.is_symlink:
                links += 1
                if links > MAX_LINKS:
                    self.note(f"{path}: symlink loop, not recorded")
                    return None
                target = self.host.readlink(here)  # type: ignore[attr-defined]
                if target is None:
                    return None
                self._symlink(here, target)
                if target.startswith("/"):
                    current = []
                pending = [p for p in target.split("/") if p not in ("", ".")] + pending
                st = None
                continue
            current.append(name)
        real = "/" + "/".join(current)
        if st is None:
            st = self.host.stat(real)  # type: ignore[attr-defined]
            if st is None or st.is_symlink:
                return None
        return real, st

    def _list(self, real: str) -> None:
        try:
            names = self.host.listdir(real)  # type: ignore[attr-defined]
        except HostFileError as exc:
            self.note(f"{real}: {exc.message}, not listed")
            return
        for name in names:
            child = real.rstrip("/") + "/" + name
            st = self.host.stat(child)  # type: ignore[attr-defined]
            if st is None:
                continue
            if st.is_symlink:
                # The link, and what it leads to (the doctor asks is_dir/exists through it).
                self.present(child)
            elif st.is_dir:
                self._mkdirs(child)
            else:
                self._placeholder(child)

    def _copy(self, path: str, real: str) -> None:
        if not self.content_allowed(path, real):
            # No empty stand-in either: an empty file would read as a real, broken one.
            self.note(f"{path} resolves to {real}, outside the declared reads: not copied")
            return
        try:
            data = self.host.read_bytes(real, max_bytes=MAX_FILE_BYTES)  # type: ignore[attr-defined]
        except HostFileError as exc:
            self.note(f"{real}: {exc.message}: not copied")
            kind = "too_large" if isinstance(exc, FileTooLarge) else \
                "denied" if isinstance(exc, FilePermissionDenied) else None
            if kind is not None:  # it exists and cannot be read: the replay says exactly that
                self.unreadable[real] = {"kind": kind, "message": exc.message}
                self._placeholder(real)
            return
        if not self.write_file(real, data):
            return

    # Writing inside files/: never through a symlink already recorded (an absolute one points at
    # this machine's real files).
    def _staged(self, host_path: str) -> Optional[str]:
        parts = [p for p in host_path.split("/") if p]
        current = self.files_dir
        for piece in parts[:-1]:
            current = os.path.join(current, piece)
            try:
                mode = os.lstat(current).st_mode
            except FileNotFoundError:
                os.mkdir(current, 0o755)
                continue
            if not statmod.S_ISDIR(mode):
                return None
        return os.path.join(current, parts[-1]) if parts else None

    def _mkdirs(self, host_path: str) -> None:
        path = self._staged(host_path)
        if path is not None and not os.path.lexists(path):
            os.mkdir(path, 0o755)
            self.entries += 1

    def _placeholder(self, host_path: str) -> None:
        path = self._staged(host_path)
        if path is not None and not os.path.lexists(path):
            with open(path, "xb"):
                pass
            self.entries += 1

    def _symlink(self, host_path: str, target: str) -> None:
        path = self._staged(host_path)
        if path is not None and not os.path.lexists(path):
            os.symlink(target, path)
            self.entries += 1


def write_command(tree: str, result: CommandResult) -> None:
    """Store one result as commands/<name>.out/.err/.rc/.timeout (see the format doc)."""
    if result.status is CommandStatus.NOT_FOUND and result.returncode is None:
        return  # no .out file = not installed
    folder = os.path.join(tree, "commands")
    os.makedirs(folder, exist_ok=True)
    stem = os.path.join(folder, command_file_name(result.argv))
    stderr = result.stderr
    returncode = result.returncode
    if returncode is None and result.status in (CommandStatus.PERMISSION_DENIED, CommandStatus.ERROR):
        # Could not even start: record it the way a shell reports it.
        stderr = stderr or f"{result.argv[0]}: {result.detail or 'Permission denied'}"
        returncode = 126
    _write_text(stem + ".out", result.stdout)
    if stderr:
        _write_text(stem + ".err", stderr)
    if returncode:
        _write_text(stem + ".rc", f"{returncode}\n")
    if result.status is CommandStatus.TIMEOUT:
        _write_text(stem + ".timeout", f"{result.timeout_s or 0:g}\n")


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", errors="replace") as fh:
        fh.write(text)
