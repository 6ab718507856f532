"""Where samples come from: ``npu-smi info`` through a host, live or replayed.

The watch loop only needs two things of a host, ``info()`` and ``run()``; ``CommandHost`` names
that narrow seam, which ``LiveHost`` (and any full ``Host``) satisfies, and so does
``ReplayHost``, a directory of captures played back one per call. Live and replay therefore
share every line after ``run``.

``Sampler.take`` runs the command in a worker thread and waits at most the host's command
timeout plus a grace period: ``LiveHost`` already kills a hung ``npu-smi``, and the grace covers
a process the kernel will not let die (state D) so that even then the loop moves on with a
stale sample. At most one command is outstanding: while a previous one is still stuck, new
samples are stale without starting another ``npu-smi``.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from typing import Dict, List, Optional, Sequence, Tuple

from ascend_doctor.host.base import CommandResult, CommandStatus, HostInfo
from ascend_doctor.i18n import _
from ascend_doctor.watch.model import (
    STATUS_ERROR,
    STATUS_OK,
    STATUS_TIMEOUT,
    EccSample,
    Sample,
    chips_from_info,
)

try:
    from typing import Protocol
except ImportError:  # pragma: no cover
    from typing_extensions import Protocol  # type: ignore

NPU_SMI_INFO: Tuple[str, ...] = ("npu-smi", "info")
ECC_QUERY: Tuple[str, ...] = ("npu-smi", "info", "-t", "ecc", "-i")  # + the NPU id
# Beyond the command timeout, how long the loop waits for the host to give up on a process.
GRACE_S = 2.0

# Replay: which files are captures, and how big one may be (npu-smi info on 16 chips is ~8 KB).
REPLAY_CAPTURE_SUFFIX = ".txt"
REPLAY_HUNG_SUFFIX = ".timeout"  # same convention as a snapshot's commands/<cmd>.timeout
REPLAY_MAX_FILE_BYTES = 1024 * 1024
REPLAY_MAX_FILES = 100_000
# Beside capture NNNN.txt, a folder NNNN.ecc/ holds that moment's `npu-smi info -t ecc -i <N>` as <N>.txt.
REPLAY_ECC_SUFFIX = ".ecc"
MAX_ECC_NPUS = 64  # ECC queries per sample (a server has at most 16 NPUs)


class CommandHost(Protocol):
    """What the watch loop asks of a host (a subset of ``ascend_doctor.host.base.Host``)."""

    def info(self) -> HostInfo: ...

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult: ...


class Clock(Protocol):
    def now(self) -> float:
        """Wall clock, seconds since the epoch."""
        ...

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)  # interrupted at once by Ctrl-C (KeyboardInterrupt)


class ReplayClock:
    """Time that moves only when the loop sleeps: captures are ``--interval`` seconds apart.

    The wall clock starts at ``start`` (the moment the replay began), so sample times and rates
    (MB/h) read as if the captures had been taken at the interval from then on.
    """

    def __init__(self, start: float) -> None:
        self.start = start
        self.offset = 0.0

    def now(self) -> float:
        return self.start + self.offset

    def monotonic(self) -> float:
        return self.offset

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.offset += seconds


class ReplayError(Exception):
    """The replay directory cannot be used (one-line message)."""


def replay_files(directory: str) -> List[str]:
    """Capture files of a replay directory, in replay order (sorted by name).

    ``*.txt`` files hold the standard output of one ``npu-smi info`` each; a ``*.timeout`` file
    stands for an ``npu-smi`` that hung at that point (its content, if a number, is the seconds
    it was waited for). Other names, hidden files, sub-directories and anything that is not a
    regular file (or a link to one) are ignored, so a README can sit beside the captures.
    Name them so that they sort: ``0001.txt``, ``0002.txt``...
    """
    try:
        entries = sorted(os.listdir(directory))
    except FileNotFoundError:
        raise ReplayError(_("{directory}: no such directory").format(directory=directory)) from None
    except NotADirectoryError:
        raise ReplayError(_("{directory}: not a directory (give a folder of npu-smi info captures)").format(
            directory=directory)) from None
    except PermissionError:
        raise ReplayError(_("{directory}: permission denied").format(directory=directory)) from None
    except OSError as exc:
        raise ReplayError(f"{directory}: {exc.strerror or exc}") from None
    if len(entries) > REPLAY_MAX_FILES:
        raise ReplayError(_("{directory}: more than {count} entries; split the replay").format(
            directory=directory, count=REPLAY_MAX_FILES))
    files = []
    for name in entries:
        if name.startswith(".") or not name.endswith((REPLAY_CAPTURE_SUFFIX, REPLAY_HUNG_SUFFIX)):
            continue
        path = os.path.join(directory, name)
        try:
            mode = os.stat(path).st_mode  # a link to a capture is fine; a FIFO or device is not
        except OSError:
            continue
        if stat.S_ISREG(mode):
            files.append(path)
    if not files:
        raise ReplayError(_("{directory}: no *.txt npu-smi info captures in it").format(directory=directory))
    return files


def _read_capture(path: str) -> str:
    """A regular file's text, bounded; never opens a FIFO or device (O_NONBLOCK + fstat)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(_("{path}: not a regular file").format(path=path))
        data = os.read(fd, REPLAY_MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > REPLAY_MAX_FILE_BYTES:
        raise OSError(_("larger than {size} bytes: not one npu-smi info capture").format(size=REPLAY_MAX_FILE_BYTES))
    return _strip_source_header(data.decode("utf-8", errors="replace"))


def _strip_source_header(text: str) -> str:
    """Drop the ``# source:`` ... ``# ---`` header the project's samples carry."""
    if not text.startswith("# source:"):
        return text
    marker = text.find("\n# ---")
    if marker < 0:
        return text
    end = text.find("\n", marker + 1)
    return "" if end < 0 else text[end + 1 :]


class ReplayHost:
    """A host whose ``npu-smi info`` answers with the next capture of a directory."""

    def __init__(self, directory: str, hostname: Optional[str] = None) -> None:
        self.directory = directory
        self.files = replay_files(directory)
        self.position = 0
        self.hostname = hostname or os.path.basename(os.path.normpath(directory)) or "replay"
        self.current: Optional[str] = None  # the capture last served, whose ECC folder answers ECC queries

    def __len__(self) -> int:
        return len(self.files)

    def info(self) -> HostInfo:
        return HostInfo(source="replay", hostname=self.hostname, arch=None, kernel=None, os=None,
                        origin=self.directory)

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        args = tuple(str(a) for a in argv)
        if args[:len(ECC_QUERY)] == ECC_QUERY and len(args) == len(ECC_QUERY) + 1:
            return self._ecc(args)
        if args != NPU_SMI_INFO:
            return CommandResult(args, CommandStatus.NOT_FOUND, detail=_("a replay only answers `npu-smi info`"))
        if self.position >= len(self.files):
            return CommandResult(args, CommandStatus.ERROR, detail=_("the replay has no more captures"))
        path = self.files[self.position]
        self.position += 1
        self.current = path
        try:
            text = _read_capture(path)
        except OSError as exc:
            return CommandResult(args, CommandStatus.ERROR, detail=_("cannot read {path}: {error}").format(
                path=path, error=exc.strerror or exc))
        if path.endswith(REPLAY_HUNG_SUFFIX):
            waited = _to_seconds(text, timeout)
            return CommandResult(args, CommandStatus.TIMEOUT, duration_s=waited, timeout_s=waited,
                                 detail=_("hung in the replayed capture {file}").format(file=os.path.basename(path)))
        return CommandResult(args, CommandStatus.OK, returncode=0, stdout=text)


    def _ecc(self, args: Tuple[str, ...]) -> CommandResult:
        npu = args[-1]
        if self.current is None or not npu.isdigit():
            return CommandResult(args, CommandStatus.NOT_FOUND, detail=_("no ECC capture for this sample"))
        stem = self.current.rsplit(".", 1)[0]
        path = os.path.join(stem + REPLAY_ECC_SUFFIX, f"{int(npu)}.txt")
        try:
            text = _read_capture(path)
        except OSError:
            return CommandResult(args, CommandStatus.NOT_FOUND, detail=_("no ECC capture for this sample"))
        return CommandResult(args, CommandStatus.OK, returncode=0, stdout=text)


def _to_seconds(text: str, default: Optional[float]) -> float:
    try:
        return float(text.strip())
    except ValueError:
        return default if default is not None else 0.0


class Sampler:
    """Takes numbered samples of ``npu-smi info`` from a host, never waiting past the timeout."""

    def __init__(self, host: CommandHost, clock: Clock, timeout_s: float, hostname: str, ecc: bool = False) -> None:
        self.host = host
        self.ecc = ecc
        self.clock = clock
        self.timeout_s = timeout_s
        self.hostname = hostname
        self.started_wall = clock.now()
        self.started_mono = clock.monotonic()
        self._busy: Optional[threading.Thread] = None  # a command that outlived its wait
        self._busy_seq = 0
        # How the last command ended (None when it never came back): the loop gives up at once
        # when npu-smi is not installed or not allowed, instead of watching nothing forever.
        self.last_status: Optional[CommandStatus] = None

    def take(self, seq: int) -> Sample:
        wall = self.clock.now()
        elapsed = self.clock.monotonic() - self.started_mono
        if self._busy is not None and self._busy.is_alive():
            reason = _("`npu-smi info` from sample {seq} is still running (stuck in the driver?); no new one "
                       "started").format(seq=self._busy_seq)
            self.last_status = None
            return Sample(seq, wall, elapsed, self.hostname, STATUS_TIMEOUT, reason)
        self._busy = None
        result, waited = self._run_bounded(seq)
        self.last_status = None if result is None else result.status
        if result is None:
            reason = _("`npu-smi info` gave no answer within {seconds} s and could not be stopped (stuck in the "
                       "driver?)").format(seconds=f"{waited:g}")
            return Sample(seq, wall, elapsed, self.hostname, STATUS_TIMEOUT, reason, duration_s=waited)
        sample = sample_from_result(result, seq, wall, elapsed, self.hostname)
        if self.ecc and not sample.stale:
            sample = Sample(sample.seq, sample.time, sample.elapsed_s, sample.host, sample.status, sample.reason,
                            sample.chips, sample.duration_s, sample.npu_smi_version, sample.warnings,
                            self._ecc_readings(seq, sample))
        return sample

    def _ecc_readings(self, seq: int, sample: Sample) -> Tuple[EccSample, ...]:
        """Each NPU's ECC counters; a query that fails or hangs gives no reading (nothing changes)."""
        from ascend_doctor.parsers.npu_smi import NpuSmiParseError
        from ascend_doctor.parsers.npu_smi_ecc import parse_npu_smi_ecc

        out: List[EccSample] = []
        chips_of: Dict[int, List[int]] = {}
        for chip in sample.chips:
            chips_of.setdefault(chip.npu_id, []).append(chip.chip_id)
        for npu in sorted(chips_of)[:MAX_ECC_NPUS]:
            result, _waited = self._run_bounded(seq, ECC_QUERY + (str(npu),))
            if result is None or not result.ok:
                if result is None:
                    break  # stuck in the driver: do not start another
                continue
            try:
                info = parse_npu_smi_ecc(result.stdout)
            except NpuSmiParseError:
                continue
            ids = chips_of[npu]
            for index, counters in enumerate(info.chips):
                chip_id = counters.chip_id if counters.chip_id is not None else (
                    ids[index] if index < len(ids) else None)
                if chip_id is None:
                    continue
                out.append(EccSample(npu, chip_id, counters.total("single", "errors"),
                                     counters.total("double", "errors"),
                                     counters.total("double", "isolated") + counters.total("single", "isolated")
                                     + counters.total("double", "next_isolated")
                                     + counters.total("single", "next_isolated")))
        return tuple(out)

    def _run_bounded(self, seq: int, argv: Tuple[str, ...] = NPU_SMI_INFO
                     ) -> Tuple[Optional[CommandResult], float]:
        box: List[CommandResult] = []
        done = threading.Event()

        def work() -> None:
            try:
                box.append(self.host.run(argv, timeout=self.timeout_s))
            except Exception as exc:  # a host must not raise; if one does, it is a stale sample
                box.append(CommandResult(argv, CommandStatus.ERROR, detail=f"{type(exc).__name__}: {exc}"))
            finally:
                done.set()

        worker = threading.Thread(target=work, name=f"ascend-doctor-watch-sample-{seq}", daemon=True)
        started = time.monotonic()
        worker.start()
        done.wait(self.timeout_s + GRACE_S)
        if not box:
            self._busy, self._busy_seq = worker, seq
            return None, time.monotonic() - started
        return box[0], box[0].duration_s


def sample_from_result(result: CommandResult, seq: int, wall: float, elapsed: float, hostname: str) -> Sample:
    """Turn one ``npu-smi info`` result into a sample (stale when it is not a readable table)."""
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_info

    if result.status is CommandStatus.TIMEOUT:
        return Sample(seq, wall, elapsed, hostname, STATUS_TIMEOUT, result.describe_failure(),
                      duration_s=result.duration_s)
    if not result.ok:
        return Sample(seq, wall, elapsed, hostname, STATUS_ERROR, result.describe_failure(),
                      duration_s=result.duration_s)
    try:
        info = parse_npu_smi_info(result.stdout)
    except NpuSmiParseError as exc:
        return Sample(seq, wall, elapsed, hostname, STATUS_ERROR, str(exc), duration_s=result.duration_s)
    return Sample(seq, wall, elapsed, hostname, STATUS_OK, "", chips=chips_from_info(info),
                  duration_s=result.duration_s, npu_smi_version=info.version, warnings=tuple(info.warnings))
