"""``SnapshotHost``: a captured machine (directory or ``.tar.gz``), read as if it were live.

The layout is public and documented in docs/snapshot-format.md. A snapshot usually comes from
someone else's machine, so it is *untrusted input*:

* Archives are unpacked by hand (not ``extractall``) into a private temporary directory; every
  member is checked first (absolute names, ``..``, links leading out, device files, sizes and
  counts), and no member is ever written through a symlink.
* Paths under ``files/`` are resolved component by component by our own code, never by the
  OS: an absolute symlink target is re-rooted under ``files/`` (it meant a path of the captured
  machine), a relative one is resolved from its folder, and anything that would climb out of
  the snapshot is refused with ``PathRefused``. Symlink loops end after 40 links.
* Nothing is ever executed: ``run`` answers from ``commands/``.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import posixpath
import shutil
import stat as statmod
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ascend_doctor import boundedjson
from ascend_doctor.host.base import (
    DEFAULT_MAX_READ_BYTES,
    CommandResult,
    CommandStatus,
    DiskUsage,
    FileMissing,
    FilePermissionDenied,
    FileStat,
    FileTooLarge,
    HostInfo,
    ListeningSocket,
    MemoryInfo,
    PathRefused,
    ProcessInfo,
    PythonEnv,
    SnapshotError,
    command_file_name,
)
from ascend_doctor.host.live import MAX_OUTPUT_BYTES, classify_exit
from ascend_doctor.host.model_record import MODEL_FILES, MODEL_LISTING, RecordedModels
from ascend_doctor.host.pyprobe import python_env_from_dict
from ascend_doctor.tempdirs import remove_tree

SNAPSHOT_FORMAT = 1
META_FILES = ("snapshot.json", "env.json", "python.json", "host.json")
MARKERS = (*META_FILES, "commands", "files")
MAX_SYMLINKS = 40  # as the Linux kernel: more than this in one lookup is a loop
MAX_JSON_BYTES = 16 * 1024 * 1024

# Limits for unpacking an archive (a snapshot is a few MB; these leave plenty of room).
MAX_MEMBERS = 10_000  # a real capture holds a few hundred entries (the fixtures at most 83)
MAX_MEMBER_BYTES = 128 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_MEMBER_DEPTH = 64  # folders in a member name; a real snapshot goes about 16 deep
# Extension headers (GNU long names, pax records) are read whole by tarfile: bound them first.
MAX_EXTENSION_BYTES = 64 * 1024  # one header: a path is at most 4 KiB on Linux
MAX_CHAINED_EXTENSIONS = 8  # in a row before a member (tarfile recurses once per header)
MAX_EXTENSION_TOTAL = 16 * 1024 * 1024  # in the whole archive
# Strings of snapshot.json shown in the report header (hostname, kernel, ...).
MAX_META_TEXT = 256
# Patterns and commands of snapshot.json "captured" that are read (a real capture has a few hundred).
MAX_CAPTURED_ITEMS = 20000


class _Missing(Exception):
    """Internal: the path does not exist in the snapshot."""


class _Loop(Exception):
    """Internal: too many symlinks."""


@dataclass(frozen=True)
class _Resolved:
    parts: Tuple[str, ...]  # components under the jail
    disk: str  # where it is on our disk
    lstat: os.stat_result


def _split(path: str) -> List[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


class _Jail:
    """Resolves paths inside one directory of the snapshot without letting the OS follow links."""

    def __init__(self, root: str, reroot_absolute: bool, label: str) -> None:
        self.root = root
        self.reroot_absolute = reroot_absolute  # files/: "/x" means files/x; elsewhere refused
        self.label = label

    def resolve(self, path: str, follow_last: bool = True) -> _Resolved:
        """Resolve ``path``; raises PathRefused, _Missing or _Loop."""
        parts, st = self._walk(path, follow_last, strict=True)
        assert st is not None
        return _Resolved(tuple(parts), os.path.join(self.root, *parts), st)

    def lenient_parts(self, path: str) -> List[str]:
        """Like ``os.path.realpath``: resolve what exists, keep a missing tail (or a loop) as
        written. Still raises PathRefused for a path leading out."""
        return self._walk(path, True, strict=False)[0]

    def _walk(self, path: str, follow_last: bool, strict: bool) -> Tuple[List[str], Optional[os.stat_result]]:
        if "\x00" in path:
            raise PathRefused(path, "NUL byte in path")
        pending = _split(path)
        current: List[str] = []
        links = 0
        lexical = False  # set once (non-strict) we hit a missing part: the rest is text only
        st: Optional[os.stat_result] = None
        while pending:
            name = pending.pop(0)
            if name == "..":
                if not current:
                    raise PathRefused(path, f"leads outside the snapshot's {self.label}")
                current.pop()
                st = None
                continue
            candidate = [*current, name]
            if lexical:
                current = candidate
                continue
            disk = os.path.join(self.root, *candidate)
            try:
                st = os.lstat(disk)
            except PermissionError:
                raise FilePermissionDenied(path, "permission denied inside the snapshot") from None
            except OSError:  # missing, or a name no file can have (longer than NAME_MAX, ...)
                if strict:
                    raise _Missing(path) from None
                lexical, current = True, candidate
                continue
            if statmod.S_ISLNK(st.st_mode) and (pending or follow_last):
                links += 1
                if links > MAX_SYMLINKS:
                    if strict:
                        raise _Loop(path)
                    lexical, current = True, candidate
                    continue
                target = os.readlink(disk)
                if target.startswith("/"):
                    if not self.reroot_absolute:
                        raise PathRefused(path, f"symlink to absolute path {target!r} is not allowed here")
                    current = []
                pending = _split(target) + pending
                st = None
                continue
            if pending and not statmod.S_ISDIR(st.st_mode):
                if strict:
                    raise _Missing(path)
                lexical = True
            current = candidate
        if strict and st is None:  # ended on the jail root, or right after ".." / a symlink
            try:
                st = os.lstat(os.path.join(self.root, *current))
            except OSError:
                raise _Missing(path) from None
        return current, st


class SnapshotHost:
    """A machine snapshot: see docs/snapshot-format.md."""

    def __init__(self, path: str) -> None:
        self.origin = path
        self._tmpdir: Optional[str] = None
        self._cleanup: Optional[Callable[[], None]] = None
        if os.path.isdir(path):
            base = path
        elif os.path.isfile(path):
            base = self._unpack(path)
        elif os.path.exists(path):
            raise SnapshotError("not a snapshot directory or .tar.gz archive")
        else:
            raise SnapshotError("no such file or directory (expected a snapshot directory or .tar.gz file)")
        try:
            self.root = _snapshot_root(base)
            self._top = _Jail(self.root, reroot_absolute=False, label="root")
            files_dir = os.path.join(self.root, "files")
            if os.path.islink(files_dir):
                raise SnapshotError("files/ is a symlink; refused")
            self._files = _Jail(files_dir, reroot_absolute=True, label="files/")
            self._meta = self._load_json("snapshot.json") or {}
            fmt = self._meta.get("format", SNAPSHOT_FORMAT)
            if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
                raise SnapshotError(f"snapshot.json: \"format\" must be a positive integer, got {_shown(fmt)}")
            if fmt > SNAPSHOT_FORMAT:
                raise SnapshotError(
                    f"{path}: snapshot format {fmt} is newer than this ascend-doctor understands "
                    f"(format {SNAPSHOT_FORMAT}); upgrade ascend-doctor")
            self._env = _string_map(self._load_json("env.json"), "env.json")
            self._python = self._load_json("python.json")
            self._host = self._load_json("host.json")
            self._models = self._load_models()
        except BaseException:
            self.close()
            raise

    # -- lifecycle ----------------------------------------------------------------------
    def close(self) -> None:
        """Delete the unpacked copy of an archive (also done at exit)."""
        cleanup, self._cleanup = self._cleanup, None
        if cleanup is not None:
            cleanup()
            atexit.unregister(cleanup)

    def __enter__(self) -> SnapshotHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _unpack(self, archive: str) -> str:
        tmp = tempfile.mkdtemp(prefix="ascend-doctor-snapshot-")

        def cleanup() -> None:
            remove_tree(tmp)  # no recursion: a hostile archive may nest folders deeply

        self._tmpdir = tmp
        self._cleanup = cleanup
        atexit.register(cleanup)
        try:
            safe_extract(archive, tmp)
        except BaseException:
            self.close()
            raise
        return tmp

    # -- metadata -----------------------------------------------------------------------
    def _load_json(self, name: str) -> Optional[Dict[str, Any]]:
        try:
            resolved = self._top.resolve(name)
        except _Missing:
            return None
        except (PathRefused, _Loop, FilePermissionDenied) as exc:
            raise SnapshotError(f"{name}: {_why(exc)}") from None
        if not statmod.S_ISREG(resolved.lstat.st_mode):
            raise SnapshotError(f"{name} is not a regular file")
        if resolved.lstat.st_size > MAX_JSON_BYTES:
            raise SnapshotError(f"{name} is larger than {MAX_JSON_BYTES} bytes")
        try:
            with _open_nofollow(resolved.disk) as fh:
                data = boundedjson.loads(fh.read(MAX_JSON_BYTES).decode("utf-8"), what="the JSON",
                                         max_chars=MAX_JSON_BYTES)
        except boundedjson.TooComplex as exc:
            raise SnapshotError(f"{name}: {exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise SnapshotError(f"{name} is not valid JSON ({_one_line(exc)})") from None
        except OSError as exc:
            raise SnapshotError(f"cannot read {name}: {exc.strerror or exc}") from None
        if not isinstance(data, dict):
            raise SnapshotError(f"{name} must hold a JSON object, not {type(data).__name__}")
        return data

    # -- recorded models (`snapshot --model DIR`, see ascend_doctor/host/model_record.py) -------------
    def _load_models(self) -> Optional[RecordedModels]:
        listing = self._load_json(MODEL_LISTING)
        return RecordedModels(listing, self._stored_model_file) if listing is not None else None

    def _stored_model_file(self, host_path: str) -> Optional[bytes]:
        try:
            resolved = self._top.resolve(f"{MODEL_FILES}/{host_path.lstrip('/')}")
        except (_Missing, _Loop, PathRefused, FilePermissionDenied):
            return None
        if not statmod.S_ISREG(resolved.lstat.st_mode):
            return None
        with _open_nofollow(resolved.disk) as fh:
            return fh.read(MAX_MEMBER_BYTES)

    def _model(self, path: str) -> Optional[RecordedModels]:
        """The model record when ``path`` lies in a model folder recorded with ``--model``."""
        models = self._models
        return models if models is not None and models.covers(path) else None

    def recorded_model(self, path: str) -> bool:
        """True when ``path`` is a model folder recorded by ``snapshot --model`` (sizes and headers only)."""
        return self._models is not None and self._models.is_recorded_model(path)

    def info(self) -> HostInfo:
        meta = self._meta

        def text(key: str) -> Optional[str]:
            # Shown in the report header: a string, one line, bounded (snapshot.json is untrusted).
            return _meta_text(meta.get(key))

        # A snapshot written from pasted text (`check --from-text`) says so: checks then report a
        # missing input as "not in the pasted text" (ascend_doctor.facts.origin).
        source = "pasted-text" if meta.get("origin_kind") == "pasted-text" else "snapshot"
        return HostInfo(
            source=source,
            hostname=text("hostname"),
            arch=text("arch"),
            kernel=text("kernel"),
            os=text("os"),
            origin=self.origin,
            captured_at=text("captured_at"),
            tool_version=text("tool_version"),
        )

    @property
    def metadata(self) -> Mapping[str, Any]:
        """snapshot.json as recorded (extra keys such as ``capture_notes`` included)."""
        return dict(self._meta)

    # -- what the capture looked for ------------------------------------------------------
    def _captured_record(self) -> Dict[str, Any]:
        """snapshot.json ``captured``: the declared reads as the capture expanded them on the machine
        (untrusted: only bounded lists of strings are kept). Empty for hand-built and older snapshots."""
        record = self._meta.get("captured")
        if not isinstance(record, dict):
            return {}
        out: Dict[str, Any] = {}
        for kind in ("files", "present", "listings", "tails"):
            items = record.get(kind)
            if isinstance(items, list):
                out[kind] = [p for p in items[:MAX_CAPTURED_ITEMS] if isinstance(p, str) and p.startswith("/")]
        disks = record.get("disks")
        if isinstance(disks, list):
            out["disks"] = {p for p in disks[:MAX_CAPTURED_ITEMS] if isinstance(p, str)}
        commands = record.get("commands")
        if isinstance(commands, list):
            out["commands"] = {tuple(c) for c in commands[:MAX_CAPTURED_ITEMS]
                               if isinstance(c, list) and c and all(isinstance(a, str) for a in c)}
        return out

    def captured(self, path: str) -> bool:
        """Whether the capture looked for ``path`` (so its absence here is a fact of the machine)."""
        from ascend_doctor.pathpatterns import path_matches

        record = self._captured_record()
        parent = posixpath.dirname(path.rstrip("/")) or "/"
        return any(path_matches(path, p) for kind in ("files", "present", "listings", "tails")
                   for p in record.get(kind, ())) or \
            any(path_matches(parent, p) for kind in ("listings", "tails") for p in record.get(kind, ()))

    def _unreadable(self) -> Dict[str, Tuple[str, str]]:
        """snapshot.json ``unreadable``: files the capture saw but could not read (real path ->
        (kind, message)); an empty stand-in of each is in files/, so it exists as on the machine."""
        record = self._meta.get("unreadable")
        out: Dict[str, Tuple[str, str]] = {}
        if isinstance(record, dict):
            for path, value in list(record.items())[:MAX_CAPTURED_ITEMS]:
                if isinstance(path, str) and isinstance(value, dict):
                    kind, message = value.get("kind"), value.get("message")
                    if kind in ("too_large", "denied") and isinstance(message, str):
                        out[path] = (kind, message[:MAX_META_TEXT])
        return out

    def captured_disk(self, path: str) -> bool:
        """Whether the capture asked the disk usage of ``path`` (host.json holds what it answered)."""
        return path in self._captured_record().get("disks", set())

    def captured_command(self, argv: Sequence[str]) -> bool:
        """Whether the capture ran ``argv`` (so a missing output means "not installed" there)."""
        return tuple(str(a) for a in argv) in self._captured_record().get("commands", set())

    # -- commands -----------------------------------------------------------------------
    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        args = tuple(str(a) for a in argv)
        stem = "commands/" + command_file_name(args)
        try:
            out = self._command_file(stem + ".out")
            err = self._command_file(stem + ".err")
            rc_text = self._command_file(stem + ".rc")
            hung = self._command_file(stem + ".timeout")
        except (PathRefused, _Loop, FilePermissionDenied) as exc:
            return CommandResult(args, CommandStatus.ERROR, detail=f"snapshot refused: {_why(exc)}")
        except OSError as exc:
            return CommandResult(args, CommandStatus.ERROR,
                                 detail=f"cannot read {stem}.* in the snapshot: {exc.strerror or exc}")
        stdout = out or ""
        stderr = err or ""
        if hung is not None:
            waited = _parse_float(hung)
            if waited is None:
                waited = timeout if timeout is not None else 0.0
            return CommandResult(args, CommandStatus.TIMEOUT, stdout=stdout, stderr=stderr,
                                 duration_s=waited, timeout_s=waited,
                                 detail=f"hung when the snapshot was captured (killed after {waited:g} s)")
        if out is None:
            return CommandResult(args, CommandStatus.NOT_FOUND,
                                 detail=f"not installed on the captured machine (no {stem}.out)")
        returncode = 0
        if rc_text is not None:
            try:
                returncode = int(rc_text.strip())
            except ValueError:
                return CommandResult(args, CommandStatus.ERROR, stdout=stdout, stderr=stderr,
                                     detail=f"{stem}.rc does not hold an exit status: {rc_text.strip()[:40]!r}")
        status, why = classify_exit(returncode, stderr)
        return CommandResult(args, status, returncode=returncode, stdout=stdout, stderr=stderr,
                             detail=why)

    def _command_file(self, rel: str) -> Optional[str]:
        try:
            resolved = self._top.resolve(rel)
        except _Missing:
            return None
        if not statmod.S_ISREG(resolved.lstat.st_mode):
            return None
        with _open_nofollow(resolved.disk) as fh:
            return fh.read(MAX_OUTPUT_BYTES).decode("utf-8", errors="replace")

    def run_many(self, commands: Sequence[Sequence[str]],
                 timeout: Optional[float] = None) -> List[CommandResult]:
        return [self.run(c, timeout) for c in commands]

    # -- files --------------------------------------------------------------------------
    def _resolve(self, path: str, follow_last: bool = True) -> Optional[_Resolved]:
        """None when missing; raises PathRefused / FileMissing (loop) / FilePermissionDenied."""
        try:
            return self._files.resolve(path, follow_last)
        except _Missing:
            return None
        except _Loop:
            raise FileMissing(path, "too many levels of symbolic links (symlink loop in the snapshot)") from None

    def _open_file(self, path: str, max_bytes: Optional[int]) -> BinaryIO:
        resolved = self._resolve(path)
        if resolved is None:
            raise FileMissing(path, "no such file in the snapshot")
        unreadable = self._unreadable().get("/" + "/".join(resolved.parts))
        if unreadable is not None:  # the machine refused it (too large, permission): so does the replay
            kind, message = unreadable
            raise (FileTooLarge if kind == "too_large" else FilePermissionDenied)(path, message)
        mode = resolved.lstat.st_mode
        if statmod.S_ISDIR(mode):
            raise FileMissing(path, "is a directory, not a file")
        if not statmod.S_ISREG(mode):
            raise FileMissing(path, "not a regular file")
        if max_bytes is not None and resolved.lstat.st_size > max_bytes:
            raise FileTooLarge(path, f"{resolved.lstat.st_size} bytes, more than the {max_bytes} allowed")
        try:
            return _open_nofollow(resolved.disk)
        except PermissionError:
            raise FilePermissionDenied(path, "permission denied") from None
        except OSError as exc:
            raise FileMissing(path, exc.strerror or str(exc)) from None

    def read_bytes(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> bytes:
        model = self._model(path)
        if model is not None:
            return model.read_bytes(path, max_bytes)
        with self._open_file(path, max_bytes) as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise FileTooLarge(path, f"larger than {max_bytes} bytes")
        return data

    def read_text(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> str:
        return self.read_bytes(path, max_bytes).decode("utf-8", errors="replace")

    def open_binary(self, path: str) -> BinaryIO:
        model = self._model(path)
        if model is not None:
            return model.open_binary(path)
        return self._open_file(path, None)

    def exists(self, path: str) -> bool:
        model = self._model(path)
        if model is not None:
            return model.exists(path)
        try:
            return self._resolve(path) is not None
        except FileMissing:  # a loop: does not exist, as os.path.exists says
            return False

    def is_dir(self, path: str) -> bool:
        model = self._model(path)
        if model is not None:
            return model.is_dir(path)
        try:
            resolved = self._resolve(path)
        except FileMissing:
            return False
        return resolved is not None and statmod.S_ISDIR(resolved.lstat.st_mode)

    def stat(self, path: str) -> Optional[FileStat]:
        model = self._model(path)
        if model is not None:
            return model.stat(path)
        try:
            resolved = self._resolve(path, follow_last=False)
        except FileMissing:
            return None
        if resolved is None:
            return None
        st = resolved.lstat
        is_link = statmod.S_ISLNK(st.st_mode)
        target_mode = st.st_mode
        if is_link:
            try:
                target = self._resolve(path)
            except (FileMissing, PathRefused):
                target = None
            if target is not None:
                target_mode = target.lstat.st_mode
        return FileStat(path=path, size=st.st_size, is_dir=statmod.S_ISDIR(target_mode),
                        is_file=statmod.S_ISREG(target_mode), is_symlink=is_link,
                        mtime=st.st_mtime, mode=st.st_mode)

    def listdir(self, path: str) -> List[str]:
        model = self._model(path)
        if model is not None:
            return model.listdir(path)
        try:
            resolved = self._resolve(path)
        except FileMissing:
            return []
        if resolved is None or not statmod.S_ISDIR(resolved.lstat.st_mode):
            return []
        try:
            return sorted(os.listdir(resolved.disk))
        except PermissionError:
            raise FilePermissionDenied(path, "permission denied") from None
        except OSError:
            return []

    def readlink(self, path: str) -> Optional[str]:
        model = self._model(path)
        if model is not None:
            return model.readlink(path)
        try:
            resolved = self._resolve(path, follow_last=False)
        except FileMissing:
            return None
        if resolved is None or not statmod.S_ISLNK(resolved.lstat.st_mode):
            return None
        return os.readlink(resolved.disk)

    def realpath(self, path: str) -> str:
        """Host-absolute path with symlinks resolved inside the snapshot.

        Like ``os.path.realpath``: a missing tail (or a loop) is kept as written. A path that
        leads outside the snapshot raises ``PathRefused``.
        """
        model = self._model(path)
        if model is not None:
            return model.realpath(path)
        return "/" + "/".join(self._files.lenient_parts(path))

    # -- system facts -------------------------------------------------------------------
    def env(self) -> Mapping[str, str]:
        return dict(self._env)

    def _host_section(self, key: str) -> Any:
        return (self._host or {}).get(key)

    def memory(self) -> Optional[MemoryInfo]:
        mem = self._host_section("memory")
        if not isinstance(mem, dict):
            return None
        total, available = _int(mem.get("total_bytes")), _int(mem.get("available_bytes"))
        if total is None or available is None:
            return None
        return MemoryInfo(total, available, _int(mem.get("swap_total_bytes")) or 0,
                          _int(mem.get("swap_free_bytes")) or 0)

    def cpu_count(self) -> Optional[int]:
        return _int(self._host_section("cpu_count"))

    def disk_usage(self, path: str) -> Optional[DiskUsage]:
        """The recorded disk whose path is the closest parent of ``path``."""
        disks = self._host_section("disks")
        if not isinstance(disks, list):
            return None
        want = posixpath.normpath("/" + path.lstrip("/"))
        best: Optional[DiskUsage] = None
        for entry in disks:
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                continue
            where = posixpath.normpath(entry["path"])
            total, free = _int(entry.get("total_bytes")), _int(entry.get("free_bytes"))
            if total is None or free is None:
                continue
            inside = want == where or want.startswith(where.rstrip("/") + "/")
            if inside and (best is None or len(where) > len(best.path)):
                best = DiskUsage(where, total, free)
        return best

    def processes(self) -> Optional[List[ProcessInfo]]:
        raw = self._host_section("processes")
        if not isinstance(raw, list):
            return None
        found: List[ProcessInfo] = []
        for entry in raw:
            if not isinstance(entry, dict):
                continue
            pid = _int(entry.get("pid"))
            if pid is None:
                continue
            cmdline = entry.get("cmdline") or []
            if isinstance(cmdline, str):
                cmdline = cmdline.split()
            found.append(ProcessInfo(pid, str(entry.get("name") or ""),
                                     tuple(str(a) for a in cmdline if a is not None)))
        return found

    def listening_sockets(self) -> Optional[List[ListeningSocket]]:
        raw = self._host_section("listening")
        if not isinstance(raw, list):
            return None
        found: List[ListeningSocket] = []
        for entry in raw:
            if not isinstance(entry, dict):
                continue
            port = _int(entry.get("port"))
            if port is None:
                continue
            found.append(ListeningSocket(str(entry.get("address") or ""), port, _int(entry.get("pid"))))
        return found

    def python_env(self) -> PythonEnv:
        if self._python is None:
            return PythonEnv(executable=None, version=None,
                             error="the snapshot has no python.json (Python environment not captured)")
        return python_env_from_dict(self._python, None)


# ---------------------------------------------------------------------------------------------
# Helpers


def _open_nofollow(disk: str) -> BinaryIO:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    return os.fdopen(os.open(disk, flags), "rb")


def _why(exc: BaseException) -> str:
    if isinstance(exc, _Loop):
        return "symlink loop"
    message = getattr(exc, "message", None)
    return str(message) if message else _one_line(exc)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]


def _shown(value: Any) -> str:
    """A JSON value quoted for a message, bounded (a 5,000-digit number stays readable)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _meta_text(value: Any) -> Optional[str]:
    """A snapshot.json string for display: None unless a string; control characters become
    spaces; at most MAX_META_TEXT characters."""
    if not isinstance(value, str):
        return None
    cleaned = "".join(ch if ch.isprintable() else " " for ch in value).strip()
    if len(cleaned) > MAX_META_TEXT:
        cleaned = cleaned[: MAX_META_TEXT - 1] + "…"
    return cleaned or None


