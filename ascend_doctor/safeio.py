"""Open inputs and write outputs the way a tool running as root must.

The doctor runs as root on production servers, so a file name given on the command line (or found
inside a model folder, or named by an environment variable) can be anything: a FIFO whose read
blocks forever, a device whose open has side effects, ``/proc/kmsg`` whose read consumes the
kernel log, a 2 GiB file. And an ``-o`` target can be ``/dev/null``, which an atomic rename would
replace with a regular file. Every command goes through the helpers below:

Inputs (:func:`open_regular`, :func:`read_regular`): only a regular file is opened, and only
after ``stat`` said it is one (opening a device can already do something); the open itself is
non-blocking and the opened file is checked again with ``fstat`` (the name may have been swapped
in between). Files of ``/proc`` and ``/sys`` are refused unless the caller reads host facts on
purpose. Sizes are bounded before anything is read.

Outputs (:func:`output_stream`, :func:`check_output_target`, :func:`atomic_output`):

* ``-o -`` and ``-o /dev/stdout`` mean standard output, ``-o /dev/stderr`` standard error;
* otherwise the target must be a new name in an existing folder, or an existing regular file
  (a symlink to a regular file is followed: the file it points at is replaced, the link stays);
  a directory, device, FIFO, socket or a symlink to one of those is refused;
* an output that is one of the command's inputs (the same file, or a file inside an input
  folder) is refused;
* the result is written to a temporary file in the target's folder, flushed to disk and renamed
  over the target, so the target is either the old file or the complete new one. A write that
  fails or is interrupted removes the temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import BinaryIO, Iterable, Iterator, Optional, Tuple

# Pseudo file systems: their "regular files" are kernel interfaces (``/proc/kmsg`` blocks and
# consumes the kernel log, ``/proc/self/mem`` fails, ``/sys`` files may trigger actions).
PSEUDO_ROOTS = ("/proc", "/sys")

STDOUT_NAMES = ("-", "/dev/stdout")
STDERR_NAMES = ("/dev/stderr",)


class InputRefused(OSError):
    """An input that is not a readable regular file; ``strerror`` is the reason, in words."""

    def __init__(self, path: str, reason: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, reason, path)
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class InputTooLarge(InputRefused):
    def __init__(self, path: str, size: Optional[int], limit: int) -> None:
        what = f"{size} bytes" if size is not None else "larger"
        super().__init__(path, f"{what}, more than the {describe_size(limit)} allowed", errno.EFBIG)
        self.size = size
        self.limit = limit


class OutputRefused(Exception):
    """``-o`` names something the doctor must not write over; ``str()`` is one line."""


def describe_size(count: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= factor and count % factor == 0:
            return f"{count // factor} {unit}"
    return f"{count} bytes"


def describe_kind(mode: int) -> str:
    """What a file is, for messages: "a directory", "a character device", ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


_pseudo_devices: Optional[Tuple[int, ...]] = None


def _pseudo_device_ids() -> Tuple[int, ...]:
    global _pseudo_devices
    if _pseudo_devices is None:
        found = []
        for root in PSEUDO_ROOTS:
            with contextlib.suppress(OSError):
                found.append(os.stat(root).st_dev)
        _pseudo_devices = tuple(found)
    return _pseudo_devices


def on_pseudo_fs(path: str, st: Optional[os.stat_result] = None) -> bool:
    """True for files of /proc and /sys (by location, or by the file system they live on)."""
    real = os.path.realpath(path)
    if any(real == root or real.startswith(root + "/") for root in PSEUDO_ROOTS):
        return True
    return st is not None and st.st_dev in _pseudo_device_ids()


def open_regular(path: str, max_bytes: Optional[int] = None, *, follow_symlinks: bool = True,
                 allow_pseudo: bool = False) -> BinaryIO:
    """Open ``path`` for reading only if it is a regular file (at most ``max_bytes`` long).

    Raises ``FileNotFoundError``/``PermissionError``/``IsADirectoryError`` like ``open`` does,
    :class:`InputRefused` for a FIFO, device, socket, /proc or /sys file (or a symlink when
    ``follow_symlinks`` is false) and :class:`InputTooLarge` for a file over the limit. Never
    blocks: nothing but a regular file is ever opened, and the open is non-blocking.
    """
    st = os.stat(path) if follow_symlinks else os.lstat(path)
    _refuse_unless_regular(path, st, allow_pseudo)
    if max_bytes is not None and st.st_size > max_bytes:
        raise InputTooLarge(path, st.st_size, max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise InputRefused(path, "is a symbolic link (not followed)") from None
        raise
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):
            raise InputRefused(path, "changed while it was being opened; try again")
        _refuse_unless_regular(path, opened, allow_pseudo)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _refuse_unless_regular(path: str, st: os.stat_result, allow_pseudo: bool) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", path)
    if stat.S_ISLNK(st.st_mode):
        raise InputRefused(path, "is a symbolic link (not followed)")
    if not stat.S_ISREG(st.st_mode):
        raise InputRefused(path, f"is {describe_kind(st.st_mode)}, not a regular file; refused (reading it "
                                 "could block or have side effects)")
    if not allow_pseudo and on_pseudo_fs(path, st):
        raise InputRefused(path, "is a kernel interface under /proc or /sys, not a file to read; refused")


