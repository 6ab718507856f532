#!/usr/bin/env python3
"""Replay the hostile-input review against the current code and count outcomes as the review did.

The review (../shared/research/hostile_inputs.md, version 0.1.0) made 265 attempts: §3a rows
1-237 (scripted) and §3b M1-M28 (by hand). This script makes every input again as §5 of the
review describes (archives, directory snapshots, model folders, manifests, serving configs,
matrix files and a local HTTP server on 127.0.0.1, fake ``npu-smi`` scripts first on PATH,
planted secrets), runs the same command under a time limit and classifies the outcome with the
review's legend:

  OK         behaved as documented (a weakness the review did not count is a "note:")
  BUG        wrong message or wrong exit code
  CRASH      uncaught exception: "internal error" or "the check itself failed"
  TRACEBACK  a Python traceback was printed
  HANG       over 30 s, or killed at the time limit
  ESCAPE     read or wrote outside the intended tree: planted PWNED files, bytes of /etc/shadow
             or /etc/passwd in any output, /etc/shadow read (inotify), a device node or /dev
             link replaced, an input changed
  LEAK       a planted secret in any output, file or snapshot
  DATA LOSS / PARTIAL   user data destroyed, or an output (or a temporary folder) left incomplete
  BY DESIGN  the two streams the review did not count (diagnose /dev/zero, diagnose a FIFO)
  NOT REPLAYED  the attempt could not be made here (reason given)

    python bench/hostile_replay.py [--json FILE] [--only ID,ID,...] [--list]

Safety. Everything is made in one temporary folder that is deleted at the end (``rm -rf``: the
inputs hold 1,500-level folder chains). Every command runs with HOME, TMPDIR, XDG_* and
ASCEND_DOCTOR_DATA_DIR inside that folder, PYTHONDONTWRITEBYTECODE set (the repository is only
read: fixtures are copied first), in its own session and process group, under ``ulimit -v``
(6 GiB) so a memory bomb cannot take the machine down. The /dev rows (179, M5-M10) run only in a
private mount namespace (``unshare -m --propagation private``) with a private tmpfs on /dev made
exactly as §5 shows; the namespace and its /dev are checked before anything is written there,
and without ``unshare`` those rows are reported as not replayed. Nothing is ever pointed at the
real /dev. The review's own time limit was 60 s; here a command gets 40 s (enough to tell a hang
over 30 s) unless its row needs more.

Takes a few minutes and about 4 GB of scratch disk (2 GiB log lines, a 300 MB config.json...).
Needs root for the device nodes, /etc/shadow and the setpriv rows, as the review did.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import gzip
import hashlib
import http.server
import io
import json
import os
import random
import re
import shlex
import shutil
import signal
import stat
import string
import struct
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
LOG_SAMPLES = ROOT / "tests" / "samples" / "dmesg-and-logs"
MODEL_FIXTURE = FIXTURES / "w8a8-weights-ready" / "files" / "data" / "models" / "DeepSeek-R1-W8A8"
SHARD1 = "quant_model_weight_w8a8_dynamic-00001-of-00004.safetensors"
SHARD2 = "quant_model_weight_w8a8_dynamic-00002-of-00004.safetensors"
INDEX = "quant_model_weight_w8a8_dynamic.safetensors.index.json"

HANG_S = 30.0  # the review's bar: over 30 s is a hang
DEFAULT_TIMEOUT_S = 40.0
MEMORY_LIMIT_KB = 6 * 1024 * 1024  # ulimit -v for every command (the review saw 8.4 GB RSS)
SIGNAL_BOUND_S = 3.0  # issue 9: Ctrl-C ends the run "within a second"; room for a loaded machine
GiB = 1 << 30
MiB = 1 << 20

# Review totals (§4), the "before" column.
REVIEW_TOTALS = {
    "attempts": 265,
    "tracebacks": 2,
    "uncaught": 13,
    "hangs": 8,
    "hangs_by_design": 2,
    "escapes": 3,
    "leaks": 24,
    "partial": 9,
}

# INJECTION (the second review): a pasteable command that would run a payload, or a raw terminal escape;
# EXIT CODE: an exit code that lets a gate pass with nothing judged.
SEVERITY = ["ESCAPE", "INJECTION", "DATA LOSS", "LEAK", "TRACEBACK", "CRASH", "HANG", "PARTIAL", "EXIT CODE", "BUG",
            "NOT REPLAYED", "BY DESIGN", "OK"]
REVIEWS = {1: "hostile_inputs.md (0.1.0, f196015)", 2: "hostile_inputs_2.md (55a58a7)"}


# ---------------------------------------------------------------------------------------------
# Running one command
# ---------------------------------------------------------------------------------------------

@dataclass
class Run:
    argv: List[str]
    rc: int
    seconds: float
    out: bytes
    err: bytes
    maxrss_mb: float
    timed_out: bool
    after_signal_s: Optional[float] = None
    group_left: List[int] = field(default_factory=list)
    cpu_s: float = 0.0  # user + system time of the command (and the children it waited for)
    setup: bool = False

    @property
    def text(self) -> str:
        return (self.out + b"\n" + self.err).decode("utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8", errors="replace")

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8", errors="replace")

    def error_line(self) -> Optional[str]:
        for line in self.stderr.splitlines():
            if line.startswith("ascend-doctor: error:"):
                return line[len("ascend-doctor: error:"):].strip()
        return None

    def error_lines(self) -> List[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("ascend-doctor: error:")]

    def summary(self) -> str:
        """The line that best says what happened."""
        err = self.error_line()
        if err:
            return err
        for line in self.text.splitlines():
            if line.startswith("Summary:"):
                return line
        lines = [line.strip() for line in self.text.splitlines() if line.strip()]
        return lines[-1] if lines else "(no output)"


def _high_water_kb(pid: int) -> int:
    """VmHWM of the command: its own peak RSS since exec. (wait4's ru_maxrss would also count the
    pages of this script copied at fork; the review used /usr/bin/time, which forks from a small
    process.) Polled every 10 ms; a high-water mark only grows, so the last reading is the peak."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _group_members(pgid: int) -> List[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def spawn(argv: Sequence[str], *, cwd: Path, env: Dict[str, str], timeout: float, runs_dir: Path,
          close_stdin: bool = False, stdin_data: Optional[bytes] = None, stdout_file: Optional[Path] = None,
          closed_pipe: bool = False, signal_after: Optional[Tuple[int, float]] = None,
          prefix: Sequence[str] = ()) -> Run:
    """Run argv in its own session (a process group a signal can be sent to, as a terminal does)
    under ``ulimit -v``; stdout and stderr go to files, so a chatty command never blocks."""
    # sh sets the limits and execs the command (same pid), so no preexec_fn in a threaded parent.
    script = f'ulimit -c 0; ulimit -v {MEMORY_LIMIT_KB}; ' + ('exec 0<&-; ' if close_stdin else '') + 'exec "$@"'
    full = ["/bin/sh", "-c", script, "sh", *prefix, *argv]
    with contextlib.ExitStack() as files:
        out_f = files.enter_context(tempfile.TemporaryFile(dir=str(runs_dir)))
        err_f = files.enter_context(tempfile.TemporaryFile(dir=str(runs_dir)))
        stdin: Any = subprocess.DEVNULL
        if stdin_data is not None:
            stdin = files.enter_context(tempfile.TemporaryFile(dir=str(runs_dir)))
            stdin.write(stdin_data)
            stdin.seek(0)
        stdout: Any = out_f
        if closed_pipe:
            stdout = subprocess.PIPE
        elif stdout_file is not None:
            stdout = files.enter_context(open(stdout_file, "wb"))
        proc = subprocess.Popen(full, cwd=str(cwd), env=env, stdin=stdin, stdout=stdout, stderr=err_f,
                                start_new_session=True)
        if closed_pipe:
            assert proc.stdout is not None
            proc.stdout.close()  # `| true`: the reader is gone before anything is written
        start = time.monotonic()
        sent: Optional[float] = None
        timed_out = False
        peak_kb = 0
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                peak_kb = max(peak_kb, _high_water_kb(proc.pid))
                now = time.monotonic() - start
                if signal_after is not None and sent is None and now >= signal_after[1]:
                    os.killpg(proc.pid, signal_after[0])
                    sent = now
                if now > timeout:
                    timed_out = True
                    os.killpg(proc.pid, signal.SIGKILL)
                    pid, status, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(0.01)
        except BaseException:  # the replay itself is interrupted: take the command down with it
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            os.wait4(proc.pid, 0)
            proc.returncode = -9
            raise
        seconds = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        left = _group_members(proc.pid)
        if left:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        out_f.seek(0)
        err_f.seek(0)
        return Run(argv=list(argv), rc=124 if timed_out else proc.returncode, seconds=seconds,
                   out=out_f.read(16 * MiB), err=err_f.read(16 * MiB), maxrss_mb=peak_kb / 1024.0,
                   timed_out=timed_out, after_signal_s=None if sent is None else seconds - sent,
                   group_left=left, cpu_s=usage.ru_utime + usage.ru_stime)


# ---------------------------------------------------------------------------------------------
# Watching for escapes
# ---------------------------------------------------------------------------------------------

