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

Outputs: every file a command writes (``-o``, ``--save``, ``--prometheus``, ``watch -o``, the
snapshot archive) goes through :func:`check_output_target`, then :func:`atomic_output` (a whole
result) or :func:`open_output_stream` (``watch``'s growing stream):

* ``-o -`` and ``-o /dev/stdout`` mean standard output, ``-o /dev/stderr`` standard error;
* otherwise the target must be a new name in an existing folder, or an existing regular file;
  a directory, device, FIFO, socket or a **symbolic link** (to anything) is refused. A root run
  writing into a shared reports folder must not follow a link someone planted there
  (``reports/node07.json -> /etc/passwd``): the final name is never followed, only replaced or
  created, and a link in its place is refused in words before any work;
* an output that is one of the command's inputs (the same file under any name, a name that
  will be an input file, or a file inside an input folder) is refused, and so are two outputs
  of one run naming the same file (:func:`check_not_an_input`, :func:`check_distinct_outputs`);
* a whole result is written to a new temporary file in the target's folder (created with
  ``O_EXCL | O_NOFOLLOW`` relative to the opened folder), flushed to disk and renamed over the
  target, so the target is either the old file or the complete new one; a write that fails or is
  interrupted removes the temporary file. A rename replaces a name and never writes through it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import IO, BinaryIO, Iterable, Iterator, Optional, Sequence, Tuple

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


def _refusal(output: str, what: str, option: str = "-o") -> OutputRefused:
    hint = " (to discard the output, leave out -o and redirect: > /dev/null)" if output == "/dev/null" else \
        " (use -o - for standard output)" if option == "-o" else ""
    return OutputRefused(f"{option} {output}: {what}, not a regular file; {option} writes only a new file or over "
                         f"a regular file{hint}")


def check_output_target(output: str, option: str = "-o") -> str:
    """The absolute path ``option output`` will create or replace, or :class:`OutputRefused` for
    anything that is not a new name in an existing folder or an existing regular file. A symbolic
    link is refused whatever it points at: the doctor runs as root, and a link planted in a shared
    folder would make it overwrite the file the link names."""
    try:
        st = os.lstat(output)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(folder):
            raise OutputRefused(f"{option} {output}: the folder {folder} does not exist") from None
        if output.endswith("/"):
            raise OutputRefused(f"{option} {output}: names a folder; give a file name") from None
        return os.path.abspath(output)
    except OSError as exc:
        raise OutputRefused(f"{option} {output}: {describe_os_error(exc)}") from None
    if stat.S_ISREG(st.st_mode):
        return os.path.abspath(output)
    if stat.S_ISLNK(st.st_mode):
        raise _refusal(output, f"is a symbolic link (to {_link_text(output)}: remove the link or name another "
                               "file; a link is never written through)", option)
    raise _refusal(output, f"is {describe_kind(st.st_mode)}", option)