def _int(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _parse_float(text: str) -> Optional[float]:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if value >= 0 else None


def _string_map(data: Optional[Dict[str, Any]], name: str) -> Dict[str, str]:
    if data is None:
        return {}
    out: Dict[str, str] = {}
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, (dict, list)):
            raise SnapshotError(f"{name}: the value of {key!r} must be a string")
        out[str(key)] = value if isinstance(value, str) else json.dumps(value)
    return out


def _snapshot_root(base: str) -> str:
    """The folder holding snapshot.json & co: ``base`` itself or its single sub-folder
    (archives made with ``tar czf snap.tar.gz snap/`` and unpacked copies of them)."""
    if any(os.path.lexists(os.path.join(base, m)) for m in MARKERS):
        return base
    try:
        entries = os.listdir(base)
    except OSError as exc:
        raise SnapshotError(f"cannot read the snapshot: {exc.strerror or exc}") from None
    if len(entries) == 1:
        inner = os.path.join(base, entries[0])
        if (os.path.isdir(inner) and not os.path.islink(inner)
                and any(os.path.lexists(os.path.join(inner, m)) for m in MARKERS)):
            return inner
    raise SnapshotError(
        "does not look like an ascend-doctor snapshot "
        f"(none of {', '.join(MARKERS)} found; create one with `ascend-doctor snapshot -o FILE.tar.gz`)")