class ShadowWatch:
    """inotify on /etc/shadow: nothing in this replay has a reason to open it, let alone read it."""

    IN_ACCESS = 0x1
    IN_OPEN = 0x20

    def __init__(self, path: str = "/etc/shadow") -> None:
        self.fd = -1
        libc_name = ctypes.util.find_library("c")
        if not libc_name or not os.path.exists(path):
            return
        libc = ctypes.CDLL(libc_name, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return
        if libc.inotify_add_watch(fd, path.encode(), self.IN_ACCESS | self.IN_OPEN) < 0:
            os.close(fd)
            return
        self.fd = fd

    def drain(self) -> Set[str]:
        seen: Set[str] = set()
        if self.fd < 0:
            return seen
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return seen
            offset = 0
            while offset + 16 <= len(data):
                _, mask, _, length = struct.unpack_from("iIII", data, offset)
                offset += 16 + length
                if mask & self.IN_ACCESS:
                    seen.add("read")
                if mask & self.IN_OPEN:
                    seen.add("opened")


def _forbidden_texts() -> List[Tuple[bytes, str]]:
    """Lines of /etc/shadow and /etc/passwd, and their first 8 bytes read as a safetensors
    header length (how the review saw 8 bytes of /etc/shadow leak)."""
    found: List[Tuple[bytes, str]] = []
    for path in ("/etc/shadow", "/etc/passwd"):
        try:
            with open(path, "rb") as fh:
                data = fh.read(1 * MiB)
        except OSError:
            continue
        for line in data.splitlines():
            if len(line) >= 12:
                found.append((line, f"a line of {path}"))
        if len(data) >= 8:
            found.append((str(struct.unpack("<Q", data[:8])[0]).encode(), f"the first 8 bytes of {path}"))
    return found


def _walk(top: Path) -> Iterator[Tuple[Path, os.stat_result]]:
    """Every entry under top (not following links), without recursion (inputs are 1,500 deep)."""
    stack = [str(top)]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield Path(entry.path), st
            if stat.S_ISDIR(st.st_mode):
                stack.append(entry.path)


def _state(top: Path) -> Dict[str, Tuple[int, ...]]:
    """What must not change: kind, size, content time, inode and device of every entry (a folder's
    time changes with what is in it, and additions and removals are compared by name)."""
    return {str(p): (st.st_mode, st.st_ino) if stat.S_ISDIR(st.st_mode)
            else (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_rdev) for p, st in _walk(top)}


def _state_of(path: Path) -> Dict[str, Tuple[int, ...]]:
    """_state of one input: the entry itself and, for a folder, everything under it."""
    try:
        st = os.lstat(path)
    except OSError:
        return {}
    found: Dict[str, Tuple[int, ...]] = {
        str(path): (st.st_mode, st.st_ino) if stat.S_ISDIR(st.st_mode)
        else (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino, st.st_rdev)}
    if stat.S_ISDIR(st.st_mode):
        found.update(_state(path))
    return found


def _changed(before: Dict[str, Tuple[int, ...]], after: Dict[str, Tuple[int, ...]]) -> List[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def _blobs_of(path: Path, limit: int = 64 * MiB) -> Iterator[Tuple[str, bytes]]:
    """The bytes of a file the tool wrote; the members of an archive it wrote."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            data = fh.read(limit)
    except OSError:
        return
    yield str(path), data
    if head == b"\x1f\x8b":
        try:
            with tarfile.open(str(path), "r:*") as tar:
                for member in tar:
                    if member.isfile() and member.size <= limit:
                        handle = tar.extractfile(member)
                        if handle is not None:
                            yield f"{path}:{member.name}", handle.read()
        except (tarfile.TarError, OSError, EOFError, zlib.error):
            return


def _rm_tree(path: Path) -> None:
    if os.path.lexists(path):
        subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], check=False)


# ---------------------------------------------------------------------------------------------
# The scratch folder and the context of every attempt
# ---------------------------------------------------------------------------------------------

TOOL_OVERRIDE: List[str] = []  # --tool-cmd: replay another build (e.g. the reviewed 0.1.0)


def tool_argv() -> List[str]:
    if TOOL_OVERRIDE:
        return list(TOOL_OVERRIDE)
    script = Path(sys.executable).parent / "ascend-doctor"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ascend_doctor"]


class SetupFailed(Exception):
    pass


class Ctx:
    def __init__(self, scratch: Path, fresh: bool = True) -> None:
        self.scratch = scratch
        self.indir = scratch / "in"
        self.workroot = scratch / "work"
        self.runs = scratch / "runs"
        self.home = scratch / "home"
        self.tmp = scratch / "tmp"
        self.data = scratch / "data"
        self.pwn = scratch / "pwn"
        if fresh:
            os.chmod(scratch, 0o755)  # setpriv --reuid=65534 (row M10) must reach the inputs
            for folder in (self.indir, self.workroot, self.runs, self.home, self.tmp, self.data, self.pwn):
                folder.mkdir()
            os.chmod(self.tmp, 0o1777)
        self.tool = tool_argv()
        self.canary = "hf_" + _token(34, "Rcanary")
        self.bash_history_secret = "Rhist" + _token(16)
        if fresh:
            (self.home / ".bash_history").write_text(f"mysql -u root -p{self.bash_history_secret}\n")
        self.forbidden = _forbidden_texts()
        self.watch = ShadowWatch()
        self.made: Dict[str, Path] = {}
        self.server: Optional[ReplayServer] = None
        self.background: List[subprocess.Popen[bytes]] = []
        self.dev_results: Dict[str, Dict[str, Any]] = {}

    # -- environment ------------------------------------------------------------------------
    def env(self, extra: Optional[Dict[str, str]] = None, path_first: Optional[Path] = None,
            clean: bool = False) -> Dict[str, str]:
        bin_dir = str(Path(sys.executable).parent)
        path = f"{bin_dir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
        if path_first is not None:
            path = f"{path_first}:{path}"
        env = {
            "PATH": path, "HOME": str(self.home), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "TMPDIR": str(self.tmp), "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "XDG_CACHE_HOME": str(self.home / ".cache"), "XDG_CONFIG_HOME": str(self.home / ".config"),
            "ASCEND_DOCTOR_DATA_DIR": str(self.data), "PYTHONDONTWRITEBYTECODE": "1",
            "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "120",
        }
        if not clean:
            env["HF_TOKEN"] = self.canary  # every attempt carries one planted secret
        env.update(extra or {})
        return env

    # -- inputs --------------------------------------------------------------------------------
    def inp(self, name: str) -> Path:
        if name not in self.made:
            builder = BUILDERS.get(name)
            if builder is None:
                raise KeyError(f"no recipe for input {name}")
            self.made[name] = builder(self, name)
        return self.made[name]

    def setup_tool(self, args: Sequence[str], cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None,
                   ok: Iterable[int] = (0,)) -> Run:
        run = spawn([*self.tool, *args], cwd=cwd or self.scratch, env=env or self.env(clean=True),
                    timeout=300, runs_dir=self.runs)
        if run.rc not in set(ok):
            raise SetupFailed(f"`ascend-doctor {' '.join(args)}` gave {run.rc}: {run.summary()[:120]}")
        return run

    def http(self) -> ReplayServer:
        if self.server is None:
            self.server = ReplayServer(self)
        return self.server

    def close(self) -> None:
        if self.server is not None:
            self.server.stop()
        for proc in self.background:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _token(length: int, prefix: str = "R") -> str:
    alphabet = string.ascii_letters + string.digits
    return prefix + "".join(random.choice(alphabet) for _ in range(max(0, length - len(prefix))))


# ---------------------------------------------------------------------------------------------
# One attempt
# ---------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    row: str
    id: str
    verdict: str
    flags: List[Tuple[str, str]]
    notes: List[str]
    rc: Optional[int]
    seconds: float
    observation: str
    leaked: List[str]
    dup_of: Optional[str] = None

    def as_json(self) -> Dict[str, Any]:
        return {"row": self.row, "id": self.id, "verdict": self.verdict, "rc": self.rc,
                "seconds": round(self.seconds, 2), "observation": self.observation,
                "flags": [{"kind": k, "what": t} for k, t in self.flags], "notes": self.notes,
                "leaked": self.leaked, "dup_of": self.dup_of}


class Act:
    """What one attempt does and finds: its runs, flags, notes and planted secrets."""

    def __init__(self, ctx: Ctx, attempt: Attempt) -> None:
        self.ctx = ctx
        self.attempt = attempt
        self.work = ctx.workroot / re.sub(r"[^A-Za-z0-9_.-]", "_", attempt.id)
        self.work.mkdir(parents=True, exist_ok=True)
        self.runs: List[Run] = []
        self.flags: List[Tuple[str, str]] = []
        self.notes: List[str] = []
        self.secrets: Dict[str, str] = {}
        self.main: Optional[Run] = None
        self.by_design = False
        self.observed: Optional[str] = None
        self.extra_files: List[Path] = []  # files outside the work folder to search for leaks
        self.leaked: List[str] = []
        self.inputs: Dict[Path, Dict[str, Tuple[int, ...]]] = {}  # inputs used, and their state before

    # -- running ------------------------------------------------------------------------------
    def run(self, args: Sequence[str], *, env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None,
            timeout: Optional[float] = None, main: bool = True, tool: bool = True, **kwargs: Any) -> Run:
        argv = [*self.ctx.tool, *args] if tool else list(args)
        run = spawn(argv, cwd=cwd or self.work, env=env or self.ctx.env(), runs_dir=self.ctx.runs,
                    timeout=timeout or self.attempt.timeout, **kwargs)
        self.runs.append(run)
        if main:
            self.main = run
        return run

    def inp(self, name: str) -> str:
        """An input by name (made on first use); its state is recorded before any command uses it."""
        path = self.ctx.inp(name)
        if path not in self.inputs:
            self.inputs[path] = _state_of(path)
        return str(path)

    # -- findings -----------------------------------------------------------------------------
    def flag(self, kind: str, what: str) -> None:
        if (kind, what) not in self.flags:
            self.flags.append((kind, what))

    def note(self, what: str) -> None:
        self.notes.append(what)

    def expect(self, run: Run, allowed: Iterable[int], what: str = "") -> bool:
        allowed = set(allowed)
        if run.timed_out or run.rc in allowed:
            return True
        self.flag("BUG", f"exit {run.rc}, expected {'/'.join(map(str, sorted(allowed)))}"
                         f"{' (' + what + ')' if what else ''}: {short(run.summary())}")
        return False

    def one_line(self, run: Run) -> None:
        """A refusal is one 'ascend-doctor: error:' line (no traceback is checked elsewhere)."""
        if len(run.error_lines()) > 1:
            self.flag("BUG", f"{len(run.error_lines())} error lines")

    def plant(self, needle: str, label: str) -> str:
        self.secrets[needle] = label
        return needle


@dataclass
class Attempt:
    row: str
    id: str
    command: str
    fn: Callable[[Act], None]
    timeout: float = DEFAULT_TIMEOUT_S
    dev: bool = False  # only in the private /dev namespace
    dup_of: Optional[str] = None
    slow_ok: float = HANG_S  # longer than this is a hang
    review: int = 1  # 1: hostile_inputs.md (0.1.0); 2: hostile_inputs_2.md (bench/hostile_replay2.py)


def short(text: str, limit: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_attempt(ctx: Ctx, attempt: Attempt) -> Outcome:
    act = Act(ctx, attempt)
    ctx.watch.drain()
    tmp_before = set(os.listdir(ctx.tmp))
    data_before = _state(ctx.data)
    try:
        attempt.fn(act)
    except Exception as exc:  # a recipe that cannot be made here must not end the whole replay
        _cleanup_attempt(ctx, act, tmp_before)
        what = str(exc) if isinstance(exc, SetupFailed) else f"replay error: {type(exc).__name__}: {exc}"
        return Outcome(attempt.row, attempt.id, "NOT REPLAYED", [("NOT REPLAYED", what)], [], None, 0.0,
                       short(_rel(ctx, f"not replayed: {what}"), 300), [], attempt.dup_of)
    _generic_checks(ctx, act, tmp_before, data_before)
    _cleanup_attempt(ctx, act, tmp_before)
    outcome = _outcome(act)
    outcome.observation = _rel(ctx, outcome.observation)
    outcome.flags = [(k, _rel(ctx, t)) for k, t in outcome.flags]
    return outcome


def _generic_checks(ctx: Ctx, act: Act, tmp_before: Set[str], data_before: Dict[str, Tuple[int, ...]]) -> None:
    secrets = dict(act.secrets)
    secrets[ctx.canary] = "HF_TOKEN planted in every attempt"
    secrets[ctx.bash_history_secret] = "a password in ~/.bash_history"
    leaked: Dict[str, str] = {}
    blobs: List[Tuple[str, bytes]] = []
    for n, run in enumerate(act.runs):
        blobs.append((f"run {n + 1} output", run.out + b"\n" + run.err))
        if run.setup:
            continue
        text = run.text
        if "Traceback (most recent call last)" in text or "Exception ignored in" in text:
            act.flag("TRACEBACK", "a Python traceback was printed")
        if "internal error" in run.stderr:
            act.flag("CRASH", short(run.error_line() or "internal error", 120))
        match = re.search(r"the check itself failed[^\n]*", text)
        if match:
            act.flag("CRASH", short(match.group(0), 120))
        limit = act.attempt.slow_ok
        if run.timed_out and not act.by_design:
            act.flag("HANG", f"killed at the {act.attempt.timeout:g} s limit")
        elif run.seconds > limit and not act.by_design:
            act.flag("HANG", f"took {run.seconds:.1f} s")
    for path, st in _walk(act.work):
        if stat.S_ISREG(st.st_mode):
            blobs.extend(_blobs_of(path))
    for extra in act.extra_files:
        for path, st in _walk(extra) if extra.is_dir() else [(extra, extra.lstat())]:
            if stat.S_ISREG(st.st_mode):
                blobs.extend(_blobs_of(path))
    for where, data in blobs:
        for needle, label in secrets.items():
            if needle.encode() in data and needle not in leaked:
                leaked[needle] = f"{label} in {_rel(ctx, where)}"
        for forbidden, label in ctx.forbidden:
            if forbidden in data:
                act.flag("ESCAPE", f"{label} appears in {_rel(ctx, where)}")
    for where in leaked.values():
        act.flag("LEAK", where)
    events = ctx.watch.drain()
    if "read" in events:
        act.flag("ESCAPE", "/etc/shadow was read (inotify IN_ACCESS)")
    elif "opened" in events:
        act.note("/etc/shadow was opened (not read)")
    for path in _pwned(ctx, act):
        act.flag("ESCAPE", f"wrote {_rel(ctx, str(path))}")
    changed = [p for path, before in act.inputs.items() for p in _changed(before, _state_of(path))]
    if changed:
        act.flag("DATA LOSS", f"an input changed: {', '.join(_rel(ctx, p) for p in changed[:3])}")
    if _state(ctx.data) != data_before:  # rows that install a matrix use a data folder of their own
        act.flag("DATA LOSS", "the default matrix data folder changed")
    left = sorted(set(os.listdir(ctx.tmp)) - tmp_before)
    if left and any(run.timed_out for run in act.runs):
        act.note(f"killed at the time limit, so it could not remove {', '.join(left[:2])}")
    elif left:
        act.flag("PARTIAL", f"left in the temp folder: {', '.join(left[:3])}")
    act.leaked = sorted(leaked.values())


def _pwned(ctx: Ctx, act: Act) -> List[Path]:
    """PWNED files where a hostile archive or launch line would put them: the scratch and input
    folders themselves, the write target of the archives, the temp folder, home and the work folder."""
    found = [ctx.scratch / n for n in os.listdir(ctx.scratch) if n.startswith("PWNED")]
    found += [ctx.indir / n for n in os.listdir(ctx.indir) if n.startswith("PWNED")]
    for top in (ctx.pwn, ctx.tmp, ctx.home, act.work):
        found += [p for p, _ in _walk(top) if p.name.startswith("PWNED")]
    return found


def _rel(ctx: Ctx, where: str) -> str:
    return where.replace(str(ctx.scratch), "<scratch>")


def _cleanup_attempt(ctx: Ctx, act: Act, tmp_before: Set[str]) -> None:
    for name in set(os.listdir(ctx.tmp)) - tmp_before:
        _rm_tree(ctx.tmp / name)
    for path in _pwned(ctx, act):
        _rm_tree(path)
    _rm_tree(act.work)


def _outcome(act: Act) -> Outcome:
    kinds = {k for k, _ in act.flags}
    verdict = next((k for k in SEVERITY if k in kinds), "BY DESIGN" if act.by_design else "OK")
    main = act.main or (act.runs[-1] if act.runs else None)
    if act.flags:
        observation = "; ".join(f"{k}: {t}" if k != verdict else t for k, t in act.flags)
    else:
        observation = act.observed or (short(main.summary()) if main else "")
    if act.notes:
        observation += " | note: " + "; ".join(act.notes)
    return Outcome(act.attempt.row, act.attempt.id, verdict, act.flags, act.notes,
                   main.rc if main else None, main.seconds if main else 0.0, short(observation, 400),
                   act.leaked, act.attempt.dup_of)


# ---------------------------------------------------------------------------------------------
# The local HTTP server of the matrix-update rows (§5 "Matrix inputs")
# ---------------------------------------------------------------------------------------------

class ReplayServer:
    def __init__(self, ctx: Ctx) -> None:
        self.stop_event = threading.Event()
        self.good = ctx.inp("newer2.yaml").read_bytes()
        self._gzipbomb: Optional[bytes] = None
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                try:
                    server.answer(self, self.path.split("?", 1)[0])
                except (BrokenPipeError, ConnectionResetError, OSError):
                    self.close_connection = True

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.stop_event.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def gzipbomb(self) -> bytes:
        if self._gzipbomb is None:
            self._gzipbomb = gzip_repeating(b"", b"#", 1 * GiB)
        return self._gzipbomb

    def answer(self, h: http.server.BaseHTTPRequestHandler, path: str) -> None:
        def send(status: int, body: bytes, headers: Sequence[Tuple[str, str]] = (),
                 length: Optional[int] = None) -> None:
            h.send_response(status)
            h.send_header("Content-Length", str(len(body) if length is None else length))
            for key, value in headers:
                h.send_header(key, value)
            h.end_headers()
            h.wfile.write(body)
            h.wfile.flush()

        def chunked_forever(piece: bytes, pause: float) -> None:
            h.send_response(200)
            h.send_header("Content-Type", "text/plain")
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            h.close_connection = True
            frame = b"%x\r\n" % len(piece) + piece + b"\r\n"
            while not self.stop_event.is_set():
                h.wfile.write(frame)
                h.wfile.flush()
                if pause:
                    self.stop_event.wait(pause)

        h.close_connection = True
        if path == "/good":
            send(200, self.good, [("Content-Type", "application/x-yaml")])
        elif path == "/stall":
            self.stop_event.wait(120)  # accepts and never answers
        elif path == "/stall_body":
            send(200, self.good[:100], length=len(self.good))
            self.stop_event.wait(120)
        elif path == "/drip":
            chunked_forever(b"#", 1.0)
        elif path == "/infinite":
            chunked_forever(b"#" * 65536, 0.0)
        elif path == "/biglen":
            h.send_response(200)
            h.send_header("Content-Length", str(100 * GiB))
            h.end_headers()
            block = b"#" * 65536
            while not self.stop_event.is_set():
                h.wfile.write(block)
        elif path == "/invalid":
            send(200, b"version: [unclosed\n  - : : :\n\t\x00\n")
        elif path == "/bomb":
            send(200, alias_bomb(10, 'schema_version: 1\nversion: "2026.12.20"\ndate: "2026-12-20"\n',
                                 "hdk_cann: *a9\n"))
        elif path == "/html":
            send(200, b"<!DOCTYPE html><html><head><title>Wi-Fi login</title></head><body><form action='/login'>"
                      b"<input name='user'><input type='password' name='pw'></form></body></html>\n",
                 [("Content-Type", "text/html")])
        elif path == "/redirect_external":
            send(302, b"", [("Location", "http://203.0.113.5/matrix.yaml")])
        elif path == "/redirect_file":
            send(302, b"", [("Location", "file:///etc/passwd")])
        elif path == "/redirect_loop":
            send(302, b"", [("Location", self.url("/redirect_loop"))])
        elif path == "/truncated":
            send(200, self.good[: len(self.good) // 2], length=len(self.good))
        elif path == "/gzipbomb":
            send(200, self.gzipbomb(), [("Content-Encoding", "gzip"), ("Content-Type", "application/x-yaml")])
        else:
            send(404, b"not found\n")


# ---------------------------------------------------------------------------------------------
# Making the inputs (§5). Each recipe makes one name under <scratch>/in on first use.
# ---------------------------------------------------------------------------------------------

BUILDERS: Dict[str, Callable[[Ctx, str], Path]] = {}


def recipe(*names: str) -> Callable[[Callable[[Ctx, str], Path]], Callable[[Ctx, str], Path]]:
    def register(fn: Callable[[Ctx, str], Path]) -> Callable[[Ctx, str], Path]:
        for name in names:
            BUILDERS[name] = fn
        return fn
    return register


def gzip_repeating(prefix: bytes, fill: bytes, count: int, level: int = 9, chunk: int = 64 * MiB) -> bytes:
    """gzip of prefix + fill*count without compressing every chunk: after a full flush the
    compressor forgets its history, so every later identical chunk compresses to the same bytes."""
    comp = zlib.compressobj(level, zlib.DEFLATED, -15)
    parts = [comp.compress(prefix), comp.flush(zlib.Z_FULL_FLUSH)]
    crc = zlib.crc32(prefix)
    full, rest = divmod(count, chunk)
    if full:
        block = fill * chunk
        compressed = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
        parts.append(compressed * full)
        for _ in range(full):
            crc = zlib.crc32(block, crc)
    if rest:
        parts.append(comp.compress(fill * rest))
        crc = zlib.crc32(fill * rest, crc)
    parts.append(comp.flush())
    size = len(prefix) + count
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + b"".join(parts)
            + struct.pack("<II", crc & 0xFFFFFFFF, size & 0xFFFFFFFF))


def alias_bomb(levels: int, head: str, tail: str) -> bytes:
    lines = [head.rstrip("\n"), "a0: &a0 [" + ", ".join(["lol"] * 9) + "]"]
    for n in range(1, levels):
        lines.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]")
    return ("\n".join(lines) + "\n" + tail).encode()


# -- snapshot archives (§3a rows 1-35, 229-234) -------------------------------------------------

Member = Tuple[tarfile.TarInfo, Optional[bytes]]


def reg(name: str, data: bytes) -> Member:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    return info, data


def lnk(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> Member:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def node(name: str, kind: bytes, major: int = 0, minor: int = 0) -> Member:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.devmajor, info.devminor = major, minor
    return info, None


SNAP_EVIL = reg("snapshot.json", b'{"format": 1, "hostname": "evil"}')
SNAP_1 = reg("snapshot.json", b'{"format": 1}')


def tar_bytes(members: Sequence[Member], fmt: int = tarfile.GNU_FORMAT) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt, encoding="utf-8", errors="surrogateescape") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def block_of(member: Member) -> bytes:
    """One member as raw tar blocks (header + data padded to 512), without an end marker."""
    info, data = member
    raw = info.tobuf(tarfile.GNU_FORMAT, "utf-8", "surrogateescape")
    if data:
        raw += data + b"\0" * (-len(data) % 512)
    return raw


def archive_members(ctx: Ctx, name: str) -> Optional[List[Member]]:
    pwn = str(ctx.pwn).lstrip("/")
    table: Dict[str, List[Member]] = {
        "abs": [SNAP_EVIL, reg(f"/{pwn}/PWNED_abs", b"pwned\n")],
        "dotdot": [SNAP_EVIL, reg("files/" + "../" * 24 + f"{pwn}/PWNED_dotdot", b"pwned\n")],
        "dotdot2": [SNAP_EVIL, reg("../PWNED_dotdot2", b"pwned\n")],
        "symlink_out": [SNAP_EVIL, lnk("files/etc/ascend_install.info", "../../../../../../etc/passwd")],
        "symlink_abs_root": [SNAP_EVIL, lnk("commands/npu-smi_info.out", "/etc/passwd")],
        "symlink_then_write": [SNAP_EVIL, lnk("files/x", str(ctx.pwn)), reg("files/x/PWNED_through_link", b"p\n")],
        "symlink_dir_then_write": [SNAP_EVIL, lnk("evil", "files"), reg("evil/PWNED2", b"pwned\n")],
        "symlink_abs_in_files": [SNAP_EVIL, lnk("files/usr/local/Ascend/driver/version.info", "/etc/passwd")],
        "hardlink_out": [SNAP_EVIL, lnk("files/etc/ascend_install.info", "/etc/passwd", tarfile.LNKTYPE)],
        "hardlink_rel_out": [SNAP_EVIL, lnk("files/etc/ascend_install.info", "../../../etc/passwd", tarfile.LNKTYPE)],
        "hardlink_to_symlink": [SNAP_EVIL, lnk("files/l", "/etc/passwd"),
                                lnk("files/etc/ascend_install.info", "files/l", tarfile.LNKTYPE)],
        "hardlink_ok": [SNAP_EVIL, reg("files/a", b"Version=1\n"),
                        lnk("files/usr/local/Ascend/driver/version.info", "files/a", tarfile.LNKTYPE)],
        "device": [SNAP_EVIL, node("files/dev/davinci0", tarfile.CHRTYPE, 1, 3)],
        "blockdev": [SNAP_EVIL, node("files/dev/sda", tarfile.BLKTYPE, 8, 0)],
        "fifo": [SNAP_EVIL, node("commands/npu-smi_info.out", tarfile.FIFOTYPE)],
        "file_replaces_dir": [SNAP_EVIL, reg("files/etc/x", b"x\n"), reg("files/etc", b"now a file\n")],
        "dup_member": [SNAP_EVIL, reg("snapshot.json", b'{"format": 999}')],
        "badutf8_names": [SNAP_EVIL, reg("files/etc/\udcff\udcfe.info", b"\xff\xfe"),
                          reg("commands/npu-smi_info.out", b"\xff\xfe\x80 garbage \xc3\x28")],
        "deep_nest": [SNAP_1, reg("files/root/ascend/log/" + "d/" * 3000 + "plog-1.log", b"[ERROR] deep\n")],
        "deep_nest_ok": [SNAP_1, reg("files/root/ascend/log/debug/plog/" + "d/" * 1500 + "plog-1.log", b"x\n")],
        "st_format_str": [reg("snapshot.json", b'{"format": "1"}')],
        "st_format_float": [reg("snapshot.json", b'{"format": 1.0}')],
        "st_format_neg": [reg("snapshot.json", b'{"format": -1}')],
        "st_hostname_dict": [reg("snapshot.json", b'{"format": 1, "hostname": {"a": [1, 2]}, "arch": 12, '
                                                  b'"kernel": null, "captured_at": ["x"]}')],
        "st_list": [reg("snapshot.json", b"[1, 2, 3]")],
        "st_bigint": [reg("snapshot.json", b'{"format": 1' + b"0" * 5000 + b"}")],
        "st_bigint2": [reg("snapshot.json", b'{"format": 1, "hostname": 1' + b"0" * 4000 + b"}")],
        "st_nan": [reg("snapshot.json", b'{"format": NaN, "hostname": Infinity}')],
        "st_nan2": [reg("snapshot.json", b'{"format": 1, "hostname": NaN, "arch": -Infinity}')],
    }
    if name in ("many_members", "many_members_ok"):
        count = 50_001 if name == "many_members" else 49_990
        empty = [reg(f"files/dev/davinci{n}", b"") for n in range(count)]
        return [SNAP_1, *empty]
    return table.get(name)


ARCHIVES = ["abs", "dotdot", "dotdot2", "symlink_out", "symlink_abs_root", "symlink_then_write",
            "symlink_dir_then_write", "symlink_abs_in_files", "hardlink_out", "hardlink_rel_out",
            "hardlink_to_symlink", "hardlink_ok", "device", "blockdev", "fifo", "huge_declared",
            "truncated_data", "file_replaces_dir", "dup_member", "badutf8_names", "gnulong_bomb_2g", "pax_bomb_2g",
            "many_members", "many_members_ok", "deep_nest", "deep_nest_ok", "st_format_str", "st_format_float",
            "st_format_neg", "st_hostname_dict", "st_list", "st_bigint", "st_bigint2", "st_nan", "st_nan2"]


@recipe(*[f"{a}.tar.gz" for a in ARCHIVES])
def make_archive(ctx: Ctx, name: str) -> Path:
    stem = name[: -len(".tar.gz")]
    path = ctx.indir / name
    members = archive_members(ctx, stem)
    if members is not None:
        path.write_bytes(gzip.compress(tar_bytes(members), 6))
    elif stem in ("huge_declared", "truncated_data"):
        info = tarfile.TarInfo("commands/dmesg.out")
        info.size = 2 ** 40 if stem == "huge_declared" else 100 * MiB
        tail = b"\0" * 1024 if stem == "huge_declared" else b"abc"
        path.write_bytes(gzip.compress(block_of(SNAP_EVIL) + info.tobuf(tarfile.GNU_FORMAT) + tail))
    elif stem in ("gnulong_bomb_2g", "pax_bomb_2g"):
        if stem == "gnulong_bomb_2g":
            info = tarfile.TarInfo("././@LongLink")
            info.type = tarfile.GNUTYPE_LONGNAME
        else:
            info = tarfile.TarInfo("././@PaxHeader")
            info.type = tarfile.XHDTYPE
        info.size = 2 << 30
        header = block_of(SNAP_EVIL) + info.tobuf(tarfile.USTAR_FORMAT)
        path.write_bytes(gzip_repeating(header, b"A", 2 << 30))
    else:
        raise KeyError(stem)
    return path


@recipe("random.tar.gz")
def make_random(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    path.write_bytes(os.urandom(10_000_000))
    return path


@recipe("badgz.tar.gz")
def make_badgz(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    path.write_bytes(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + os.urandom(100_000))
    return path


@recipe("zeros.tar.gz")
def make_zeros(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    path.write_bytes(gzip_repeating(b"", b"\0", 2_000_000_000, level=6))
    return path


@recipe("emptydir")
def make_emptydir(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    path.mkdir()
    return path


@recipe("from.fifo", "fifo1", "cfg.fifo", "f_fifo.yaml", "pfifo.json")
def make_fifo(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    os.mkfifo(path)
    return path


# -- directory snapshots (§3a rows 36-54, 209, 220-224) -----------------------------------------

def copy_fixture(ctx: Ctx, fixture: str, name: str) -> Path:
    path = ctx.indir / name
    shutil.copytree(FIXTURES / fixture, path, symlinks=True)
    return path


def replace_with_link(path: Path, target: str) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def replace_with_node(path: Path, kind: str) -> None:
    if os.path.lexists(path):
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 5))


def deep_folder(top: Path, levels: int) -> Path:
    """top/d/d/.../d (levels deep), made one level at a time: os.makedirs and Path.mkdir recurse."""
    path = str(top)
    for _ in range(levels):
        path += "/d"
        os.mkdir(path)
    return Path(path)


def sparse(path: Path, size: int) -> None:
    with open(path, "ab") as fh:
        fh.truncate(size)


PLOG = "files/root/ascend/log/debug/plog/plog-10686_20250319150945659.log"
DEVLOG = "files/root/ascend/log/debug/device-0/device-6495_20251222194004973.log"
VERSION_INFO = "files/usr/local/Ascend/driver/version.info"


@recipe("d_symlink_out", "d_symlink_out2", "d_files_symlink", "d_logdir_symlink", "d_logdir_rel_out", "d_loop",
        "d_fifo", "d_fifo-2", "d_device", "d_device-2", "d_huge", "d_huge-2", "d_huge2", "d_random",
        "d_random_keepjson", "d_badutf8", "d_badutf8b", "d_badname", "d_deep")
def make_dir_snapshot(ctx: Ctx, name: str) -> Path:
    d = copy_fixture(ctx, "plog-aicore-error", name)
    up = "../" * 8
    if name == "d_symlink_out":
        replace_with_link(d / "snapshot.json", "/etc/passwd")
        replace_with_link(d / "commands/dmesg.out", "/etc/shadow")
        replace_with_link(d / "files/etc/ascend_install.info", up + "etc/shadow")
        replace_with_link(d / "files/etc_ai", "../" * 7 + "etc/passwd")
    elif name == "d_symlink_out2":
        replace_with_link(d / "files/etc/ascend_install.info", up + "etc/shadow")
        replace_with_link(d / "commands/dmesg.out", "/etc/shadow")
    elif name == "d_files_symlink":
        replace_with_link(d / "files", "/")
    elif name == "d_logdir_symlink":
        replace_with_link(d / "files/root/ascend/log", "/var/log")
    elif name == "d_logdir_rel_out":
        replace_with_link(d / "files/root/ascend/log", up + "var/log")
    elif name == "d_loop":
        log = d / "files/root/ascend/log"
        os.symlink(".", log / "self")
        os.symlink("../log", log / "up")
        os.symlink("loop2", d / "files/root/ascend/loop1")
        os.symlink("loop1", d / "files/root/ascend/loop2")
        replace_with_link(d / VERSION_INFO, "version.info")
    elif name == "d_fifo":
        replace_with_node(d / "env.json", "fifo")
    elif name == "d_fifo-2":
        for rel in ("commands/npu-smi_info.out", VERSION_INFO, PLOG):
            replace_with_node(d / rel, "fifo")
    elif name == "d_device":
        replace_with_node(d / "host.json", "chr")
    elif name == "d_device-2":
        for rel in (VERSION_INFO, "files/dev/davinci_manager", "commands/dmesg.out", DEVLOG):
            replace_with_node(d / rel, "chr")
    elif name == "d_huge":
        (d / "host.json").unlink()
        sparse(d / "host.json", 2 * GiB)
    elif name == "d_huge-2":
        for rel in (VERSION_INFO, "commands/npu-smi_info.out", "commands/dmesg.out"):
            (d / rel).unlink()
            sparse(d / rel, 2 * GiB)
    elif name == "d_huge2":
        sparse(d / PLOG, 3 * GiB)
        sparse(d / DEVLOG, 3 * GiB)
        sparse(d / "commands/npu-smi_info.out", 2 * GiB)
    elif name in ("d_random", "d_random_keepjson"):
        for path, st in list(_walk(d)):
            if stat.S_ISREG(st.st_mode) and (name == "d_random" or path.suffix != ".json"):
                path.write_bytes(os.urandom(max(64, st.st_size)))
    elif name == "d_badutf8":
        (d / "snapshot.json").write_bytes(b'{"format":1,"hostname":"\xff\xfe"}')
    elif name == "d_badutf8b":
        (d / "env.json").write_bytes(b'{"HF_TOKEN":"\xff", "PATH": "/bin"}')
    elif name == "d_badname":
        with open(os.fsencode(d / "files/dev") + b"/davinci\xff", "wb") as fh:
            fh.write(b"")
        with open(os.fsencode(d / "files/root/ascend/log") + b"/plog-\xff\xfe.log", "wb") as fh:
            fh.write(b"[ERROR] RUNTIME(1) EZ9999 undecodable name\n")
    elif name == "d_deep":
        deep = deep_folder(d / "files/root/ascend/log/debug", 1200)
        (deep / "plog-1_20250319150945659.log").write_text("[ERROR] deep log\n")
    return d


@recipe("d_types")
def make_d_types(ctx: Ctx, name: str) -> Path:
    d = copy_fixture(ctx, "healthy-8x910B3", name)
    (d / "env.json").write_text('{"ASCEND_RT_VISIBLE_DEVICES": 5, "ASCEND_VISIBLE_DEVICES": null, '
                                '"PYTORCH_NPU_ALLOC_CONF": true, "HCCL_CONNECT_TIMEOUT": 1e400}')
    host = json.loads((d / "host.json").read_text())
    host.update({"memory": "lots", "cpu_count": "many",
                 "disks": [{"path": 5, "total_bytes": "x", "free_bytes": -1}],
                 "processes": [{"pid": "x", "name": ["a"], "cmdline": 7}],
                 "listening": [{"address": 5, "port": "abc"}]})
    (d / "host.json").write_text(json.dumps(host))
    (d / "python.json").write_text('{"executable": ["x"], "version": 3.10, "packages": {"torch": 2.1, '
                                   '"torch-npu": null, "": "1", "vllm": {"a": 1}}, "path": "notalist"}')
    return d


def _smi_rows() -> Tuple[bytes, List[bytes], bytes]:
    """The healthy fixture's real `npu-smi info` (head, the 3-line block of one NPU, the rest)."""
    lines = (FIXTURES / "healthy-8x910B3" / "commands" / "npu-smi_info.out").read_bytes().splitlines(keepends=True)
    first = next(n for n, line in enumerate(lines) if line.startswith(b"| 0     "))
    return b"".join(lines[:first]), lines[first:first + 3], b"".join(lines[first + 3:])


def _smi_output(name: str) -> bytes:
    head, block, rest = _smi_rows()
    if name == "smi_redos_pipes":
        return b"| " * (2 * MiB)
    if name == "smi_redos_digits":  # 40 device lines, each with a 100 KB run of digits
        row = block[0].replace(b"102.8", b"1" + b"0" * 100_000, 1)
        return head + b"".join(row + block[1] + block[2] for _ in range(40)) + rest
    if name == "smi_redos_spaces":
        return b"".join(b"|" + b" " * 200_000 + b"\n" for _ in range(20))
    if name == "smi_many_rows":  # 40,000 lines of device rows
        return head + b"".join(block) * (40_000 // 3) + rest
    if name == "smi_version_long":  # one 1 MB version line
        return b"| npu-smi 24.1.rc2 Version: " + b"9.9." * 262_144 + b"\n" + head + b"".join(block) + rest
    raise KeyError(name)


SMI_OUTPUTS = ("smi_redos_pipes", "smi_redos_digits", "smi_redos_spaces", "smi_many_rows", "smi_version_long")


@recipe(*SMI_OUTPUTS)
def make_smi(ctx: Ctx, name: str) -> Path:
    d = copy_fixture(ctx, "healthy-8x910B3", name)
    (d / "commands/npu-smi_info.out").write_bytes(_smi_output(name))
    return d


@recipe("fx_healthy", "fx_mindie", "fx_container")
def make_fixture_copy(ctx: Ctx, name: str) -> Path:
    fixture = {"fx_healthy": "healthy-8x910B3", "fx_mindie": "mindie-default-config-ok",
               "fx_container": "container-310p-ok"}[name]
    return copy_fixture(ctx, fixture, name)


# -- logs for diagnose (§3a rows 55-66, 225-228) -----------------------------------------------

def _samples() -> List[Path]:
    return sorted(p for p in LOG_SAMPLES.iterdir() if p.is_file())


def write_repeated(path: Path, unit: bytes, size: int, tail: bytes = b"") -> None:
    with open(path, "wb") as fh:
        written = 0
        block = unit * max(1, (16 * MiB) // max(1, len(unit)))
        while written < size:
            piece = block[: size - written]
            fh.write(piece)
            written += len(piece)
        fh.write(tail)


@recipe("binary.bin", "elf.bin", "sparse2g.log", "longline2g.log", "longline_err.log", "victim.log", "log",
        "sample.txt", "mix60m.log", "oneline8m.log", "tokens.log", "jsonesc.log")
def make_log(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    if name == "binary.bin":
        path.write_bytes(os.urandom(5 * MiB))
    elif name == "elf.bin":
        shutil.copyfile(shutil.which("true") or "/bin/true", path)
    elif name == "sparse2g.log":
        sparse(path, 2 * GiB)
    elif name == "longline2g.log":
        write_repeated(path, b"a", 2 * GiB, b"\nEZ9999: Inner Error!\n")
    elif name == "longline_err.log":
        write_repeated(path, b"x", 300_000_000, b" EZ9999 aclnnFoo failed 507011\n")
    elif name in ("victim.log", "log", "sample.txt"):
        shutil.copyfile(_samples()[0], path)
    elif name == "mix60m.log":
        joined = b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in _samples())
        write_repeated(path, joined, 60 * MiB)
    elif name == "oneline8m.log":
        joined = b" ".join(p.read_bytes().replace(b"\n", b" ") for p in _samples())
        write_repeated(path, joined + b" ", 8 * MiB, b"\n")
    elif name == "tokens.log":
        tokens = ["EZ9999", "EI0006", "507011", "rtStreamSynchronize", "HCCL", "devmm", "aclnn", "sdma",
                  "Inner Error!", "[ERROR]", "EE1001", "EL0004", "ERR99999", "-8005", "tsdrv", "aicore"]
        rnd = random.Random(9)
        words: List[str] = []
        size = 0
        while size < 2_500_000:
            word = rnd.choice(tokens)
            words.append(word)
            size += len(word) + 1
        path.write_text(" ".join(words) + "\n")
    elif name == "jsonesc.log":
        lines = [json.dumps(line) for p in _samples() for line in p.read_text(errors="replace").splitlines()]
        out: List[str] = []
        while len(out) < 18_751:
            out.extend(lines)
        path.write_text("\n".join(out[:18_751]) + "\n")
    return path


# -- model folders and manifests (§3a rows 67-116, 187, 190-192, 235-237; §3b M22-M25) -----------

def st_bytes(header: bytes, length: Optional[int] = None, tail: bytes = b"") -> bytes:
    """A safetensors file: 8-byte little-endian header length, the header, the data."""
    return struct.pack("<Q", len(header) if length is None else length) + header + tail


def _model_copy(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    shutil.copytree(MODEL_FIXTURE, path, symlinks=True)
    return path


TENSOR = b'{"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}'

SHARD_VARIANTS: Dict[str, Callable[[], bytes]] = {
    "m_hlen_2p63": lambda: st_bytes(b"{}", 2 ** 63),
    "m_hlen_2p64m1": lambda: st_bytes(b"{}", 2 ** 64 - 1),
    "m_hlen_1g": lambda: st_bytes(b"{" + b" " * 99, 2 ** 30),
    "m_hlen_99m": lambda: st_bytes(b'{"a":' + b" " * 99_000_000 + TENSOR + b"}", tail=b"\0\0"),
    "m_nested": lambda: st_bytes(b"[" * 200_000 + b"]" * 200_000),
    "m_nested_obj": lambda: st_bytes(b'{"a":' * 100_000 + b"1" + b"}" * 100_000),
    "m_many_tensors": lambda: st_bytes(b"{" + b", ".join(b'"t%d": ' % n + TENSOR for n in range(1_000_000)) + b"}",
                                       tail=b"\0\0"),
    "m_wrong_types": lambda: st_bytes(b'{"__metadata__": [1, 2], "a": {"dtype": 5, "shape": "abc", '
                                      b'"data_offsets": [10, 2]}, "b": {"dtype": "BF16", "shape": [1], '
                                      b'"data_offsets": "x"}, "c": null}'),
    "m_huge_shape": lambda: st_bytes(b'{"b": {"dtype": "BF16", "shape": [4611686018427387904, '
                                     b'4611686018427387904, 4611686018427387904], "data_offsets": [0, 2]}}',
                                     tail=b"\0\0"),
    "m_badutf8_header": lambda: st_bytes(b'{"\xff\xfe": ' + TENSOR + b"}", tail=b"\0\0"),
    "m_bigint_header": lambda: st_bytes(b'{"a": {"dtype": "BF16", "shape": [1' + b"0" * 5000 +
                                        b'], "data_offsets": [0, 2]}}', tail=b"\0\0"),
    "m_nan_header": lambda: st_bytes(b'{"a": {"dtype": "BF16", "shape": [NaN, Infinity], "data_offsets": [0, 2]}}',
                                     tail=b"\0\0"),
}


@recipe(*SHARD_VARIANTS)
def make_shard_variant(ctx: Ctx, name: str) -> Path:
    path = _model_copy(ctx, name)
    (path / SHARD1).write_bytes(SHARD_VARIANTS[name]())
    return path


@recipe("fx_model", "m_empty_file", "m_short_file", "m_cfg_nested", "m_cfg_wrongtypes", "m_cfg_huge",
        "m_index_wrong", "m_index_traversal", "m_symloop", "m_fifo", "m_fifo_shard", "m_fifo_config", "m_dev",
        "m_link_out", "m_deep")
def make_model_variant(ctx: Ctx, name: str) -> Path:
    m = _model_copy(ctx, name)
    if name in ("m_empty_file", "m_short_file"):
        with open(m / SHARD1, "r+b") as fh:
            fh.truncate(0 if name == "m_empty_file" else 2)
    elif name == "m_cfg_nested":
        (m / "config.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    elif name == "m_cfg_wrongtypes":
        cfg = json.loads((m / "config.json").read_text())
        cfg.update({"model_type": ["x"], "architectures": "DeepseekV3", "torch_dtype": 5, "num_hidden_layers": "61",
                    "hidden_size": -1, "quantization_config": "fp8", "num_attention_heads": None,
                    "vocab_size": [1]})
        (m / "config.json").write_text(json.dumps(cfg))
    elif name == "m_cfg_huge":
        write_repeated(m / "config.json", b"x", 300_000_000, b'"}')
        with open(m / "config.json", "r+b") as fh:
            fh.write(b'{"model_type": "deepseek_v3", "pad": "')
    elif name == "m_index_wrong":
        (m / INDEX).write_text('{"weight_map": ["a"], "metadata": 5}')
    elif name == "m_index_traversal":
        (m / INDEX).write_text('{"weight_map": {"a": "../../../../../etc/passwd", "b": "/etc/shadow", '
                               '"c": "/dev/zero"}}')
    elif name == "m_symloop":
        os.symlink(".", m / "self")
        os.symlink("..", m / "parent")
        os.symlink("loopB", m / "loopA")
        os.symlink("loopA", m / "loopB")
        os.symlink("loopA", m / "x-00009-of-00009.safetensors")
    elif name == "m_fifo":
        os.mkfifo(m / "config2.json")
        os.mkfifo(m / "model-00001-of-00001.safetensors")
    elif name == "m_fifo_shard":
        replace_with_node(m / SHARD2, "fifo")
    elif name == "m_fifo_config":
        replace_with_node(m / "config.json", "fifo")
    elif name == "m_dev":
        os.mknod(m / "zero.safetensors", stat.S_IFCHR | 0o644, os.makedev(1, 5))
        os.symlink("/dev/zero", m / "z2-00001-of-00001.safetensors")
    elif name == "m_link_out":
        os.symlink("/etc/shadow", m / "shadow.safetensors")
        os.symlink("/proc/kmsg", m / "kmsg.safetensors")
        os.symlink("/proc/self/mem", m / "mem.safetensors")
    elif name == "m_deep":
        deep = deep_folder(m, 1500)
        (deep / "deep-weights.bin").write_bytes(b"deep file\n")
    return m


@recipe("m_kmsg")
def make_m_kmsg(ctx: Ctx, name: str) -> Path:
    m = ctx.indir / name
    m.mkdir()
    shutil.copyfile(MODEL_FIXTURE / "config.json", m / "config.json")
    os.symlink("/proc/kmsg", m / "kmsg.safetensors")
    return m


@recipe("kman.json")
def make_kman(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    path.write_text(json.dumps({"format": "ascend-doctor-manifest", "version": 1, "files": [
        {"path": "kmsg.safetensors", "size": 10, "sha256": "0" * 64},
        {"path": "config.json", "size": 3, "sha256": "0" * 64}]}))
    return path


@recipe("m_depth5")
def make_m_depth5(ctx: Ctx, name: str) -> Path:
    m = ctx.indir / name
    (m / "a/b/c/d/e").mkdir(parents=True)
    (m / "config.json").write_text('{"model_type": "deepseek_v3"}')
    (m / "a/b/c/d/w4.bin").write_bytes(os.urandom(4096))
    (m / "a/b/c/d/e/weights.safetensors").write_bytes(st_bytes(TENSOR.join([b'{"w": ', b"}"]), tail=b"\1\2"))
    return m


@recipe("m_many")
def make_m_many(ctx: Ctx, name: str) -> Path:
    m = ctx.indir / name
    m.mkdir()
    (m / "config.json").write_text('{"model_type": "deepseek_v3"}')
    for n in range(1, 10_051):
        (m / f"f{n}.bin").write_bytes(b"x")
    return m


@recipe("m_perm", "good_manifest.json")
def make_m_perm(ctx: Ctx, name: str) -> Path:
    m = _model_copy(ctx, "m_perm")
    (m / "subdir").mkdir()
    (m / "subdir/x.bin").write_bytes(b"x" * 100)
    good = ctx.indir / "good_manifest.json"
    ctx.setup_tool(["model", "manifest", str(m), "-o", str(good)])
    for path in (m / "config.json", m / SHARD2, m / "subdir"):
        os.chmod(path, 0)
    ctx.made["m_perm"], ctx.made["good_manifest.json"] = m, good
    return ctx.made[name]


@recipe("big", "bigman.json")
def make_big(ctx: Ctx, name: str) -> Path:
    big = ctx.indir / "big"
    big.mkdir()
    (big / "config.json").write_text('{"model_type": "deepseek_v3"}')
    for n in range(1, 7):
        sparse(big / f"model-0000{n}-of-00006.safetensors", 2 * GiB)
    manifest = ctx.indir / "bigman.json"
    ctx.setup_tool(["model", "manifest", str(big), "-o", str(manifest)])
    ctx.made["big"], ctx.made["bigman.json"] = big, manifest
    return ctx.made[name]


@recipe("man.json")
def make_fixture_manifest(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    ctx.setup_tool(["model", "manifest", str(ctx.inp("fx_model")), "-o", str(path)])
    return path


MANIFEST_VARIANTS = ["man_traversal.json", "man_wrongtypes.json", "man_files_dict.json", "man_empty_files.json",
                     "man_list.json", "man_nested.json", "man_empty.json", "man_binary.json", "man_dup.json",
                     "man_neg_size.json", "man_version99.json", "man_format_other.json"]


@recipe(*MANIFEST_VARIANTS)
def make_manifest_variant(ctx: Ctx, name: str) -> Path:
    base = json.loads(ctx.inp("man.json").read_text())
    path = ctx.indir / name
    if name == "man_traversal.json":
        base["files"] += [{"path": p, "size": 10, "sha256": "0" * 64}
                          for p in ("../../etc/shadow", "/dev/zero", "/proc/kmsg", "/etc/passwd")]
    elif name == "man_wrongtypes.json":
        base = {"format": "ascend-doctor-manifest", "version": 1,
                "files": [{"path": 5, "size": "x", "sha256": None}, "str", None, {"path": "config.json"}]}
    elif name == "man_files_dict.json":
        base["files"] = {"a": 1}
    elif name == "man_empty_files.json":
        base["files"] = []
    elif name == "man_list.json":
        base = [1, 2, 3]
    elif name == "man_dup.json":
        base["files"] = base["files"] * 2
    elif name == "man_neg_size.json":
        base["files"][0]["size"] = -1
    elif name == "man_version99.json":
        base["version"] = 99
    elif name == "man_format_other.json":
        base["format"] = "something-else"
    raw = {"man_nested.json": b"[" * 100_000 + b"]" * 100_000, "man_empty.json": b"",
           "man_binary.json": bytes(range(256)) * 8}.get(name)
    path.write_bytes(raw if raw is not None else json.dumps(base, indent=1).encode())
    return path


@recipe("SUMS_traversal", "SUMS_garbage")
def make_sums(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    if name == "SUMS_traversal":
        zeros = "0" * 64
        path.write_text(f"{zeros}  ../../../../../../etc/shadow\n{zeros} */dev/zero\n{zeros}  /etc/passwd\n")
    else:
        path.write_bytes(b"hello world this is not a checksum file\xff\n")
    return path


# -- serving configs and launch lines (§3a rows 117-135) ---------------------------------------------

CONFIG_TEXTS: Dict[str, Callable[[], bytes]] = {
    "bomb.yaml": lambda: alias_bomb(12, "", "models: [{name: x, model: /data/m, tensor_parallel_size: *a11}]\n"),
    "bomb2.yaml": lambda: alias_bomb(12, "", "models: *a11\n"),
    "deep.json": lambda: b'{"ServerConfig":' * 50_000 + b"{}" + b"}" * 50_000,
    "deep_list.json": lambda: b"[" * 100_000 + b"]" * 100_000,
    "deep.yaml": lambda: b"models: " + b"[" * 20_000 + b"]" * 20_000 + b"\n",
    "binary.json": lambda: bytes(range(256)) * 100,
    "wrongtypes.json": lambda: b'{"ServerConfig": [], "BackendConfig": {"npuDeviceIds": "0,1", "ModelDeployConfig": '
                               b'{"ModelConfig": [{"worldSize": "8", "modelWeightPath": 5, "maxSeqLen": -1}]}, '
                               b'"multiNodesInferEnabled": "yes"}}',
    "wrongtypes2.json": lambda: b'{"ServerConfig": {"port": "abc", "ipAddress": ["0.0.0.0"], "httpsEnabled": "false",'
                                b' "managementPort": {}}, "BackendConfig": {"npuDeviceIds": [[0, "a", null, 1e308, -5,'
                                b' 99999999999999999999]], "maxSeqLen": 1e400, "ModelDeployConfig": {"ModelConfig": '
                                b'[null, 5, {"worldSize": 1e20, "npuMemSize": -1, "modelName": [], '
                                b'"modelWeightPath": {}}]}}}',
    "yaml_python_tag.yaml": lambda: b'models: !!python/object/apply:os.system ["touch PWNED_yaml"]\n',
    "nonutf8.yaml": lambda: b"models:\n  - name: \xff\xfe\n    model: /data/\xc3\x28\n",
    "dupkeys.json": lambda: b'{"ServerConfig": {"port": 1025, "port": 1026}, "ServerConfig": 5}',
    "nan.json": lambda: b'{"ServerConfig": {"port": NaN, "managementPort": Infinity}, '
                        b'"BackendConfig": {"npuDeviceIds": [[NaN]]}}',
    "bigargs.txt": lambda: b"vllm serve /m" + b" --tensor-parallel-size 8" * 200_000,
}


@recipe(*[f"cfg/{n}" for n in CONFIG_TEXTS], "cfg/huge.json")
def make_config(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    path.parent.mkdir(exist_ok=True)
    base = name.split("/", 1)[1]
    if base == "huge.json":
        write_repeated(path, b"a", 200_000_000, b'"}}')
        with open(path, "r+b") as fh:
            fh.write(b'{"BackendConfig": {"x": "')
    else:
        path.write_bytes(CONFIG_TEXTS[base]())
    return path


# -- matrix inputs (§3a rows 136-173, 199-203, 207-208; §3b M26) -------------------------------------

def _bundle_with(ctx: Ctx, version: str, date: str) -> bytes:
    bundle = ctx.indir / "shipped-bundle.yaml"
    if not bundle.exists():
        ctx.setup_tool(["matrix", "bundle", "-o", str(bundle)])
    text = bundle.read_text()
    text = re.sub(r'^version: .*$', f'version: "{version}"', text, count=1, flags=re.M)
    text = re.sub(r'^date: .*$', f'date: "{date}"', text, count=1, flags=re.M)
    return text.encode()


NEWER_HEAD = 'schema_version: 1\nversion: "2026.12.7"\ndate: "2026-12-07"\n'


@recipe("newer.yaml", "newer2.yaml", "f_malformed.yaml", "f_empty.yaml", "f_binary.yaml", "f_older.yaml",
        "f_include.yaml", "f_wrongtypes.yaml", "f_bomb.yaml", "f_badrows.yaml", "f_deep.yaml")
def make_matrix_file(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    if name == "newer.yaml":
        data = _bundle_with(ctx, "2026.12.5", "2026-12-05")
    elif name == "newer2.yaml":
        data = _bundle_with(ctx, "2026.12.10", "2026-12-10")
    elif name == "f_malformed.yaml":
        data = _bundle_with(ctx, "2026.12.7", "2026-12-07")[:40_000] + b"\n[unclosed: {\n"
    elif name == "f_empty.yaml":
        data = b""
    elif name == "f_binary.yaml":
        data = bytes(range(256)) * 100
    elif name == "f_older.yaml":
        data = _bundle_with(ctx, "2020.1.1", "2020-01-01")
    elif name == "f_include.yaml":
        data = _bundle_with(ctx, "2026.12.7", "2026-12-07") + b"include: [/etc/passwd, ../../../etc/shadow]\n"
    elif name == "f_wrongtypes.yaml":
        data = b'schema_version: "one"\nversion: 2027.0303\ndate: [1]\nhdk_cann: {a: 1}\ntorch_npu: 5\n'
    elif name == "f_bomb.yaml":
        data = alias_bomb(10, NEWER_HEAD, "hdk_cann: *a9\n")
    elif name == "f_badrows.yaml":
        data = re.sub(rb"^hdk_cann:", b"hdk_cann_x:", _bundle_with(ctx, "2026.12.7", "2026-12-07"), count=1,
                      flags=re.M)
    elif name == "f_deep.yaml":
        data = NEWER_HEAD.encode() + b"hdk_cann: " + b"[" * 20_000 + b"]" * 20_000 + b"\n"
    path.write_bytes(data)
    return path


def _split_matrix_copy(dst: Path) -> None:
    shutil.copytree(ROOT / "compat_matrix", dst, ignore=shutil.ignore_patterns("__pycache__", "*.py"))


@recipe("mm", "mm2")
def make_split_matrix(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    _split_matrix_copy(path)
    if name == "mm":
        meta = (path / "matrix.yaml").read_text()
        meta = re.sub(r"^(\s*)- chips\.yaml\s*$", r"\1- ../../../../../etc/passwd\n\1- /etc/shadow", meta,
                      count=1, flags=re.M)
        (path / "matrix.yaml").write_text(meta)
        os.mkfifo(path / "fifo.yaml")
    else:
        (path / "chips.yaml").unlink()
        os.symlink("/etc/shadow", path / "chips.yaml")
    return path


@recipe("data_newer")
def make_data_template(ctx: Ctx, name: str) -> Path:
    """A data folder holding an installed matrix (newer.yaml): what 'previous matrix intact' protects."""
    path = ctx.indir / name
    path.mkdir()
    ctx.setup_tool(["matrix", "update", "--file", str(ctx.inp("newer.yaml"))],
                   env=ctx.env({"ASCEND_DOCTOR_DATA_DIR": str(path)}, clean=True))
    return path


# -- capture inputs (§3a rows 204-206) ---------------------------------------------------------------

@recipe("cap")
def make_capture_inputs(ctx: Ctx, name: str) -> Path:
    cap = ctx.indir / name
    (cap / "ascend/driver").mkdir(parents=True)
    os.symlink("/etc/shadow", cap / "ascend/driver/version.info")
    plog = cap / "log/debug/plog"
    plog.mkdir(parents=True)
    os.symlink("/etc/shadow", plog / "plog-1_20990101000000000.log")
    os.symlink(str(ctx.home / ".bash_history"), plog / "plog-3_20990101000000002.log")
    (plog / "plog-2_20990101000000001.log").write_text("[INFO] RUNTIME(1) a regular plog line\n")
    return cap


# -- plan inputs (§3a rows 210-215) -------------------------------------------------------------------

PLAN_CONFIGS: Dict[str, Any] = {
    "plan/weird.json": {"model_type": "deepseek_v3", "num_hidden_layers": 0, "hidden_size": -7168,
                        "num_attention_heads": 0, "vocab_size": 10 ** 30, "n_routed_experts": -1,
                        "intermediate_size": "big"},
    "plan/huge.json": {"model_type": "qwen2", "num_hidden_layers": 10 ** 9, "hidden_size": 10 ** 9,
                       "num_attention_heads": 1, "num_key_value_heads": 0, "vocab_size": 1, "intermediate_size": 1},
    "plan/list.json": [1, 2],
    "plan/floats.json": {"model_type": "llama", "num_hidden_layers": 1e308, "hidden_size": 1.5},
}


@recipe(*PLAN_CONFIGS)
def make_plan_config(ctx: Ctx, name: str) -> Path:
    path = ctx.indir / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(PLAN_CONFIGS[name]))
    return path


# -- fake npu-smi commands (§3a rows 188-198) ---------------------------------------------------------

FAKE_NPU_SMI = {
    "fake-sleep": "exec sleep 300",
    "fake-1g": "head -c 1073741824 /dev/zero | tr '\\0' x",
    "fake-grandchild": "setsid sleep 120 &\necho $! >> \"$(dirname \"$0\")/grandchild.pids\"\n"
                       "echo '+------------------------------------------------------------------------------+'\n"
                       "exit 0",
    "fake-urandom": "exec cat /dev/urandom",
}


@recipe(*FAKE_NPU_SMI)
def make_fake_npu_smi(ctx: Ctx, name: str) -> Path:
    folder = ctx.scratch / "fake" / name  # not under in/: the scripts write their pids next to themselves
    folder.mkdir(parents=True)
    script = folder / "npu-smi"
    script.write_text(f"#!/bin/sh\necho $$ >> \"$(dirname \"$0\")/npu-smi.pids\"\n{FAKE_NPU_SMI[name]}\n")
    script.chmod(0o755)
    return folder


def pids_in(path: Path) -> List[int]:
    try:
        return [int(x) for x in path.read_text().split()]
    except OSError:
        return []


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def reap(folder: Path) -> List[int]:
    """Kill what a fake npu-smi left running; the pids that were still alive."""
    left = []
    for pidfile in ("npu-smi.pids", "grandchild.pids"):
        for pid in pids_in(folder / pidfile):
            if alive(pid):
                if pidfile == "npu-smi.pids":
                    left.append(pid)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(FileNotFoundError):
            (folder / pidfile).unlink()
    return left


# ---------------------------------------------------------------------------------------------
# The attempts: §3a rows 1-237 and §3b M1-M28, in the review's order
# ---------------------------------------------------------------------------------------------

ATTEMPTS: List[Attempt] = []


def add(row: Any, aid: str, command: str, fn: Callable[[Act], None], **kw: Any) -> None:
    ATTEMPTS.append(Attempt(str(row), aid, command, fn, **kw))


def status_of(text: str, check_id: str) -> Optional[str]:
    match = re.search(r"^(PASS|INFO|WARN|FAIL|SKIP|ERROR)\s+" + re.escape(check_id) + r"\b", text, re.M)
    return match.group(1) if match else None


def from_check(row: int, aid: str, src: Callable[[Act], str], label: str, select: Optional[str], verbose: bool,
               ok: Iterable[int] = (0, 1, 3), then: Optional[Callable[[Act, Run], None]] = None, **kw: Any) -> None:
    ok = tuple(ok)

    def fn(a: Act) -> None:
        args = ["check", "--from", src(a)] + (["--select", select] if select else []) + (["-v"] if verbose else [])
        run = a.run(args)
        a.expect(run, ok)
        a.one_line(run)
        if then is not None:
            then(a, run)

    command = f"check --from {label}" + (f" --select {select}" if select else "") + (" -v" if verbose else "")
    add(row, aid, command, fn, **kw)


def named(name: str, suffix: str = "") -> Callable[[Act], str]:
    """The path of one input, for from_check."""
    def src(a: Act) -> str:
        return a.inp(name) + suffix
    return src


def _bounded(max_s: float, max_mb: float) -> Callable[[Act, Run], None]:
    """A time bound in CPU seconds (a loaded machine stretches wall time, not CPU time), a memory
    bound, and a report of sane size (a hostile value echoed whole made a 4 MB report of row 224)."""
    def then(a: Act, run: Run) -> None:
        measured = f"{run.cpu_s:.1f} s CPU ({run.seconds:.1f} s wall), {run.maxrss_mb:.0f} MB peak RSS"
        if run.cpu_s > max_s or run.maxrss_mb > max_mb:
            a.flag("BUG", f"not bounded: {measured}")
        elif len(run.out) > 1 * MiB:
            a.flag("BUG", f"a {len(run.out) / MiB:.1f} MB report: hostile text echoed whole")
        else:
            a.observed = f"{short(run.summary(), 90)} ({measured})"
    return then


def _note_if(pattern: str, note: str) -> Callable[[Act, Run], None]:
    def then(a: Act, run: Run) -> None:
        if re.search(pattern, run.text, re.M):
            a.note(note)
    return then


def _slow_note(limit: float) -> Callable[[Act, Run], None]:
    def then(a: Act, run: Run) -> None:
        if run.seconds > limit and not run.timed_out:
            a.note(f"slow: {run.seconds:.1f} s")
    return then


SEL_TAR = "ASC-DRV,ASC-MIX-002,ASC-SMI,ASC-LOG-001"
SEL_TAR2 = "ASC-DRV,ASC-LOG,ASC-CTR-001"

for _row, _stem in enumerate(["abs", "dotdot", "dotdot2", "symlink_out", "symlink_abs_root", "symlink_then_write",
                              "symlink_dir_then_write", "symlink_abs_in_files", "hardlink_out", "hardlink_rel_out",
                              "hardlink_to_symlink", "hardlink_ok", "device", "blockdev", "fifo", "huge_declared",
                              "truncated_data", "file_replaces_dir", "dup_member", "badutf8_names"], start=1):
    from_check(_row, f"B-tar-{_stem}", named(f"{_stem}.tar.gz"), f"{_stem}.tar.gz", SEL_TAR, True)
from_check(21, "B-tar-gnulong_bomb_2g", lambda a: a.inp("gnulong_bomb_2g.tar.gz"), "gnulong_bomb_2g.tar.gz",
           "ASC-DRV", False, ok=(3,), then=_bounded(10, 1024), timeout=60)
from_check(22, "B-tar-pax_bomb_2g", lambda a: a.inp("pax_bomb_2g.tar.gz"), "pax_bomb_2g.tar.gz",
           "ASC-DRV", False, ok=(3,), then=_bounded(10, 1024), timeout=60)
for _row, _stem in enumerate(["many_members", "many_members_ok", "deep_nest", "deep_nest_ok", "st_format_str",
                              "st_format_float", "st_format_neg", "st_hostname_dict", "st_list", "st_bigint",
                              "st_bigint2", "st_nan", "st_nan2"], start=23):
    _then = {"many_members_ok": _slow_note(10), "st_hostname_dict": _note_if(r"host: \{", "cosmetic: host: {'a': …"),
             "st_bigint2": _note_if(r"host: 1000000000", "cosmetic: 4000-digit host name printed"),
             "st_nan2": _note_if(r"host: nan", "cosmetic: host: nan"),
             "st_format_neg": _note_if(r"Summary:", "weak: format -1 accepted")}.get(_stem)
    from_check(_row, f"B-tar-{_stem}", named(f"{_stem}.tar.gz"), f"{_stem}.tar.gz", SEL_TAR2,
               False, then=_then)

# -- directory snapshots, rows 36-54 ------------------------------------------------------------------
for _row, _name in enumerate(["d_symlink_out", "d_symlink_out2", "d_files_symlink", "d_logdir_symlink",
                              "d_logdir_rel_out", "d_loop", "d_fifo", "d_device", "d_huge", "d_huge2", "d_random",
                              "d_random_keepjson", "d_badutf8", "d_badutf8b", "d_badname", "d_deep", "d_fifo-2",
                              "d_device-2", "d_huge-2"], start=36):
    _then = {"d_huge2": _note_if(r"\(0\.0 MiB\)", "minor: PASS after scanning 0.0 MiB of NUL-tailed logs"),
             "d_fifo-2": _note_if(r"npu-smi is not installed", "msg: a FIFO npu-smi output reads as "
                                                                 "'npu-smi is not installed'")}.get(_name)
    from_check(_row, f"B-dir-{_name}", named(_name, "/"), f"{_name.split('-')[0]}/", None, True,
               then=_then)


# -- diagnose, rows 55-66 -------------------------------------------------------------------------------

def diag(row: int, aid: str, name: str, ok: Iterable[int], *, expect_text: Optional[str] = None,
         by_design_s: Optional[float] = None, close_stdin: bool = False,
         max_mb: Optional[float] = None) -> None:
    ok = tuple(ok)

    def fn(a: Act) -> None:
        target = {"-": "-", "DIR/": str(a.ctx.indir) + "/", "/nonexistent.log": "/nonexistent.log",
                  "/dev/zero": "/dev/zero"}.get(name) or a.inp(name)
        kwargs: Dict[str, Any] = {"close_stdin": close_stdin}  # otherwise stdin is /dev/null
        if by_design_s:
            kwargs["timeout"] = by_design_s
        run = a.run(["diagnose", target], **kwargs)
        if by_design_s and run.timed_out:
            a.by_design = True
            a.observed = f"streams until killed at {by_design_s:g} s, {run.maxrss_mb:.0f} MB RSS (like cat/grep)"
            if run.maxrss_mb > 200:
                a.flag("BUG", f"memory grows while streaming: {run.maxrss_mb:.0f} MB")
            return
        a.expect(run, ok)
        a.one_line(run)
        if expect_text and expect_text not in run.text:
            a.flag("BUG", f"{expect_text} not found")
        if max_mb and run.maxrss_mb > max_mb:
            a.flag("BUG", f"{run.maxrss_mb:.0f} MB peak RSS")
        if not a.flags:
            a.observed = f"{short(run.summary(), 100)} ({run.seconds:.1f} s, {run.maxrss_mb:.0f} MB RSS)"

    shown = {"-": "- <&-" if close_stdin else "- </dev/null"}.get(name, name)
    add(row, aid, f"diagnose {shown}", fn)


diag(55, "B-diag-binary", "binary.bin", (0, 1))
diag(56, "B-diag-elf", "elf.bin", (0, 1))
diag(57, "B-diag-sparse2g", "sparse2g.log", (0, 1), max_mb=200)
diag(58, "B-diag-longline2g", "longline2g.log", (1,), expect_text="EZ9999", max_mb=200)
diag(59, "B-diag-longline300m-err", "longline_err.log", (1,), expect_text="EZ9999", max_mb=200)
diag(60, "B-diag-stdin-closed", "-", (2, 3), close_stdin=True)
diag(61, "B-diag-stdin-devnull", "-", (0,))
diag(62, "B-diag-devzero", "/dev/zero", (0, 1, 2, 3), by_design_s=15)
diag(63, "B-diag-dir", "DIR/", (2, 3))
diag(64, "B-diag-fifo-nowriter", "fifo1", (0, 1, 2, 3), by_design_s=20)
diag(65, "B-diag-missing", "/nonexistent.log", (2, 3))


def _diag_same_output(a: Act) -> None:
    log = a.work / "victim.log"
    shutil.copyfile(a.ctx.inp("victim.log"), log)
    before = log.read_bytes()
    run = a.run(["diagnose", "victim.log", "-o", "victim.log"])
    a.expect(run, (2,), "refuse: the output is the input")
    if log.read_bytes() != before:
        a.flag("DATA LOSS", "victim.log was overwritten by the diagnosis")


add(66, "B-diag-o-same-as-input", "diagnose victim.log -o victim.log", _diag_same_output)


# -- model inspect, rows 67-92 --------------------------------------------------------------------------

INSPECT = ["m_hlen_2p63", "m_hlen_2p64m1", "m_hlen_1g", "m_hlen_99m", "m_nested", "m_nested_obj", "m_many_tensors",
           "m_wrong_types", "m_huge_shape", "m_badutf8_header", "m_bigint_header", "m_nan_header", "m_empty_file",
           "m_short_file", "m_cfg_nested", "m_cfg_wrongtypes", "m_cfg_huge", "m_index_wrong", "m_index_traversal",
           "m_symloop", "m_fifo", "m_fifo_shard", "m_fifo_config", "m_dev", "m_link_out", "m_deep"]


def inspect_row(row: int, name: str) -> None:
    def fn(a: Act) -> None:
        run = a.run(["model", "inspect", a.inp(name) + "/"])
        a.expect(run, (0, 1))
        a.one_line(run)
        if name == "m_link_out" and ("I/O error" in run.text or "Input/output error" in run.text):
            a.flag("ESCAPE", "/proc/self/mem was opened through a link out of the folder (I/O error)")
        if name == "m_cfg_wrongtypes" and run.rc == 0:
            a.note("weak: wrongly typed config.json gives 'No problems found'")
        if name == "m_many_tensors" and run.seconds > 5:
            a.note(f"slow: {run.seconds:.1f} s, {run.maxrss_mb:.0f} MB RSS")

    add(row, f"B-inspect-{name}", f"model inspect {name}/", fn)


for _row, _name in enumerate(INSPECT, start=67):
    inspect_row(_row, _name)


# -- model manifest / verify, rows 93-116 -----------------------------------------------------------------

def manifest_row(row: int, name: str) -> None:
    def fn(a: Act) -> None:
        out = a.work / f"out_{name}.json"
        run = a.run(["model", "manifest", a.inp(name) + "/", "-o", out.name])
        a.expect(run, (0,) if name == "m_nested" else (0, 1, 3))
        a.one_line(run)
        if name == "m_deep":
            if run.rc == 0:
                listed = json.loads(out.read_text()).get("files", []) if out.exists() else []
                if not any(str(f.get("path", "")).endswith("deep-weights.bin") for f in listed if isinstance(f, dict)):
                    a.flag("PARTIAL", "the file 1,500 levels deep is silently left out of the manifest")
            elif not re.search(r"deep|depth|level", run.text, re.I):
                a.flag("BUG", f"refused without saying where it stopped: {short(run.summary(), 100)}")
        if run.rc != 0 and out.exists():
            a.flag("PARTIAL", "a manifest was written although the run failed")

    add(row, f"B-manifest-{name}", f"model manifest {name}/ -o out_{name}.json", fn,
        timeout=60 if name == "m_link_out" else DEFAULT_TIMEOUT_S)


for _row, _name in enumerate(["m_symloop", "m_fifo", "m_fifo_shard", "m_dev", "m_link_out", "m_deep", "m_nested"],
                             start=93):
    manifest_row(_row, _name)


def verify_row(row: int, name: str) -> None:
    def fn(a: Act) -> None:
        run = a.run(["model", "verify", a.inp("fx_model"), a.inp(name)])
        a.expect(run, (0, 1, 3))
        a.one_line(run)
        if name == "man_dup.json" and re.search(r"\b28 matched", run.text):
            a.note("minor: duplicate entries counted twice")
        if name == "man_version99.json" and run.rc == 0:
            a.note("weak: manifest version 99 accepted")
        if name == "man_traversal.json" and "needs a relative" in run.text:
            a.note("msg: '../../etc/shadow' reported as 'needs a relative path'")

    add(row, f"B-verify-{name}", f"model verify <fixture model> {name}", fn)


for _row, _name in enumerate(["man_traversal.json", "man_wrongtypes.json", "man_files_dict.json",
                              "man_empty_files.json", "man_list.json", "man_nested.json", "man_empty.json",
                              "man_binary.json", "man_dup.json", "SUMS_traversal", "SUMS_garbage",
                              "man_neg_size.json", "man_version99.json", "man_format_other.json"], start=100):
    verify_row(_row, _name)

NO_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def _perm_inspect(a: Act) -> None:
    run = a.run(["model", "inspect", a.inp("m_perm") + "/"], prefix=NO_DAC)
    a.expect(run, (1,))


def _perm_manifest(a: Act) -> None:
    run = a.run(["model", "manifest", a.inp("m_perm") + "/", "-o", "perm.json"], prefix=NO_DAC)
    a.expect(run, (1, 3))
    if (a.work / "perm.json").exists():
        a.flag("PARTIAL", "a manifest without the unreadable files was written")


def _perm_verify(a: Act) -> None:
    run = a.run(["model", "verify", a.inp("m_perm") + "/", a.inp("good_manifest.json")], prefix=NO_DAC)
    a.expect(run, (1,))
    if "unreadable" not in run.text:
        a.flag("BUG", "unreadable files not counted")


add(114, "B-perm-inspect", "setpriv --bounding-set -dac_override,-dac_read_search model inspect m_perm/", _perm_inspect)
add(115, "B-perm-manifest", "setpriv … model manifest m_perm/ -o perm.json", _perm_manifest)
add(116, "B-perm-verify", "setpriv … model verify m_perm/ good_manifest.json", _perm_verify)


# -- serving configs and launch lines, rows 117-135 ---------------------------------------------------

def config_row(row: int, name: str, select: str = "ASC-CFG", verbose: bool = True, ok: Iterable[int] = (1,),
               cfg001: Optional[str] = "FAIL") -> None:
    ok = tuple(ok)

    def fn(a: Act) -> None:
        target = {"DIR/": str(a.ctx.indir) + "/", "/dev/zero": "/dev/zero"}.get(name)
        if target is None:
            target = a.inp(name if name == "cfg.fifo" else f"cfg/{name}")
        args = ["check", "--from", a.inp("fx_mindie"), "--config", target, "--select", select]
        args += ["-v"] if verbose else []
        run = a.run(args)
        a.expect(run, ok)
        status = status_of(run.text, "ASC-CFG-001")
        if cfg001 and not run.timed_out and status != cfg001:
            a.flag("BUG", f"ASC-CFG-001 is {status}, expected {cfg001}")
        if name == "bomb.yaml" and run.rc == 0:
            a.note("weak: billion-laughs alias graded PASS")
        match = re.search(r"^(?:FAIL|WARN|ERROR)\s+ASC-CFG-001.*\n\s+(.*)$", run.text, re.M)
        if match and not a.flags:
            a.observed = f"ASC-CFG-001 {status}: {short(match.group(1), 110)}"

    add(row, f"B-config-{name}" if name not in ("cfg.fifo", "/dev/zero", "DIR/") else
        {"cfg.fifo": "B-config-fifo", "/dev/zero": "B-config-devzero", "DIR/": "B-config-dir"}[name],
        f"check --from <mindie-default-config-ok> --config {name} --select {select}" + (" -v" if verbose else ""), fn)


for _row, _name in enumerate(["bomb.yaml", "bomb2.yaml", "deep.json", "deep_list.json", "deep.yaml", "huge.json",
                              "binary.json"], start=117):
    _bomb = _name == "bomb.yaml"
    config_row(_row, _name, ok=(0, 1) if _bomb else (1,), cfg001=None if _bomb else "FAIL")
for _row, _name in enumerate(["wrongtypes.json", "wrongtypes2.json"], start=124):
    config_row(_row, _name, cfg001=None)
config_row(126, "yaml_python_tag.yaml")
config_row(127, "nonutf8.yaml")
config_row(128, "dupkeys.json", cfg001=None)
config_row(129, "nan.json", cfg001=None)
config_row(130, "cfg.fifo", select="ASC-CFG-001")
config_row(131, "/dev/zero", select="ASC-CFG-001", verbose=False)
config_row(132, "DIR/", select="ASC-CFG-001", verbose=False)


def vllm_row(row: int, aid: str, args_fn: Callable[[Act], str], select: str, shown: str) -> None:
    def fn(a: Act) -> None:
        run = a.run(["check", "--from", a.inp("fx_mindie"), "--vllm-args", args_fn(a), "--select", select])
        a.expect(run, (1,) if row == 133 else (0, 1))
        if row == 133 and status_of(run.text, "ASC-CFG-001") != "FAIL":
            a.flag("BUG", "unparsable launch line not graded FAIL")

    add(row, aid, f"check --from <mindie-default-config-ok> --vllm-args {shown} --select {select}", fn)


vllm_row(133, "B-vllm-unbalanced", lambda a: 'vllm serve "/data/m --tp 8', "ASC-CFG-001",
         "'vllm serve \"/data/m --tp 8'")
vllm_row(134, "B-vllm-injection", lambda a: "vllm serve $(touch PWNED_vllm) /data/m; touch PWNED_vllm2 `touch PWNED3`",
         "ASC-CFG", "'vllm serve $(touch PWNED_vllm) …'")
vllm_row(135, "B-vllm-huge", lambda a: a.ctx.inp("cfg/bigargs.txt").read_bytes()[:100_000].decode(), "ASC-CFG",
         '"$(head -c 100000 bigargs.txt)"')


# -- matrix update, rows 136-173 ----------------------------------------------------------------------

def _digest(folder: Path) -> Dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p, st in _walk(folder) if stat.S_ISREG(st.st_mode)}


def _data_copy(a: Act) -> Path:
    data = a.work / "data"
    shutil.copytree(a.ctx.inp("data_newer"), data)
    return data


def update_row(row: int, aid: str, how: str, target: str, extra: Sequence[str] = ("--timeout", "5"),
               ok: Iterable[int] = (1, 2, 3), plant: Optional[str] = None) -> None:
    ok = tuple(ok)

    def fn(a: Act) -> None:
        data = _data_copy(a)
        before = _digest(data)
        if how == "--url":
            server = a.ctx.http()
            value = server.url(target) if target.startswith("/") else target.replace("18080", str(server.port))
            if plant:
                value = value.replace("SECRETURL", a.plant(plant, "the password in a --url"))
        else:
            value = {"/dev/zero": "/dev/zero", "DIR/": str(a.ctx.indir) + "/",
                     "/nonexistent.yaml": "/nonexistent.yaml"}.get(target) or a.inp(target)
        run = a.run(["matrix", "update", how, value, *extra], env=a.ctx.env({"ASCEND_DOCTOR_DATA_DIR": str(data)}))
        a.expect(run, ok)
        a.one_line(run)
        changed = _digest(data) != before
        if changed and run.rc != 0:
            a.flag("DATA LOSS", "a failed update changed the installed matrix")
        if run.rc == 0 and 0 not in ok:
            a.flag("BUG", "installed from a URL that should be refused")
        if plant:
            source = data / "matrix.source.json"
            if run.rc == 0 and not changed:
                a.flag("BUG", "the update reported success but installed nothing")
            elif source.exists():
                a.observed = f"installed; matrix.source.json 'from': {short(source.read_text(), 90)}"
        if "HTTPConnectionPool(" in run.text or "IncompleteRead(" in run.text:
            a.note("msg: raw requests exception text")

    shown = target if how == "--file" else (f"http://127.0.0.1:18080{target}" if target.startswith("/") else target)
    add(row, aid, f"matrix update {how} {shown} {' '.join(extra)}".strip(), fn)


for _row, _path in enumerate(["stall", "stall_body", "invalid", "bomb", "html", "redirect_external", "redirect_file",
                              "redirect_loop", "404", "truncated", "gzipbomb", "infinite", "biglen", "drip"],
                             start=136):
    update_row(_row, f"B-mxurl-{_path}", "--url", f"/{_path}")
for _row, (_name, _url) in enumerate([
        ("userinfo-localhost", "http://localhost@203.0.113.5/m.yaml"),
        ("userinfo-loopback", "http://127.0.0.1:18080@203.0.113.5/m.yaml"),
        ("127.1", "http://127.1:18080/good"), ("0.0.0.0", "http://0.0.0.0:18080/good"),
        ("ipv6-loopback", "http://[::1]:18080/good"), ("localhost-dot", "http://localhost.:18080/good"),
        ("uppercase", "HTTP://LOCALHOST:18080/404"), ("ftp", "ftp://127.0.0.1/x"),
        ("bad-port", "http://127.0.0.1:99999/x"), ("not-a-url", "not a url")], start=150):
    update_row(_row, f"B-mxurl-trick-{_name}", "--url", _url, extra=("--timeout", "3", "--force"))
update_row(160, "B-mxurl-cred-in-url", "--url", "http://user:SECRETURL@127.0.0.1:18080/good", extra=(), ok=(0,),
           plant="Rurlpw" + _token(14))
for _row, _name in enumerate(["f_malformed.yaml", "f_empty.yaml", "f_binary.yaml", "f_older.yaml", "f_include.yaml",
                              "f_wrongtypes.yaml", "f_bomb.yaml", "f_badrows.yaml", "/dev/zero", "DIR/", "f_fifo.yaml",
                              "f_deep.yaml", "/nonexistent.yaml"], start=161):
    _aid = {"/dev/zero": "zero", "DIR/": "dir", "/nonexistent.yaml": "nonexistent.yaml"}.get(_name, _name)
    update_row(_row, f"B-mxfile-{_aid}", "--file", _name, extra=())


# -- output targets, rows 174-187 ---------------------------------------------------------------------

def _gzip_name(path: Path) -> Optional[bytes]:
    """The file name stored in a gzip header (FNAME), if any."""
    head = path.read_bytes()[:512]
    if head[:2] != b"\x1f\x8b" or not head[3] & 0x08:
        return None
    return head[10:].split(b"\0", 1)[0]


def _is_tgz(path: Path) -> bool:
    try:
        with tarfile.open(str(path), "r:gz") as tar:
            return bool(tar.getnames())
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        return False


def _only(a: Act, names: Sequence[str]) -> None:
    left = sorted(set(os.listdir(a.work)) - set(names))
    if left:
        a.flag("PARTIAL", f"left in the output folder: {', '.join(left[:3])}")


def _snap_existing(a: Act) -> None:
    target = a.work / "existing.tar.gz"
    target.write_text("an older snapshot\n")
    run = a.run(["snapshot", "-o", "existing.tar.gz"])
    a.expect(run, (0, 2))
    if run.rc == 0:
        name = _gzip_name(target)
        if not _is_tgz(target):
            a.flag("PARTIAL", "existing.tar.gz is not a complete snapshot archive")
        elif name is not None and b".tmp" in name:
            a.flag("PARTIAL", f"the gzip header names the temporary file {name.decode(errors='replace')}")
        else:
            a.observed = "replaced atomically (documented), gzip header names " + repr((name or b"").decode())
    elif target.read_text() != "an older snapshot\n":
        a.flag("DATA LOSS", "refused but the existing file changed")
    _only(a, ["existing.tar.gz"])


def _snap_existing_dir(a: Act) -> None:
    (a.work / "existing_dir").mkdir()
    (a.work / "existing_dir/keep.txt").write_text("keep\n")
    run = a.run(["snapshot", "-o", "existing_dir"])
    a.expect(run, (2,))
    if os.listdir(a.work / "existing_dir") != ["keep.txt"]:
        a.flag("DATA LOSS", "existing_dir/ changed")


def _snap_victim(a: Act) -> None:
    victim = a.work / "victim"
    (victim / "commands").mkdir(parents=True)
    (victim / "notes.txt").write_text("my notes\n")
    (victim / "env.json").write_text('{"mine": true}\n')
    before = _digest(victim)
    run = a.run(["snapshot", "-o", "victim/"])
    a.expect(run, (2,))
    if _digest(victim) != before or sorted(os.listdir(victim)) != ["commands", "env.json", "notes.txt"]:
        a.flag("DATA LOSS", "the user's folder changed")


def _snap_simple(target: str, ok: Iterable[int],
                 check: Optional[Callable[[Act, Run], None]] = None) -> Callable[[Act], None]:
    def fn(a: Act) -> None:
        run = a.run(["snapshot", "-o", target])
        a.expect(run, ok)
        a.one_line(run)
        if check is not None:
            check(a, run)
    return fn


def _snapfile(a: Act, run: Run) -> None:
    if run.rc == 0 and _is_tgz(a.work / "snapfile"):
        a.note("any name without a trailing / becomes a .tar.gz")


def _snapzip(a: Act, run: Run) -> None:
    if run.rc == 0 and _is_tgz(a.work / "snap.zip"):
        a.note("minor: -o snap.zip writes a gzip tar named .zip")


def _snap_plainfile(a: Act) -> None:
    (a.work / "plainfile").write_text("keep me\n")
    run = a.run(["snapshot", "-o", "plainfile/"])
    a.expect(run, (2,))
    if (a.work / "plainfile").read_text() != "keep me\n":
        a.flag("DATA LOSS", "plainfile changed")
    if "[Errno" in run.text:
        a.note("msg: raw errno text")


def _snap_symlink(a: Act) -> None:
    os.symlink("target_via_link.tar.gz", a.work / "link.tar.gz")
    run = a.run(["snapshot", "-o", "link.tar.gz"])
    a.expect(run, (0, 2))
    link, target = a.work / "link.tar.gz", a.work / "target_via_link.tar.gz"
    if run.rc == 0:
        how = "written through the link" if link.is_symlink() and _is_tgz(target) else \
            "the link was replaced by a regular file" if not link.is_symlink() else "?"
        a.note(f"dangling link target: {how}")
    elif not link.is_symlink() or target.exists():
        a.flag("DATA LOSS", "refused but the link or its target changed")


def _check_over_snapshot(a: Act) -> None:
    a.ctx.setup_tool(["snapshot", "-o", "mysnap.tar.gz"], cwd=a.work)
    snap = a.work / "mysnap.tar.gz"
    before = snap.read_bytes()
    run = a.run(["check", "--from", "mysnap.tar.gz", "--format", "json", "-o", "mysnap.tar.gz"])
    a.expect(run, (2,), "refuse: the output is the input snapshot")
    if snap.read_bytes() != before:
        a.flag("DATA LOSS", "the snapshot was replaced by the report")


def _model_in_work(a: Act, name: str = "mdl") -> Path:
    model = a.work / name
    shutil.copytree(a.ctx.inp("fx_model"), model, symlinks=True)
    return model


def _verify_over_manifest(a: Act) -> None:
    _model_in_work(a)
    a.ctx.setup_tool(["model", "manifest", "mdl", "-o", "man.json"], cwd=a.work)
    man = a.work / "man.json"
    before = man.read_bytes()
    run = a.run(["model", "verify", "mdl", "man.json", "-o", "man.json"])
    a.expect(run, (2,), "refuse: the output is the manifest")
    if man.read_bytes() != before:
        a.flag("DATA LOSS", "the manifest was replaced by the verify text")
    again = a.run(["model", "verify", "mdl", "man.json"], main=False)
    a.expect(again, (0,), "verify after the refusal")


def _manifest_inside(a: Act) -> None:
    _model_in_work(a)
    first = a.run(["model", "manifest", "mdl", "-o", "mdl/manifest.json"], main=False)
    second = a.run(["model", "manifest", "mdl", "-o", "mdl/manifest.json"], main=False)
    verify = a.run(["model", "verify", "mdl", "mdl/manifest.json"])
    for run in (first, second):
        a.expect(run, (0,), "manifest")
    try:
        listed = json.loads((a.work / "mdl/manifest.json").read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        listed = []
    if any(isinstance(f, dict) and f.get("path") == "manifest.json" for f in listed):
        a.flag("PARTIAL", f"the manifest lists itself, so it never verifies: {short(verify.summary(), 80)}")
    else:
        a.expect(verify, (0,), "verify of the folder just hashed")


add(174, "B-snap-o-existing-file", "snapshot -o existing.tar.gz", _snap_existing)
add(175, "B-snap-o-existing-dir-noslash", "snapshot -o existing_dir", _snap_existing_dir)
add(176, "B-snap-o-nonempty-dir-slash", "snapshot -o victim/", _snap_victim)
add(177, "B-snap-o-unwritable-proc", "snapshot -o /proc/snap.tar.gz", _snap_simple("/proc/snap.tar.gz", (2, 3)))
add(178, "B-snap-o-unwritable-dir", "snapshot -o /proc/sys/snapdir/", _snap_simple("/proc/sys/snapdir/", (2, 3)))
# row 179 (snapshot -o /dev/full) is a /dev row: see DEV_ROWS below
add(180, "B-snap-o-nosuffix", "snapshot -o snapfile", _snap_simple("snapfile", (0,), _snapfile))
add(181, "B-snap-o-zip", "snapshot -o snap.zip", _snap_simple("snap.zip", (0, 2), _snapzip))
add(182, "B-snap-o-file-as-dir", "snapshot -o plainfile/", _snap_plainfile)
add(183, "B-snap-o-missing-parent", "snapshot -o no/such/dir/s.tar.gz", _snap_simple("no/such/dir/s.tar.gz", (2, 3)))
add(184, "B-snap-o-symlink", "snapshot -o link.tar.gz (-> target_via_link.tar.gz)", _snap_symlink)
add(185, "B-o-check-overwrites-snapshot", "check --from mysnap.tar.gz --format json -o mysnap.tar.gz",
    _check_over_snapshot)
add(186, "B-o-verify-overwrites-manifest", "model verify mdl man.json -o man.json; model verify mdl man.json",
    _verify_over_manifest)
add(187, "B-manifest-inside-dir", "model manifest mdl -o mdl/manifest.json (twice); model verify mdl mdl/manifest.json",
    _manifest_inside)


# -- signals and fake npu-smi, rows 188-198 --------------------------------------------------------------

def signal_row(row: int, aid: str, args: Sequence[str], signum: int, delay: float, outputs: Sequence[str],
               fake: Optional[str] = None, model: bool = False) -> None:
    code = 128 + signum

    def fn(a: Act) -> None:
        folder = a.ctx.inp(fake) if fake else None
        argv = [a.inp(x[1:]) if x.startswith("@") else x for x in args]
        run = a.run(argv, env=a.ctx.env(path_first=folder), signal_after=(signum, delay), timeout=60)
        if run.after_signal_s is None:
            a.flag("BUG", f"ended before the signal (exit {run.rc}): {short(run.summary(), 90)}")
        else:
            if run.rc != code:
                a.flag("BUG", f"exit {run.rc}, expected {code}")
            if SIGNAL_BOUND_S < run.after_signal_s <= HANG_S:
                a.flag("BUG", f"ended {run.after_signal_s:.1f} s after the signal")
        for name in outputs:
            if os.path.lexists(a.work / name):
                a.flag("PARTIAL", f"left {name}")
        _only(a, [])
        if run.group_left:
            a.flag("BUG", f"{len(run.group_left)} process(es) of its group still running after it exited")
        if folder is not None:
            left = reap(folder)
            if left:
                a.flag("BUG", f"npu-smi still running after exit (pid {left[0]})")
        if "Aborted!" in run.stderr:
            a.note("prints 'Aborted!'")
        if not a.flags:
            a.observed = (f"exit {run.rc} {run.after_signal_s:.2f} s after {signal.Signals(signum).name}, "
                          "nothing written")

    name = "SIGINT" if signum == signal.SIGINT else "SIGTERM"
    shown = " ".join(x.lstrip("@") for x in args)
    add(row, aid, f"{'PATH=' + fake + ':$PATH ' if fake else ''}ascend-doctor {shown} ({name} after {delay:g} s)", fn)


signal_row(188, "B-sigint-check", ["check", "--format", "json", "-o", "report.json"], signal.SIGINT, 3.0,
           ["report.json"], fake="fake-sleep")
signal_row(189, "B-sigint-check-timeout60", ["check", "--timeout", "45", "--format", "json", "-o", "report.json"],
           signal.SIGINT, 3.0, ["report.json"], fake="fake-sleep")
signal_row(190, "B-sigint-manifest", ["model", "manifest", "@big", "-o", "manifest.json"], signal.SIGINT, 2.0,
           ["manifest.json"])
signal_row(191, "B-sigterm-manifest", ["model", "manifest", "@big", "-o", "manifest2.json"], signal.SIGTERM, 2.0,
           ["manifest2.json"])
signal_row(192, "B-sigint-verify", ["model", "verify", "@big", "@bigman.json", "-o", "verify.txt"], signal.SIGINT,
           2.0, ["verify.txt"])
signal_row(193, "B-sigint-snapshot-dir", ["snapshot", "--timeout", "20", "-o", "snapdir/"], signal.SIGINT, 3.0,
           ["snapdir"], fake="fake-sleep")
signal_row(194, "B-sigint-snapshot-tgz", ["snapshot", "--timeout", "20", "-o", "snap.tar.gz"], signal.SIGINT, 3.0,
           ["snap.tar.gz"], fake="fake-sleep")


def fake_row(row: int, aid: str, fake: str, args: Sequence[str], ok: Iterable[int], max_s: float,
             max_mb: float = 300, then: Optional[Callable[[Act, Run], None]] = None) -> None:
    ok = tuple(ok)

    def fn(a: Act) -> None:
        folder = a.ctx.inp(fake)
        run = a.run(list(args), env=a.ctx.env(path_first=folder))
        reap(folder)
        a.expect(run, ok)
        if run.seconds > max_s and not run.timed_out and run.seconds <= HANG_S:
            a.flag("BUG", f"took {run.seconds:.1f} s")
        if run.maxrss_mb > max_mb:
            a.flag("BUG", f"{run.maxrss_mb:.0f} MB peak RSS")
        if then is not None:
            then(a, run)
        if not a.flags:
            a.observed = f"{short(run.summary(), 90)} ({run.seconds:.1f} s, {run.maxrss_mb:.0f} MB RSS)"

    add(row, aid, f"PATH={fake}:$PATH ascend-doctor {' '.join(args)}", fn)


def _truncation_recorded(a: Act, run: Run) -> None:
    snap = a.work / "snap1g"
    if run.rc != 0 or not snap.is_dir():
        return
    for path, st in _walk(snap):
        if (stat.S_ISREG(st.st_mode) and not path.name.endswith(".out") and st.st_size < 16 * MiB
                and re.search(rb"truncat|capped|cut at", path.read_bytes(), re.I)):
            return
    a.flag("PARTIAL", "command outputs cut at 4 MiB and the snapshot does not say so")


# Wall-time bounds: the grandchild must not be waited for (it sleeps 120 s), /dev/urandom is killed
# at --timeout 5; 1 GB through `tr` is CPU work of its own, so only the hang bar applies.
fake_row(195, "B-live-npusmi-1GB", "fake-1g", ["check", "--select", "ASC-SMI", "--timeout", "30", "-v"], (0, 1), HANG_S)
fake_row(196, "B-live-npusmi-grandchild", "fake-grandchild", ["check", "--select", "ASC-SMI", "-v"], (0, 1), 15)
fake_row(197, "B-live-npusmi-urandom", "fake-urandom", ["check", "--select", "ASC-SMI", "--timeout", "5", "-v"],
         (0, 1), 15)
fake_row(198, "B-snapshot-npusmi-1GB", "fake-1g", ["snapshot", "-o", "snap1g/", "--timeout", "30"], (0,), HANG_S,
         then=_truncation_recorded)


# -- matrix files, capture, rows 199-208 --------------------------------------------------------------

def _matrix_validate_shadow(a: Act) -> None:
    run = a.run(["matrix", "--matrix", a.inp("mm2") + "/matrix.yaml", "validate"])
    a.expect(run, (1, 2, 3))


def _matrix_env_fifo(a: Act) -> None:
    mm = a.ctx.inp("mm")
    env = a.ctx.env({"ASCEND_DOCTOR_MATRIX": str(mm / "fifo.yaml")})
    run = a.run(["check", "--from", a.inp("fx_healthy")], env=env)
    a.expect(run, (2, 3))
    a.one_line(run)


def _matrix_malformed(a: Act) -> None:
    run = a.run(["check", "--from", a.inp("fx_healthy"), "--matrix", a.inp("f_malformed.yaml")])
    a.expect(run, (2, 3))
    a.one_line(run)


def _matrix_datadir_unwritable(a: Act) -> None:
    run = a.run(["matrix", "update", "--file", a.inp("newer2.yaml")],
                env=a.ctx.env({"ASCEND_DOCTOR_DATA_DIR": "/proc/nope"}))
    a.expect(run, (2, 3))
    a.one_line(run)


def _matrix_include_traversal(a: Act) -> None:
    meta = a.inp("mm") + "/matrix.yaml"
    first = a.run(["check", "--from", a.inp("fx_healthy"), "--matrix", meta], main=False)
    a.expect(first, (2, 3), "check --matrix")
    second = a.run(["matrix", "validate", meta])
    a.expect(second, (1, 2, 3), "matrix validate")


def _capture_row(env_of: Callable[[Act], Dict[str, str]], out: str) -> Callable[[Act], None]:
    def fn(a: Act) -> None:
        run = a.run(["snapshot", "-o", out], env=a.ctx.env(env_of(a)))
        a.expect(run, (0,))
        if not a.flags:
            a.observed = f"{short(run.summary(), 90)} ({run.seconds:.1f} s)"
    return fn


def _sigint_matrix_update(a: Act) -> None:
    data = _data_copy(a)
    before = _digest(data)
    run = a.run(["matrix", "update", "--url", a.ctx.http().url("/drip"), "--timeout", "5"],
                env=a.ctx.env({"ASCEND_DOCTOR_DATA_DIR": str(data)}), signal_after=(signal.SIGINT, 2.0))
    if run.rc != 130:
        a.flag("BUG", f"exit {run.rc}, expected 130")
    elif run.after_signal_s is not None and run.after_signal_s > SIGNAL_BOUND_S:
        a.flag("BUG", f"ended {run.after_signal_s:.1f} s after the signal")
    if _digest(data) != before:
        a.flag("DATA LOSS", "the installed matrix changed")


def _user_matrix_corrupt(a: Act) -> None:
    data = _data_copy(a)
    installed = max((p for p, st in _walk(data) if p.suffix in (".yaml", ".yml") and stat.S_ISREG(st.st_mode)),
                    key=lambda p: p.stat().st_size)
    with open(installed, "r+b") as fh:
        fh.truncate(installed.stat().st_size // 2)
    env = a.ctx.env({"ASCEND_DOCTOR_DATA_DIR": str(data)})
    run = a.run(["check", "--from", a.inp("fx_healthy")], env=env)
    a.expect(run, (0, 1))
    version = a.run(["--version"], env=env, main=False)
    a.expect(version, (0,), "--version")
    if not re.search(r"^note:.*matrix", run.text, re.M | re.I):
        a.note("no 'note:' line says the updated matrix was ignored")


add(199, "B-matrix-include-symlink-shadow", "matrix --matrix mm2/matrix.yaml validate", _matrix_validate_shadow)
add(200, "B-matrix-env-fifo", "ASCEND_DOCTOR_MATRIX=mm/fifo.yaml check --from <healthy-8x910B3>", _matrix_env_fifo)
add(201, "B-matrix-malformed", "check --from <healthy-8x910B3> --matrix f_malformed.yaml", _matrix_malformed)
add(202, "B-matrix-datadir-unwritable", "ASCEND_DOCTOR_DATA_DIR=/proc/nope matrix update --file newer2.yaml",
    _matrix_datadir_unwritable)
add(203, "B-matrix-include-traversal", "check --from <healthy> --matrix mm/matrix.yaml; matrix validate mm/matrix.yaml",
    _matrix_include_traversal)
add(204, "B-capture-symlink-exfil", "ASCEND_HOME_PATH=cap/ascend ASCEND_PROCESS_LOG_PATH=cap/log snapshot -o s1/",
    _capture_row(lambda a: {"ASCEND_HOME_PATH": str(a.ctx.inp("cap") / "ascend"),
                            "ASCEND_PROCESS_LOG_PATH": str(a.ctx.inp("cap") / "log")}, "s1/"))
add(205, "B-capture-home-root", "ASCEND_HOME_PATH=/ ASCEND_TOOLKIT_HOME=/ snapshot -o s2/",
    _capture_row(lambda a: {"ASCEND_HOME_PATH": "/", "ASCEND_TOOLKIT_HOME": "/"}, "s2/"))
add(206, "B-capture-logpath-root", "ASCEND_PROCESS_LOG_PATH=/ snapshot -o s3/",
    _capture_row(lambda a: {"ASCEND_PROCESS_LOG_PATH": "/"}, "s3/"))
add(207, "B-sigint-matrix-update", "matrix update --url http://127.0.0.1:18080/drip --timeout 5 (SIGINT after 2 s)",
    _sigint_matrix_update)
add(208, "B-user-matrix-corrupt", "(installed matrix truncated) check --from <healthy>; ascend-doctor --version",
    _user_matrix_corrupt)
from_check(209, "B-dir-wrong-types-host-python-env", lambda a: a.inp("d_types") + "/", "d_types/", None, True,
           then=_note_if(r"is not in None", "cosmetic: 'torch_npu is not in None (Python None)'"))


# -- plan, rows 210-219 -------------------------------------------------------------------------------

def plan_row(row: int, aid: str, args: Sequence[str], ok: Iterable[int], note: Optional[str] = None) -> None:
    ok = tuple(ok)

    def fn(a: Act) -> None:
        argv = [a.inp(x[1:]) if x.startswith("@") else x for x in args]
        run = a.run(["plan", *argv])
        a.expect(run, ok)
        a.one_line(run)
        if note and run.rc != 2:
            a.note(note)

    add(row, aid, "plan " + " ".join(x.lstrip("@") for x in args), fn)


plan_row(210, "B-plan-weird-json", ["--model", "@plan/weird.json", "--chip", "910B3"], (1, 2))
plan_row(211, "B-plan-huge-json", ["--model", "@plan/huge.json", "--chip", "910B3"], (1, 2))
plan_row(212, "B-plan-list-json", ["--model", "@plan/list.json", "--chip", "910B3"], (2,))
plan_row(213, "B-plan-floats-json", ["--model", "@plan/floats.json", "--chip", "910B3"], (1, 2))
plan_row(214, "B-plan-devzero", ["--model", "/dev/zero", "--chip", "910B3"], (2,))
plan_row(215, "B-plan-fifo-json", ["--model", "@pfifo.json", "--chip", "910B3"], (2,))
plan_row(216, "B-plan-tp7-dp3-ep5",
         ["--model", "DeepSeek-R1", "--chip", "910B3", "--tp", "7", "--dp", "3", "--ep", "5"],
         (1, 2))
plan_row(217, "B-plan-cards4096-huge-batch", ["--model", "DeepSeek-R1", "--chip", "910B3", "--cards", "4096", "--batch",
                                              "999999999", "--max-seq-len", "999999999"], (0, 1, 2))
plan_row(218, "B-plan-unknown-chip", ["--model", "DeepSeek-R1", "--chip", "nosuchchip"], (2,))
plan_row(219, "B-plan-tp3", ["--model", "DeepSeek-R1", "--chip", "910B3", "--tp", "3"], (0, 1, 2),
         note="weak: TP 3 (does not divide 128 heads) accepted")

# -- parsers, diagnose speed, --from, model checks, rows 220-237 ------------------------------------------
for _row, _name in enumerate(SMI_OUTPUTS, start=220):
    from_check(_row, f"B-dir-parser-{_name[4:]}", named(_name, "/"), f"{_name}/ > /dev/null", None,
               False, ok=(0, 1), then=_bounded(5, 1024))


def diag_perf(row: int, aid: str, name: str) -> None:
    def fn(a: Act) -> None:
        run = a.run(["diagnose", a.inp(name)])
        a.expect(run, (1,))
        if run.seconds > 10:
            a.note(f"slow: {run.seconds:.1f} s")
        a.observed = f"{short(run.summary(), 80)} ({run.seconds:.2f} s, {run.maxrss_mb:.0f} MB RSS)"

    add(row, aid, f"diagnose {name} > /dev/null", fn)


for _row, _name in enumerate(["mix60m.log", "oneline8m.log", "tokens.log", "jsonesc.log"], start=225):
    diag_perf(_row, f"B-diag-perf-{_name.split('.')[0]}", _name)

for _row, (_aid, _name) in enumerate([("devzero", "/dev/zero"), ("fifo", "from.fifo"),
                                      ("random-bytes", "random.tar.gz"), ("bad-gzip", "badgz.tar.gz"),
                                      ("gzip-of-2GB-zeros", "zeros.tar.gz"), ("empty-dir", "emptydir")], start=229):
    _src = (lambda a: "/dev/zero") if _name == "/dev/zero" else named(_name)
    from_check(_row, f"B-from-{_aid}", _src, _name, None, False, ok=(3,))


def _check_model(name: str, ok: Iterable[int]) -> Callable[[Act], None]:
    ok = tuple(ok)

    def fn(a: Act) -> None:
        run = a.run(["check", "--model", a.inp(name) + "/", "--select", "ASC-MDL"])
        a.expect(run, ok)
        if "Summary:" not in run.text and not run.timed_out:
            a.flag("PARTIAL", "no report printed")
    return fn


def _verify_kmsg(a: Act) -> None:
    run = a.run(["model", "verify", a.inp("m_kmsg") + "/", a.inp("kman.json")])
    a.expect(run, (1,))


add(235, "B-check-model-nested-header", "check --model m_nested/ --select ASC-MDL", _check_model("m_nested", (1, 3)))
add(236, "B-check-model-kmsg", "check --model m_kmsg/ --select ASC-MDL", _check_model("m_kmsg", (1, 3)))
add(237, "B-check-verify-kmsg", "model verify m_kmsg/ kman.json", _verify_kmsg)


# -- §3b: secrets, M1-M4 ------------------------------------------------------------------------------

def _needle(length: int = 20) -> str:
    return _token(length, "Rs")


M1_VARS = [("HF_TOKEN", "hf_{s}", 34), ("HUGGING_FACE_HUB_TOKEN", "hf_{s}", 34), ("AWS_SECRET_ACCESS_KEY", "{s}", 40),
           ("OPENAI_API_KEY", "sk-{s}", 48), ("DB_PASSWORD", "{s}", 16), ("APP_SECRET", "{s}", 24),
           ("GITHUB_TOKEN", "ghp_{s}", 36), ("http_proxy", "http://user:{s}@proxy.example.com:3128", 14),
           ("https_proxy", "http://user:{s}@proxy.example.com:3128", 14),
           ("ALL_PROXY", "socks5://user:{s}@proxy.example.com:1080", 14), ("MODELSCOPE_API_TOKEN", "{s}", 32),
           ("MY_PASS", "{s}", 14), ("GITHUB_PAT", "{s}", 24), ("HCCL_AUTH", "{s}", 20), ("ASCEND_LICENSE", "{s}", 24),
           ("AUTH", "Bearer_{s}", 32), ("DB_PWD", "{s}", 14), ("CREDS", "{s}", 18)]

M3_VARS = [("http_proxy", "user:{s}@proxy:3128", 14), ("MYSQL_PWD", "{s}", 14), ("SSHPASS", "{s}", 14),
           ("DOCKER_AUTH_CONFIG", '{{"auths":{{"registry.example.com":{{"auth":"{s}"}}}}}}', 24),
           ("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};"
                                               "EndpointSuffix=core.windows.net", 44),
           ("SENTRY_DSN", "https://{s}@o1.ingest.sentry.io/1", 32), ("NPM_CONFIG__AUTH", "{s}", 24),
           ("REDIS_URL", "redis://:{s}@redis.example.com:6379/0", 16), ("GIT_ASKPASS_VALUE", "{s}", 16),
           ("MODEL_URL", "https://bucket.example.com/m.safetensors?se=2027-01-01&sp=r&sig={s}", 32),
           ("RSYNC_PASSWORD", "{s}", 14), ("PGPASSWORD", "{s}", 14),
           ("CI_JOB_JWT", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ{s}.c2lnbmF0dXJl", 24), ("ANSIBLE_VAULT_PASS", "{s}", 14),
           ("WANDB_API_KEY", "{s}", 40)]


def _plant_vars(a: Act, table: Sequence[Tuple[str, str, int]]) -> Dict[str, str]:
    env = {}
    for name, template, length in table:
        secret = a.plant(_token(length, "Rs"), name)
        env[name] = template.format(s=secret)
    return env


def _background(a: Act, argv0: str, args: Sequence[str]) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([argv0, "-c", "import time; time.sleep(300)", *args], executable=sys.executable,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, env={"PATH": "/usr/bin:/bin"})
    a.ctx.background.append(proc)
    return proc


def _stop(a: Act, procs: Sequence[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        a.ctx.background.remove(proc)


def _secrets_summary(a: Act, what: str) -> None:
    a.observed = f"0 of {len(a.secrets)} planted secrets in {what}"


def _secrets_env_1(a: Act) -> None:
    env = a.ctx.env(_plant_vars(a, M1_VARS))
    for args in (["snapshot", "-o", "s.tar.gz"], ["snapshot", "-o", "sdir/"], ["check", "--format", "json"],
                 ["check", "-v"]):
        run = a.run(args, env=env, main=args[0] == "snapshot" and args[2] == "s.tar.gz")
        a.expect(run, (0,) if args[0] == "snapshot" else (0, 1, 3), " ".join(args))
    _secrets_summary(a, "the snapshot archive, the snapshot folder and the JSON and text reports")


def _secrets_cmdline(a: Act) -> None:
    s = {n: a.plant(_token(16, "Rs"), f"A{n} on a command line") for n in range(1, 13)}
    args = ["serve", "/data/m", "--api-key", s[1], f"--hf-token={s[2]}", "--password", s[3], "--token", s[4],
            "--auth", s[5], f"--secret-key={s[6]}", f"Authorization: Bearer {s[7]}", f"https://u:{s[8]}@h.example.com/",
            f"https://h.example.com/x?token={s[9]}", "--passwd", s[10], "-p", s[11], "--api_key", s[12]]
    extra = {"VLLM_EXTRA": f"--api-key {a.plant(_token(16, 'Rs'), 'B1 in VLLM_EXTRA')}",
             "CURL_URL": f"https://h.example.com/x?access_token={a.plant(_token(16, 'Rs'), 'B2 in CURL_URL')}",
             "HEADERS": f"Authorization: Bearer {a.plant(_token(16, 'Rs'), 'B3 in HEADERS')}"}
    proc = _background(a, "vllm", args)
    try:
        time.sleep(0.5)
        run = a.run(["snapshot", "-o", "sdir2/"], env=a.ctx.env(extra))
        a.expect(run, (0,))
        host = a.work / "sdir2" / "host.json"
        if run.rc == 0 and (not host.exists() or b"vllm" not in host.read_bytes()):
            a.note("the planted vllm process is not in host.json")
    finally:
        _stop(a, [proc])
    _secrets_summary(a, "sdir2/ (env.json, host.json)")


def _secrets_env_2(a: Act) -> None:
    env = a.ctx.env(_plant_vars(a, M3_VARS), clean=True)
    run = a.run(["snapshot", "-o", "s3/"], env=env)
    a.expect(run, (0,))
    _secrets_summary(a, "s3/")


def _secrets_report(a: Act) -> None:
    c1 = a.plant(_token(16, "Rs"), "C1: vllm --api-key")
    c2 = a.plant(_token(16, "Rs"), "C2: mindieservice_daemon --token")
    procs = [_background(a, "vllm", ["serve", "/data/m", "--api-key", c1]),
             _background(a, "mindieservice_daemon", ["--token", c2])]
    try:
        time.sleep(0.5)
        for args in (["check", "--format", "json"], ["check", "-v"]):
            run = a.run(args, main=args[-1] == "json")
            a.expect(run, (0, 1, 3), " ".join(args))
    finally:
        _stop(a, procs)
    _secrets_summary(a, "the JSON and text reports")


add("M1", "secrets-env-1", "18 secret variables; snapshot -o s.tar.gz, -o sdir/, check --format json, check -v",
    _secrets_env_1, timeout=60)
add("M2", "secrets-cmdline", "vllm process with 12 secrets on its command line + 3 in values; snapshot -o sdir2/",
    _secrets_cmdline, timeout=60)
add("M3", "secrets-env-2", "env -i … 15 secrets (proxy, MYSQL_PWD, AccountKey, sig=, JWT…) snapshot -o s3/",
    _secrets_env_2, timeout=60)
add("M4", "secrets-report", "vllm --api-key C1, mindieservice_daemon --token C2; check --format json, check -v",
    _secrets_report, timeout=60)


# -- §3b: /dev targets, M5-M10 and row 179 (private mount namespace only) --------------------------------

def dev_state() -> Dict[str, Tuple[int, int, Optional[str]]]:
    found: Dict[str, Tuple[int, int, Optional[str]]] = {}
    for name in os.listdir("/dev"):
        st = os.lstat(f"/dev/{name}")
        link = os.readlink(f"/dev/{name}") if stat.S_ISLNK(st.st_mode) else None
        found[name] = (stat.S_IFMT(st.st_mode), st.st_rdev, link)
    return found


KIND = {stat.S_IFCHR: "a character device", stat.S_IFLNK: "a symlink", stat.S_IFREG: "a regular file",
        stat.S_IFDIR: "a folder", stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO"}


def dev_row(row: str, aid: str, command: str, body: Callable[[Act], None]) -> None:
    def fn(a: Act) -> None:
        before = dev_state()
        body(a)
        after = dev_state()
        for name in sorted(before.keys() | after.keys()):
            old, new = before.get(name), after.get(name)
            if old == new:
                continue
            if old is None:
                a.flag("ESCAPE", f"wrote /dev/{name}")
            elif new is None:
                a.flag("ESCAPE", f"removed /dev/{name}")
            else:
                a.flag("ESCAPE", f"replaced /dev/{name} ({KIND.get(old[0], '?')}) by {KIND.get(new[0], '?')}")

    add(row, aid, command, fn, dev=True)


def _dev_null(a: Act) -> None:
    run = a.run(["check", "--from", a.inp("fx_healthy"), "--format", "json", "-o", "/dev/null"])
    a.expect(run, (0, 2))
    a.one_line(run)


def _dev_stdout(a: Act) -> None:
    out = a.work / "out.txt"
    run = a.run(["check", "--from", a.inp("fx_healthy"), "--format", "json", "-o", "/dev/stdout"], stdout_file=out)
    a.expect(run, (0,))
    try:
        json.loads(out.read_text())
        a.observed = f"JSON on stdout ({out.stat().st_size} bytes), /dev/stdout still a link"
    except ValueError:
        a.flag("BUG", f"stdout is not the JSON report ({out.stat().st_size} bytes)")


def _dev_stderr(a: Act) -> None:
    run = a.run(["diagnose", a.inp("victim.log"), "-o", "/dev/stderr"])
    a.expect(run, (0, 1))
    if run.out.strip() or not run.err.strip():
        a.flag("BUG", "the diagnosis did not go to stderr")


def _dev_zero(a: Act) -> None:
    run = a.run(["model", "manifest", a.inp("fx_model"), "-o", "/dev/zero"])
    a.expect(run, (2,))
    a.one_line(run)


def _dev_snapshot(target: str, ok: Iterable[int]) -> Callable[[Act], None]:
    def fn(a: Act) -> None:
        run = a.run(["snapshot", "-o", target])
        a.expect(run, ok)
        a.one_line(run)
    return fn


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _dev_nonroot(a: Act) -> None:
    null = a.run(["check", "--from", a.inp("fx_healthy"), "-o", "/dev/null"], prefix=NOBODY, main=False)
    a.expect(null, (0, 2), "-o /dev/null as uid 65534")
    out = a.run(["check", "--from", a.inp("fx_healthy"), "-o", "/dev/stdout"], prefix=NOBODY)
    a.expect(out, (0,), "-o /dev/stdout as uid 65534")
    if out.rc == 0 and "Summary:" not in out.stdout:
        a.flag("BUG", "-o /dev/stdout printed no report on stdout")
    if not a.flags:
        a.observed = f"-o /dev/null: exit {null.rc} ({short(null.summary(), 60)}); -o /dev/stdout: report on stdout"


dev_row("179", "B-snap-o-devfull", "snapshot -o /dev/full", _dev_snapshot("/dev/full", (2, 3)))
dev_row("M5", "devnull-root", "check --from <healthy> --format json -o /dev/null", _dev_null)
dev_row("M6", "devstdout-root", "check --from <healthy> --format json -o /dev/stdout > out.txt", _dev_stdout)
dev_row("M7", "devstderr-root", "diagnose log -o /dev/stderr", _dev_stderr)
dev_row("M8", "devzero-root", "model manifest DIR -o /dev/zero", _dev_zero)
dev_row("M9", "devurandom-root", "snapshot -o /dev/urandom", _dev_snapshot("/dev/urandom", (2,)))
dev_row("M10", "dev-nonroot", "setpriv --reuid=65534 … check … -o /dev/null / -o /dev/stdout", _dev_nonroot)


# -- §3b: pipes, options, workflows, M11-M28 ------------------------------------------------------------

def pipe_row(row: str, aid: str, variants: Sequence[Sequence[str]]) -> None:
    def fn(a: Act) -> None:
        for args in variants:
            argv = [a.inp(x[1:]) if x.startswith("@") else x for x in args]
            reference = a.run([*argv, "-o", "reference.out"], main=False)
            piped = a.run(argv, closed_pipe=True)
            if piped.rc != reference.rc:
                a.flag("BUG", f"`{' '.join(args).replace('@', '')} | true` exits {piped.rc}, the result's code is "
                              f"{reference.rc}")
            if re.search(r"BrokenPipe|Exception ignored|Aborted", piped.stderr):
                a.flag("BUG", f"closed pipe reported: {short(piped.stderr, 80)}")
        if not a.flags:
            a.observed = f"quiet, exit {a.runs[-1].rc} (the result's own code)"

    shown = "; ".join(" ".join(x.lstrip("@") for x in v) + " | true" for v in variants)
    add(row, aid, shown, fn)


pipe_row("M11", "pipe-text", [["check", "--from", "@fx_healthy"]])
pipe_row("M12", "pipe-json", [["check", "--from", "@fx_healthy", "--format", "json"]])
pipe_row("M13", "pipe-matrix", [["matrix", "show", "all"], ["matrix", "lookup", "--cann", "8.5.0"],
                                ["matrix", "lookup", "--cann", "8.5.0", "--format", "json"]])
pipe_row("M14", "pipe-plan", [["plan", "--model", "DeepSeek-R1", "--chip", "910B3"]])
pipe_row("M15", "pipe-diagnose", [["diagnose", "@sample.txt"]])
pipe_row("M16", "pipe-inspect", [["model", "inspect", "@fx_model"]])


def _select_typo(a: Act) -> None:
    for value in ("ASC-DRIVER", "DRV"):
        run = a.run(["check", "--from", a.inp("fx_healthy"), "--select", value])
        a.expect(run, (2,), f"--select {value}")
        if run.rc == 2 and "matches no check" not in run.text:
            a.flag("BUG", f"--select {value}: the message does not say it matches no check")
    a.observed = short(a.runs[0].summary(), 120)


def _ignore_all(a: Act) -> None:
    run = a.run(["check", "--ignore", "ASC", "--format", "json"])
    a.expect(run, (2,))


def _python_typo(a: Act) -> None:
    run = a.run(["check", "--python", "/nonexistent/python", "--select", "ASC-PY-001"])
    a.expect(run, (2,))
    lines = [line for line in run.text.splitlines() if line.strip()]
    if len(lines) > 4 or "import sys" in run.text:
        a.flag("BUG", f"{len(lines)} lines of output (probe source?)")


def _model_name(a: Act) -> None:
    run = a.run(["check", "--from", a.inp("fx_healthy"), "--model", "DeepSeek-R1", "--select", "ASC-MDL"])
    a.expect(run, (2,))
    if run.rc == 2 and "plan" not in run.text:
        a.flag("BUG", "does not say that plan takes model names")


def _from_and_model(a: Act) -> None:
    run = a.run(["check", "--from", a.inp("fx_healthy"), "--model", "/local/MODEL_DIR"])
    a.expect(run, (0, 1, 2, 3))
    match = re.search(r"^\S+\s+ASC-MDL-001.*\n\s+(.*)$", run.text, re.M)
    message = match.group(1) if match else run.summary()
    if "snapshot" not in message.lower():
        a.note(f"confusing: '{short(message, 80)}' does not say it was looked up in the snapshot")
    a.observed = short(message, 120)


def _manifest_depth5(a: Act) -> None:
    model = a.work / "m_depth5"
    shutil.copytree(a.ctx.inp("m_depth5"), model)
    made = a.run(["model", "manifest", "m_depth5/", "-o", "d5.json"], main=False)
    a.expect(made, (0,), "manifest")
    weights = model / "a/b/c/d/e/weights.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 0xFF  # same size, different content
    weights.write_bytes(bytes(data))
    run = a.run(["model", "verify", "m_depth5/", "d5.json"])
    if run.rc == 0:
        a.flag("PARTIAL", "the corrupted file 5 levels deep is not in the manifest: verify says OK")
    else:
        a.expect(run, (1,), "corruption found")


def _manifest_many(a: Act) -> None:
    run = a.run(["model", "manifest", a.inp("m_many") + "/"])
    a.expect(run, (0, 1, 3))
    last = [line for line in run.stderr.splitlines() if line.strip()][-1:] or [""]
    if run.rc != 0 and not re.search(r"10[, ]?000|entries|too many", last[0]):
        a.note(f"msg: the last line does not give the reason: '{short(last[0], 80)}'")
    a.observed = f"exit {run.rc}: {short(last[0], 110)}"


def _manifest_kmsg(a: Act) -> None:
    run = a.run(["model", "manifest", a.inp("m_kmsg") + "/"])
    a.expect(run, (0, 1, 3))


def _sha256sums_flow(a: Act) -> None:
    model = _model_in_work(a, "MODEL")
    made = a.run(["model", "manifest", ".", "--sha256sum", "-o", "SHA256SUMS"], cwd=model, main=False)
    a.expect(made, (0,), "manifest")
    run = a.run(["model", "verify", ".", "SHA256SUMS"], cwd=model)
    a.expect(run, (0,), "verify of the folder just hashed")
    check = a.run(["check", "--model", ".", "--verify", "SHA256SUMS", "--select", "ASC-MDL-013"], cwd=model, main=False)
    status = status_of(check.text, "ASC-MDL-013")
    if status in ("FAIL", "ERROR"):
        a.flag("BUG", f"check --model . --verify SHA256SUMS: ASC-MDL-013 {status}")


def _matrix_update_file(a: Act) -> None:
    data = a.work / "data"
    env = a.ctx.env({"ASCEND_DOCTOR_DATA_DIR": str(data)})
    run = a.run(["matrix", "update", "--file", a.inp("newer.yaml")], env=env)
    a.expect(run, (0,))
    version = a.run(["--version"], env=env, main=False)
    if "2026.12.5" not in version.stdout:
        a.flag("BUG", f"--version after the update: {short(version.stdout, 80)}")


def _replay_equals_live(a: Act) -> None:
    live = a.run(["check", "--format", "json"], main=False)
    snap = a.run(["snapshot", "-o", "s.tar.gz"], main=False)
    a.expect(snap, (0,), "snapshot")
    replay = a.run(["check", "--from", "s.tar.gz", "--format", "json"])
    try:
        statuses = [sorted((r["id"], str(r.get("scope")), r["status"]) for r in json.loads(x.stdout)["results"])
                    for x in (live, replay)]
    except (ValueError, KeyError, TypeError):
        a.flag("BUG", "a report is not JSON")
        return
    live_map, replay_map = ({(i, sc): st for i, sc, st in x} for x in statuses)
    differ = sorted(k for k in live_map.keys() | replay_map.keys() if live_map.get(k) != replay_map.get(k))
    if differ:
        shown = ", ".join(f"{i} {live_map.get((i, sc), '-')}/{replay_map.get((i, sc), '-')}" for i, sc in differ[:4])
        a.flag("BUG", f"{len(differ)} results differ (live/replay): {shown}")
    else:
        a.observed = f"identical statuses ({len(statuses[0])} results), exit {live.rc}/{replay.rc}"


def _drv002_container(a: Act) -> None:
    run = a.run(["check", "--from", a.inp("fx_container"), "--format", "json"])
    a.expect(run, (0, 1))
    try:
        result = next(r for r in json.loads(run.stdout)["results"] if r["id"] == "ASC-DRV-002")
    except (ValueError, KeyError, StopIteration):
        a.flag("BUG", "no ASC-DRV-002 in the report")
        return
    said = f"{result.get('message', '')} {result.get('remediation', '')}"
    if re.search(r"reboot|not active yet", said, re.I):
        a.flag("BUG", f"ASC-DRV-002 {result['status']}: {short(said, 100)}")
    else:
        a.observed = f"ASC-DRV-002 {result['status']}: {short(result.get('message', ''), 100)}"


add("M17", "select-typo", "check --from <healthy> --select ASC-DRIVER (and --select DRV)", _select_typo)
add("M18", "ignore-all", "check --ignore ASC --format json", _ignore_all)
add("M19", "python-typo", "check --python /nonexistent/python --select ASC-PY-001", _python_typo)
add("M20", "model-name", "check --from <healthy> --model DeepSeek-R1 --select ASC-MDL", _model_name)
add("M21", "from+model", "check --from <healthy> --model /local/MODEL_DIR", _from_and_model)
add("M22", "manifest-depth5", "model manifest m_depth5/ -o d5.json; corrupt a/b/c/d/e/weights; model verify",
    _manifest_depth5)
add("M23", "manifest-10k", "model manifest m_many/ (10,051 files)", _manifest_many)
add("M24", "manifest-kmsg", "model manifest m_kmsg/ (a symlink to /proc/kmsg)", _manifest_kmsg, timeout=60,
    dup_of="97")
add("M25", "sha256sums-flow", "cd MODEL && model manifest . --sha256sum -o SHA256SUMS && model verify . SHA256SUMS",
    _sha256sums_flow)
add("M26", "matrix-update-file", "matrix update --file newer.yaml; ascend-doctor --version", _matrix_update_file)
add("M27", "replay-equals-live", "check --format json vs snapshot -o s.tar.gz; check --from s.tar.gz --format json",
    _replay_equals_live, timeout=60)
add("M28", "drv002-container", "check --from <container-310p-ok>", _drv002_container)


# ---------------------------------------------------------------------------------------------
# The private /dev namespace (§5 "the safe way")
# ---------------------------------------------------------------------------------------------

DEV_NODES = [("null", 1, 3), ("zero", 1, 5), ("full", 1, 7), ("urandom", 1, 9), ("random", 1, 8)]
DEV_LINKS = [("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
             ("stderr", "/proc/self/fd/2")]


def _dev_mount_point() -> Optional[str]:
    """The file system type of the last mount on /dev, from /proc/self/mountinfo."""
    fstype = None
    with open("/proc/self/mountinfo") as fh:
        for line in fh:
            fields = line.split()
            if fields[4] == "/dev":
                fstype = fields[fields.index("-") + 1]
    return fstype


def dev_worker(scratch: Path, parent_ns: str, parent_dev: int, ids: Sequence[str]) -> int:
    """Runs inside `unshare -m --propagation private`: a tmpfs on /dev, then the /dev rows."""
    results = scratch / "dev-results.json"
    if os.readlink("/proc/self/ns/mnt") == parent_ns:
        results.write_text(json.dumps({"error": "not in a private mount namespace"}))
        return 3
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755", "tmpfs", "/dev"], capture_output=True)
    if mounted.returncode != 0 or _dev_mount_point() != "tmpfs" or os.stat("/dev").st_dev == parent_dev:
        reason = mounted.stderr.decode(errors="replace").strip() or "/dev is not a private tmpfs"
        results.write_text(json.dumps({"error": f"mount -t tmpfs tmpfs /dev: {reason}"}))
        return 3
    for name, major, minor in DEV_NODES:
        os.mknod(f"/dev/{name}", stat.S_IFCHR | 0o666, os.makedev(major, minor))
        os.chmod(f"/dev/{name}", 0o666)
    for name, target in DEV_LINKS:
        os.symlink(target, f"/dev/{name}")
    state = json.loads((scratch / "state.json").read_text())
    ctx = Ctx(scratch, fresh=False)
    ctx.made = {k: Path(v) for k, v in state["made"].items()}
    ctx.canary, ctx.bash_history_secret = state["canary"], state["bash_history_secret"]
    outcomes = [run_attempt(ctx, a).as_json() for a in ATTEMPTS if a.dev and a.id in ids]
    results.write_text(json.dumps({"outcomes": outcomes}))
    ctx.close()
    return 0


def run_dev_rows(ctx: Ctx, attempts: Sequence[Attempt]) -> List[Outcome]:
    def skipped(reason: str) -> List[Outcome]:
        return [Outcome(a.row, a.id, "NOT REPLAYED", [("NOT REPLAYED", reason)], [], None, 0.0,
                        f"not replayed: {reason}", [], a.dup_of) for a in attempts]

    if not attempts:
        return []
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return skipped("needs root and unshare for a private /dev (never run against the real /dev)")
    for name in ("fx_healthy", "fx_model", "victim.log"):
        ctx.inp(name)
    (ctx.scratch / "state.json").write_text(json.dumps({
        "made": {k: str(v) for k, v in ctx.made.items()}, "canary": ctx.canary,
        "bash_history_secret": ctx.bash_history_secret}))
    argv = ["unshare", "-m", "--propagation", "private", sys.executable, str(Path(__file__).resolve()),
            "--dev-worker", str(ctx.scratch), "--parent-ns", os.readlink("/proc/self/ns/mnt"),
            "--parent-dev", str(os.stat("/dev").st_dev), "--only", ",".join(a.id for a in attempts)]
    if TOOL_OVERRIDE:
        argv += ["--tool-cmd", shlex.join(TOOL_OVERRIDE)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(argv, env=env, capture_output=True, timeout=60 + sum(a.timeout for a in attempts) * 2)
    results = ctx.scratch / "dev-results.json"
    if not results.exists():
        reason = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no result"]
        return skipped(f"unshare -m failed: {reason[0]}")
    data = json.loads(results.read_text())
    if "error" in data:
        return skipped(data["error"])
    return [Outcome(o["row"], o["id"], o["verdict"], [(f["kind"], f["what"]) for f in o["flags"]], o["notes"],
                    o["rc"], o["seconds"], o["observation"], o["leaked"], o["dup_of"]) for o in data["outcomes"]]


# ---------------------------------------------------------------------------------------------
# The second review's attempts (bench/hostile_replay2.py: its bulk run and every defect's reproduction)
# ---------------------------------------------------------------------------------------------

def _review2() -> ModuleType:
    """bench/hostile_replay2.py, loaded by path (the bench folder is no package)."""
    loaded = sys.modules.get("hostile_replay2")
    if loaded is not None:
        return loaded
    import importlib.util

    spec = importlib.util.spec_from_file_location("hostile_replay2", Path(__file__).with_name("hostile_replay2.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hostile_replay2"] = module
    spec.loader.exec_module(module)
    return module


_review2().register(sys.modules[__name__])


# ---------------------------------------------------------------------------------------------
# Totals in the review's format
# ---------------------------------------------------------------------------------------------

def _has(outcome: Outcome, *kinds: str) -> bool:
    return any(k in kinds for k, _ in outcome.flags)


def totals(outcomes: Sequence[Outcome], review: int = 1) -> Dict[str, Dict[str, Any]]:
    """The review's totals table for the outcomes of its attempts (``review``: 1 or 2)."""
    by_row = {o.row: o for o in outcomes}

    def counted(o: Outcome, *kinds: str) -> bool:
        """A duplicate of another row (M24 = row 97) is not counted twice, as in the review."""
        if not _has(o, *kinds):
            return False
        original = by_row.get(o.dup_of or "")
        return original is None or not _has(original, *kinds)

    def ids(pred: Callable[[Outcome], bool]) -> List[str]:
        return [o.row for o in outcomes if pred(o)]

    replayed = [o for o in outcomes if o.verdict != "NOT REPLAYED"]
    leaks = sum(len(o.leaked) for o in outcomes)
    table = {
        "attempts": {"after": len(replayed), "which": ids(lambda o: o.verdict == "NOT REPLAYED"),
                     "label": "attempts replayed (which: not replayed)"},
        "tracebacks": {"after": len(ids(lambda o: counted(o, "TRACEBACK"))),
                       "which": ids(lambda o: counted(o, "TRACEBACK")), "label": "Python tracebacks printed"},
        "uncaught": {"after": len(ids(lambda o: counted(o, "TRACEBACK", "CRASH"))),
                     "which": ids(lambda o: counted(o, "TRACEBACK", "CRASH")),
                     "label": "uncaught exceptions (\"internal error\" / \"the check itself failed\"; "
                              "tracebacks included)"},
        "hangs": {"after": len(ids(lambda o: counted(o, "HANG"))), "which": ids(lambda o: counted(o, "HANG")),
                  "label": "hangs / stalls > 30 s (defects)"},
        "hangs_by_design": {"after": len(ids(lambda o: o.verdict == "BY DESIGN")),
                            "which": ids(lambda o: o.verdict == "BY DESIGN"), "label": "hangs by design (not counted)"},
        "escapes": {"after": len(ids(lambda o: counted(o, "ESCAPE"))), "which": ids(lambda o: counted(o, "ESCAPE")),
                    "label": "escapes (attempts; the review's 3 = 1 write kind on 6 paths + 2 read kinds)"},
        "leaks": {"after": leaks, "which": [f"{o.row}:{len(o.leaked)}" for o in outcomes if o.leaked],
                  "label": "leaked secrets"},
        "partial": {"after": len(ids(lambda o: counted(o, "DATA LOSS", "PARTIAL"))),
                    "which": ids(lambda o: counted(o, "DATA LOSS", "PARTIAL")),
                    "label": "partial / corrupted / lost outputs"},
        "injections": {"after": len(ids(lambda o: counted(o, "INJECTION"))),
                       "which": ids(lambda o: counted(o, "INJECTION")),
                       "label": "injections (a pasteable command runs a payload; a raw terminal escape)"},
        "exit_codes": {"after": len(ids(lambda o: counted(o, "EXIT CODE"))),
                       "which": ids(lambda o: counted(o, "EXIT CODE")),
                       "label": "wrong exit codes (a gate passes with nothing judged)"},
        "bugs": {"after": len(ids(lambda o: counted(o, "BUG"))), "which": ids(lambda o: counted(o, "BUG")),
                 "label": "wrong message or exit code (BUG; not totalled by the review)"},
    }
    before = REVIEW_TOTALS if review == 1 else _review2().REVIEW2_TOTALS
    for key, row in table.items():
        row["before"] = before.get(key)
    if review == 2:
        made = sum(1 for a in ATTEMPTS if a.review == 2)
        table["attempts"]["label"] = (f"attempts replayed (which: not replayed); {made} of the review's "
                                      f"{before['attempts']} reconstructed from the document")
        table["escapes"]["label"] = "escapes (attempts; the review's 1 = `-o` through a link, on 5 commands)"
        table["partial"]["label"] = "destroyed outputs / inputs"
    return table


def format_line(o: Outcome) -> str:
    rc = "-" if o.rc is None else str(o.rc)
    return f"{o.row:>4}  {o.id:<36} {o.verdict:<12} rc={rc:>4} {o.seconds:7.2f}s  {o.observation}"


def format_totals(table: Dict[str, Dict[str, Any]]) -> str:
    lines = ["| metric | before (the review) | after (this replay) | which (after) |", "|---|---|---|---|"]
    for row in table.values():
        before = "-" if row["before"] is None else str(row["before"])
        which = ", ".join(row["which"]) if row["which"] else "-"
        lines.append(f"| {row['label']} | {before} | {row['after']} | {which} |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------

def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", metavar="FILE", help="also write every attempt and the totals as JSON to FILE")
    parser.add_argument("--only", metavar="IDS", help="comma-separated rows or ids (e.g. 21,22,M5,B-tar-abs)")
    parser.add_argument("--list", action="store_true", help="list the attempts and exit")
    parser.add_argument("--review", choices=["1", "2", "all"], default="all",
                        help="which review's attempts: 1 (hostile_inputs.md), 2 (hostile_inputs_2.md) or all")
    parser.add_argument("--tool-cmd", metavar="CMD", help="the command to replay instead of this checkout's "
                        "ascend-doctor, e.g. 'env PYTHONPATH=/tmp/v010 python -m ascend_doctor' for the reviewed "
                        "0.1.0 (git archive f196015): the harness should then find the review's own totals")
    parser.add_argument("--dev-worker", metavar="SCRATCH", help=argparse.SUPPRESS)
    parser.add_argument("--parent-ns", help=argparse.SUPPRESS)
    parser.add_argument("--parent-dev", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tool_cmd:
        TOOL_OVERRIDE[:] = shlex.split(args.tool_cmd)

    if args.dev_worker:
        return dev_worker(Path(args.dev_worker), args.parent_ns, args.parent_dev, (args.only or "").split(","))
    chosen = [a for a in ATTEMPTS if args.review == "all" or a.review == int(args.review)]
    if args.only:
        wanted = {x.strip() for x in args.only.split(",") if x.strip()}
        chosen = [a for a in ATTEMPTS if a.row in wanted or a.id in wanted]
    if args.list:
        for a in ATTEMPTS:
            print(f"{a.row:>4}  {a.id:<36} {a.command}")
        return 0
    assert sum(1 for a in ATTEMPTS if a.review == 1) == 265, len(ATTEMPTS)

    # A shell starts background jobs with SIGINT ignored, and an ignored signal stays ignored
    # across exec: the signal rows need ascend-doctor to get SIGINT at its default disposition.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminate)
    started = time.time()
    scratch = Path(tempfile.mkdtemp(prefix="hostile-replay-"))
    ctx = Ctx(scratch)
    outcomes: Dict[str, Outcome] = {}
    try:
        print(f"# hostile-input replay: {len(chosen)} attempt(s), scratch {scratch}", flush=True)
        for attempt in chosen:
            if attempt.dev:
                continue
            outcome = run_attempt(ctx, attempt)
            outcomes[attempt.id] = outcome
            print(format_line(outcome), flush=True)
        for outcome in run_dev_rows(ctx, [a for a in chosen if a.dev]):
            outcomes[outcome.id] = outcome
            print(format_line(outcome), flush=True)
    finally:
        ctx.close()
        _rm_tree(scratch)
    ordered = [outcomes[a.id] for a in chosen if a.id in outcomes]
    review_of = {a.id: a.review for a in ATTEMPTS}
    tables: Dict[str, Dict[str, Dict[str, Any]]] = {}
    for review, title in REVIEWS.items():
        mine = [o for o in ordered if review_of.get(o.id) == review]
        if not mine:
            continue
        tables[str(review)] = totals(mine, review)
        print(f"\n## Totals: review {review}, {title}\n")
        print(format_totals(tables[str(review)]))
    table = tables.get("1") or next(iter(tables.values()), {})
    counts: Dict[str, int] = {}
    for o in ordered:
        counts[o.verdict] = counts.get(o.verdict, 0) + 1
    print("\nverdicts: " + ", ".join(f"{k} {counts[k]}" for k in SEVERITY if k in counts) +
          f"  ({time.time() - started:.0f} s)")
    if args.json:
        report = {"tool": _tool_version(), "commit": _commit(), "python": sys.version.split()[0],
                  "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
                  "duration_s": round(time.time() - started, 1), "review": "hostile_inputs.md (0.1.0, f196015)",
                  "attempts": [o.as_json() for o in ordered], "totals": table, "totals_by_review": tables,
                  "verdicts": counts}
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM: clean up the scratch folder as Ctrl-C does


def _tool_version() -> str:
    done = subprocess.run([*tool_argv(), "--version"], capture_output=True,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return done.stdout.decode(errors="replace").strip()


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True)
    return done.stdout.decode().strip()


if __name__ == "__main__":
    sys.exit(main())
