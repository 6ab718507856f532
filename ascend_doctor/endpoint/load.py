"""Requests on worker threads, while the main thread stays free to honour Ctrl-C at once.

Workers are daemon threads: an interrupted probe returns immediately and never waits for a
request that is still hanging (the client's watchdog closes those; if one is stuck somewhere
no timeout reaches, such as a slow DNS lookup, the process still exits).
"""

from __future__ import annotations

import queue
import threading
import time
from typing import Callable, List, Optional, TypeVar

from ascend_doctor.endpoint import records as rec

T = TypeVar("T")
POLL_S = 0.1
TICK_S = 1.0


class Stopped(Exception):
    """A bounded call ran out of time (the worker is abandoned)."""


def run_bounded(func: Callable[[], T], limit_s: float, cancel: threading.Event,
                on_interrupt: Callable[[], None]) -> T:
    """``func()`` on a worker thread; Stopped after ``limit_s`` or when ``cancel`` is set."""
    box: List[T] = []
    errors: List[BaseException] = []
    done = threading.Event()

    def work() -> None:
        try:
            box.append(func())
        except BaseException as exc:  # handed to the caller's thread
            errors.append(exc)
        finally:
            done.set()

    threading.Thread(target=work, name="probe-call", daemon=True).start()
    deadline = time.monotonic() + limit_s
    try:
        while not done.wait(POLL_S):
            if cancel.is_set() or time.monotonic() > deadline:
                on_interrupt()
                raise Stopped()
    except KeyboardInterrupt:
        cancel.set()
        on_interrupt()
        raise
    if errors:
        raise errors[0]
    return box[0]


def run_phase(phase: rec.LoadPhase, send: Callable[[], rec.Reply], cancel: threading.Event,
              abort: Callable[[], None], total: Optional[int] = None, stop_at: Optional[float] = None,
              grace_s: float = 0.0, tick: Optional[Callable[[rec.LoadPhase], None]] = None) -> None:
    """Send requests from ``phase.concurrency`` workers until ``total`` are done (or, with
    ``stop_at``, until that time; requests still running ``grace_s`` later are cut and counted
    in ``phase.cut_at_deadline``). Replies land in ``phase.replies`` as they finish, so that an
    interrupted phase keeps what it measured."""
    results: queue.Queue[rec.Reply] = queue.Queue()
    lock = threading.Lock()
    started_jobs = [0]

    def take_job() -> bool:
        with lock:
            if cancel.is_set():
                return False
            if total is not None and started_jobs[0] >= total:
                return False
            if stop_at is not None and time.monotonic() >= stop_at:
                return False
            started_jobs[0] += 1
            return True

    def worker() -> None:
        while take_job():
            try:
                reply = send()
            except Exception as exc:  # a bug in our own code must not lose the phase
                reply = rec.Reply(outcome=rec.BAD_REPLY, detail=f"{type(exc).__name__}: {exc}")
            results.put(reply)

    threads = [threading.Thread(target=worker, name=f"probe-{phase.name}-{i}", daemon=True)
               for i in range(max(1, phase.concurrency))]
    started = time.monotonic()
    cpu_started = time.process_time()  # this process, every thread: what the client itself cost
    last_done = started
    next_tick = started + TICK_S
    for thread in threads:
        thread.start()
    try:
        while True:
            try:
                phase.replies.append(results.get(timeout=POLL_S))
                last_done = time.monotonic()
                continue
            except queue.Empty:
                pass
            now = time.monotonic()
            if not any(t.is_alive() for t in threads) and results.empty():
                break
            if cancel.is_set():
                phase.interrupted = True
                abort()
                break
            if stop_at is not None and now > stop_at + grace_s:
                with lock:
                    phase.cut_at_deadline = started_jobs[0] - len(phase.replies) - results.qsize()
                abort()
                _drain(results, phase)
                break
            if tick is not None and now >= next_tick:
                tick(phase)
                next_tick = now + TICK_S
    except KeyboardInterrupt:
        cancel.set()
        phase.interrupted = True
        abort()
        raise
    finally:
        phase.wall_s = (last_done if phase.replies else time.monotonic()) - started
        phase.client_cpu_s = time.process_time() - cpu_started


def _drain(results: queue.Queue[rec.Reply], phase: rec.LoadPhase) -> None:
    """Replies that finished just before the cut still count."""
    while True:
        try:
            reply = results.get_nowait()
        except queue.Empty:
            return
        if reply.outcome != rec.CANCELLED:
            phase.replies.append(reply)
