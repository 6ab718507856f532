"""Record this machine into a snapshot (docs/snapshot-format.md) that ``SnapshotHost`` replays.

What is recorded is listed in three constants that the doctor's probes and this capture must
agree on: ``CAPTURE_COMMANDS`` (+ ``FIRST_NPU_COMMANDS``), ``CAPTURE_PATHS`` and
``CAPTURE_DISKS``. A probe that reads a new command or file needs a line here too, or
replaying a snapshot will report it as "not installed".

A snapshot is meant to be sent to someone else, so the capture is conservative:

* file contents are copied only from the Ascend install roots and a few system areas
  (``CAPTURE_ROOTS``); a symlink that leads elsewhere is kept as a symlink, its target is not
  copied. Files are bounded in size; devices are recorded as empty files;
* secrets are redacted by name and by value (ascend_doctor/redaction/secrets.py, the policy in
  docs/redaction.md): environment variables, process command lines, command outputs, copied
  files and log tails;
* nothing under the model folders is read (no weights).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import glob
import json
import os
import re
import stat as statmod
import tarfile
import tempfile
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ascend_doctor import __version__
from ascend_doctor.fastdataclass import dataclass, field
from ascend_doctor.host.base import DEFAULT_TIMEOUT_S, CommandResult, CommandStatus, HostFileError, command_file_name
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.snapshot import SNAPSHOT_FORMAT
from ascend_doctor.redaction.secrets import redact_cmdline, redact_env, redact_snapshot_files

# Commands run on every capture (concurrently, each with the --timeout).
CAPTURE_COMMANDS: Tuple[Tuple[str, ...], ...] = (
    ("npu-smi", "info"),
    ("npu-smi", "info", "-l"),
    ("npu-smi", "info", "-m"),
    ("npu-smi", "info", "-t", "topo"),
    ("dmesg",),
    ("uname", "-a"),
    ("lspci",),
    ("lscpu",),
    ("/usr/local/Ascend/driver/tools/upgrade-tool", "--device_index", "-1", "--component", "-1", "--version"),
    ("sh", "-c", "ulimit -n"),
)

# Run for the first NPU only ("{npu}" is its id), when `npu-smi info` answered.
FIRST_NPU_COMMANDS: Tuple[Tuple[str, ...], ...] = (
    ("npu-smi", "info", "-t", "board", "-i", "{npu}"),
    ("npu-smi", "info", "-t", "usages", "-i", "{npu}"),
)  # hccn_tool runs for every NPU: ascend_doctor/facts/network.py capture_hccn

COPY = "copy"  # copy the file's content (bounded)
EMPTY = "empty"  # record that it exists, as an empty file (devices, binaries)
LIST = "list"  # record a folder with its sub-folders and symlinks (no file contents)


@dataclass(frozen=True)
class CapturePath:
    """A glob of host paths to record. ``{root}`` stands for each Ascend install root."""

    pattern: str
    mode: str = COPY


CAPTURE_PATHS: Tuple[CapturePath, ...] = (
    # Layout first, so the listings exist before the files land in them.
    CapturePath("{root}", LIST),
    CapturePath("{root}/ascend-toolkit", LIST),
    CapturePath("{root}/ascend-toolkit/latest", LIST),
    CapturePath("{root}/ascend-toolkit/*", LIST),
    CapturePath("{root}/nnae", LIST),
    CapturePath("{root}/nnae/*", LIST),
    CapturePath("{root}/cann*", LIST),
    CapturePath("{root}/driver", LIST),
    CapturePath("{root}/driver/lib64", LIST),
    CapturePath("{root}/nnal/atb/latest/atb", LIST),
    CapturePath("{root}/mindie", LIST),
    # Installed versions
    CapturePath("/etc/ascend_install.info"),
    CapturePath("/etc/hccn.conf"),
    CapturePath("/etc/os-release"),
    CapturePath("{root}/driver/version.info"),
    CapturePath("{root}/firmware/version.info"),
    CapturePath("{root}/*/version.info"),
    CapturePath("{root}/ascend-toolkit/*/version.cfg"),
    CapturePath("{root}/ascend-toolkit/*/*/ascend_*_install.info"),
    CapturePath("{root}/ascend-toolkit/*/ascend_*_install.info"),
    CapturePath("{root}/ascend-toolkit/*/*/version.info"),
    CapturePath("{root}/nnae/*/ascend_nnae_install.info"),
    CapturePath("{root}/nnae/*/*/ascend_nnae_install.info"),
    CapturePath("{root}/nnae/*/version.cfg"),
    CapturePath("{root}/cann*/version.cfg"),
    CapturePath("{root}/cann*/*/ascend_*_install.info"),
    CapturePath("{root}/cann*/*/version.info"),
    CapturePath("{root}/nnal/atb/latest/version.info"),
    CapturePath("{root}/nnal/atb/*/version.info"),
    CapturePath("{root}/mindie/latest/version.info"),
    CapturePath("{root}/mindie/*/version.info"),
    CapturePath("{root}/atb-models/version.info"),
    # Operator kernels: which SoC folders exist, and which have a binary_info_config.json
    CapturePath("{root}/ascend-toolkit/*/opp/built-in/op_impl/ai_core/tbe/kernel", LIST),
    CapturePath("{root}/ascend-toolkit/*/opp/built-in/op_impl/ai_core/tbe/kernel/config", LIST),
    CapturePath("{root}/ascend-toolkit/*/opp/built-in/op_impl/ai_core/tbe/kernel/config/*/binary_info_config.json",
                EMPTY),
    CapturePath("{root}/cann*/opp/built-in/op_impl/ai_core/tbe/kernel", LIST),
    CapturePath("{root}/cann*/opp/built-in/op_impl/ai_core/tbe/kernel/config", LIST),
    CapturePath("{root}/cann*/opp/built-in/op_impl/ai_core/tbe/kernel/config/*/binary_info_config.json", EMPTY),
    # Driver pieces whose presence matters inside containers
    CapturePath("{root}/driver/lib64/driver/libascend_hal.so", EMPTY),
    CapturePath("{root}/driver/tools/hccn_tool", EMPTY),
    CapturePath("/usr/local/bin/npu-smi", EMPTY),
    CapturePath("/usr/local/dcmi/*", EMPTY),
    # Devices and container hints
    CapturePath("/dev/davinci*", EMPTY),
    CapturePath("/dev/devmm_svm", EMPTY),
    CapturePath("/dev/hisi_hdc", EMPTY),
    CapturePath("/.dockerenv", EMPTY),
    CapturePath("/run/.containerenv", EMPTY),
    CapturePath("/proc/1/cgroup"),
    CapturePath("/proc/uda/namespace_node"),
    # Kernel and limits (small files)
    CapturePath("/proc/version"),
    CapturePath("/proc/cmdline"),
    CapturePath("/proc/meminfo"),
    CapturePath("/proc/self/limits"),
    CapturePath("/proc/sys/kernel/numa_balancing"),
    CapturePath("/proc/sys/kernel/pid_max"),
    CapturePath("/proc/sys/kernel/threads-max"),
    CapturePath("/proc/sys/vm/overcommit_memory"),
    CapturePath("/proc/sys/vm/max_map_count"),
    CapturePath("/proc/sys/vm/nr_hugepages"),
    CapturePath("/proc/sys/fs/file-max"),
    CapturePath("/proc/sys/net/core/somaxconn"),
    CapturePath("/sys/kernel/mm/transparent_hugepage/enabled"),
    CapturePath("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
)
# Copied from each folder of the target Python's sys.path (the C++ ABI torch was built with).
TORCH_CONFIG_FILE = "torch/share/cmake/Torch/TorchConfig.cmake"

DEFAULT_ASCEND_ROOT = "/usr/local/Ascend"
# File contents are copied only when their real path is under one of these (plus the install
# roots found at capture time), so a symlink cannot smuggle /root/.ssh into a snapshot.
CAPTURE_ROOTS: Tuple[str, ...] = (
    "/usr/local/Ascend", "/usr/local/dcmi", "/usr/local/bin/npu-smi",
    "/etc/ascend_install.info", "/etc/hccn.conf", "/etc/os-release", "/usr/lib/os-release",
    "/dev", "/proc", "/sys", "/.dockerenv", "/run/.containerenv",
)
# Folders whose free space is recorded in host.json (model and cache places).
CAPTURE_DISKS: Tuple[str, ...] = ("/", "/usr/local/Ascend", "/tmp", "/dev/shm", "/var/log", "/root",
                                  "/home", "/data", "/mnt", "/opt")

MAX_CAPTURE_FILE_BYTES = 1024 * 1024
MAX_CAPTURE_TOTAL_BYTES = 64 * 1024 * 1024
MAX_LINKS = 40

# -- the capture ----------------------------------------------------------------------------


@dataclass
class CaptureSummary:
    output: str
    commands: int = 0
    files: int = 0
    notes: List[str] = field(default_factory=list)


Progress = Callable[[str], None]


def _quiet(_message: str) -> None:
    pass


def capture_snapshot(output: str, timeout_s: float = DEFAULT_TIMEOUT_S, python: Optional[str] = None,
                     progress: Optional[Progress] = None, host: Optional[LiveHost] = None,
                     fs_root: str = "/", finish: Optional[Callable[[str], object]] = None) -> CaptureSummary:
    """Record this machine into ``output``: a ``.tar.gz`` file, a folder when the name ends with
    ``/``, or standard output (``-``, ``/dev/stdout``) as a ``.tar.gz`` stream.

    Nothing partial is ever left behind: a folder is built next to its final name and renamed
    into place at the end (the final name must not exist or be an empty folder); an archive is
    written to a temporary file in the same folder and renamed over the target, which must be a
    new name or a regular file (an existing file is replaced, documented in ``snapshot --help``).
    On any error or Ctrl-C the partial folder or temporary file is removed.

    ``fs_root`` lets tests capture files from a fake tree; commands always run on this machine.
    Raises ``OSError`` when the output cannot be written, ``FileExistsError`` when a folder
    output is not empty and ``safeio.OutputRefused`` for a device, FIFO, socket or folder target.
    """
    import sys

    from ascend_doctor import safeio

    say = progress or _quiet
    live = host or LiveHost(timeout_s=timeout_s, python=python)
    if safeio.output_stream(output) == "stdout":
        summary = CaptureSummary(output="<stdout>")
        with _staging_tree("ascend-snapshot") as tree:
            _build(tree, live, timeout_s, say, summary, fs_root, finish)
            say("writing the archive to standard output")
            stdout = sys.stdout.buffer
            _write_archive(tree, "ascend-snapshot", stdout, "ascend-snapshot.tar.gz")
            stdout.flush()
        return summary
    if output.endswith("/") or output.endswith(os.sep):
        target = check_folder_target(output)
        summary = CaptureSummary(output=target)
        parent = os.path.dirname(target) or "."
        staging = tempfile.mkdtemp(prefix=f".{os.path.basename(target)[:100]}.partial-", dir=parent)
        try:
            _build(staging, live, timeout_s, say, summary, fs_root, finish)
            os.chmod(staging, 0o777 & ~_umask())
            os.rename(staging, target)  # over a missing name or an empty folder: all or nothing
        except BaseException:
            safeio.remove_tree(staging)
            raise
        return summary
    target = safeio.check_output_target(output)
    summary = CaptureSummary(output=output)
    stem = _archive_stem(target)
    with _staging_tree(stem) as tree:
        _build(tree, live, timeout_s, say, summary, fs_root, finish)
        say(f"writing {output}")
        with safeio.atomic_output(output) as fh:
            _write_archive(tree, stem, fh, os.path.basename(target))
    return summary


def check_folder_target(output: str) -> str:
    """The folder a ``snapshot -o DIR/`` will create: it must not exist, or be an empty folder
    (a symlink to one is resolved). Raises ``FileExistsError`` / ``NotADirectoryError`` /
    ``FileNotFoundError`` with a one-line message."""
    target = output.rstrip("/").rstrip(os.sep) or "/"
    if os.path.islink(target):
        target = os.path.realpath(target)
    if os.path.lexists(target):
        if not os.path.isdir(target):
            raise NotADirectoryError(f"{output.rstrip('/')} exists and is not a folder")
        if os.listdir(target):
            raise FileExistsError(f"{target} exists and is not empty")
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"the folder {parent} does not exist")
    return os.path.abspath(target)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _staging_tree(stem: str) -> Iterator[str]:
    """A private folder in the system temp directory to build an archive's tree in."""
    from ascend_doctor import safeio

    staging = tempfile.mkdtemp(prefix="ascend-doctor-capture-")
    try:
        tree = os.path.join(staging, stem)
        os.mkdir(tree)
        yield tree
    finally:
        safeio.remove_tree(staging)