# ---------------------------------------------------------------------------------------------
# Safe unpacking (we support Python 3.9: no tarfile extraction filters)


_PAX_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_EXTENSION_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, *_PAX_TYPES)


class _ArchiveRefused(tarfile.TarError):
    """Internal: a header over our limits, raised before tarfile reads its data."""


class _GuardedTarInfo(tarfile.TarInfo):
    """``TarInfo`` that bounds extension headers before ``tarfile`` reads them.

    A GNU long-name/long-link or pax header is followed by ``size`` bytes that ``tarfile`` reads
    into memory in one piece, and each one recurses into the next header: a 2 MB ``.tar.gz``
    declaring a 2 GiB long name cost 8.4 GB of memory. Here every extension header is checked
    against MAX_EXTENSION_BYTES, a member may have at most MAX_CHAINED_EXTENSIONS of them, and
    the archive at most MAX_EXTENSION_TOTAL bytes of them. GNU sparse members (old-style
    headers or pax GNU.sparse.*) read an unbounded list of blocks: refused before that happens
    (snapshots store no sparse files).
    """

    def _proc_member(self, tar: Any) -> Any:
        # ``tar`` is the TarFile being read; our running totals live on it.
        if self.type in _EXTENSION_TYPES:
            chain = getattr(tar, "_ad_chain", 0) + 1
            total = getattr(tar, "_ad_extension_bytes", 0) + max(self.size, 0)
            what = "pax" if self.type in _PAX_TYPES else "GNU long-name"
            if self.size > MAX_EXTENSION_BYTES:
                raise _ArchiveRefused(f"a {what} header of {self.size} bytes (more than {MAX_EXTENSION_BYTES}) "
                                      f"at byte {self.offset}")
            if chain > MAX_CHAINED_EXTENSIONS:
                raise _ArchiveRefused(f"more than {MAX_CHAINED_EXTENSIONS} extension headers in a row "
                                      f"at byte {self.offset}")
            if total > MAX_EXTENSION_TOTAL:
                raise _ArchiveRefused(f"more than {MAX_EXTENSION_TOTAL} bytes of extension headers")
            tar._ad_chain, tar._ad_extension_bytes = chain, total
        else:
            tar._ad_chain = 0
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise _ArchiveRefused(f"member {self.name[:200]!r} is a sparse file")
        return super()._proc_member(tar)  # type: ignore[misc]

    def _proc_gnusparse_00(self, *args: Any) -> None:
        raise _ArchiveRefused(f"member {self.name[:200]!r} is a sparse file")

    _proc_gnusparse_01 = _proc_gnusparse_00
    _proc_gnusparse_10 = _proc_gnusparse_00


