"""What changed between two reports of one machine (``ascend-doctor report diff OLD NEW``).

Versions (tool, matrix, OS, kernel, npu-smi, driver, firmware, CANN, Python and its packages),
devices (appeared, gone, changed name/health/memory size/bus), results (matched by id and scope:
appeared, disappeared, changed status) and fix-plan steps (appeared, gone).

A *regression* is a result whose status got worse into WARN or FAIL: PASS, INFO or SKIP -> WARN
or FAIL, or WARN -> FAIL. A result that appears as WARN/FAIL counts too when its check ran in
the old report and had nothing at WARN or FAIL there (a new scope of a check that was clean);
a check the old report did not run at all (a newer ascend-doctor) is new, not a regression.
ERROR is "could not tell", so nothing from or to ERROR is a regression. ``report diff`` exits 1
when there is a regression: the gate after an upgrade. The JSON form is docs/report-diff-schema.json.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor import __version__
from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.report import FixStep, Report, Result

DIFF_SCHEMA_VERSION = 1
_GOOD = (Status.PASS, Status.INFO, Status.SKIP)
_BAD = (Status.WARN, Status.FAIL)
# Device fields worth comparing; temperature, power and usage change all the time.
DEVICE_FIELDS = ("name", "health", "hbm_total_mb", "memory_total_mb", "bus_id", "chip_phy_id")
Key = Tuple[str, Optional[str], int]


class ReportDiff(Struct):
    old: Dict[str, Any]
    new: Dict[str, Any]
    versions: List[Dict[str, Any]] = field(default_factory=list)
    devices_appeared: List[Dict[str, Any]] = field(default_factory=list)
    devices_disappeared: List[Dict[str, Any]] = field(default_factory=list)
    devices_changed: List[Dict[str, Any]] = field(default_factory=list)
    results_appeared: List[Dict[str, Any]] = field(default_factory=list)
    results_disappeared: List[Dict[str, Any]] = field(default_factory=list)
    results_changed: List[Dict[str, Any]] = field(default_factory=list)
    results_unchanged: int = 0
    plan_appeared: List[Dict[str, Any]] = field(default_factory=list)
    plan_disappeared: List[Dict[str, Any]] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    @property
    def regressions(self) -> List[Dict[str, Any]]:
        return [r for r in self.results_changed + self.results_appeared if r.get("regression")]

    @property
    def exit_code(self) -> int:
        return 1 if self.regressions else 0

    @property
    def changed(self) -> bool:
        return any((self.versions, self.devices_appeared, self.devices_disappeared, self.devices_changed,
                    self.results_appeared, self.results_disappeared, self.results_changed,
                    self.plan_appeared, self.plan_disappeared))

    def to_dict(self) -> Dict[str, Any]:
        return {
            "schema_version": DIFF_SCHEMA_VERSION,
            "tool": {"name": "ascend-doctor", "version": __version__},
            "old": self.old,
            "new": self.new,
            "versions": self.versions,
            "devices": {"appeared": self.devices_appeared, "disappeared": self.devices_disappeared,
                        "changed": self.devices_changed},
            "results": {"appeared": self.results_appeared, "disappeared": self.results_disappeared,
                        "changed": self.results_changed, "unchanged": self.results_unchanged},
            "fix_plan": {"appeared": self.plan_appeared, "disappeared": self.plan_disappeared},
            "regressions": [{"id": r["id"], "scope": r["scope"], "old_status": r.get("old_status"),
                             "new_status": r.get("new_status") or r.get("status")} for r in self.regressions],
            "notes": self.notes,
            "exit_code": self.exit_code,
        }


def diff_reports(old: Report, new: Report) -> ReportDiff:
    diff = ReportDiff(old=_identity(old), new=_identity(new))
    old_host, new_host = diff.old["hostname"], diff.new["hostname"]
    if old_host and new_host and old_host != new_host:
        diff.notes.append(Text(N_("the reports are of different hosts ({old} and {new}): differences may be the "
                                  "machines', not an upgrade's"), old=old_host, new=new_host))
    old_time, new_time = _when(old.started_at), _when(new.started_at)
    if old_time and new_time and new_time < old_time:
        diff.notes.append(Text(N_("OLD was run after NEW (by started_at): were the arguments swapped?")))
    diff.versions = _version_changes(old, new)
    _device_changes(old, new, diff)
    _result_changes(old, new, diff)
    _plan_changes(old, new, diff)
    return diff


def _when(stamp: str) -> Optional[_dt.datetime]:
    try:
        moment = _dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=_dt.timezone.utc)


def _identity(report: Report) -> Dict[str, Any]:
    host = report.host or {}
    matrix = report.matrix or {}
    return {"hostname": host.get("hostname"), "started_at": report.started_at or None,
            "tool_version": report.tool_version, "matrix_version": matrix.get("version"),
            "exit_code": int(report.exit_code), "summary": report.summary()}


# -- versions -----------------------------------------------------------------------------------


def versions_of(report: Report) -> Dict[str, str]:
    """Every version a report states, by a readable name ("driver", "CANN toolkit", "torch-npu")."""
    facts = report.facts or {}
    host = report.host or {}
    found: Dict[str, str] = {"ascend-doctor": report.tool_version}
    matrix_version = (report.matrix or {}).get("version")
    if matrix_version:
        found[N_("compatibility matrix")] = str(matrix_version)
    for key, name in (("os", N_("OS")), ("kernel", N_("kernel"))):
        if host.get(key):
            found[name] = str(host[key])
    for key, name in (("npu_smi_version", "npu-smi"), ("driver_version", N_("driver")),
                      ("firmware_version", N_("firmware"))):
        if facts.get(key):
            found[name] = str(facts[key])
    chip = facts.get("chip")
    if isinstance(chip, dict) and chip.get("name"):
        found["NPU"] = f"{chip.get('chip_count')}× {chip.get('name')}"
    by_kind: Dict[str, List[str]] = {}
    for install in facts.get("cann") or []:
        if isinstance(install, dict) and install.get("version"):
            by_kind.setdefault(str(install.get("kind") or "toolkit"), []).append(str(install["version"]))
    for kind, values in by_kind.items():
        found[f"CANN {kind}"] = ", ".join(sorted(set(values)))
    python = facts.get("python")
    if isinstance(python, dict):
        if python.get("version"):
            found["Python"] = str(python["version"])
        packages = python.get("packages")
        if isinstance(packages, dict):
            for name, version in sorted(packages.items()):
                found[str(name)] = str(version)
    return found


def _version_changes(old: Report, new: Report) -> List[Dict[str, Any]]:
    before, after = versions_of(old), versions_of(new)
    names = list(before) + [n for n in after if n not in before]
    return [{"name": n, "old": before.get(n), "new": after.get(n)} for n in names if before.get(n) != after.get(n)]


# -- devices ------------------------------------------------------------------------------------


def _devices_by_key(report: Report) -> Dict[str, Dict[str, Any]]:
    found: Dict[str, Dict[str, Any]] = {}
    for device in (report.facts or {}).get("devices") or []:
        if isinstance(device, dict):
            found[f"NPU {device.get('npu_id')} chip {device.get('chip_id')}"] = device
    return found


def _device_changes(old: Report, new: Report, diff: ReportDiff) -> None:
    before, after = _devices_by_key(old), _devices_by_key(new)
    for key, device in after.items():
        if key not in before:
            diff.devices_appeared.append({"device": key, **{f: device.get(f) for f in DEVICE_FIELDS}})
    for key, device in before.items():
        if key not in after:
            diff.devices_disappeared.append({"device": key, **{f: device.get(f) for f in DEVICE_FIELDS}})
            continue
        for name in DEVICE_FIELDS:
            if device.get(name) != after[key].get(name):
                diff.devices_changed.append({"device": key, "field": name, "old": device.get(name),
                                             "new": after[key].get(name)})


# -- results ------------------------------------------------------------------------------------


def _by_key(results: List[Result]) -> Dict[Key, Result]:
    """Results by (id, scope, n): a check may state two things without a scope; the n-th such result
    of one report is matched with the n-th of the other."""
    found: Dict[Key, Result] = {}
    for result in results:
        n = 0
        while (result.id, result.scope, n) in found:
            n += 1
        found[(result.id, result.scope, n)] = result
    return found


def is_regression(old: Status, new: Status) -> bool:
    return new in _BAD and (old in _GOOD or (old is Status.WARN and new is Status.FAIL))


def _result_changes(old: Report, new: Report, diff: ReportDiff) -> None:
    before, after = _by_key(old.results), _by_key(new.results)
    old_ids = {r.id for r in old.results}
    old_bad_ids = {r.id for r in old.results if r.status in _BAD}
    for key, result in after.items():
        previous = before.get(key)
        if previous is None:
            regression = result.status in _BAD and result.id in old_ids and result.id not in old_bad_ids
            diff.results_appeared.append({**_result_record(result), "new_check": result.id not in old_ids,
                                          "regression": regression})
        elif previous.status is not result.status:
            diff.results_changed.append({
                "id": result.id, "scope": result.scope, "title": result.title,
                "old_status": previous.status.value, "new_status": result.status.value,
                "old_message": previous.message, "new_message": result.message,
                "regression": is_regression(previous.status, result.status)})
        else:
            diff.results_unchanged += 1
    for key, result in before.items():
        if key not in after:
            diff.results_disappeared.append({**_result_record(result), "check_still_runs": result.id in
                                             {r.id for r in new.results}})


def _result_record(result: Result) -> Dict[str, Any]:
    return {"id": result.id, "scope": result.scope, "title": result.title, "status": result.status.value,
            "message": result.message}


# -- fix plan -----------------------------------------------------------------------------------


def _step_key(step: FixStep) -> Tuple[str, str, Tuple[str, ...]]:
    return (step.component, step.summary, tuple(step.commands))


def _plan_changes(old: Report, new: Report, diff: ReportDiff) -> None:
    before = {_step_key(s): s for s in old.fix_plan}
    after = {_step_key(s): s for s in new.fix_plan}
    diff.plan_appeared = [_step_record(s) for k, s in after.items() if k not in before]
    diff.plan_disappeared = [_step_record(s) for k, s in before.items() if k not in after]


def _step_record(step: FixStep) -> Dict[str, Any]:
    return {"order": step.order, "component": step.component, "summary": step.summary,
            "commands": list(step.commands), "where": step.where, "fixes": list(step.fixes)}
