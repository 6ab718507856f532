"""Read every node input, one at a time, into a :class:`~ascend_doctor.fleet.facts.FleetFacts`.

A JSON report is read bounded (a regular file of at most :data:`MAX_NODE_REPORT_BYTES`, its JSON
measured before it is built) and digested; a snapshot is graded exactly as ``check --from`` grades
it (same runner, same matrix) and its report digested. Either way only the digest is kept. A node
input that cannot be used becomes a digest with an ``error`` (one line): it is listed as its own
node and makes the fleet incomplete, it never stops the merge.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Optional

from ascend_doctor import boundedjson, interrupt, safeio
from ascend_doctor.fleet.digest import NodeDigest, NodeReportError, digest_report, unreadable
from ascend_doctor.fleet.facts import FleetFacts
from ascend_doctor.fleet.inputs import REPORT, SNAPSHOT, Inputs, NodeInput
from ascend_doctor.options import RunOptions

# A node report is tens of KB (a few hundred with many processes); 16 MiB leaves plenty of room.
MAX_NODE_REPORT_BYTES = 16 * 1024 * 1024
MAX_REPORT_DEPTH = 64

Progress = Callable[[str], None]


def merge_inputs(inputs: Inputs, matrix: Any, node_options: RunOptions,
                 progress: Optional[Progress] = None) -> FleetFacts:
    """The fleet facts of every input, read in order. ``node_options`` grade the snapshots."""
    fleet = FleetFacts(skipped=list(inputs.skipped))
    total = inputs.count
    for index, node_input in enumerate(inputs.nodes, start=1):
        interrupt.raise_if_requested()
        if progress is not None:
            progress(f"[{index}/{total}] {node_input.path}")
        fleet.add(read_node(node_input, matrix, node_options))
    return fleet


def read_node(node_input: NodeInput, matrix: Any, options: RunOptions) -> NodeDigest:
    if node_input.kind == REPORT:
        return read_report_node(node_input.path)
    if node_input.kind == SNAPSHOT:
        return grade_snapshot_node(node_input.path, matrix, options)
    return unreadable(node_input.path, "unreadable", f"{node_input.path} {node_input.problem}")


def read_report_node(path: str) -> NodeDigest:
    try:
        data = load_report_json(path)
        return digest_report(data, path, REPORT)
    except NodeReportError as exc:
        return unreadable(path, REPORT, str(exc))


def load_report_json(path: str) -> Any:
    """The JSON of a node report file; NodeReportError (one line) when it is not usable JSON."""
    try:
        raw = safeio.read_regular(path, MAX_NODE_REPORT_BYTES)
    except safeio.InputTooLarge:
        raise NodeReportError(f"{path} is larger than {MAX_NODE_REPORT_BYTES // (1024 * 1024)} MiB: "
                              "not a node report") from None
    except IsADirectoryError:
        raise NodeReportError(f"{path} is a folder, not a JSON report") from None
    except FileNotFoundError:
        raise NodeReportError(f"{path} does not exist") from None
    except OSError as exc:
        raise NodeReportError(f"cannot read {path}: {safeio.describe_os_error(exc)}") from None
    if raw.startswith(b"\x1f\x8b"):
        raise NodeReportError(f"{path} is a gzip file, not a JSON report (a snapshot? name it *.tar.gz)")
    if not raw.strip():
        raise NodeReportError(f"{path} is empty, not a JSON report")
    try:
        return boundedjson.loads(raw, what=path, max_chars=MAX_NODE_REPORT_BYTES, max_depth=MAX_REPORT_DEPTH)
    except json.JSONDecodeError as exc:
        raise NodeReportError(f"{path} is not JSON (line {exc.lineno} column {exc.colno}: {exc.msg}); "
                              "a report cut short while it was copied?") from None
    except UnicodeDecodeError:
        raise NodeReportError(f"{path} is not a JSON report: not UTF-8 text") from None
    except ValueError as exc:  # boundedjson.TooComplex
        raise NodeReportError(str(exc)) from None


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
        return unreadable(path, SNAPSHOT, f"cannot read snapshot {path}: {exc}")
    except OSError as exc:
        return unreadable(path, SNAPSHOT, f"cannot read snapshot {path}: {safeio.describe_os_error(exc)}")
    try:
        return digest_report(data, path, SNAPSHOT)
    except NodeReportError as exc:  # pragma: no cover - our own report always digests
        return unreadable(path, SNAPSHOT, str(exc))


def _matrix_info(matrix: Any) -> Dict[str, Any]:
    identity = getattr(matrix, "identity", None)
    return dict(identity()) if callable(identity) else {}