def _member_parts(name: str, what: str, member: str) -> List[str]:
    """Components of a member name (or hard-link target), refusing absolute names, ``..`` and
    names deeper than MAX_MEMBER_DEPTH."""
    shown = repr(name) if name == member else f"{name!r} (link target of {member!r})"
    if "\x00" in name:
        raise SnapshotError(f"archive member {shown[:200]}: NUL byte in {what}")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or name.startswith("\\"):
        raise SnapshotError(f"archive member {shown[:200]}: absolute {what} refused")
    parts = _split(name.replace("\\", "/"))
    if ".." in parts:
        raise SnapshotError(f"archive member {shown[:200]}: '..' in {what} refused")
    if len(parts) > MAX_MEMBER_DEPTH:
        raise SnapshotError(f"archive member {shown[:120]}…: {len(parts)} folders deep, more than the "
                            f"{MAX_MEMBER_DEPTH} allowed; refused")
    return parts


def _check_symlink_target(parts: List[str], target: str, member: str) -> None:
    """A symlink may point anywhere inside the snapshot; absolute targets only under files/.

    ``parts`` are the member's path components. The snapshot may sit one folder deep in the
    archive (``snap/files/...``), so files/ is looked for at both depths.
    """
    if "\x00" in target:
        raise SnapshotError(f"archive member {member!r}: NUL byte in link target")
    files_depth = 0  # number of leading components up to and including "files"
    if len(parts) > 1 and parts[0] == "files":
        files_depth = 1
    elif len(parts) > 2 and parts[1] == "files" and parts[0] not in MARKERS:
        files_depth = 2
    if target.startswith("/"):
        if files_depth:
            return  # means a path of the captured machine: re-rooted under files/ when read
        raise SnapshotError(f"archive member {member!r}: symlink to absolute path {target!r} "
                            "outside files/ refused")
    # Relative: walk it from the link's folder; inside files/ it may not climb above files/.
    where = list(parts[:-1])
    for piece in _split(target):
        if piece == "..":
            if len(where) <= files_depth:
                outside = "files/" if files_depth else "the archive"
                raise SnapshotError(f"archive member {member!r}: symlink {target!r} leads outside {outside}")
            where.pop()
        else:
            where.append(piece)


