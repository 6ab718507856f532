"""File access for model inspection: the subset of ``Host`` it needs, a local implementation,
and a bounded walk of a model directory.

Model checks read weights through ``facts.host`` so that they also run against a snapshot. The
``model`` subcommands work before any ``Host`` exists, so :class:`LocalFiles` gives them the same
five methods over the local filesystem, raising the same ``HostFileError`` subclasses.

The walk is bounded (entries; depth for inspection, while manifests cover every level) and
never follows symlinked directories, so a directory with 10 000 files, a symlink loop or a
bind-mounted tree cannot make it hang. A symlink whose target lies outside the model folder is
not followed (it could name /etc/shadow or /proc/kmsg), except the links of a Hugging Face cache
snapshot (``models--ORG--NAME/snapshots/REV/x -> ../../blobs/HASH``). Files are opened only when
they are regular files (``safeio``): a FIFO or device never blocks the walk or the hashing.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from typing import BinaryIO, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.host.base import (
    DEFAULT_MAX_READ_BYTES,
    FileMissing,
    FilePermissionDenied,
    FileStat,
    FileTooLarge,
    HostFileError,
)
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.lazy import lazy_re

try:
    from typing import Protocol
except ImportError:  # pragma: no cover
    from typing_extensions import Protocol  # type: ignore

# Directories that belong to download tools, not to the model. They are looked into (for
# ``.incomplete`` files left by huggingface_hub) but never counted as model files or hashed.
TOOL_DIRS = (".git", ".cache", ".huggingface")
DEFAULT_MAX_ENTRIES = 10_000
DEFAULT_MAX_DEPTH = 4


class FileSource(Protocol):
    """What model inspection needs from a host (``Host`` satisfies it)."""

    def open_binary(self, path: str) -> BinaryIO: ...

    def stat(self, path: str) -> Optional[FileStat]: ...

    def listdir(self, path: str) -> List[str]: ...

    def read_bytes(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> bytes: ...

    def realpath(self, path: str) -> str: ...


def _os_error(path: str, exc: OSError) -> HostFileError:
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return FileMissing(path, Text(N_("no such file")))
    if exc.errno in (errno.EACCES, errno.EPERM):
        return FilePermissionDenied(path, Text(N_("permission denied")))
    if exc.errno == errno.ELOOP:
        return HostFileError(path, Text(N_("too many levels of symbolic links (symlink loop)")))
    return HostFileError(path, exc.strerror or str(exc))


class LocalFiles:
    """The local filesystem with ``Host`` file semantics (used by ``ascend-doctor model``)."""

    def open_binary(self, path: str) -> BinaryIO:
        from ascend_doctor import safeio

        try:
            return safeio.open_regular(path)  # the caller closes it
        except IsADirectoryError:
            raise HostFileError(path, "is a directory") from None
        except safeio.InputRefused as exc:
            raise HostFileError(path, exc.reason) from None
        except OSError as exc:
            raise _os_error(path, exc) from None

    def stat(self, path: str) -> Optional[FileStat]:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ENOTDIR:
                return None
            raise _os_error(path, exc) from None
        return FileStat(
            path=path,
            size=st.st_size,
            is_dir=stat_module.S_ISDIR(st.st_mode),
            is_file=stat_module.S_ISREG(st.st_mode),
            is_symlink=stat_module.S_ISLNK(st.st_mode),
            mtime=st.st_mtime,
            mode=st.st_mode,
        )

    def listdir(self, path: str) -> List[str]:
        try:
            return sorted(os.listdir(path))
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise _os_error(path, exc) from None

    def read_bytes(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> bytes:
        with self.open_binary(path) as fh:
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise FileTooLarge(path, f"larger than {max_bytes} bytes")
        return data

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def readlink(self, path: str) -> Optional[str]:
        try:
            return os.readlink(path)
        except OSError:
            return None


class DirEntry(Struct, frozen=True):
    """One regular file found under the model directory (symlinks resolved)."""

    rel: str  # path relative to the model directory, with "/" separators
    size: int
    via_symlink: bool = False  # the name is a symlink to a regular file (HF cache layout)
    tool_file: bool = False  # under .git/.cache: not part of the model


class WalkIssue(Struct, frozen=True):
    """Something in the directory that is not a readable regular file."""

    code: str  # "unreadable" | "symlink-broken" | "symlink-loop" | "special-file" | "truncated"
    rel: str
    message: str
    target: Optional[str] = None  # a symlink's target as stored (what `ls -l` shows)


class DirListing(Struct):
    root: str
    exists: bool
    is_dir: bool
    files: List[DirEntry] = field(default_factory=list)
    issues: List[WalkIssue] = field(default_factory=list)
    truncated: bool = False

    def model_files(self) -> List[DirEntry]:
        return [f for f in self.files if not f.tool_file]


def join(root: str, rel: str) -> str:
    """Join with "/" (hosts and snapshots use POSIX paths)."""
    if not rel:
        return root
    return root + rel if root.endswith("/") else f"{root}/{rel}"


def link_target(src: FileSource, path: str) -> Optional[str]:
    """A symlink's target as stored, when the source can tell (``Host`` and ``LocalFiles`` can)."""
    readlink = getattr(src, "readlink", None)
    if readlink is None:
        return None
    try:
        target = readlink(path)
    except (HostFileError, OSError):
        return None
    return target if isinstance(target, str) and target else None


