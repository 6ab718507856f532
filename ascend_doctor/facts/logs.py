"""Facts: known Ascend errors in the kernel log (dmesg) and in the newest CANN log files.

Both providers hand the text to the streaming scanner of ``ascend_doctor.logscan`` and return
what it found; the checks ASC-LOG-001/002 grade it. Log files are listed with
``host.listdir``/``host.stat`` and read with ``host.open_binary``, newest first, bounded by
``options.log_max_files``, ``options.log_max_bytes`` and a wall-time budget, so a host with
years of plog files costs seconds, not minutes.

Where CANN writes its logs (the folders below):

* Application logs (plog = host side, device-N = device side, sent back to the host), by
  priority ``$ASCEND_PROCESS_LOG_PATH`` > ``$ASCEND_WORK_PATH`` > ``$HOME/ascend/log``, each with
  ``debug/``, ``run/``, ``security/`` sub-folders holding ``plog/plog-<pid>_<time>.log`` and
  ``device-<id>/device-<pid>_<time>.log`` (CANN log reference, "查看日志(Ascend EP)":
  https://www.hiascend.com/document/detail/zh/canncommercial/latest/maintenref/logreference/logreference_0002.html;
  ASCEND_PROCESS_LOG_PATH: .../maintenref/envvar/envref_07_0120.html). Older CANN (5.0.x)
  wrote ``$HOME/ascend/log/plog/`` and ``$HOME/ascend/log/device-<id>/`` directly
  (.../canncommercial/5046/troublemanagement/logreference/atlaslog_24_0005.html). The doctor
  often runs as root while the service runs as another user, so every ``/home/*/ascend/log``
  and ``/root/ascend/log`` is searched too.
* Device-side logs that could not be sent to the host, and the device OS/driver logs, live in
  ``/var/log/npu/slog/`` (``debug/device-os/device-os_*.log``, ``device-app-<pid>/`` ...;
  logreference_0003 "查看日志(Ascend RC)" and atlaslog_24_0005).
* Driver/firmware installer logs: ``/var/log/ascend_seclog/ascend_install.log`` (printed as
  "LogFile:" by every .run installer, see tests/samples/dmesg-and-logs/*install-log*.txt).
  Where ``$ASCEND_WORK_PATH`` puts its log sub-folder is not documented; ``$ASCEND_WORK_PATH/log``
  is a guess and costs one listdir when absent.
"""

from __future__ import annotations

import contextlib
import io
import posixpath
import time
from typing import Any, Dict, List, Optional, Tuple

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.logs import DmesgScan, LogFileScan, LogFilesScan
from ascend_doctor.host.base import CommandStatus, HostFileError
from ascend_doctor.logscan.scanner import default_scanner

# Seconds all log files together may take (dmesg is small and not counted).
LOG_TIME_BUDGET_S = 20.0
# Listing bounds: folders visited, entries stat()ed, and depth below each root.
MAX_DIRS = 400
MAX_STATS = 5000
MAX_DEPTH = 4
MAX_HOME_USERS = 64

_FIXED_ROOTS = ("/root/ascend/log", "/var/log/npu/slog", "/var/log/ascend_seclog")


@provider("dmesg", reads=Reads(commands=(("dmesg",),)))
def dmesg(facts: Facts) -> DmesgScan:
    res = facts.command(["dmesg"])
    status_names = {
        CommandStatus.PERMISSION_DENIED: "permission_denied",
        CommandStatus.NOT_FOUND: "not_found",
        CommandStatus.TIMEOUT: "timeout",
        CommandStatus.ERROR: "error",
    }
    if res.status in status_names:
        return DmesgScan(status_names[res.status], res.describe_failure())
    if res.returncode != 0:
        # classify_exit already maps "Operation not permitted"; keep a guard for odd hosts.
        lowered = res.stderr.lower()
        if "not permitted" in lowered or "permission denied" in lowered:
            return DmesgScan("permission_denied", res.describe_failure())
        return DmesgScan("error", res.describe_failure())
    return DmesgScan("ok", "", default_scanner().scan_text(res.stdout, "dmesg"))


def log_roots(env: Dict[str, str], home_users: List[str]) -> List[str]:
    """The folders to search, most likely first, without duplicates."""
    roots: List[str] = []

    def add(path: Optional[str]) -> None:
        if path and path.startswith("/"):
            norm = posixpath.normpath(path)
            if norm not in roots:
                roots.append(norm)

    add(env.get("ASCEND_PROCESS_LOG_PATH"))
    if env.get("ASCEND_WORK_PATH"):
        add(posixpath.join(env["ASCEND_WORK_PATH"], "log"))
    if env.get("HOME"):
        add(posixpath.join(env["HOME"], "ascend", "log"))
    for root in _FIXED_ROOTS[:1]:
        add(root)
    for user in home_users[:MAX_HOME_USERS]:
        add(posixpath.join("/home", user, "ascend", "log"))
    for root in _FIXED_ROOTS[1:]:
        add(root)
    return roots