class _Unpacker:
    """Writes members under ``dest``, never through anything but a folder it made itself.

    Folders made so far are remembered, so each member costs one ``open``/``mkdir`` and no
    ``lstat`` per path component: 50,000 members unpack in seconds, not half a minute.
    """

    def __init__(self, dest: str) -> None:
        self.dest = dest
        self.folders: Set[Tuple[str, ...]] = {()}  # folders we created, as components (dest is ())

    def ensure_dirs(self, parts: Sequence[str], member: str) -> str:
        """Create ``dest/parts...`` as folders, refusing to go through anything but a folder."""
        for depth in range(1, len(parts) + 1):
            key = tuple(parts[:depth])
            if key in self.folders:
                continue
            current = os.path.join(self.dest, *key)
            try:
                os.mkdir(current, 0o700)
            except FileExistsError:
                # Only a member we wrote can be there; folders are in self.folders, so this is a
                # file or a symlink: never go through it.
                raise SnapshotError(f"archive member {member!r}: goes through {parts[depth - 1]!r}, "
                                    "which is not a folder") from None
            self.folders.add(key)
        return os.path.join(self.dest, *parts)

    def parent_of(self, parts: Sequence[str], member: str) -> str:
        """Create the member's parent folders; return the member's own path (cleared)."""
        parent = self.ensure_dirs(parts[:-1], member)
        path = os.path.join(parent, parts[-1])
        if tuple(parts) in self.folders:
            raise SnapshotError(f"archive member {member!r}: replaces a folder")
        return path

    def replace_file(self, path: str, make: Callable[[], Any]) -> Any:
        """Run ``make`` (which creates ``path`` exclusively); a later member of the same name
        replaces the earlier file or symlink (as tar does), never following it."""
        try:
            return make()
        except FileExistsError:
            os.unlink(path)
            return make()

    def extract(self, tar: tarfile.TarFile, member: tarfile.TarInfo) -> None:
        name = member.name
        parts = _member_parts(name, "name", name)
        if not parts:
            return  # "./": the archive root itself
        if member.isdir():
            if tuple(parts) not in self.folders:
                self.ensure_dirs(parts, name)
            return
        if member.issym():
            _check_symlink_target(parts, member.linkname, name)
            path = self.parent_of(parts, name)
            self.replace_file(path, lambda: os.symlink(member.linkname, path))
            return
        if member.islnk():
            self._hard_link(parts, member)
            return
        if member.isreg() and not member.issparse():
            self._regular(tar, parts, member)
            return
        _refuse_special(member)

    def _hard_link(self, parts: List[str], member: tarfile.TarInfo) -> None:
        # Hard links name another member of the archive: copy that member's data.
        name = member.name
        source_parts = _member_parts(member.linkname, "link target", name)
        source = os.path.join(self.dest, *source_parts)
        try:
            st = os.lstat(source)
        except OSError:
            raise SnapshotError(f"archive member {name!r}: hard link to {member.linkname!r}, "
                                "which is not an earlier file of the archive") from None
        if not statmod.S_ISREG(st.st_mode) or _passes_symlink(self.dest, source_parts):
            raise SnapshotError(f"archive member {name!r}: hard link to {member.linkname!r} refused")
        path = self.parent_of(parts, name)
        with _open_nofollow(source) as src, self.replace_file(path, lambda: _create(path)) as out:
            shutil.copyfileobj(src, out)

    def _regular(self, tar: tarfile.TarFile, parts: List[str], member: tarfile.TarInfo) -> None:
        name = member.name
        path = self.parent_of(parts, name)
        with self.replace_file(path, lambda: _create(path)) as out:
            if member.size > 0:
                stream = tar.extractfile(member)
                if stream is None:  # pragma: no cover - isreg() members always have data
                    raise SnapshotError(f"archive member {name!r}: no data")
                with stream:
                    while True:
                        chunk = stream.read(1024 * 1024)
                        if not chunk:
                            break
                        out.write(chunk)
            out.flush()
            # Keep the recorded modification time: log checks say how old each log is.
            with contextlib.suppress(OSError, OverflowError, ValueError, TypeError, NotImplementedError):
                os.utime(out.fileno(), (member.mtime, member.mtime))