def _link_text(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _identity(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _place(path: str) -> Tuple[str, str]:
    """Where a name is, as (real folder, base name): equal for two names of one file to be created."""
    absolute = os.path.abspath(path)
    return os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute)


def same_file(first: str, second: str) -> bool:
    """Whether two names are one file: the same inode when both exist, else the same place."""
    first_id, second_id = _identity(first), _identity(second)
    if first_id is not None and second_id is not None:
        return first_id == second_id
    return _place(first) == _place(second)


def check_not_an_input(output: Optional[str], files: Iterable[Optional[str]] = (),
                       folders: Iterable[Optional[str]] = (), option: str = "-o") -> None:
    """Refuse an output that is one of the inputs (the same file under any name, or the same name
    when the input is yet to be created), or that lies inside an input folder (a model folder, a
    snapshot folder, a replay folder): writing there would destroy or change what is being
    examined (a report in a model folder is an "extra file" next time)."""
    if output is None or output_stream(output) is not None:
        return
    for path in files:
        if path and path != "-" and same_file(output, path):
            raise OutputRefused(f"{option} {output} is the input {path}: writing there would destroy it; "
                                "choose another output file")
    parent = os.path.realpath(os.path.dirname(os.path.abspath(output)))
    real_out = os.path.join(parent, os.path.basename(output))
    for folder in folders:
        if not folder or not os.path.isdir(folder):
            continue
        real_folder = os.path.realpath(folder)
        if real_out.startswith(real_folder.rstrip("/") + "/"):
            raise OutputRefused(f"{option} {output} is inside the input folder {folder}: writing there would "
                                "change what is being examined; write it elsewhere")


def check_distinct_outputs(outputs: Sequence[Tuple[str, Optional[str]]]) -> None:
    """Refuse two outputs of one run that name one file (``probe --save F -o F``): the second
    write would silently replace the first. ``outputs``: (option, path) pairs."""
    named = [(option, path) for option, path in outputs if path and output_stream(path) is None]
    for index, (option, path) in enumerate(named):
        for other_option, other in named[index + 1:]:
            if same_file(path, other):
                raise OutputRefused(f"{option} {path} and {other_option} {other} are the same file: the second "
                                    "write would replace the first; give two different files")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_TEMP_TRIES = 100


@contextlib.contextmanager
def atomic_output(output: str, option: str = "-o") -> Iterator[BinaryIO]:
    """Write ``output`` atomically: yield a temporary file in the same folder; on success it is
    flushed, fsynced and renamed over the target; on any error (or Ctrl-C) it is removed.

    The folder is opened once and every later step is relative to it, so a folder renamed or
    swapped for a link in the meantime cannot redirect the write. Raises :class:`OutputRefused`
    when the target is not a new name or a regular file (checked before writing and again just
    before the rename).
    """
    target = check_output_target(output, option)
    folder, base = os.path.split(target)
    folder_fd = os.open(folder or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        try:
            old_mode: Optional[int] = stat.S_IMODE(os.stat(base, dir_fd=folder_fd, follow_symlinks=False).st_mode)
        except OSError:
            old_mode = None
        fd, tmp = _create_temporary(folder_fd, base)
        try:
            with os.fdopen(fd, "wb") as fh:
                yield fh
                fh.flush()
                os.fchmod(fh.fileno(), old_mode if old_mode is not None else 0o666 & ~_umask())
                os.fsync(fh.fileno())
            # The name may have been replaced by a device, a folder or a link while we wrote.
            _recheck(output, base, folder_fd, option)
            os.replace(tmp, base, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder_fd)
            raise
        with contextlib.suppress(OSError):  # make the rename itself durable (best effort)
            os.fsync(folder_fd)
    finally:
        os.close(folder_fd)


def _create_temporary(folder_fd: int, base: str) -> Tuple[int, str]:
    """A new hidden file beside ``base`` (``.BASE.XXXXXXXX.tmp``), never an existing name or a link."""
    import secrets  # here: writing to standard output (most runs) needs none

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(_TEMP_TRIES):
        name = f".{base[:100]}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(name, flags, 0o600, dir_fd=folder_fd), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", base)


def _recheck(output: str, base: str, folder_fd: int, option: str) -> None:
    try:
        mode = os.stat(base, dir_fd=folder_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OutputRefused(f"{option} {output}: changed into {describe_kind(mode)} while the output was written; "
                            "nothing was written")


def open_output_stream(output: str, option: str = "-o") -> IO[str]:
    """``output`` opened for a stream of lines (``watch -o``): created, or an existing regular file
    emptied. The final name is opened without following a link (``O_NOFOLLOW``) and without
    blocking, and what was opened is checked again: a FIFO, device or link in its place is refused,
    and so is a file with other hard links (emptying it would empty the other names too)."""
    check_output_target(output, option)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(output, flags, 0o666)  # the umask applies
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refusal(output, "is a symbolic link (never written through)", option) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refusal(output, f"is {describe_kind(st.st_mode)}", option)
        if st.st_nlink > 1:
            raise OutputRefused(f"{option} {output}: has {st.st_nlink} names (hard links); emptying it would change "
                                "the others too; name another file")
        os.ftruncate(fd, 0)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "w", encoding="utf-8", buffering=1)
