"""Read every node input, one at a time, into a :class:`~ascend_doctor.fleet.facts.FleetFacts`.

A JSON report is read bounded (a regular file of at most :data:`MAX_NODE_REPORT_BYTES`, its arrays
and objects counted before json builds them) and digested; a snapshot is graded exactly as ``check --from`` grades
it (same runner, same matrix) and its report digested. Either way only the digest is kept. A node
input that cannot be used becomes a digest with an ``error`` (one line): it is listed as its own
node and makes the fleet incomplete, it never stops the merge.
"""

from __future__ import annotations

import json
import os
import stat
from typing import Any, Callable, Dict, Optional, Tuple

from ascend_doctor import safeio
from ascend_doctor.fleet.digest import NodeDigest, NodeReportError, digest_report, unreadable
from ascend_doctor.fleet.facts import FleetFacts
from ascend_doctor.fleet.inputs import REPORT, SNAPSHOT, Inputs, NodeInput
from ascend_doctor.i18n import _
from ascend_doctor.options import RunOptions

# A node report is tens of KB (a few hundred with many processes); 16 MiB leaves plenty of room.
MAX_NODE_REPORT_BYTES = 16 * 1024 * 1024
# Arrays and objects in one report (brackets inside strings count too): a real node report has a few
# thousand (a hundred results, their evidence, the devices and processes).
MAX_REPORT_CONTAINERS = 200_000

Progress = Callable[[str], None]


def merge_inputs(inputs: Inputs, matrix: Any, node_options: RunOptions,
                 progress: Optional[Progress] = None) -> FleetFacts:
    """The fleet facts of every input, read in order. ``node_options`` grade the snapshots."""
    fleet = FleetFacts(skipped=list(inputs.skipped))
    total = inputs.count
    for index, node_input in enumerate(inputs.nodes, start=1):
        if progress is not None:
            progress(f"[{index}/{total}] {node_input.path}")
        fleet.add(read_node(node_input, matrix, node_options))
    return fleet


def read_node(node_input: NodeInput, matrix: Any, options: RunOptions) -> NodeDigest:
    if node_input.kind == REPORT:
        return read_report_node(node_input.path)
    if node_input.kind == SNAPSHOT:
        return grade_snapshot_node(node_input.path, matrix, options)
    return unreadable(node_input.path, "unreadable", node_input.problem)


def read_report_node(path: str) -> NodeDigest:
    try:
        data = load_report_json(path)
        return digest_report(data, path, REPORT)
    except NodeReportError as exc:
        return unreadable(path, REPORT, str(exc))


def load_report_json(path: str) -> Any:
    """The JSON of a node report file; NodeReportError (one line) when it is not usable JSON.

    Bounded before anything is built: only a regular file of at most MAX_NODE_REPORT_BYTES is read,
    and, when it is large enough to hold more than MAX_REPORT_CONTAINERS, its arrays/objects are counted
    first (``bytes.count``, in C: a fleet reads a thousand of these per second, so the byte-by-byte depth
    scan of ``boundedjson`` is too slow here); a count within
    MAX_REPORT_CONTAINERS bounds what ``json`` builds, and nesting past the interpreter's limit ends in
    RecursionError, turned into one line."""
    raw = read_report_bytes(path)
    if raw.startswith(b"\x1f\x8b"):
        raise NodeReportError(_("{path} is a gzip file, not a JSON report (a snapshot? name it *.tar.gz)").format(
            path=path))
    if not raw.strip():
        raise NodeReportError(_("{path} is empty, not a JSON report").format(path=path))
    # Every array or object takes two bytes at least ("[]"), so a file of fewer than twice the limit's
    # bytes (any real report: 80 KB) cannot exceed it: the count, a quarter of json's own time, is skipped.
    containers = raw.count(b"[") + raw.count(b"{") if len(raw) > 2 * MAX_REPORT_CONTAINERS else 0
    if containers > MAX_REPORT_CONTAINERS:
        raise NodeReportError(_("{path} holds about {count} arrays/objects, more than the {limit} of any node "
                                "report: refused").format(path=path, count=containers, limit=MAX_REPORT_CONTAINERS))
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise NodeReportError(_("{path} is not JSON (line {line} column {column}: {error}); a report cut short "
                                "while it was copied?").format(path=path, line=exc.lineno, column=exc.colno,
                                                               error=exc.msg)) from None
    except UnicodeDecodeError:
        raise NodeReportError(_("{path} is not a JSON report: not UTF-8 text").format(path=path)) from None
    except RecursionError:
        raise NodeReportError(_("{path} is nested too deeply: not an ascend-doctor report").format(
            path=path)) from None
    except ValueError as exc:  # an integer literal over Python's digit limit
        raise NodeReportError(_("{path} is not usable JSON: {error}").format(path=path, error=exc)) from None