def safe_extract(archive: str, dest: str, max_members: int = MAX_MEMBERS,
                 max_member_bytes: int = MAX_MEMBER_BYTES, max_total_bytes: int = MAX_TOTAL_BYTES) -> None:
    """Unpack a snapshot archive into the empty folder ``dest``, checking every member.

    Two passes: the first reads only the headers, so a hostile archive (too many members, a
    bad name, link or type) is refused before anything is written; the second unpacks, checking
    again. Raises ``SnapshotError`` with one line for anything refused or damaged.
    """
    limits = (max_members, max_member_bytes, max_total_bytes)
    _each_member(archive, limits, _check_member)
    _each_member(archive, limits, _Unpacker(dest).extract)


def _check_member(_tar: tarfile.TarFile, member: tarfile.TarInfo) -> None:
    """What unpacking would refuse, decided from the header alone."""
    parts = _member_parts(member.name, "name", member.name)
    if member.issym():
        _check_symlink_target(parts, member.linkname, member.name)
    elif member.islnk():
        _member_parts(member.linkname, "link target", member.name)
    elif not (member.isdir() or (member.isreg() and not member.issparse())):
        _refuse_special(member)


def _refuse_special(member: tarfile.TarInfo) -> None:
    kind = ("device file" if (member.ischr() or member.isblk()) else
            "FIFO" if member.isfifo() else "sparse file" if member.issparse() else "special member")
    raise SnapshotError(f"archive member {member.name[:200]!r}: {kind} refused (snapshots store devices as empty "
                        "files)")


