"""Ctrl-C and SIGTERM end a run at once, whatever is running.

The slow parts of a run are child commands (a hung ``npu-smi``), hashing weights and scanning
logs, some of them on worker threads. Python delivers a signal to the main thread only, and a
child started in its own session (so that a timeout can kill its whole group) does not get the
terminal's Ctrl-C at all. So the command line installs :func:`signals_handled`, whose handler

* marks the run as cancelled (:func:`requested`), which worker loops poll between chunks,
* kills the process group of every child command still registered (:func:`register_group`),
* raises ``KeyboardInterrupt`` (SIGINT) or :class:`Terminated` (SIGTERM, a subclass) in the
  main thread, so ``finally`` blocks remove temporary files on the way out.

The command line turns those into exit codes 130 and 143 (``ExitCode.INTERRUPTED`` /
``ExitCode.TERMINATED``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Any, Dict, Iterator, Optional, Set

_cancel = threading.Event()
_groups: Set[int] = set()
_groups_lock = threading.Lock()
_received: Optional[int] = None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so the same clean-up runs (exit code 143, not 130)."""


class Cancelled(Exception):
    """Raised on worker threads that notice the run was interrupted."""


def requested() -> bool:
    """True once SIGINT/SIGTERM arrived (or :func:`cancel` was called) in this run."""
    return _cancel.is_set()


def raise_if_requested() -> None:
    if _cancel.is_set():
        raise Cancelled("interrupted")


def received_signal() -> Optional[int]:
    return _received


def register_group(pgid: int) -> None:
    """A child command running in its own process group, to kill if the run is interrupted."""
    with _groups_lock:
        _groups.add(pgid)
    if _cancel.is_set():  # interrupted between the start of the child and this call
        _kill(pgid)


def unregister_group(pgid: int) -> None:
    with _groups_lock:
        _groups.discard(pgid)


def _kill(pgid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pgid, signal.SIGKILL)


def cancel(signum: Optional[int] = None) -> None:
    """Stop everything: set the flag the workers poll and kill every registered child group."""
    global _received
    if signum is not None and _received is None:
        _received = signum
    _cancel.set()
    with _groups_lock:
        groups = list(_groups)
    for pgid in groups:
        _kill(pgid)


def _handler(signum: int, _frame: Any) -> None:
    cancel(signum)
    if signum == signal.SIGTERM:
        raise Terminated()
    raise KeyboardInterrupt()


@contextlib.contextmanager
def signals_handled() -> Iterator[None]:
    """Install the SIGINT/SIGTERM handlers for one command (main thread only; elsewhere, e.g. a
    command invoked from a worker thread, nothing is installed) and restore the previous ones."""
    global _received
    _cancel.clear()
    _received = None
    previous: Dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) == signal.SIG_IGN:  # (an int, or a Handlers member equal to it)
                continue  # started with the signal ignored (nohup, a background job): keep it so
            with contextlib.suppress(ValueError, OSError):  # not allowed here (embedded interpreter)
                previous[signum] = signal.signal(signum, _handler)
    try:
        yield
    finally:
        for restored, old in previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(restored, old)
