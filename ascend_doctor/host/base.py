"""The host abstraction: the only door through which ascend-doctor touches a machine.

Two implementations exist: ``LiveHost`` (this machine, through subprocess / os / psutil) and
``SnapshotHost`` (a captured machine snapshot, see docs/snapshot-format.md). Probes receive a
``Host`` and never know which one they have; that is what makes every check testable without
an NPU.

Failures that are *facts about the machine* (a missing binary, permission denied, a hung
command, a file that is not there) are returned as data (``CommandResult.status``) or raised as
``HostFileError`` subclasses that callers catch; they are never generic exceptions.
"""

from __future__ import annotations

import enum
from typing import BinaryIO, Dict, List, Mapping, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import gettext as _

try:  # Protocol is in typing from 3.8; keep the import explicit for readers.
    from typing import Protocol
except ImportError:  # pragma: no cover
    from typing_extensions import Protocol  # type: ignore

DEFAULT_TIMEOUT_S = 10.0
# Files read through the host are bounded: version files are tiny, logs are streamed.
DEFAULT_MAX_READ_BYTES = 4 * 1024 * 1024


class CommandStatus(str, enum.Enum):
    """How a command ended, as seen by the doctor."""

    OK = "ok"  # it ran and exited (rc may still be non-zero)
    NOT_FOUND = "not_found"  # the binary is not installed / not on PATH
    PERMISSION_DENIED = "permission_denied"  # exec or the command itself refused us
    TIMEOUT = "timeout"  # killed after the timeout: typical of npu-smi on a broken driver
    ERROR = "error"  # could not be started for another reason


class CommandResult(Struct, frozen=True):
    """The outcome of running one command on a host."""

    argv: Tuple[str, ...]
    status: CommandStatus
    returncode: Optional[int] = None
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    timeout_s: Optional[float] = None
    detail: str = ""  # human explanation for non-OK statuses

    @property
    def ok(self) -> bool:
        """Ran and exited 0."""
        return self.status is CommandStatus.OK and self.returncode == 0

    @property
    def command_line(self) -> str:
        return " ".join(self.argv)

    def describe_failure(self) -> str:
        """One line saying why this command did not give usable output."""
        cmd = f"`{self.command_line}`"
        if self.status is CommandStatus.NOT_FOUND:
            return _("{command}: command not found").format(command=cmd)
        if self.status is CommandStatus.TIMEOUT:
            return _("{command} did not answer within {seconds} s and was killed").format(
                command=cmd, seconds=f"{self.timeout_s:g}")
        if self.status is CommandStatus.PERMISSION_DENIED:
            if self.detail:
                return _("{command}: permission denied ({detail})").format(command=cmd, detail=self.detail)
            return _("{command}: permission denied").format(command=cmd)
        if self.status is CommandStatus.ERROR:
            return _("{command} could not be run: {detail}").format(command=cmd, detail=self.detail)
        err = (self.stderr.strip() or self.stdout.strip()).splitlines()
        if err:
            return _("{command} exited with status {code}: {output}").format(
                command=cmd, code=self.returncode, output=err[-1][:200])
        return _("{command} exited with status {code}").format(command=cmd, code=self.returncode)


class HostFileError(Exception):
    """Base class for file access problems that are facts, not bugs."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class FileMissing(HostFileError):
    pass


class FilePermissionDenied(HostFileError):
    pass


class FileTooLarge(HostFileError):
    pass


class PathRefused(HostFileError):
    """A snapshot path that would escape the snapshot (symlink or ``..``)."""


class SnapshotError(Exception):
    """The snapshot itself cannot be used (unreadable, malformed, hostile archive)."""


class FileStat(Struct, frozen=True):
    path: str
    size: int
    is_dir: bool
    is_file: bool
    is_symlink: bool
    mtime: float = 0.0
    mode: int = 0
    # The owner's uid; None when the host cannot tell (a snapshot records owners only where it
    # says so, e.g. the model record of `snapshot --model`), so permission checks can say
    # "not recorded" instead of judging the replaying machine's files.
    uid: Optional[int] = None


class MemoryInfo(Struct, frozen=True):
    total_bytes: int
    available_bytes: int
    swap_total_bytes: int = 0
    swap_free_bytes: int = 0


class DiskUsage(Struct, frozen=True):
    path: str
    total_bytes: int
    free_bytes: int


class ProcessInfo(Struct, frozen=True):
    pid: int
    name: str
    cmdline: Tuple[str, ...] = ()


class ListeningSocket(Struct, frozen=True):
    address: str
    port: int
    pid: Optional[int] = None


class PythonEnv(Struct, frozen=True):
    """The target interpreter (the one that will run torch), not the doctor's own."""

    executable: Optional[str]
    version: Optional[str]
    packages: Mapping[str, str] = field(default_factory=dict)
    error: Optional[str] = None  # why it could not be inspected, when it could not

    def package(self, name: str) -> Optional[str]:
        """Installed version of a distribution, matching names PEP 503-style."""
        want = normalize_dist_name(name)
        for key, value in self.packages.items():
            if normalize_dist_name(key) == want:
                return value
        return None


def normalize_dist_name(name: str) -> str:
    return "".join("-" if c in "_." else c for c in name.lower())


class HostInfo(Struct, frozen=True):
    source: str  # "live" | "snapshot" | "pasted-text" (a partial snapshot from `check --from-text`)
    hostname: Optional[str]
    arch: Optional[str]
    kernel: Optional[str]
    os: Optional[str]
    origin: Optional[str] = None  # snapshot path, when a snapshot
    captured_at: Optional[str] = None
    tool_version: Optional[str] = None


