"""What every command runs inside (installed once, by the group's ``invoke``):

* SIGINT/SIGTERM handling (``ascend_doctor.interrupt``): children killed with their process
  group, temporary files removed on the way out, exit 130 (Ctrl-C) or 143 (SIGTERM);
* standard output and error that survive a closed pipe: ``ascend-doctor check | head`` must end
  quietly with the exit code of the result, not with "internal error: BrokenPipeError", not with
  rich's exit 1, and not with the interpreter's "Exception ignored ... BrokenPipeError" at exit.
  Writes to a pipe whose reader is gone are dropped (the descriptor is pointed at /dev/null) and
  the command finishes normally.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import Any, Iterator, List, Tuple

import click

from ascend_doctor import interrupt
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.i18n import gettext as _


class _PipeSafeRaw(io.RawIOBase):
    """A file descriptor whose writes never raise ``BrokenPipeError``."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.broken = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        size = len(memoryview(data))
        if self.broken:
            return size
        try:
            return os.write(self._fd, data)
        except BrokenPipeError:
            self.broken = True
            _point_at_devnull(self._fd)
            return size

    def close(self) -> None:  # the descriptor belongs to the process, not to us
        if not self.closed:
            super().close()


def _point_at_devnull(fd: int) -> None:
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def _pipe_safe(stream: Any) -> Any:
    """A text stream like ``stream`` whose closed-pipe errors are swallowed; ``stream`` itself
    when it has no file descriptor (tests' captured streams) or is already safe."""
    if isinstance(getattr(stream, "buffer", None), io.BufferedWriter) and \
            isinstance(getattr(stream.buffer, "raw", None), _PipeSafeRaw):
        return stream
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return stream
    with contextlib.suppress(OSError, ValueError):
        stream.flush()
    safe = io.TextIOWrapper(io.BufferedWriter(_PipeSafeRaw(fd)), encoding=stream.encoding or "utf-8",
                            errors=getattr(stream, "errors", None) or "strict",
                            line_buffering=bool(getattr(stream, "line_buffering", False)))
    return safe


@contextlib.contextmanager
def _safe_std_streams() -> Iterator[None]:
    saved: List[Tuple[str, Any]] = []
    for name in ("stdout", "stderr"):
        original = getattr(sys, name)
        if original is None:
            continue
        safe = _pipe_safe(original)
        if safe is not original:
            saved.append((name, original))
            setattr(sys, name, safe)
    try:
        yield
    finally:
        for name, original in saved:
            current = getattr(sys, name)
            with contextlib.suppress(OSError, ValueError):
                current.flush()
            setattr(sys, name, original)


@contextlib.contextmanager
def command_runtime() -> Iterator[None]:
    """Run one command with pipe-safe standard streams and Ctrl-C/SIGTERM handling."""
    with _safe_std_streams(), interrupt.signals_handled():
        try:
            yield
        except KeyboardInterrupt as exc:
            terminated = isinstance(exc, interrupt.Terminated)
            interrupt.cancel()  # kill whatever child is left, stop the worker threads
            with contextlib.suppress(Exception):
                click.echo("", err=True)  # end the terminal's ^C line
                click.echo("ascend-doctor: " + (_("terminated (SIGTERM); nothing was written") if terminated
                                                else _("interrupted; nothing was written")), err=True)
            code = ExitCode.TERMINATED if terminated else ExitCode.INTERRUPTED
            raise click.exceptions.Exit(int(code)) from None
