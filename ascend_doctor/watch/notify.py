"""``--on-alert CMD``: run a command for each alert event, with the alert as JSON on its stdin.

The JSON is made by ascend_doctor/render/watch.py ``alert_payload``; this module only delivers it.

The sampling loop never waits for it: events go into a bounded queue that one worker thread
drains, running the command once per event (in order) with a timeout. A command that fails,
hangs or is missing is *reported* on stderr, one line, and the watch goes on. When the queue
is full (a hook far slower than the alerts) new events are dropped and counted.

The command line is split like a shell would (``shlex``) but run without a shell; wrap it in
``sh -c '...'`` for pipes or redirections. Its stdout goes to our stderr so it can never mix
into a JSON stream on stdout. It runs in its own process group, which is killed on timeout and
when the watch ends.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Callable, List, Optional, Tuple

from ascend_doctor.i18n import _

QUEUE_SIZE = 64


class HookError(Exception):
    """The --on-alert command line cannot be used (one-line message)."""


def split_command(command: str) -> List[str]:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise HookError(_("--on-alert: cannot split {command}: {error}").format(command=repr(command),
                                                                               error=exc)) from None
    if not argv:
        raise HookError(_("--on-alert: empty command"))
    return argv


class AlertHook:
    def __init__(self, argv: List[str], timeout_s: float, report: Callable[[str], None]) -> None:
        self.argv = list(argv)
        self.timeout_s = timeout_s
        self.report = report
        self.queue: queue.Queue[Tuple[str, str]] = queue.Queue(maxsize=QUEUE_SIZE)
        self.dropped = 0
        self.ran = 0
        self.failed = 0
        self._current: Optional[subprocess.Popen[bytes]] = None
        self._lock = threading.Lock()
        self._pending = 0  # queued or running
        self._closed = False
        self._done = threading.Condition(self._lock)
        self._worker = threading.Thread(target=self._work, name="ascend-doctor-on-alert", daemon=True)
        self._worker.start()

    def submit(self, payload: str, label: str) -> None:
        """Queue one alert; never blocks. ``payload`` is what the command reads on its stdin,
        ``label`` names the alert in messages (``raise temperature``)."""
        with self._lock:
            self._pending += 1
        try:
            self.queue.put_nowait((payload, label))
        except queue.Full:
            with self._lock:
                self._pending -= 1
            self.dropped += 1
            self.report(_("--on-alert: {count} alert(s) dropped, the command is slower than the alerts").format(
                count=self.dropped))

    def drain(self, max_wait_s: float) -> bool:
        """Wait (bounded) for queued alerts to be handled; True when all were."""
        deadline = time.monotonic() + max_wait_s
        with self._done:
            while self._pending:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._done.wait(remaining)
        return True

    def close(self) -> None:
        """The watch is ending: stop the command still running, run no queued one."""
        with self._lock:
            self._closed = True
            proc = self._current
        if proc is not None:
            _kill_group(proc)

    # -- worker -------------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            item = self.queue.get()
            try:
                self._run_one(item)
            finally:
                with self._done:
                    self._pending -= 1
                    self._done.notify_all()

    def _run_one(self, alert: Tuple[str, str]) -> None:
        if self._closed:
            return
        text, label = alert
        payload = text.encode("utf-8")
        what = f"--on-alert `{shlex.join(self.argv)}` ({label})"
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=_hook_stdout(),
                                    start_new_session=True, close_fds=True)
        except FileNotFoundError:
            self._failed(_("{hook}: command not found").format(hook=what))
            return
        except OSError as exc:
            self._failed(_("{hook}: cannot run it: {error}").format(hook=what, error=exc.strerror or exc))
            return
        with self._lock:
            self._current = proc
        try:
            proc.communicate(payload, timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.wait()
            self._failed(_("{hook}: no exit within {seconds} s, killed").format(hook=what,
                                                                                seconds=f"{self.timeout_s:g}"))
            return
        except OSError as exc:  # e.g. it exited without reading stdin (broken pipe)
            proc.wait()
            if proc.returncode != 0:
                self._failed(f"{what}: {exc.strerror or exc}")
                return
        finally:
            with self._lock:
                self._current = None
        self.ran += 1
        if self._closed:
            self._failed(_("{hook}: stopped, the watch is ending").format(hook=what))
        elif proc.returncode != 0:
            self._failed(_("{hook}: exited with status {code}").format(hook=what, code=proc.returncode))

    def _failed(self, message: str) -> None:
        self.failed += 1
        self.report(message)


def _hook_stdout() -> Any:
    """Our stderr's descriptor, or nowhere when stderr has none (captured by a test harness)."""
    try:
        return sys.stderr.fileno()
    except (OSError, ValueError, AttributeError):
        return subprocess.DEVNULL


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()
