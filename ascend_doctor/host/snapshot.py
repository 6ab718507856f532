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
import json
import os
import posixpath
import stat as statmod
from typing import (
    TYPE_CHECKING,
    Any,
    BinaryIO,
    Callable,
    Dict,
    FrozenSet,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from msgspec import Struct

from ascend_doctor import boundedjson
from ascend_doctor.host.base import (
    DEFAULT_MAX_READ_BYTES,
    MAX_OUTPUT_BYTES,
    SNAPSHOT_MODEL_DIR,
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
    classify_exit,
    command_file_name,
)
from ascend_doctor.host.pyprobe import python_env_from_dict
from ascend_doctor.host.snapshot_layout import (  # the layout and limits, shared with snapshot_archive.py
    MARKERS,
    MAX_JSON_BYTES,
    MAX_MEMBER_BYTES,
    MAX_MEMBERS,
    MAX_SYMLINKS,
    MAX_TOTAL_BYTES,
    _one_line,
    _open_nofollow,
    _split,
)
from ascend_doctor.host.snapshot_layout import MAX_MEMBER_DEPTH as MAX_MEMBER_DEPTH
from ascend_doctor.host.snapshot_layout import SNAPSHOT_FORMAT as SNAPSHOT_FORMAT

if TYPE_CHECKING:
    from ascend_doctor.host.model_record import RecordedModels

# Strings of snapshot.json shown in the report header (hostname, kernel, ...).
MAX_META_TEXT = 256
# Patterns and commands of snapshot.json "captured" that are read (a real capture has a few hundred).
MAX_CAPTURED_ITEMS = 20000


class _Missing(Exception):
    """Internal: the path does not exist in the snapshot."""


class _Loop(Exception):
    """Internal: too many symlinks."""


class _Resolved(Struct, frozen=True):
    parts: Tuple[str, ...]  # components under the jail
    disk: str  # where it is on our disk
    lstat: os.stat_result


_DENIED = "permission denied"  # what _Jail._lstat gives for an lstat that raised PermissionError
_ABSENT = "absent"  # ... and for one that raised another OSError


class _Jail:
    """Resolves paths inside one directory of the snapshot without letting the OS follow links."""

    def __init__(self, root: str, reroot_absolute: bool, label: str) -> None:
        self.root = root
        self.reroot_absolute = reroot_absolute  # files/: "/x" means files/x; elsewhere refused
        self.label = label
        # What lstat said of each path under the jail, asked once per run: a check run resolves
        # some 250 paths, most of them under the same few folders (/usr/local/Ascend/...), and the
        # snapshot does not change while it is read (an archive is our private copy).
        self._lstat_seen: Dict[Tuple[str, ...], Union[os.stat_result, str]] = {}
        self._listed: Dict[str, Optional[FrozenSet[str]]] = {}  # folder -> its names (lacks)

    def resolve(self, path: str, follow_last: bool = True) -> _Resolved:
        """Resolve ``path``; raises PathRefused, _Missing or _Loop."""
        parts, st = self._walk(path, follow_last, strict=True)
        assert st is not None
        return _Resolved(tuple(parts), os.path.join(self.root, *parts), st)

    def lacks(self, folder: str, name: str) -> bool:
        """Whether ``folder/name`` is surely missing: ``folder`` (one plain name) is a directory of
        the jail, not a link, and holds no entry ``name``. False means: resolve it to know.

        A replayed command is looked for as four files (.out, .err, .rc, .timeout) of which most
        runs have one: some 130 of the 180 lookups of a check are answered from one listing of
        ``commands/`` instead of a walk and a failed lstat each."""
        if folder not in self._listed:
            self._listed[folder] = self._names(folder)
        names = self._listed[folder]
        return names is not None and name not in names

    def _names(self, folder: str) -> Optional[FrozenSet[str]]:
        found = self._lstat([folder])
        if isinstance(found, str) or not statmod.S_ISDIR(found.st_mode):
            return None  # missing, refused or a link: resolve() says which
        names: List[str] = []
        try:
            with os.scandir(os.path.join(self.root, folder)) as entries:
                for entry in entries:
                    names.append(entry.name)
                    if len(names) > MAX_MEMBERS:  # no capture holds so many: do not build the set
                        return None
        except OSError:
            return None
        return frozenset(names)

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
            found = self._lstat(candidate)
            if found is _DENIED:
                raise FilePermissionDenied(path, "permission denied inside the snapshot")
            if found is _ABSENT:  # missing, or a name no file can have (longer than NAME_MAX, ...)
                if strict:
                    raise _Missing(path)
                lexical, current = True, candidate
                continue
            assert not isinstance(found, str)
            st = found
            if statmod.S_ISLNK(st.st_mode) and (pending or follow_last):
                links += 1
                if links > MAX_SYMLINKS:
                    if strict:
                        raise _Loop(path)
                    lexical, current = True, candidate
                    continue
                target = os.readlink(os.path.join(self.root, *candidate))
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

    def _lstat(self, parts: List[str]) -> Union[os.stat_result, str]:
        """os.lstat of ``parts`` under the jail, or _DENIED / _ABSENT for the errors (once per path)."""
        key = tuple(parts)
        found = self._lstat_seen.get(key)
        if found is None:
            try:
                found = os.lstat(os.path.join(self.root, *parts))
            except PermissionError:
                found = _DENIED
            except OSError:
                found = _ABSENT
            self._lstat_seen[key] = found
        return found


class SnapshotHost:
    """A machine snapshot: see docs/snapshot-format.md."""

    def __init__(self, path: str) -> None:
        self.origin = path
        self._info: Optional[HostInfo] = None
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
        import tempfile  # here, with remove_tree: a snapshot folder needs neither

        from ascend_doctor.tempdirs import remove_tree

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
        try:
            self._top.resolve(SNAPSHOT_MODEL_DIR)
        except _Missing:  # most snapshots: no model recorded, and model_record (with struct) is not imported
            return None
        except (PathRefused, _Loop, FilePermissionDenied):
            pass  # reported by _load_json below, as for any other file of the snapshot
        from ascend_doctor.host.model_record import MODEL_LISTING, RecordedModels

        listing = self._load_json(MODEL_LISTING)
        return RecordedModels(listing, self._stored_model_file) if listing is not None else None

    def _stored_model_file(self, host_path: str) -> Optional[bytes]:
        from ascend_doctor.host.model_record import MODEL_FILES  # imported by _load_models already

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
        # Asked some 30 times a run (facts, origin questions, the report header): made once per
        # origin (a pasted-text host names its file after this class's __init__).
        if self._info is None or self._info.origin != self.origin:
            self._info = self._make_info()
        return self._info

    def _make_info(self) -> HostInfo:
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
        name = command_file_name(args)
        stem = "commands/" + name
        try:
            out = self._command_file(name + ".out")
            err = self._command_file(name + ".err")
            rc_text = self._command_file(name + ".rc")
            hung = self._command_file(name + ".timeout")
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

    def recorded_commands(self) -> List[str]:
        """The stems of the command outputs the snapshot holds (``npu-smi_info_-t_ecc_-i_3``), sorted:
        a snapshot or a paste without an ``npu-smi info`` table still shows which NPUs its per-NPU
        queries were about (facts/npu_views.py)."""
        if "commands" not in self._top._listed:
            self._top._listed["commands"] = self._top._names("commands")
        names = self._top._listed["commands"] or frozenset()
        return sorted(n[:-4] for n in names if n.endswith(".out"))

    def _command_file(self, name: str) -> Optional[str]:
        if self._top.lacks("commands", name):
            return None
        try:
            resolved = self._top.resolve("commands/" + name)
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


def _why(exc: BaseException) -> str:
    if isinstance(exc, _Loop):
        return "symlink loop"
    message = getattr(exc, "message", None)
    return str(message) if message else _one_line(exc)


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
# Safe unpacking: ascend_doctor/host/snapshot_archive.py (imports tarfile, needed for archives only)


def safe_extract(archive: str, dest: str, max_members: int = MAX_MEMBERS,
                 max_member_bytes: int = MAX_MEMBER_BYTES, max_total_bytes: int = MAX_TOTAL_BYTES) -> None:
    """Unpack a snapshot archive into the empty folder ``dest``, checking every member.

    Two passes: the first reads only the headers, so a hostile archive (too many members, a
    bad name, link or type) is refused before anything is written; the second unpacks, checking
    again. Raises ``SnapshotError`` with one line for anything refused or damaged.
    """
    from ascend_doctor.host.snapshot_archive import extract

    extract(archive, dest, (max_members, max_member_bytes, max_total_bytes))