def _resolve_link(src: FileSource, path: str) -> Tuple[Optional[FileStat], str]:
    """Stat the final target of a symlink; (None, why) when it is broken or loops."""
    try:
        target = src.realpath(path)
        st = src.stat(target)
    except HostFileError as exc:
        return None, exc.message
    except OSError as exc:  # realpath of a hostile tree on some hosts
        return None, exc.strerror or str(exc)
    if st is None:
        return None, Text(N_("broken symlink (target does not exist)"))
    if st.is_symlink:
        return None, Text(N_("symlink loop (the link never reaches a file)"))
    return st, ""


# A Hugging Face hub cache snapshot: its files are links to ../../blobs/<hash> of the same repo.
_HUB_SNAPSHOT = lazy_re(r"^(?P<repo>.*)/snapshots/[^/]+(?:/.*)?$")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def link_allowed(real_root: str, real_target: str) -> bool:
    """May a symlink of the model folder ``real_root`` be followed to ``real_target``? Only
    inside the folder, or from a hub cache snapshot into the ``blobs/`` of the same repo."""
    if _inside(real_target, real_root):
        return True
    hub = _HUB_SNAPSHOT.match(real_root)
    return hub is not None and real_target.startswith(hub.group("repo") + "/blobs/")


def _real(src: FileSource, path: str) -> Optional[str]:
    try:
        return src.realpath(path)
    except (HostFileError, OSError):
        return None


def walk_model_dir(
    src: FileSource,
    root: str,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    max_depth: Optional[int] = DEFAULT_MAX_DEPTH,
) -> DirListing:
    """List regular files under ``root`` (bounded); every oddity becomes a ``WalkIssue``.

    ``max_depth=None`` walks every level (manifests: a file 50 folders down is part of the
    model too); the walk is iterative, so depth costs no recursion. ``max_entries`` always holds.
    """
    try:
        top = src.stat(root)
    except HostFileError as exc:
        listing = DirListing(root, exists=True, is_dir=False)
        listing.issues.append(WalkIssue("unreadable", "", exc.message))
        return listing
    if top is not None and top.is_symlink:
        top, why = _resolve_link(src, root)
        if top is None:
            listing = DirListing(root, exists=True, is_dir=False)
            code = "symlink-loop" if "loop" in why else "symlink-broken"
            listing.issues.append(WalkIssue(code, "", why, link_target(src, root)))
            return listing
    if top is None:
        return DirListing(root, exists=False, is_dir=False)
    listing = DirListing(root, exists=True, is_dir=top.is_dir)
    if not top.is_dir:
        return listing

    real_root = _real(src, root) or root
    seen = 0
    # Depth-first with an explicit stack: bounded by max_depth, never recursion-limited.
    stack: List[Tuple[str, int]] = [("", 0)]
    while stack:
        rel_dir, depth = stack.pop()
        try:
            names = src.listdir(join(root, rel_dir))
        except HostFileError as exc:
            listing.issues.append(WalkIssue("unreadable", rel_dir or ".",
                                            Text(N_("cannot list directory: {error}"), error=exc.message)))
            continue
        subdirs: List[str] = []
        for name in names:
            seen += 1
            if seen > max_entries:
                listing.truncated = True
                listing.issues.append(
                    WalkIssue("truncated", rel_dir or ".", Text(N_("more than {count} entries; stopped listing"),
                                                                count=max_entries))
                )
                return listing
            rel = f"{rel_dir}/{name}" if rel_dir else name
            tool = rel.split("/", 1)[0] in TOOL_DIRS
            path = join(root, rel)
            try:
                st = src.stat(path)
            except HostFileError as exc:
                listing.issues.append(WalkIssue("unreadable", rel, exc.message))
                continue
            if st is None:  # vanished between listdir and stat
                continue
            via_link = False
            if st.is_symlink:
                resolved, why = _resolve_link(src, path)
                if resolved is None:
                    code = "symlink-loop" if "loop" in why else "symlink-broken"
                    listing.issues.append(WalkIssue(code, rel, why, link_target(src, path)))
                    continue
                if resolved.is_dir:
                    # Never follow directory links: that is how walks loop or escape.
                    listing.issues.append(WalkIssue("special-file", rel,
                                                    Text(N_("symlink to a directory (not followed)"))))
                    continue
                real_target = _real(src, path)
                if real_target is None or not link_allowed(real_root, real_target):
                    target = link_target(src, path) or real_target or "?"
                    listing.issues.append(WalkIssue(
                        "special-file", rel, Text(N_("symlink to {target}, outside the model folder (not followed)"),
                                                  target=target),
                        target))
                    continue
                st, via_link = resolved, True
            if st.is_dir:
                if (max_depth is None or depth + 1 <= max_depth) and name != ".git":
                    subdirs.append(rel)
                continue
            if not st.is_file:
                listing.issues.append(WalkIssue("special-file", rel,
                                                Text(N_("not a regular file (device, fifo or socket)"))))
                continue
            listing.files.append(DirEntry(rel=rel, size=st.size, via_symlink=via_link, tool_file=tool))
        for sub in reversed(subdirs):
            stack.append((sub, depth + 1))
    listing.files.sort(key=lambda e: e.rel)
    return listing