def read_regular(path: str, max_bytes: int, *, follow_symlinks: bool = True, allow_pseudo: bool = False) -> bytes:
    """The whole content of a regular file of at most ``max_bytes`` (see :func:`open_regular`)."""
    with open_regular(path, max_bytes, follow_symlinks=follow_symlinks, allow_pseudo=allow_pseudo) as fh:
        data = fh.read(max_bytes + 1)  # the file may have grown since stat
    if len(data) > max_bytes:
        raise InputTooLarge(path, None, max_bytes)
    return data


def describe_os_error(exc: OSError) -> str:
    """An ``OSError`` as words, without "[Errno N]" or the repeated file name."""
    if isinstance(exc, InputRefused):
        return exc.reason
    if exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


# -- outputs --------------------------------------------------------------------------------------


def output_stream(output: Optional[str]) -> Optional[str]:
    """"stdout" or "stderr" when ``-o`` names a standard stream (or is absent: stdout), else None."""
    if output is None or output in STDOUT_NAMES:
        return "stdout"
    if output in STDERR_NAMES:
        return "stderr"
    return None


def _refusal(output: str, what: str) -> OutputRefused:
    hint = " (to discard the output, leave out -o and redirect: > /dev/null)" if output == "/dev/null" else \
        " (use -o - for standard output)"
    return OutputRefused(f"-o {output}: {what}; -o writes only a new file or over a regular file{hint}")


def check_output_target(output: str) -> str:
    """The path ``-o output`` will replace (a symlink to a regular file resolved), or
    :class:`OutputRefused` for anything that is not a new name or a regular file."""
    try:
        st = os.lstat(output)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(folder):
            raise OutputRefused(f"-o {output}: the folder {folder} does not exist") from None
        if output.endswith("/"):
            raise OutputRefused(f"-o {output}: names a folder; give a file name") from None
        return os.path.abspath(output)
    except OSError as exc:
        raise OutputRefused(f"-o {output}: {describe_os_error(exc)}") from None
    if stat.S_ISREG(st.st_mode):
        return os.path.abspath(output)
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.stat(output)
        except OSError:
            raise OutputRefused(f"-o {output}: is a symbolic link to a missing file ({os.readlink(output)}); "
                                "refusing to create a file through it") from None
        if stat.S_ISREG(target.st_mode):
            return os.path.realpath(output)
        raise _refusal(output, f"is a symbolic link to {describe_kind(target.st_mode)}")
    raise _refusal(output, f"is {describe_kind(st.st_mode)}")


def _identity(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def check_not_an_input(output: Optional[str], files: Iterable[Optional[str]] = (),
                       folders: Iterable[Optional[str]] = ()) -> None:
    """Refuse an ``-o`` that is one of the inputs (the same file, under any name), or that lies
    inside an input folder (a model folder, a snapshot folder): writing there would destroy or
    change what is being examined (a report in a model folder is an "extra file" next time)."""
    if output is None or output_stream(output) is not None:
        return
    out_id = _identity(output)
    if out_id is not None:
        for path in files:
            if path and path != "-" and _identity(path) == out_id:
                raise OutputRefused(f"-o {output} is the input {path}: writing there would destroy it; "
                                    "choose another output file")
    parent = os.path.realpath(os.path.dirname(os.path.abspath(output)))
    real_out = os.path.realpath(output) if os.path.lexists(output) else os.path.join(parent, os.path.basename(output))
    for folder in folders:
        if not folder or not os.path.isdir(folder):
            continue
        real_folder = os.path.realpath(folder)
        if real_out.startswith(real_folder.rstrip("/") + "/"):
            raise OutputRefused(f"-o {output} is inside the input folder {folder}: writing there would change "
                                "what is being examined; write it elsewhere")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(output: str) -> Iterator[BinaryIO]:
    """Write ``output`` atomically: yield a temporary file in the same folder; on success it is
    flushed, fsynced and renamed over the target; on any error (or Ctrl-C) it is removed.

    Raises :class:`OutputRefused` when the target is not a new name or a regular file (checked
    before writing and again just before the rename).
    """
    target = check_output_target(output)
    folder = os.path.dirname(target) or "."
    base = os.path.basename(target)[:100]
    try:
        old_mode: Optional[int] = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        old_mode = None
    import tempfile  # here: writing to standard output (most runs) needs none

    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, old_mode if old_mode is not None else 0o666 & ~_umask())
        # The name may have been replaced by a device or a folder while we wrote.
        if check_output_target(output) != target:
            raise OutputRefused(f"-o {output}: changed while the output was written; nothing was written")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (best effort: some file systems refuse fsync on a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