class _Lister:
    """Bounded walk of the log folders through the host."""

    def __init__(self, facts: Facts) -> None:
        self.host = facts.host
        self.dirs = 0
        self.stats = 0
        self.denied: List[str] = []
        self.limited = False
        self.files: List[Tuple[str, int, float]] = []

    def walk(self, root: str) -> bool:
        """Collect *.log files under root; False when root does not exist."""
        st = self.host.stat(root)
        if st is None or not st.is_dir:
            return False
        self._walk(root, 0)
        return True

    def _walk(self, folder: str, depth: int) -> None:
        if self.dirs >= MAX_DIRS or self.stats >= MAX_STATS:
            self.limited = True
            return
        self.dirs += 1
        try:
            names = self.host.listdir(folder)
        except HostFileError:
            self.denied.append(folder)
            return
        for name in names:
            if self.stats >= MAX_STATS:
                self.limited = True
                return
            path = posixpath.join(folder, name)
            self.stats += 1
            st = self.host.stat(path)
            if st is None or st.is_symlink:  # links could loop or lead out of the log folders
                continue
            if st.is_dir:
                if depth < MAX_DEPTH:
                    self._walk(path, depth + 1)
            elif st.is_file and name.endswith(".log"):
                self.files.append((path, st.size, st.mtime))


def _home_users(facts: Facts) -> List[str]:
    try:
        return [n for n in facts.host.listdir("/home") if not n.startswith(".")]
    except HostFileError:
        return []


def _extra_float(facts: Facts, key: str, default: float) -> float:
    for name, value in facts.options.extra:
        if name == key:
            try:
                return float(value)
            except ValueError:
                return default
    return default


def newest_log_files(facts: Facts) -> Tuple[List[str], Tuple[str, ...], Any, List[Tuple[str, int, float]]]:
    """(roots, existing roots, lister, [(path, size, mtime)] newest first) -- also used by snapshot capture."""
    env = dict(facts.host.env())
    roots = log_roots(env, _home_users(facts))
    lister = _Lister(facts)
    existing = tuple(root for root in roots if lister.walk(root))
    # Newest first; the same file reached through two roots is scanned once.
    unique: Dict[str, Tuple[str, int, float]] = {}
    for entry in lister.files:
        unique.setdefault(entry[0], entry)
    return roots, existing, lister, sorted(unique.values(), key=lambda e: (-e[2], e[0]))


@provider("log_files", reads=Reads(tails=("{log_root}/**",), listings=("/home",), host=("env",)))
def log_files(facts: Facts) -> LogFilesScan:
    options = facts.options
    roots, existing, lister, newest = newest_log_files(facts)
    limits: List[str] = []
    if lister.limited:
        limits.append(f"listing stopped after {MAX_DIRS} folders / {MAX_STATS} entries")
    if len(newest) > options.log_max_files:
        limits.append(f"only the newest {options.log_max_files} of {len(newest)} log files")
    budget = max(0, options.log_max_bytes)
    deadline = time.monotonic() + _extra_float(facts, "log_time_budget_s", LOG_TIME_BUDGET_S)
    scanned: List[LogFileScan] = []
    total = 0
    recorded = _recorded_times(facts)
    for path, size, mtime in newest[: max(0, options.log_max_files)]:
        if recorded is not None:
            # A replay: the files' own times are those of the extraction or checkout, not of the machine.
            mtime = recorded.get(path, -1.0)
        left = budget - total
        if left <= 0:
            limits.append(f"byte budget of {budget // (1024 * 1024)} MiB used up")
            break
        if time.monotonic() > deadline:
            limits.append("time budget used up")
            break
        scan = _scan_file(facts, path, size, mtime, left, deadline)
        total += scan.result.bytes_read if scan.result else 0
        scanned.append(scan)
    return LogFilesScan(tuple(roots), existing, tuple(lister.denied), len(newest), tuple(scanned), total,
                        tuple(limits))


def _recorded_times(facts: Facts) -> Optional[Dict[str, float]]:
    """None on a live host (file times are the machine's); for a snapshot, the times its capture recorded
    in snapshot.json ``file_times`` (empty when it recorded none: every time is then unknown)."""
    from ascend_doctor.facts.origin import LIVE, origin_kind

    if origin_kind(facts) == LIVE:
        return None
    times = facts.host.metadata.get("file_times")
    if not isinstance(times, dict):
        return {}
    return {str(k): float(v) for k, v in times.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _scan_file(facts: Facts, path: str, size: int, mtime: float, left: int, deadline: float) -> LogFileScan:
    try:
        stream = facts.host.open_binary(path)
    except HostFileError as exc:
        return LogFileScan(path, size, mtime, error=exc.message)
    except OSError as exc:
        return LogFileScan(path, size, mtime, error=exc.strerror or str(exc))
    offset = 0
    try:
        if size > left:
            # The end of a log is the newest part: read the last `left` bytes, from a line start.
            try:
                stream.seek(size - left)
                stream.readline()
                offset = stream.tell()
            except (OSError, AttributeError, io.UnsupportedOperation):
                offset = 0
        result = default_scanner().scan_stream(stream, path, max_bytes=left, deadline=deadline)
    except OSError as exc:
        return LogFileScan(path, size, mtime, error=exc.strerror or str(exc))
    finally:
        with contextlib.suppress(OSError):
            stream.close()
    return LogFileScan(path, size, mtime, result, start_offset=offset)
