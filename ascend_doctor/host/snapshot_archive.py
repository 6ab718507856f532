"""Safe unpacking of a snapshot archive (``SnapshotHost`` on a ``.tar.gz``).

Kept apart from ascend_doctor/host/snapshot.py so that a run on a snapshot folder never imports
``tarfile``. We support Python 3.9, which has no tarfile extraction filters: every member is
checked by hand (see ``snapshot.safe_extract``). The limits are the ``MAX_*`` constants of the
snapshot module, read when used.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat as statmod
import tarfile
import zlib
from typing import Any, BinaryIO, Callable, List, Sequence, Set, Tuple

from ascend_doctor.host import snapshot_layout as snapshot
from ascend_doctor.host.base import SnapshotError
from ascend_doctor.host.snapshot_layout import _one_line, _open_nofollow, _split

_PAX_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_EXTENSION_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, *_PAX_TYPES)


class _ArchiveRefused(tarfile.TarError):
    """Internal: a header over our limits, raised before tarfile reads its data."""


class _GuardedTarInfo(tarfile.TarInfo):
    """``TarInfo`` that bounds extension headers before ``tarfile`` reads them.

    A GNU long-name/long-link or pax header is followed by ``size`` bytes that ``tarfile`` reads
    into memory in one piece, and each one recurses into the next header: a 2 MB ``.tar.gz``
    declaring a 2 GiB long name cost 8.4 GB of memory. Here every extension header is checked
    against snapshot.MAX_EXTENSION_BYTES, a member may have at most snapshot.MAX_CHAINED_EXTENSIONS of them, and
    the archive at most snapshot.MAX_EXTENSION_TOTAL bytes of them. GNU sparse members (old-style
    headers or pax GNU.sparse.*) read an unbounded list of blocks: refused before that happens
    (snapshots store no sparse files).
    """

    def _proc_member(self, tar: Any) -> Any:
        # ``tar`` is the TarFile being read; our running totals live on it.
        if self.type in _EXTENSION_TYPES:
            chain = getattr(tar, "_ad_chain", 0) + 1
            total = getattr(tar, "_ad_extension_bytes", 0) + max(self.size, 0)
            what = "pax" if self.type in _PAX_TYPES else "GNU long-name"
            if self.size > snapshot.MAX_EXTENSION_BYTES:
                raise _ArchiveRefused(f"a {what} header of {self.size} bytes "
                                      f"(more than {snapshot.MAX_EXTENSION_BYTES}) at byte {self.offset}")
            if chain > snapshot.MAX_CHAINED_EXTENSIONS:
                raise _ArchiveRefused(f"more than {snapshot.MAX_CHAINED_EXTENSIONS} extension headers in a row "
                                      f"at byte {self.offset}")
            if total > snapshot.MAX_EXTENSION_TOTAL:
                raise _ArchiveRefused(f"more than {snapshot.MAX_EXTENSION_TOTAL} bytes of extension headers")
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
    names deeper than snapshot.MAX_MEMBER_DEPTH."""
    shown = repr(name) if name == member else f"{name!r} (link target of {member!r})"
    if "\x00" in name:
        raise SnapshotError(f"archive member {shown[:200]}: NUL byte in {what}")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or name.startswith("\\"):
        raise SnapshotError(f"archive member {shown[:200]}: absolute {what} refused")
    parts = _split(name.replace("\\", "/"))
    if ".." in parts:
        raise SnapshotError(f"archive member {shown[:200]}: '..' in {what} refused")
    if len(parts) > snapshot.MAX_MEMBER_DEPTH:
        raise SnapshotError(f"archive member {shown[:120]}…: {len(parts)} folders deep, more than the "
                            f"{snapshot.MAX_MEMBER_DEPTH} allowed; refused")
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
    elif len(parts) > 2 and parts[1] == "files" and parts[0] not in snapshot.MARKERS:
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


def extract(archive: str, dest: str, limits: Tuple[int, int, int]) -> None:
    """``snapshot.safe_extract``: headers checked in a first pass, then unpacked checking again."""
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
