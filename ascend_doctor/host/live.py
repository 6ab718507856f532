"""``LiveHost``: the machine the doctor runs on, through subprocess / os / psutil.

Two promises matter more than anything else here:

* ``run`` never hangs. ``npu-smi`` on a broken driver blocks forever, sometimes in a state where
  even SIGKILL takes effect late, and it may leave children holding our pipes open. So every
  command starts in its own session (process group), its output is read with a deadline, the
  whole group is killed on timeout, and we stop waiting for a process that will not die.
* Nothing here raises for facts about the machine: a missing binary, a denial or a hang is a
  ``CommandResult`` status; a file problem is a ``HostFileError`` subclass.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat as statmod
import sys
import time
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Dict, List, Mapping, Optional, Sequence, Tuple

# subprocess, selectors, threading, shutil, socket and platform are imported where a command is run or
# the host described: `plan` and `model` open a live host only to look at paths, and these cost ~8 ms.
if TYPE_CHECKING:
    import subprocess

from ascend_doctor import interrupt
from ascend_doctor.host.base import (
    DEFAULT_MAX_READ_BYTES,
    DEFAULT_TIMEOUT_S,
    MAX_OUTPUT_BYTES,
    CommandResult,
    CommandStatus,
    DiskUsage,
    FileMissing,
    FilePermissionDenied,
    FileStat,
    FileTooLarge,
    HostInfo,
    ListeningSocket,
    MemoryInfo,
    ProcessInfo,
    PythonEnv,
    classify_exit,
)

# How long we wait for the pipes to close once the command itself has exited (a background
# grandchild may keep them open forever).
PIPE_GRACE_S = 0.5
# How long we wait for a killed process to be reaped (a process stuck in the kernel, state D,
# dies only when the kernel lets it).
REAP_GRACE_S = 1.0
MAX_PARALLEL_COMMANDS = 8
_READ_CHUNK = 65536

# Child environment: outputs must not be localized (parsers read English).
_C_LOCALE = {"LC_ALL": "C", "LANG": "C", "LANGUAGE": "C"}

def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class _Sink:
    """Bounded buffer for one pipe."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: List[bytes] = []
        self.size = 0
        self.truncated = False

    def add(self, data: bytes) -> None:
        room = self.limit - self.size
        if room <= 0:
            self.truncated = self.truncated or bool(data)
            return
        if len(data) > room:
            data = data[:room]
            self.truncated = True
        self.chunks.append(data)
        self.size += len(data)

    def text(self) -> str:
        return _decode(b"".join(self.chunks))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the command and everything it started in its process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    except OSError:
        pass
    with contextlib.suppress(OSError):
        proc.kill()


def _reap_later(proc: subprocess.Popen[bytes]) -> None:
    """Reap a process that would not die in time, without making the caller wait."""
    import threading

    threading.Thread(target=proc.wait, name="ascend-doctor-reaper", daemon=True).start()