class Host(Protocol):
    """Everything the doctor may ask of a machine."""

    def info(self) -> HostInfo: ...

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        """Run a command; never raises for missing binaries, denials or hangs."""
        ...

    def run_many(
        self, commands: Sequence[Sequence[str]], timeout: Optional[float] = None
    ) -> List[CommandResult]:
        """Run independent commands (concurrently where the host can)."""
        ...

    def read_bytes(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> bytes:
        """Read a whole file; raises FileMissing / FilePermissionDenied / FileTooLarge / PathRefused."""
        ...

    def read_text(self, path: str, max_bytes: int = DEFAULT_MAX_READ_BYTES) -> str: ...

    def open_binary(self, path: str) -> BinaryIO:
        """Open a file for streaming (logs, weights). Same errors as read_bytes."""
        ...

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def stat(self, path: str) -> Optional[FileStat]:
        """lstat-like: None when the path does not exist."""
        ...

    def listdir(self, path: str) -> List[str]:
        """Names in a directory, sorted; [] when absent. Raises FilePermissionDenied."""
        ...

    def readlink(self, path: str) -> Optional[str]:
        """Target of a symlink as stored, None when not a symlink."""
        ...

    def realpath(self, path: str) -> str:
        """Resolve symlinks inside the host's view of the filesystem."""
        ...

    def env(self) -> Mapping[str, str]: ...

    def memory(self) -> Optional[MemoryInfo]: ...

    def cpu_count(self) -> Optional[int]: ...

    def disk_usage(self, path: str) -> Optional[DiskUsage]: ...

    def processes(self) -> Optional[List[ProcessInfo]]:
        """Running processes, None when unknown (e.g. a snapshot without them)."""
        ...

    def listening_sockets(self) -> Optional[List[ListeningSocket]]: ...

    def python_env(self) -> PythonEnv: ...

    def close(self) -> None:
        """Release what the host holds (the unpacked copy of a snapshot archive); nothing, live."""
        ...

    # -- what a recorded machine covers ------------------------------------------------------------
    # A snapshot answers only what its capture asked; the facts ask these before they turn "absent"
    # into a finding (facts/origin.py). A live machine is asked directly: it covers every question
    # and records nothing.
    @property
    def metadata(self) -> Mapping[str, object]:
        """snapshot.json as recorded; {} on a live machine."""
        ...

    def captured(self, path: str) -> bool:
        """Whether the host's view covers ``path`` (so its absence is a fact of the machine)."""
        ...

    def captured_disk(self, path: str) -> bool:
        """Whether the host's view covers the disk usage of ``path``."""
        ...

    def captured_command(self, argv: Sequence[str]) -> bool:
        """Whether the host's view covers ``argv`` (so a missing output means "not installed")."""
        ...

    def recorded_commands(self) -> List[str]:
        """The stems of the command outputs a snapshot holds, sorted; [] on a live machine."""
        ...

    def recorded_model(self, path: str) -> bool:
        """Whether ``path`` is a model folder a snapshot recorded (sizes and headers, not weights)."""
        ...


# The snapshot folder holding the model folders recorded with ``snapshot --model``
# (host/model_record.py). The snapshot host looks for it before importing that module: most
# snapshots hold none.
SNAPSHOT_MODEL_DIR = "model"


def command_file_name(argv: Sequence[str]) -> str:
    """Snapshot file stem for a command: the argv joined with ``_`` (``npu-smi_info``).

    Path separators inside arguments are replaced too, so a name can never leave ``commands/``.
    """
    joined = "_".join(argv)
    return joined.replace("/", "_").replace("\\", "_").replace("\x00", "_")


# Each of a command's stdout/stderr is kept up to this size (live: the rest is read and dropped so the
# child does not block on a full pipe; snapshot: the rest of a recorded file is not read).
MAX_OUTPUT_BYTES = 4 * 1024 * 1024

_DENIAL_WORDS = ("operation not permitted", "permission denied")


def classify_exit(returncode: int, stderr: str) -> Tuple[CommandStatus, str]:
    """Status of a command that ran and exited, from its exit status and stderr.

    Shared by the live and the snapshot host so a recorded result reads exactly like a live one:
    127 is the shell's "command not found" (but not the dynamic loader's missing library,
    which is a real and useful error to show), 126 is "found but not executable", and a
    failure whose stderr says "Operation not permitted" / "Permission denied" is a denial
    (``dmesg`` as non-root).
    """
    last = _last_line(stderr)
    lowered = stderr.lower()
    if returncode == 127 and "shared librar" not in lowered:
        return CommandStatus.NOT_FOUND, last
    if returncode == 126:
        if "exec format error" in lowered:
            return CommandStatus.ERROR, last or "exec format error (built for another architecture?)"
        return CommandStatus.PERMISSION_DENIED, last
    if returncode != 0 and any(word in lowered for word in _DENIAL_WORDS):
        return CommandStatus.PERMISSION_DENIED, last
    return CommandStatus.OK, ""


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""


def parse_env_lines(text: str) -> Dict[str, str]:
    """Parse ``NAME=value`` lines (as printed by ``env``)."""
    out: Dict[str, str] = {}
    for line in text.splitlines():
        if "=" in line:
            key, _sep, value = line.partition("=")
            if key and key.replace("_", "").isalnum():
                out[key] = value
    return out
