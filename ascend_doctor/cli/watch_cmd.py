"""``ascend-doctor watch``: sample ``npu-smi info`` every few seconds, alert on changes (docs/watch.md)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from typing import IO, Any, Optional

import click

from ascend_doctor.cli._common import fail, handle_errors
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.watch.thresholds import DEFAULT_INTERVAL_S, Thresholds

_DEFAULTS = Thresholds()
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM


class _Terminated(KeyboardInterrupt):
    """Raised by our SIGTERM handler so the loop ends at once, wherever it waits."""


def _is_sigterm(exc: KeyboardInterrupt) -> bool:
    # Ours, or the one a command-wide SIGTERM handler raises (a KeyboardInterrupt subclass
    # named Terminated), so the exit code stays 143 whoever installed the handler.
    return isinstance(exc, _Terminated) or type(exc).__name__ == "Terminated"


@click.command("watch")
@click.option("--interval", type=click.FloatRange(0.5, 86400), default=DEFAULT_INTERVAL_S, show_default=True,
              metavar="S", help="Seconds between samples. With --replay: the time "
              "between the captures, used for rates; a replay does not wait.")
@click.option("--once", is_flag=True, help="Take one sample, print it and exit (same as --count 1).")
@click.option("--count", type=click.IntRange(1, None), default=None, metavar="N",
              help="Stop after N samples (default: run until Ctrl-C; with --replay: every capture).")
@click.option("--replay", "replay_dir", metavar="DIR", default=None,
              help="Replay a folder of successive `npu-smi info` captures (*.txt, sorted by name; "
              "*.timeout = a hung npu-smi) instead of running npu-smi.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True,
              help="text: a live table on a terminal, plain lines otherwise; json: one JSON object per "
              "sample and per alert, one per line, on stdout.")
@click.option("-o", "--output", "output", metavar="FILE", default=None,
              help="Write the sample stream (plain or JSON lines) to FILE instead of stdout, "
              "truncated at start and flushed after each sample; alerts still go to stderr.")
@click.option("--prometheus", "prometheus", metavar="FILE", default=None,
              help="Rewrite FILE atomically after each sample with node_exporter textfile metrics "
              "(name it *.prom in the collector's folder).")
@click.option("--on-alert", "on_alert", metavar="CMD", default=None,
              help="Run CMD for each alert raised or cleared, with the alert as one JSON object on its "
              "stdin (no shell: use sh -c '...' for pipes).")
@click.option("--on-alert-timeout", type=click.FloatRange(0.1, 3600), default=10.0, show_default=True,
              metavar="S", help="Kill the --on-alert command after S seconds (reported, not fatal).")
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=10.0, show_default=True, metavar="S",
              help="Seconds to wait for npu-smi; a hung npu-smi gives a stale sample and an alert.")
@click.option("--temp-max", type=float, default=_DEFAULTS.temp_max_c, show_default=True, metavar="C",
              help="WARN above this temperature (throttling risk); the chip's health status Alarm/Critical is "
              "the FAIL.")
@click.option("--hbm-growth", "memory_growth", type=click.FloatRange(0.1, 100),
              default=_DEFAULTS.memory_growth_pct, show_default=True, metavar="PCT",
              help="WARN when a chip's memory in use grows by more than PCT % of its capacity above the level "
              "it settled at after its engine started (engines reserve 90-95 % at start: that is not an alert).")
@click.option("--hbm-max", "memory_max", type=click.FloatRange(0, 100), default=None, metavar="PCT",
              help="Also WARN above this fixed share of HBM in use (off by default: serving engines reserve "
              "most of it at start).")
@click.option("--load", "load_applied", is_flag=True,
              help="Requests are being sent while this watch runs (a benchmark, `ascend-doctor probe`): "
              "enables the low-AICore rule, which means nothing on an idle engine.")
@click.option("--aicore-min", type=click.FloatRange(0, 100), default=_DEFAULTS.aicore_min_pct,
              show_default=True, metavar="PCT",
              help="With --load: WARN below this AICore % while processes hold the chip.")
@click.option("--aicore-samples", type=click.IntRange(1, 1000), default=None, metavar="N",
              help="Consecutive low AICore samples before alerting (default: 5 minutes' worth at --interval).")
@click.option("--ecc", is_flag=True,
              help="Also read `npu-smi info -t ecc -i N` of every NPU at each sample: FAIL on new uncorrectable "
              "errors or retired pages, WARN on new corrected ones.")
@click.option("--leak-window", type=click.FloatRange(1, 7 * 86400), default=_DEFAULTS.leak_window_s,
              show_default=True, metavar="S", help="Seconds of history the memory-growth fit covers.")
@click.option("--leak-min-rate", type=click.FloatRange(0.001, None), default=_DEFAULTS.leak_min_rate_mb_h,
              show_default=True, metavar="MB/H", help="Growth of a process's memory that counts as a leak.")
@click.option("--hostname", "hostname", metavar="NAME", default=None,
              help="host label in alerts and metrics (default: this machine's name; the folder's with --replay).")
@handle_errors
def watch(interval: float, once: bool, count: Optional[int], replay_dir: Optional[str], fmt: str,
          output: Optional[str], prometheus: Optional[str], on_alert: Optional[str], on_alert_timeout: float,
          timeout: float, temp_max: float, memory_growth: float, memory_max: Optional[float], load_applied: bool,
          aicore_min: float, aicore_samples: Optional[int], ecc: bool, leak_window: float, leak_min_rate: float,
          hostname: Optional[str]) -> None:
    """Watch the NPUs: health, temperature, power, AICore, memory and processes per chip.

    Samples `npu-smi info` every --interval seconds and raises an alert once when a chip turns
    unhealthy (Alarm/Critical: FAIL), vanishes, gets hot (> 85 C: WARN), when its memory grows
    beyond the level it settled at after its engine started or a second process joins it, when
    a process's memory grows steadily while the load does not (a leak), with --load when AICore
    stays low, and with --ecc when ECC counters grow; it clears the alert once when the
    condition ends. Alerts go to stderr and to --on-alert. A hung npu-smi becomes a stale
    sample, never a frozen screen.

    \b
    Examples:
      ascend-doctor watch                                # live table, every 10 s
      ascend-doctor watch --once --format json           # one JSON sample, then exit
      ascend-doctor watch --prometheus /var/lib/node_exporter/textfile/ascend.prom
      ascend-doctor watch --format json -o /var/log/npu-watch.jsonl \\
          --on-alert "/usr/local/bin/notify-oncall"
      ascend-doctor watch --replay captures/ --interval 300   # captures 5 min apart
      ascend-doctor watch --load --ecc                   # while a benchmark runs

    \b
    Exit codes (with --once / --count / --replay): 0 no alert raised at the end, 1 an alert
    still raised, 2 usage error, 3 no readable sample (npu-smi missing, hung or unreadable).
    Ctrl-C ends at once with 130, SIGTERM with 143.
    """
    from ascend_doctor.watch.loop import FORMAT_JSON, Watch, WatchAbort, WatchSettings

    if once and count is not None:
        raise click.UsageError("--once and --count N: give one of them")
    if once:
        count = 1
    thresholds = Thresholds(temp_max_c=temp_max, memory_max_pct=memory_max, memory_growth_pct=memory_growth,
                            aicore_min_pct=aicore_min, aicore_samples=aicore_samples, load_applied=load_applied,
                            leak_window_s=leak_window, leak_min_rate_mb_h=leak_min_rate)
    _guard_outputs(output, prometheus, replay_dir)
    host, clock, count = _host_and_clock(replay_dir, timeout, hostname, count)
    label = hostname or host.info().hostname or "localhost"
    hook = _make_hook(on_alert, on_alert_timeout)
    to_stdout = output in (None, "-")
    out: IO[str] = sys.stdout if to_stdout else _open_stream(str(output))
    live_table = fmt != FORMAT_JSON and to_stdout and sys.stdout.isatty()
    settings = WatchSettings(interval_s=interval, count=count, timeout_s=timeout, thresholds=thresholds,
                             fmt=fmt, live_table=live_table, prometheus=prometheus, ecc=ecc)
    previous = _on_sigterm()
    code = int(ExitCode.INCOMPLETE)
    try:
        runner = Watch(host, clock, settings, label, out, hook=hook)
        code = runner.run()
        if hook is not None and not hook.drain(on_alert_timeout + 1.0):
            click.echo("ascend-doctor: --on-alert still running at exit; stopped", err=True)
    except WatchAbort as exc:
        _stop(hook, out)
        fail(str(exc), ExitCode.INCOMPLETE)
    except KeyboardInterrupt as exc:
        _stop(hook, out)
        terminated = _is_sigterm(exc)
        click.echo("ascend-doctor: " + ("terminated (SIGTERM)" if terminated else "interrupted"), err=True)
        sys.exit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED)
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, and keep Python from complaining at exit.
        _stop(hook, None)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(int(ExitCode.OK))
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    _stop(hook, out)
    sys.exit(code)


def _host_and_clock(replay_dir: Optional[str], timeout: float, hostname: Optional[str],
                    count: Optional[int]) -> Any:
    from ascend_doctor.watch.source import ReplayClock, ReplayError, ReplayHost, SystemClock

    if replay_dir:
        try:
            replay = ReplayHost(replay_dir, hostname)
        except ReplayError as exc:
            fail(f"--replay: {exc}", ExitCode.USAGE)
        count = len(replay) if count is None else min(count, len(replay))
        return replay, ReplayClock(time.time()), count
    from ascend_doctor.host.live import LiveHost

    return LiveHost(timeout_s=timeout), SystemClock(), count


def _guard_outputs(output: Optional[str], prometheus: Optional[str], replay_dir: Optional[str]) -> None:
    """-o and --prometheus: never a link, a device or a folder, never inside the --replay folder
    (a capture replaced before it is read), never the same file (exit 2, before any sample)."""
    from ascend_doctor.cli._common import guard_output

    folders = (replay_dir,)
    if output not in (None, "-"):
        guard_output(output, folders=folders, other_outputs=(("--prometheus", prometheus),))
    if prometheus:
        guard_output(prometheus, folders=folders, option="--prometheus")


def _make_hook(command: Optional[str], timeout_s: float) -> Any:
    if not command:
        return None
    from ascend_doctor.watch.loop import write_stderr
    from ascend_doctor.watch.notify import AlertHook, HookError, split_command

    try:
        argv = split_command(command)
    except HookError as exc:
        fail(str(exc), ExitCode.USAGE)
    return AlertHook(argv, timeout_s, write_stderr)


def _open_stream(path: str) -> IO[str]:
    """-o FILE for a stream: created or emptied, only ever a regular file, never through a link."""
    from ascend_doctor import safeio

    try:
        return safeio.open_output_stream(path)
    except safeio.OutputRefused as exc:
        fail(str(exc), ExitCode.USAGE)
    except OSError as exc:
        fail(f"-o {path}: {safeio.describe_os_error(exc)}", ExitCode.USAGE)


def _on_sigterm() -> Any:
    """Make SIGTERM end the loop at once, unless a handler is already installed (the command-wide
    one kills child commands too) or SIGTERM is ignored (nohup). Returns what to restore."""
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None

    def handler(_signum: int, _frame: Any) -> None:
        raise _Terminated()

    return signal.signal(signal.SIGTERM, handler)


def _stop(hook: Any, out: Optional[IO[str]]) -> None:
    if hook is not None:
        hook.close()
    if out is not None and out is not sys.stdout:
        with contextlib.suppress(OSError):
            out.close()