class LiveHost:
    """The local machine."""

    def __init__(self, timeout_s: float = DEFAULT_TIMEOUT_S, python: Optional[str] = None,
                 max_output_bytes: int = MAX_OUTPUT_BYTES) -> None:
        self.timeout_s = timeout_s
        self.python = python
        self.max_output_bytes = max_output_bytes

    # -- identity -----------------------------------------------------------------------
    def info(self) -> HostInfo:
        import platform
        import socket

        return HostInfo(
            source="live",
            hostname=socket.gethostname() or None,
            arch=platform.machine() or None,
            kernel=platform.release() or None,
            os=_os_pretty_name(),
        )

    def close(self) -> None:
        """Nothing to release; present so every host can be closed the same way."""

    # -- what the view covers: all of this machine, recorded nowhere -----------------------------
    @property
    def metadata(self) -> Mapping[str, object]:
        return {}

    def captured(self, path: str) -> bool:
        return True

    def captured_disk(self, path: str) -> bool:
        return True

    def captured_command(self, argv: Sequence[str]) -> bool:
        return True

    def recorded_commands(self) -> List[str]:
        return []

    def recorded_model(self, path: str) -> bool:
        return False

    # -- commands -----------------------------------------------------------------------
    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        args = tuple(str(a) for a in argv)
        limit = self.timeout_s if timeout is None else timeout
        limit = max(float(limit), 0.01)
        if not args:
            return CommandResult(args, CommandStatus.ERROR, detail="empty command")
        if interrupt.requested():  # Ctrl-C arrived: start nothing new
            return CommandResult(args, CommandStatus.ERROR, detail="not run: interrupted")
        import subprocess

        env = dict(os.environ)
        env.update(_C_LOCALE)
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                close_fds=True,
                start_new_session=True,  # own process group: a timeout kills its children too
            )
        except FileNotFoundError:
            return CommandResult(args, CommandStatus.NOT_FOUND, detail="not installed or not on PATH")
        except PermissionError as exc:
            return CommandResult(args, CommandStatus.PERMISSION_DENIED,
                                 detail=exc.strerror or "cannot execute")
        except OSError as exc:
            reason = exc.strerror or str(exc)
            if exc.errno == errno.ENOEXEC:
                reason = "exec format error (built for another architecture?)"
            return CommandResult(args, CommandStatus.ERROR, detail=reason)
        # Ctrl-C reaches us, not the command (it has its own session): the interrupt handler
        # kills the registered group, and any exception on the way out kills it here.
        interrupt.register_group(proc.pid)
        try:
            return self._collect(proc, args, limit, started)
        except BaseException:
            _kill_group(proc)
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=REAP_GRACE_S)
            raise
        finally:
            interrupt.unregister_group(proc.pid)

    def _collect(self, proc: subprocess.Popen[bytes], args: Tuple[str, ...], limit: float,
                 started: float) -> CommandResult:
        deadline = started + limit
        out, err = _Sink(self.max_output_bytes), _Sink(self.max_output_bytes)
        timed_out = False
        cancelled = False
        exited_at: Optional[float] = None
        import selectors
        import subprocess

        sel = selectors.DefaultSelector()
        streams: Dict[int, Tuple[IO[bytes], _Sink]] = {}
        for stream, sink in ((proc.stdout, out), (proc.stderr, err)):
            if stream is not None:
                sel.register(stream, selectors.EVENT_READ)
                streams[stream.fileno()] = (stream, sink)
        try:
            while streams:
                now = time.monotonic()
                if exited_at is None and proc.poll() is not None:
                    exited_at = now
                if interrupt.requested():  # polled by worker threads of run_many
                    cancelled = True
                    break
                if now >= deadline:
                    timed_out = exited_at is None
                    break
                if exited_at is not None and now - exited_at >= PIPE_GRACE_S:
                    break  # the command is done; a leftover child holds the pipe
                wait = min(deadline - now, 0.05)
                for key, _ in sel.select(timeout=wait):
                    fd = key.fileobj.fileno()  # type: ignore[union-attr]
                    try:
                        data = os.read(fd, _READ_CHUNK)
                    except OSError:
                        data = b""
                    if data:
                        streams[fd][1].add(data)
                    else:
                        sel.unregister(key.fileobj)
                        del streams[fd]
        finally:
            sel.close()
        if not timed_out and not streams and proc.poll() is None:
            # Both pipes closed but the command is still working: wait for it, up to the deadline.
            try:
                proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
            except subprocess.TimeoutExpired:
                timed_out = True
        # Kill whatever is left in the group: on timeout the command itself, otherwise the
        # stray children that kept our pipes open.
        if timed_out or streams or cancelled:
            _kill_group(proc)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        returncode: Optional[int]
        try:
            returncode = proc.wait(timeout=REAP_GRACE_S)
        except subprocess.TimeoutExpired:
            returncode = None
            _reap_later(proc)
        duration = time.monotonic() - started
        notes = []
        if out.truncated:
            notes.append(f"stdout truncated at {self.max_output_bytes} bytes")
        if err.truncated:
            notes.append(f"stderr truncated at {self.max_output_bytes} bytes")
        stdout, stderr = out.text(), err.text()
        if cancelled:
            return CommandResult(args, CommandStatus.ERROR, returncode=returncode, stdout=stdout, stderr=stderr,
                                 duration_s=duration, timeout_s=limit, detail="killed: interrupted")
        if timed_out:
            notes.insert(0, f"killed after {limit:g} s")
            return CommandResult(args, CommandStatus.TIMEOUT, returncode=None, stdout=stdout,
                                 stderr=stderr, duration_s=duration, timeout_s=limit,
                                 detail="; ".join(notes))
        if returncode is None:  # exited per poll() but could not be reaped: should not happen
            return CommandResult(args, CommandStatus.ERROR, stdout=stdout, stderr=stderr,
                                 duration_s=duration, timeout_s=limit, detail="exit status unknown")
        status, why = classify_exit(returncode, stderr)
        if why:
            notes.insert(0, why)
        return CommandResult(args, status, returncode=returncode, stdout=stdout, stderr=stderr,
                             duration_s=duration, timeout_s=limit, detail="; ".join(notes))

    def run_many(self, commands: Sequence[Sequence[str]],
                 timeout: Optional[float] = None) -> List[CommandResult]:
        todo = [tuple(c) for c in commands]
        if not todo:
            return []
        if len(todo) == 1:
            return [self.run(todo[0], timeout)]
        workers = min(MAX_PARALLEL_COMMANDS, len(todo))
        from concurrent.futures import ThreadPoolExecutor  # here: it brings logging and queue along

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ascend-doctor-run") as pool:
            return list(pool.map(lambda argv: self.run(argv, timeout), todo))

    # -- files --------------------------------------------------------------------------
    def read_bytes(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> bytes:
        with self._open_checked(path, max_bytes) as fh:
            # /proc and /sys files report size 0: read one byte past the limit to know.
            data = fh.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise FileTooLarge(path, f"larger than {max_bytes} bytes")
        return data

    def read_text(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> str:
        return _decode(self.read_bytes(path, max_bytes))

    def open_binary(self, path: str) -> BinaryIO:
        return self._open_checked(path, None)

    def _open_checked(self, path: str, max_bytes: Optional[int]) -> BinaryIO:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise FileMissing(path, "no such file") from None
        except NotADirectoryError:
            raise FileMissing(path, "no such file (a parent is not a directory)") from None
        except PermissionError:
            raise FilePermissionDenied(path, "permission denied") from None
        except OSError as exc:
            raise FileMissing(path, exc.strerror or str(exc)) from None
        if statmod.S_ISDIR(st.st_mode):
            raise FileMissing(path, "is a directory, not a file")
        if not statmod.S_ISREG(st.st_mode):
            # Devices and FIFOs can block forever or have side effects on read.
            raise FileMissing(path, "not a regular file")
        if max_bytes is not None and st.st_size > max_bytes:
            raise FileTooLarge(path, f"{st.st_size} bytes, more than the {max_bytes} allowed")
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            raise FileMissing(path, "no such file") from None
        except PermissionError:
            raise FilePermissionDenied(path, "permission denied") from None
        except OSError as exc:
            raise FileMissing(path, exc.strerror or str(exc)) from None
        return os.fdopen(fd, "rb")

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(path)

    def stat(self, path: str) -> Optional[FileStat]:
        try:
            st = os.lstat(path)
        except OSError:
            return None
        is_link = statmod.S_ISLNK(st.st_mode)
        target = st
        if is_link:  # report what the link points at, like `ls -lL` would for type
            try:
                target = os.stat(path)
            except OSError:
                target = st
        return FileStat(
            path=path,
            size=st.st_size,
            is_dir=statmod.S_ISDIR(target.st_mode),
            is_file=statmod.S_ISREG(target.st_mode),
            is_symlink=is_link,
            mtime=st.st_mtime,
            mode=st.st_mode,
            uid=st.st_uid,
        )

    def listdir(self, path: str) -> List[str]:
        try:
            return sorted(os.listdir(path))
        except (FileNotFoundError, NotADirectoryError):
            return []
        except PermissionError:
            raise FilePermissionDenied(path, "permission denied") from None
        except OSError:
            return []

    def readlink(self, path: str) -> Optional[str]:
        try:
            return os.readlink(path)
        except OSError:
            return None

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    # -- system facts -------------------------------------------------------------------
    def env(self) -> Mapping[str, str]:
        return dict(os.environ)

    def memory(self) -> Optional[MemoryInfo]:
        try:
            import psutil

            vm = psutil.virtual_memory()
            swap = psutil.swap_memory()
        except Exception:  # psutil missing pieces in odd containers: unknown, not fatal
            return None
        return MemoryInfo(int(vm.total), int(vm.available), int(swap.total), int(swap.free))

    def cpu_count(self) -> Optional[int]:
        return os.cpu_count()

    def disk_usage(self, path: str) -> Optional[DiskUsage]:
        probe = os.path.abspath(path)
        while not os.path.exists(probe):
            parent = os.path.dirname(probe)
            if parent == probe:
                return None
            probe = parent
        import shutil

        try:
            usage = shutil.disk_usage(probe)
        except OSError:
            return None
        return DiskUsage(path=probe, total_bytes=int(usage.total), free_bytes=int(usage.free))

    def processes(self) -> Optional[List[ProcessInfo]]:
        try:
            import psutil
        except ImportError:  # pragma: no cover - psutil is a dependency
            return None
        found: List[ProcessInfo] = []
        try:
            for proc in psutil.process_iter(["pid", "name", "cmdline"]):
                info = proc.info  # attrs the OS refused are None, not an exception
                cmdline = info.get("cmdline") or ()
                found.append(ProcessInfo(int(info["pid"]), info.get("name") or "",
                                         tuple(str(a) for a in cmdline)))
        except (psutil.Error, OSError):
            return found or None
        return found

    def listening_sockets(self) -> Optional[List[ListeningSocket]]:
        try:
            import psutil

            conns = psutil.net_connections(kind="inet")
        except Exception:  # AccessDenied (macOS, hardened kernels) and friends: unknown
            return None
        found: List[ListeningSocket] = []
        seen = set()
        for conn in conns:
            if conn.status != psutil.CONN_LISTEN or not conn.laddr:
                continue
            key = (conn.laddr.ip, conn.laddr.port, conn.pid)
            if key in seen:
                continue
            seen.add(key)
            found.append(ListeningSocket(str(conn.laddr.ip), int(conn.laddr.port), conn.pid))
        return sorted(found, key=lambda s: (s.port, s.address))

    # -- the target Python --------------------------------------------------------------
    def target_python(self) -> str:
        """The interpreter that will run torch: --python, the active venv, python3, or ours."""
        if self.python:
            return self.python
        venv = os.environ.get("VIRTUAL_ENV")
        if venv:
            candidate = os.path.join(venv, "bin", "python")
            if os.path.exists(candidate):
                return candidate
        import shutil

        found = shutil.which("python3")
        return found or sys.executable

    def python_env(self) -> PythonEnv:
        return self.python_probe()[0]

    def python_probe(self) -> Tuple[PythonEnv, Dict[str, Any]]:
        """The target Python as a ``PythonEnv``, plus the probe's raw JSON (with ``path``,
        its sys.path); the raw part is {} when the interpreter could not be inspected."""
        from ascend_doctor.host.pyprobe import parse_probe_record, probe_source

        exe = self.target_python()
        result = self.run([exe, "-c", probe_source()], timeout=self.timeout_s)
        if not result.ok:
            return PythonEnv(executable=exe, version=None, error=describe_probe_failure(exe, result)), {}
        return parse_probe_record(result.stdout, exe)


def describe_probe_failure(exe: str, result: CommandResult) -> str:
    """One line on why the target Python could not be inspected; the probe's source (the ``-c``
    argument, ~200 lines) is never quoted."""
    from msgspec import structs

    if result.status is CommandStatus.NOT_FOUND:
        return f"no such interpreter: {exe}"
    shown = structs.replace(result, argv=(exe, "-c", "<probe>"))
    return f"could not inspect {exe}: {shown.describe_failure()}"


def _os_pretty_name(path: str = "/etc/os-release") -> Optional[str]:
    for candidate in (path, "/usr/lib/os-release"):
        try:
            with open(candidate, encoding="utf-8", errors="replace") as fh:
                text = fh.read(64 * 1024)
        except OSError:
            continue
        return parse_os_release(text).get("PRETTY_NAME")
    return None


def parse_os_release(text: str) -> Dict[str, str]:
    """``KEY=value`` / ``KEY="value"`` lines of os-release."""
    out: Dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        out[key.strip()] = value
    return out
