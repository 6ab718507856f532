"""Read a JSON report back into a ``Report``: the reports support staff receive from elsewhere.

Every schema version up to ``REPORT_SCHEMA_VERSION`` is read (version 1 simply has no INFO,
actions or fix plan). Anything else is refused with a ``ReportReadError`` whose message is one
line naming the file and the reason; ``report render`` / ``report diff`` print it and exit 3.

The file is untrusted: only a regular file (or standard input) is read, at most
``MAX_REPORT_BYTES``, and its nesting is bounded before ``json`` builds anything.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any, Dict, List, Mapping, Optional, Tuple

from ascend_doctor.checkapi import FixAction, Status
from ascend_doctor.report import REPORT_SCHEMA_VERSION, FixStep, Report, Result

MAX_REPORT_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 64



class ReportReadError(Exception):
    """A report that cannot be used; ``str()`` is the one-line explanation."""


def read_report_file(path: str) -> Report:
    """The report in ``path`` (``-`` = standard input)."""
    label = "<stdin>" if path == "-" else path
    data = _read_bounded(path, label)
    if data.startswith(b"\x1f\x8b"):
        raise ReportReadError(f"{label} is a gzip file, not a JSON report (a snapshot? use `check --from`)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ReportReadError(f"{label} is not a JSON report: not UTF-8 text") from None
    return parse_report_text(text, label)


def parse_report_text(text: str, label: str = "report") -> Report:
    if not text.strip():
        raise ReportReadError(f"{label} is empty, not a JSON report")
    from ascend_doctor.boundedjson import measure

    depth, _containers, _values = measure(text, MAX_JSON_DEPTH)
    if depth > MAX_JSON_DEPTH:
        raise ReportReadError(f"{label} nests deeper than {MAX_JSON_DEPTH} levels: not an ascend-doctor report")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportReadError(f"{label} is not JSON (line {exc.lineno} column {exc.colno}: {exc.msg})") from None
    except (RecursionError, ValueError) as exc:
        raise ReportReadError(f"{label} is not usable JSON: {exc}") from None
    return report_from_dict(data, label)


def _read_bounded(path: str, label: str) -> bytes:
    if path == "-":
        data = sys.stdin.buffer.read(MAX_REPORT_BYTES + 1)
    else:
        try:
            # O_NONBLOCK: opening a FIFO must not hang; the fstat below then refuses it.
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            raise ReportReadError(f"{label} does not exist") from None
        except IsADirectoryError:
            raise ReportReadError(f"{label} is a folder, not a JSON report") from None
        except OSError as exc:
            raise ReportReadError(f"cannot read {label}: {exc.strerror or exc}") from None
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            if stat.S_ISDIR(mode):
                raise ReportReadError(f"{label} is a folder, not a JSON report")
            raise ReportReadError(f"{label} is not a regular file (a device, FIFO or socket)")
        with os.fdopen(fd, "rb") as fh:
            try:
                data = fh.read(MAX_REPORT_BYTES + 1)
            except OSError as exc:
                raise ReportReadError(f"cannot read {label}: {exc.strerror or exc}") from None
    if len(data) > MAX_REPORT_BYTES:
        raise ReportReadError(f"{label} is larger than {MAX_REPORT_BYTES // (1024 * 1024)} MiB: not a report")
    return data


# -- dict -> Report ---------------------------------------------------------------------------


def report_from_dict(data: Any, label: str = "report") -> Report:
    """A ``Report`` from the dict ``Report.to_dict()`` wrote (schema 1 or 2)."""
    if not isinstance(data, dict):
        raise ReportReadError(f"{label} is JSON but not an ascend-doctor report (top level is not an object)")
    tool = data.get("tool")
    if not isinstance(tool, dict) or tool.get("name") != "ascend-doctor":
        raise ReportReadError(f'{label} is JSON but not an ascend-doctor report (no "tool": '
                              '{"name": "ascend-doctor"})')
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ReportReadError(f"{label}: schema_version {version!r} is not a report schema version")
    if version > REPORT_SCHEMA_VERSION:
        raise ReportReadError(f"{label} uses report schema {version}, newer than this ascend-doctor reads "
                              f"(1 to {REPORT_SCHEMA_VERSION}): upgrade ascend-doctor "
                              f"(written by ascend-doctor {tool.get('version', '?')})")
    reader = _Reader(label)
    results = [reader.result(item, f"results[{i}]") for i, item in enumerate(reader.array(data, "results"))]
    plan = [reader.fix_step(item, f"fix_plan[{i}]", i + 1)
            for i, item in enumerate(reader.array(data, "fix_plan", required=False))]
    fail_on = data.get("fail_on", "fail")
    if fail_on not in ("fail", "warn"):
        raise ReportReadError(f"{label}: fail_on must be \"fail\" or \"warn\", not {fail_on!r}")
    duration = data.get("duration_s", 0.0)
    return Report(
        tool_version=reader.text(tool, "version", "tool.version", default="?"),
        matrix=reader.mapping(data, "matrix"),
        host=reader.mapping(data, "host"),
        facts=reader.mapping(data, "facts"),
        results=results,
        fail_on=fail_on,
        started_at=reader.text(data, "started_at", "started_at", default=""),
        duration_s=float(duration) if _is_number(duration) else 0.0,
        notes=list(reader.strings(data, "notes", "notes")),
        fix_plan=plan,
        lang=str(data["lang"]) if data.get("lang") in ("en", "zh") else "en",  # absent before the field existed
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Reader:
    """Typed field access that names the offending field in its error."""

    def __init__(self, label: str) -> None:
        self.label = label

    def bad(self, where: str, what: str) -> ReportReadError:
        return ReportReadError(f"{self.label} is not a valid ascend-doctor report: {where} {what}")

    def array(self, data: Mapping[str, Any], key: str, required: bool = True) -> List[Any]:
        value = data.get(key)
        if value is None and not required:
            return []
        if not isinstance(value, list):
            raise self.bad(key, "is missing or not a list")
        return value

    def mapping(self, data: Mapping[str, Any], key: str) -> Dict[str, Any]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.bad(key, "is not an object")
        return value

    def text(self, data: Mapping[str, Any], key: str, where: str, default: Optional[str] = None) -> str:
        value = data.get(key)
        if value is None and default is not None:
            return default
        if not isinstance(value, str):
            raise self.bad(where, "is missing or not a string")
        return value

    def optional_text(self, data: Mapping[str, Any], key: str, where: str) -> Optional[str]:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.bad(where, "is not a string")
        return value

    def strings(self, data: Mapping[str, Any], key: str, where: str) -> Tuple[str, ...]:
        value = data.get(key)
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.bad(where, "is not a list of strings")
        return tuple(value)

    def result(self, item: Any, where: str) -> Result:
        if not isinstance(item, dict):
            raise self.bad(where, "is not an object")
        status_text = item.get("status")
        try:
            status = Status(status_text)
        except ValueError:
            raise self.bad(f"{where}.status", f"{status_text!r} is not a known status") from None
        evidence = item.get("evidence")
        if evidence is not None and not isinstance(evidence, dict):
            raise self.bad(f"{where}.evidence", "is not an object")
        duration = item.get("duration_s", 0.0)
        actions = item.get("actions") or []
        if not isinstance(actions, list):
            raise self.bad(f"{where}.actions", "is not a list")
        return Result(
            id=self.text(item, "id", f"{where}.id"),
            title=self.text(item, "title", f"{where}.title"),
            status=status,
            message=self.text(item, "message", f"{where}.message"),
            remediation=self.text(item, "remediation", f"{where}.remediation", default=""),
            evidence=evidence or {},
            scope=self.optional_text(item, "scope", f"{where}.scope"),
            duration_s=float(duration) if _is_number(duration) else 0.0,
            actions=tuple(self.action(a, f"{where}.actions[{i}]") for i, a in enumerate(actions)),
        )

    def action(self, item: Any, where: str) -> FixAction:
        if not isinstance(item, dict):
            raise self.bad(where, "is not an object")
        return FixAction(
            component=self.text(item, "component", f"{where}.component"),
            summary=self.text(item, "summary", f"{where}.summary"),
            commands=self.strings(item, "commands", f"{where}.commands"),
            where=self.text(item, "where", f"{where}.where", default="host"),
            target=self.optional_text(item, "target", f"{where}.target"),
            direction=self.text(item, "direction", f"{where}.direction", default=""),
            alternative=self.text(item, "alternative", f"{where}.alternative", default=""),
            subject=self.text(item, "subject", f"{where}.subject", default=""),
            accepts=self.strings(item, "accepts", f"{where}.accepts") if "accepts" in item else (),
            depends=self.strings(item, "depends", f"{where}.depends") if "depends" in item else (),
        )

    def fix_step(self, item: Any, where: str, position: int) -> FixStep:
        if not isinstance(item, dict):
            raise self.bad(where, "is not an object")
        order = item.get("order", position)
        if not isinstance(order, int) or isinstance(order, bool):
            raise self.bad(f"{where}.order", "is not an integer")
        return FixStep(
            order=order,
            component=self.text(item, "component", f"{where}.component"),
            summary=self.text(item, "summary", f"{where}.summary"),
            commands=self.strings(item, "commands", f"{where}.commands"),
            where=self.text(item, "where", f"{where}.where", default="host"),
            fixes=self.strings(item, "fixes", f"{where}.fixes"),
            target=self.optional_text(item, "target", f"{where}.target"),
            why=self.text(item, "why", f"{where}.why", default=""),
            alternative=self.text(item, "alternative", f"{where}.alternative", default=""),
            subject=self.text(item, "subject", f"{where}.subject", default=""),
        )