def _archive_stem(output: str) -> str:
    name = os.path.basename(output)
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name or "ascend-snapshot"


def _write_archive(tree: str, stem: str, fileobj: BinaryIO, archive_name: str) -> None:
    """Write ``tree`` as a gzip-compressed tar into ``fileobj``; the gzip header records
    ``archive_name`` (the final name, never a temporary one)."""
    def tidy(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(name=archive_name, mode="w:gz", fileobj=fileobj) as tar:
        tar.add(tree, arcname=stem, filter=tidy)  # symlinks are stored as symlinks


def _build(tree: str, live: LiveHost, timeout_s: float, say: Progress, summary: CaptureSummary,
           fs_root: str, finish: Optional[Callable[[str], object]] = None) -> None:
    say("running commands (npu-smi, dmesg, ...)")
    results = live.run_many(CAPTURE_COMMANDS, timeout=timeout_s)
    first = first_npu_id(results)
    if first is not None:
        extra = [tuple(a.replace("{npu}", first) for a in argv) for argv in FIRST_NPU_COMMANDS]
        say(f"running per-NPU commands for NPU {first}")
        results += live.run_many(extra, timeout=timeout_s)
    smi = next((r for r in results if r.argv == ("npu-smi", "info") and r.ok), None)
    if smi is not None:  # the same hccn_tool queries `check` runs, every NPU, concurrently
        from ascend_doctor.facts.network import capture_hccn

        say("running hccn_tool for every NPU")
        hccn = capture_hccn(lambda argvs: live.run_many(argvs, timeout=timeout_s), smi.stdout)
        results += [r for r in hccn if r.status is not CommandStatus.NOT_FOUND]  # absent = "not installed"
    for result in results:
        write_command(tree, result)
        if result.status is CommandStatus.TIMEOUT:
            summary.notes.append(f"`{result.command_line}` hung and was killed after {result.timeout_s:g} s")
    summary.commands = len(results)

    say("copying Ascend version files and device nodes")
    copier = _Copier(os.path.join(tree, "files"), fs_root, summary)
    roots = install_roots(fs_root)
    copier.allowed = tuple(CAPTURE_ROOTS) + tuple(r for r in roots if r not in CAPTURE_ROOTS)
    for entry in CAPTURE_PATHS:
        for host_path in _expand(entry.pattern, roots, fs_root):
            copier.record(host_path, entry.mode)

    say("recording environment, Python packages and system facts")
    _write_json(os.path.join(tree, "env.json"), redact_env(live.env()))
    py_record = python_record(live)
    _write_json(os.path.join(tree, "python.json"), py_record)
    for folder in py_record.get("path") or []:
        if isinstance(folder, str) and folder.startswith("/"):
            copier.record(folder.rstrip("/") + "/" + TORCH_CONFIG_FILE, COPY)
    say("copying the tails of the newest CANN logs")
    _capture_logs(live, copier, summary)
    summary.files = copier.files
    _write_json(os.path.join(tree, "host.json"), host_record(live))
    info = live.info()
    meta: Dict[str, Any] = {
        "format": SNAPSHOT_FORMAT,
        "hostname": info.hostname,
        "arch": info.arch,
        "kernel": info.kernel,
        "os": info.os,
        "captured_at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool_version": __version__,
        "capture": {"timeout_s": timeout_s, "commands": summary.commands, "files": summary.files},
        "capture_notes": summary.notes,
    }
    _write_json(os.path.join(tree, "snapshot.json"), meta)
    redact_snapshot_files(tree)  # secrets by value in command outputs, copied files and log tails
    if finish is not None:  # e.g. --model: adds to the finished tree before it is archived
        finish(tree)


# -- commands -------------------------------------------------------------------------------

_NPU_ID_LINE = re.compile(r"^\s*NPU ID\s*:\s*(\d+)\s*$", re.MULTILINE)
# First row of an NPU in the table: "| 24      310P3                 | OK  ..." (id, name, health).
_NPU_TABLE_ROW = re.compile(r"^\|\s*(\d+)\s+\S+\s*\|\s*[A-Za-z]", re.MULTILINE)


def first_npu_id(results: Sequence[CommandResult]) -> Optional[str]:
    """The first NPU id, from `npu-smi info -l` ("NPU ID : 0") or the `npu-smi info` table."""
    by_argv = {r.argv: r for r in results}
    listing = by_argv.get(("npu-smi", "info", "-l"))
    if listing is not None and listing.ok:
        match = _NPU_ID_LINE.search(listing.stdout)
        if match:
            return match.group(1)
    table = by_argv.get(("npu-smi", "info"))
    if table is not None and table.ok:
        match = _NPU_TABLE_ROW.search(table.stdout)
        if match:
            return match.group(1)
    return None


def write_command(tree: str, result: CommandResult) -> None:
    """Store one result as commands/<name>.out/.err/.rc/.timeout (see the format doc)."""
    if result.status is CommandStatus.NOT_FOUND and result.returncode is None:
        return  # no .out file = not installed
    folder = os.path.join(tree, "commands")
    os.makedirs(folder, exist_ok=True)
    stem = os.path.join(folder, command_file_name(result.argv))
    stderr = result.stderr
    returncode = result.returncode
    if returncode is None and result.status in (CommandStatus.PERMISSION_DENIED, CommandStatus.ERROR):
        # Could not even start: record it the way a shell reports it.
        stderr = stderr or f"{result.argv[0]}: {result.detail or 'Permission denied'}"
        returncode = 126
    _write_text(stem + ".out", result.stdout)
    if stderr:
        _write_text(stem + ".err", stderr)
    if returncode:
        _write_text(stem + ".rc", f"{returncode}\n")
    if result.status is CommandStatus.TIMEOUT:
        _write_text(stem + ".timeout", f"{result.timeout_s or 0:g}\n")


# -- files ----------------------------------------------------------------------------------


def install_roots(fs_root: str = "/") -> List[str]:
    """Ascend install roots: the default, the one in /etc/ascend_install.info, and the ones
    the environment points at (``ASCEND_HOME_PATH=/opt/Ascend/ascend-toolkit/latest``)."""
    roots = [DEFAULT_ASCEND_ROOT]
    try:
        with open(_on_disk(fs_root, "/etc/ascend_install.info"), encoding="utf-8", errors="replace") as fh:
            text = fh.read(64 * 1024)
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("Driver_Install_Path_Param", "Firmware_Install_Path_Param") and value.strip():
            roots.append(value.strip())
    for name in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = os.environ.get(name, "").strip()
        if value.startswith("/"):
            path = value.rstrip("/")
            if os.path.basename(path) == "latest":
                path = os.path.dirname(os.path.dirname(path))
            elif os.path.basename(path).startswith("cann"):
                path = os.path.dirname(path)
            roots.append(path)
    out: List[str] = []
    for root in roots:
        norm = os.path.normpath(root)
        if norm != "/" and norm not in out and os.path.isdir(_on_disk(fs_root, norm)):
            out.append(norm)
    return out or [DEFAULT_ASCEND_ROOT]


def _on_disk(fs_root: str, host_path: str) -> str:
    return os.path.join(fs_root, host_path.lstrip("/")) if fs_root != "/" else host_path


def _expand(pattern: str, roots: Sequence[str], fs_root: str) -> List[str]:
    """Host paths matching a CAPTURE_PATHS pattern (plain paths are returned as they are)."""
    if "{root}" in pattern:
        patterns = [pattern.replace("{root}", glob.escape(r)) for r in roots]
    else:
        patterns = [pattern]
    base = os.path.normpath(fs_root)
    found: List[str] = []
    for pat in patterns:
        if not any(c in pat for c in "*?["):
            found.append(pat)
            continue
        on_disk = pat if base == "/" else glob.escape(base) + pat
        for match in sorted(glob.glob(on_disk)):
            found.append(match if base == "/" else "/" + os.path.relpath(match, base))
    return found


class _Copier:
    """Copies host paths into files/, keeping symlinks as symlinks, never leaving the roots."""

    def __init__(self, dest: str, fs_root: str, summary: CaptureSummary) -> None:
        self.dest = dest
        self.fs_root = fs_root
        self.summary = summary
        self.allowed: Tuple[str, ...] = CAPTURE_ROOTS
        self.files = 0
        self.total = 0
        self.done: Dict[Tuple[str, str], bool] = {}
        os.makedirs(dest, exist_ok=True)

    def note(self, message: str) -> None:
        if message not in self.summary.notes:
            self.summary.notes.append(message)

    def _allowed(self, host_path: str) -> bool:
        if host_path.endswith("/" + TORCH_CONFIG_FILE):
            return True  # wherever the target Python keeps torch
        return any(host_path == r or host_path.startswith(r.rstrip("/") + "/") for r in self.allowed)

    def record(self, host_path: str, mode: str) -> None:
        key = (host_path, mode)
        if key in self.done:
            return
        self.done[key] = True
        resolved = self._resolve(host_path)
        if resolved is None:
            return
        real, st = resolved
        if not self._allowed(real):
            self.note(f"{host_path} resolves to {real}, outside the captured areas: not copied")
            return
        if mode == LIST:
            if statmod.S_ISDIR(st.st_mode):
                self._list(real)
            return
        if statmod.S_ISDIR(st.st_mode):
            self._mkdirs(real)
            return
        if mode == EMPTY or not statmod.S_ISREG(st.st_mode):
            self._write(real, b"")
            return
        self._copy(real, st)

    def _resolve(self, host_path: str) -> Optional[Tuple[str, os.stat_result]]:
        """Walk ``host_path`` like the kernel, recording every symlink met on the way."""
        pending = [p for p in host_path.split("/") if p not in ("", ".")]
        current: List[str] = []
        links = 0
        st: Optional[os.stat_result] = None
        while pending:
            name = pending.pop(0)
            if name == "..":
                if current:
                    current.pop()
                st = None
                continue
            candidate = [*current, name]
            here = "/" + "/".join(candidate)
            try:
                st = os.lstat(_on_disk(self.fs_root, here))
            except OSError:
                return None
            if statmod.S_ISLNK(st.st_mode):
                links += 1
                if links > MAX_LINKS:
                    self.note(f"{host_path}: symlink loop, not copied")
                    return None
                try:
                    target = os.readlink(_on_disk(self.fs_root, here))
                except OSError:
                    return None
                self._symlink(here, target)
                if target.startswith("/"):
                    current = []
                pending = [p for p in target.split("/") if p not in ("", ".")] + pending
                st = None
                continue
            current = candidate
        real = "/" + "/".join(current)
        if st is None:
            try:
                st = os.lstat(_on_disk(self.fs_root, real))
            except OSError:
                return None
        return real, st

    def _list(self, real: str) -> None:
        self._mkdirs(real)
        try:
            names = sorted(os.listdir(_on_disk(self.fs_root, real)))
        except OSError:
            return
        for name in names:
            child = real.rstrip("/") + "/" + name
            try:
                st = os.lstat(_on_disk(self.fs_root, child))
                if statmod.S_ISLNK(st.st_mode):
                    self._symlink(child, os.readlink(_on_disk(self.fs_root, child)))
                elif statmod.S_ISDIR(st.st_mode):
                    self._mkdirs(child)
            except OSError:
                continue

    def _copy(self, real: str, st: os.stat_result) -> None:
        if st.st_size > MAX_CAPTURE_FILE_BYTES:
            self.note(f"{real}: {st.st_size} bytes, larger than {MAX_CAPTURE_FILE_BYTES}: not copied")
            return
        try:
            fd = os.open(_on_disk(self.fs_root, real), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(MAX_CAPTURE_FILE_BYTES + 1)  # /proc files report size 0
        except PermissionError:
            self.note(f"{real}: permission denied, not copied")
            return
        except OSError as exc:
            self.note(f"{real}: {exc.strerror or exc}, not copied")
            return
        if len(data) > MAX_CAPTURE_FILE_BYTES:
            self.note(f"{real}: larger than {MAX_CAPTURE_FILE_BYTES} bytes: not copied")
            return
        if self.total + len(data) > MAX_CAPTURE_TOTAL_BYTES:
            self.note(f"{real}: capture size limit reached, not copied")
            return
        self.total += len(data)
        self._write(real, data)

    # Writing inside files/: never through a symlink we recorded (an absolute one points at
    # this machine's real files).
    def _staged(self, host_path: str, make_parents: bool = True) -> Optional[str]:
        parts = [p for p in host_path.split("/") if p]
        current = self.dest
        for piece in parts[:-1] if parts else []:
            current = os.path.join(current, piece)
            try:
                st = os.lstat(current)
            except FileNotFoundError:
                if not make_parents:
                    return None
                os.mkdir(current, 0o755)
                continue
            if not statmod.S_ISDIR(st.st_mode):
                return None
        return os.path.join(current, parts[-1]) if parts else self.dest

    def _mkdirs(self, host_path: str) -> None:
        path = self._staged(host_path)
        if path is None or os.path.lexists(path):
            return
        os.mkdir(path, 0o755)

    def _write(self, host_path: str, data: bytes) -> None:
        path = self._staged(host_path)
        if path is None or os.path.lexists(path):
            return
        with open(path, "xb") as fh:
            fh.write(data)
        self.files += 1

    def _symlink(self, host_path: str, target: str) -> None:
        path = self._staged(host_path)
        if path is None or os.path.lexists(path):
            return
        os.symlink(target, path)


# Logs: the newest few plog/device logs (their tails, where the latest errors are), so that
# ASC-LOG-002 has something to read when a snapshot is replayed. Bounded in count and size.
MAX_CAPTURE_LOGS = 5
MAX_CAPTURE_LOG_BYTES = 2 * 1024 * 1024


def _capture_logs(live: LiveHost, copier: _Copier, summary: CaptureSummary) -> None:
    # Capture is an application of the doctor, not a probe: it may use the facts layer to find
    # the same log files the log check would read.
    from ascend_doctor.facts import Facts
    from ascend_doctor.facts.logs import newest_log_files

    try:
        _roots, _existing, _lister, newest = newest_log_files(Facts(live))
    except Exception as exc:  # logs are a bonus: never let them sink a capture
        summary.notes.append(f"log files not captured: {type(exc).__name__}: {exc}")
        return
    for path, size, mtime in newest[:MAX_CAPTURE_LOGS]:
        try:
            with live.open_binary(path) as fh:
                if size > MAX_CAPTURE_LOG_BYTES:
                    fh.seek(size - MAX_CAPTURE_LOG_BYTES)
                data = fh.read(MAX_CAPTURE_LOG_BYTES)
        except (HostFileError, OSError) as exc:
            summary.notes.append(f"{path}: not captured ({exc})")
            continue
        if copier.total + len(data) > MAX_CAPTURE_TOTAL_BYTES:
            summary.notes.append("log capture stopped: snapshot size limit reached")
            return
        copier.total += len(data)
        copier._write(path, data)
        staged = copier._staged(path, make_parents=False)
        if staged and os.path.exists(staged):
            os.utime(staged, (mtime, mtime))  # the log check reports how old each log is
        if size > MAX_CAPTURE_LOG_BYTES:
            summary.notes.append(f"{path}: only its last {MAX_CAPTURE_LOG_BYTES // 1024 // 1024} MiB captured")


# -- JSON records -----------------------------------------------------------------------------


def python_record(live: LiveHost) -> Dict[str, Any]:
    env, raw = live.python_probe()
    record: Dict[str, Any] = {"executable": env.executable, "version": env.version,
                              "packages": dict(sorted(env.packages.items()))}
    path = raw.get("path")
    if isinstance(path, list):
        record["path"] = [p for p in path if isinstance(p, str)]
    if env.error:
        record["error"] = env.error
    return record


def host_record(live: LiveHost) -> Dict[str, Any]:
    record: Dict[str, Any] = {}
    memory = live.memory()
    if memory is not None:
        record["memory"] = {"total_bytes": memory.total_bytes, "available_bytes": memory.available_bytes,
                            "swap_total_bytes": memory.swap_total_bytes,
                            "swap_free_bytes": memory.swap_free_bytes}
    record["cpu_count"] = live.cpu_count()
    disks: List[Dict[str, Any]] = []
    for path in CAPTURE_DISKS:
        if not os.path.isdir(path):
            continue
        usage = live.disk_usage(path)
        if usage is not None and all(d["path"] != usage.path for d in disks):
            disks.append({"path": usage.path, "total_bytes": usage.total_bytes, "free_bytes": usage.free_bytes})
    record["disks"] = disks
    processes = live.processes()
    if processes is not None:
        record["processes"] = [{"pid": p.pid, "name": p.name, "cmdline": redact_cmdline(p.cmdline)}
                               for p in processes]
    listening = live.listening_sockets()
    if listening is not None:
        record["listening"] = [{"address": s.address, "port": s.port, "pid": s.pid} for s in listening]
    return record


def _write_json(path: str, data: Any) -> None:
    _write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8", errors="replace") as fh:
        fh.write(text)