def read_report_bytes(path: str) -> bytes:
    """A regular file's bytes, at most MAX_NODE_REPORT_BYTES (safeio's rules: stat before open, never a
    FIFO/device/socket, nothing of /proc or /sys, non-blocking open, the opened file checked again).

    The pseudo file systems are recognised by device number only: safeio also resolves the path
    (``realpath``, a system call per path component), which a thousand reads cannot afford."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise NodeReportError(_("{path} is a folder, not a JSON report").format(path=path))
        if not stat.S_ISREG(st.st_mode):
            raise NodeReportError(_("{path} is not a regular file ({kind}): not read").format(
                path=path, kind=safeio.describe_kind(st.st_mode)))
        if st.st_dev in _pseudo_devices():
            raise NodeReportError(_("{path} is a kernel interface under /proc or /sys, not a report: not "
                                    "read").format(path=path))
        if st.st_size > MAX_NODE_REPORT_BYTES:
            raise NodeReportError(_too_large(path))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            opened = os.fstat(fh.fileno())
            if (opened.st_dev, opened.st_ino) != (st.st_dev, st.st_ino):
                raise NodeReportError(_("{path} changed while it was being opened; collect it again").format(
                    path=path))
            # Read what the stat said (and one byte more, to see a file that grew): asking for the whole
            # 16 MiB bound allocates that much for every report, which cost more than parsing them.
            want = min(opened.st_size, MAX_NODE_REPORT_BYTES) + 1
            data = fh.read(want)
            if len(data) == want and want <= MAX_NODE_REPORT_BYTES:
                data += fh.read(MAX_NODE_REPORT_BYTES + 1 - len(data))
    except FileNotFoundError:
        raise NodeReportError(_("{path} does not exist").format(path=path)) from None
    except OSError as exc:
        raise NodeReportError(_("cannot read {path}: {error}").format(
            path=path, error=safeio.describe_os_error(exc))) from None
    if len(data) > MAX_NODE_REPORT_BYTES:
        raise NodeReportError(_too_large(path))
    return data


def _too_large(path: str) -> str:
    return _("{path} is larger than {size} MiB: not a node report").format(
        path=path, size=MAX_NODE_REPORT_BYTES // (1024 * 1024))


_PSEUDO: Optional[Tuple[int, ...]] = None


def _pseudo_devices() -> Tuple[int, ...]:
    global _PSEUDO
    if _PSEUDO is None:
        found = []
        for root in safeio.PSEUDO_ROOTS:
            try:
                found.append(os.stat(root).st_dev)
            except OSError:
                continue
        _PSEUDO = tuple(found)
    return _PSEUDO


def grade_snapshot_node(path: str, matrix: Any, options: RunOptions) -> NodeDigest:
    """Grade a snapshot as ``check --from PATH`` does and digest the report."""
    from ascend_doctor.host.base import SnapshotError
    from ascend_doctor.host.factory import open_host
    from ascend_doctor.runner import run_checks

    try:
        with open_host(path) as host:
            report = run_checks(host, matrix, options, _matrix_info(matrix))
            data: Dict[str, Any] = report.to_dict()
    except SnapshotError as exc:
        return unreadable(path, SNAPSHOT, _("cannot read snapshot {path}: {error}").format(path=path, error=exc))
    except OSError as exc:
        return unreadable(path, SNAPSHOT, _("cannot read snapshot {path}: {error}").format(
            path=path, error=safeio.describe_os_error(exc)))
    try:
        return digest_report(data, path, SNAPSHOT)
    except NodeReportError as exc:  # pragma: no cover - our own report always digests
        return unreadable(path, SNAPSHOT, str(exc))


def _matrix_info(matrix: Any) -> Dict[str, Any]:
    identity = getattr(matrix, "identity", None)
    return dict(identity()) if callable(identity) else {}
