"""The JSON records of a snapshot besides files/ and commands/: env.json, python.json, host.json,
and the tails of the newest CANN logs (``tails`` declarations)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional

from ascend_doctor.capture.tree import SnapshotTree
from ascend_doctor.facts.reads import path_matches
from ascend_doctor.host.base import DiskUsage, HostFileError
from ascend_doctor.redaction.secrets import redact_cmdline, redact_env

# The newest few logs, from their end (where the latest errors are): bounded in count and size.
MAX_TAIL_FILES = 5
MAX_TAIL_BYTES = 2 * 1024 * 1024


def python_record(host: Any) -> Dict[str, Any]:
    """python.json: the target interpreter, its version, packages and sys.path."""
    env, raw = host.python_probe()
    record: Dict[str, Any] = {"executable": env.executable, "version": env.version,
                              "packages": dict(sorted(env.packages.items()))}
    path = raw.get("path")
    if isinstance(path, list):
        record["path"] = [p for p in path if isinstance(p, str)]
    if env.error:
        record["error"] = env.error
    return record


def env_record(env: Mapping[str, str]) -> Dict[str, str]:
    """env.json: the environment with secrets redacted by name and by value."""
    return redact_env(env)


def host_record(host: Any, sources: List[str], disks: Dict[str, Optional[DiskUsage]]) -> Dict[str, Any]:
    """host.json: the declared host sources (memory, cpu, processes, listening) and the usage of
    each folder the providers asked about."""
    record: Dict[str, Any] = {}
    if "memory" in sources:
        memory = host.memory()
        if memory is not None:
            record["memory"] = {"total_bytes": memory.total_bytes, "available_bytes": memory.available_bytes,
                                "swap_total_bytes": memory.swap_total_bytes,
                                "swap_free_bytes": memory.swap_free_bytes}
    if "cpu" in sources:
        record["cpu_count"] = host.cpu_count()
    if "disks" in sources:
        # What the host answered for each folder asked: the usage of the file system holding it,
        # recorded under that file system's path (the snapshot answers from the closest one).
        answered = {usage.path: usage for usage in disks.values() if usage is not None}
        record["disks"] = [{"path": path, "total_bytes": usage.total_bytes, "free_bytes": usage.free_bytes}
                           for path, usage in sorted(answered.items())]
    if "processes" in sources:
        processes = host.processes()
        if processes is not None:
            record["processes"] = [{"pid": p.pid, "name": p.name, "cmdline": redact_cmdline(p.cmdline)}
                                   for p in processes]
    if "listening" in sources:
        listening = host.listening_sockets()
        if listening is not None:
            record["listening"] = [{"address": s.address, "port": s.port, "pid": s.pid} for s in listening]
    return record


def capture_tails(host: Any, tree: SnapshotTree, patterns: List[str]) -> Dict[str, float]:
    """Copy the last bytes of the newest log files the ``tails`` patterns match; returns their
    modification times (snapshot.json ``file_times``: a replay reports a log's age from them)."""
    from ascend_doctor.facts import Facts
    from ascend_doctor.facts.logs import newest_log_files

    times: Dict[str, float] = {}
    try:
        _roots, existing, _lister, newest = newest_log_files(Facts(host))
    except Exception as exc:  # logs are a bonus: never let them sink a capture
        tree.note(f"log files not captured: {type(exc).__name__}: {exc}")
        return times
    for root in existing:
        tree.present(root)
    kept = [entry for entry in newest if any(path_matches(entry[0], p) for p in patterns)]
    for path, size, mtime in kept[:MAX_TAIL_FILES]:
        try:
            with host.open_binary(path) as fh:
                if size > MAX_TAIL_BYTES:
                    fh.seek(size - MAX_TAIL_BYTES)
                data = fh.read(MAX_TAIL_BYTES)
        except (HostFileError, OSError) as exc:
            tree.note(f"{path}: not captured ({exc})")
            continue
        if tree.write_file(path, data, mtime):
            times[path] = mtime
        if size > MAX_TAIL_BYTES:
            tree.note(f"{path}: only its last {MAX_TAIL_BYTES // 1024 // 1024} MiB captured")
    if len(kept) > MAX_TAIL_FILES:
        tree.note(f"only the newest {MAX_TAIL_FILES} of {len(kept)} log files captured")
    return times


def write_json(path: str, data: Any) -> None:
    with open(path, "w", encoding="utf-8", errors="replace") as fh:
        fh.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
