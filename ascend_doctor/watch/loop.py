"""The watch loop: sample, judge, show, export; every ``interval`` seconds, for ever or ``count`` times.

Memory stays bounded however long it runs: only the latest sample (and the latest readable one,
for the table) is kept; alert state is one entry per chip and condition; the leak detector keeps
at most ``leak.MAX_POINTS`` points for each of at most ``leak.MAX_SERIES`` processes; the
``--on-alert`` queue holds at most ``notify.QUEUE_SIZE`` events; output is written and flushed
per sample, never accumulated.

Ticks are kept on the monotonic clock: a sample that overruns the interval (a hung npu-smi
waits for the command timeout) is followed at once by the next, and missed ticks are skipped
rather than caught up in a burst.
"""

from __future__ import annotations

import math
import sys
from typing import IO, Any, Callable, List, Optional

from msgspec import Struct

from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.host.base import CommandStatus
from ascend_doctor.i18n import _
from ascend_doctor.render.prometheus import render_metrics
from ascend_doctor.render.watch import alert_line, alert_payload, build_table, render_watch_sample
from ascend_doctor.watch.alerts import Alert, AlertTracker
from ascend_doctor.watch.model import Sample
from ascend_doctor.watch.notify import AlertHook
from ascend_doctor.watch.prometheus import PrometheusFileError, write_atomically
from ascend_doctor.watch.source import Clock, CommandHost, Sampler
from ascend_doctor.watch.thresholds import Thresholds

FORMAT_TEXT = "text"
FORMAT_JSON = "json"

# Statuses of the first command that mean there is nothing to watch on this machine.
_HOPELESS = (CommandStatus.NOT_FOUND, CommandStatus.PERMISSION_DENIED)


class WatchAbort(Exception):
    """The watch cannot start (npu-smi missing or refused): one line, exit code 3."""


class WatchSettings(Struct, frozen=True):
    interval_s: float
    count: Optional[int]  # None: until interrupted
    timeout_s: float
    thresholds: Thresholds
    fmt: str = FORMAT_TEXT
    live_table: bool = False
    prometheus: Optional[str] = None
    ecc: bool = False  # also read `npu-smi info -t ecc -i N` of every NPU at each sample


def write_stderr(line: str) -> None:
    """One line on whatever sys.stderr is now (rich's live display redirects it above the table)."""
    stream = sys.stderr
    stream.write(line + "\n")
    stream.flush()


class Watch:
    def __init__(self, host: CommandHost, clock: Clock, settings: WatchSettings, hostname: str,
                 out: IO[str], hook: Optional[AlertHook] = None,
                 report: Callable[[str], None] = write_stderr) -> None:
        self.settings = settings
        self.clock = clock
        self.out = out
        self.hook = hook
        self.report = report
        self.sampler = Sampler(host, clock, settings.timeout_s, hostname, ecc=settings.ecc)
        self.tracker = AlertTracker(settings.thresholds, hostname, settings.interval_s)
        self.samples_taken = 0
        self.fresh_samples = 0
        self.last_fresh: Optional[Sample] = None
        self._prometheus_failing = False
        self._live: Any = None

    # -- the loop -----------------------------------------------------------------------
    def run(self) -> int:
        """Sample until ``count`` is reached (or for ever); the exit code when it ends.

        0: no alert raised at the end; 1: an alert still raised; 3: not one readable sample.
        KeyboardInterrupt and the CLI's SIGTERM exception pass through at once.
        """
        if self.settings.live_table:
            from rich.console import Console
            from rich.live import Live

            self._live = Live(console=Console(), auto_refresh=False, redirect_stdout=False,
                              redirect_stderr=True, transient=False)
            self._live.start()
        try:
            self._loop()
        finally:
            if self._live is not None:
                self._live.stop()
        if self.fresh_samples == 0:
            return int(ExitCode.INCOMPLETE)
        return int(ExitCode.FINDINGS if self.tracker.active else ExitCode.OK)

    def _loop(self) -> None:
        interval = self.settings.interval_s
        count = self.settings.count
        next_tick = self.clock.monotonic()
        while count is None or self.samples_taken < count:
            wait = next_tick - self.clock.monotonic()
            if wait > 0:
                self.clock.sleep(wait)
            self.step()
            next_tick += interval
            behind = self.clock.monotonic() - next_tick
            if behind > 0:
                next_tick += math.ceil(behind / interval) * interval

    def step(self) -> Sample:
        """Take, judge and publish one sample."""
        seq = self.samples_taken + 1
        sample = self.sampler.take(seq)
        self.samples_taken = seq
        if seq == 1 and self.sampler.last_status in _HOPELESS:
            raise WatchAbort(_("{reason}: nothing to watch here (is the Ascend driver installed, and are you root or "
                               "in the HwHiAiUser group?)").format(reason=sample.reason))
        if not sample.stale:
            self.fresh_samples += 1
            self.last_fresh = sample
        events = self.tracker.update(sample)
        self._publish(sample, events)
        return sample

    # -- publishing -----------------------------------------------------------------------
    def _publish(self, sample: Sample, events: List[Alert]) -> None:
        if self._live is not None and self.settings.fmt != FORMAT_JSON:
            self._live.update(build_table(sample, self.last_fresh, self.tracker.active_alerts()), refresh=True)
        else:
            self.out.write(render_watch_sample(sample, events, self.settings.fmt))
            self.out.flush()
        for event in events:
            self.report(alert_line(event))
            if self.hook is not None:
                self.hook.submit(alert_payload(event), f"{event.event} {event.kind}")
        if self.settings.prometheus:
            self._export(sample)

    def _export(self, sample: Sample) -> None:
        assert self.settings.prometheus is not None
        text = render_metrics(sample, self.tracker.active_alerts(), self.tracker.leak_readings)
        try:
            write_atomically(self.settings.prometheus, text)
        except PrometheusFileError as exc:
            if not self._prometheus_failing:
                self.report(_("--prometheus: {error} (will keep trying at each sample)").format(error=exc))
            self._prometheus_failing = True
            return
        if self._prometheus_failing:
            self.report(_("--prometheus: {path} written again").format(path=self.settings.prometheus))
        self._prometheus_failing = False