def _each_member(archive: str, limits: Tuple[int, int, int],
                 visit: Callable[[tarfile.TarFile, tarfile.TarInfo], None]) -> None:
    """Open ``archive`` and call ``visit`` on each member within the limits (count, member size,
    total size), turning every tarfile, gzip and I/O failure into a one-line ``SnapshotError``."""
    max_members, max_member_bytes, max_total_bytes = limits
    try:
        tar = tarfile.open(archive, "r:*", tarinfo=_GuardedTarInfo)  # noqa: SIM115 - closed below
    except _ArchiveRefused as exc:
        raise SnapshotError(f"archive refused: {exc}") from None
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise SnapshotError(f"not a snapshot directory or .tar.gz archive ({_one_line(exc)})") from None
    count = 0
    total = 0
    try:
        with tar:
            while True:
                member = tar.next()
                if member is None:
                    break
                count += 1
                if count > max_members:
                    raise SnapshotError(f"more than {max_members} members; refused")
                # Check sizes before tarfile seeks past the data: a forged header with a huge
                # size must not make us decompress gigabytes.
                if member.size > max_member_bytes:
                    raise SnapshotError(f"archive member {member.name[:200]!r}: {member.size} bytes, more than "
                                        f"the {max_member_bytes} allowed")
                total += max(member.size, 0)
                if total > max_total_bytes:
                    raise SnapshotError(f"archive member {member.name[:200]!r}: the archive unpacks to more than "
                                        f"{max_total_bytes} bytes; refused")
                visit(tar, member)
    except _ArchiveRefused as exc:
        raise SnapshotError(f"archive refused: {exc}") from None
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        raise SnapshotError(f"damaged archive ({_one_line(exc)})") from None
    except OSError as exc:
        raise SnapshotError(f"cannot unpack ({_one_line(exc)})") from None


def _passes_symlink(dest: str, parts: List[str]) -> bool:
    current = dest
    for piece in parts:
        current = os.path.join(current, piece)
        try:
            if statmod.S_ISLNK(os.lstat(current).st_mode):
                return True
        except OSError:
            return True
    return False


def _create(path: str) -> BinaryIO:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags, 0o600), "wb")
