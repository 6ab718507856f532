"""Scenario fixtures: every directory under fixtures/ is a machine snapshot plus the statuses
``ascend-doctor check --from`` must give on it (``expected.yaml``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml

from ascend_doctor.cli import main

from .clirunner import make_runner
from .report_schema import validate_report

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCENARIOS = sorted(p for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file()) if FIXTURES.is_dir() else []
ORDER = ["PASS", "SKIP", "INFO", "WARN", "ERROR", "FAIL"]


def load_expected(path: Path) -> Dict[str, Any]:
    data = yaml.safe_load((path / "expected.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("expect"), dict), f"{path}/expected.yaml needs expect:"
    return data


def run_scenario(path: Path, extra: List[str]) -> Dict[str, Any]:
    args = ["check", "--from", str(path), "--format", "json", *extra]
    result = make_runner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(result.stdout)
    validate_report(report)
    assert report["exit_code"] == result.exit_code
    return report


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_scenario(scenario: Path) -> None:
    expected = load_expected(scenario)
    extra = [str(a).replace("{fixture}", str(scenario)) for a in expected.get("args", [])]
    report = run_scenario(scenario, extra)
    worst: Dict[str, str] = {}
    for result in report["results"]:
        prev = worst.get(result["id"])
        if prev is None or ORDER.index(result["status"]) > ORDER.index(prev):
            worst[result["id"]] = result["status"]
    mismatches = []
    for check_id, status in expected["expect"].items():
        got = worst.get(check_id)
        if got != status:
            messages = [r["message"] for r in report["results"] if r["id"] == check_id]
            mismatches.append(f"{check_id}: expected {status}, got {got}: {messages}")
    assert not mismatches, "\n".join(mismatches)
    if "exit_code" in expected:
        assert report["exit_code"] == expected["exit_code"]
    errors = [f"{r['id']}: {r['message']}" for r in report["results"] if r["status"] == "ERROR"]
    assert not errors or expected.get("allow_errors"), "checks crashed:\n" + "\n".join(errors)


# Failing cases no public capture shows (a chip above 85 °C or 95 % full, mixed chip models, a
# driver without firmware, a torch pair or Python from another release): covered instead by the
# value-only variants of the healthy fixture in tests/test_core_checks.py.
COVERED_BY_VARIANTS = {"ASC-DEV-002", "ASC-DEV-003", "ASC-DEV-004", "ASC-FW-001", "ASC-PY-002", "ASC-PY-004"}
# Passing cases git cannot store: a file mode of 0640 (git checks files out 0644, and a snapshot keeps no
# modes), made in a temporary folder by tests/test_rank_table_checks.py instead.
PASS_COVERED_BY_TESTS = {"ASC-RT-007"}


def test_every_check_passes_somewhere_and_fails_somewhere() -> None:
    from ascend_doctor.registry import all_checks

    from .check_pairs import outcomes

    seen: Dict[str, set] = {}
    for scenario in SCENARIOS:
        for check_id, status in load_expected(scenario)["expect"].items():
            seen.setdefault(check_id, set()).add(status)
    for check_id, statuses in outcomes().items():  # fixtures/pairs/*.yaml (tests/test_check_pairs.py)
        seen.setdefault(check_id, set()).update(statuses)
    missing = []
    # Snapshot scenarios grade the `check` suite; probe and fleet checks have their own tests.
    for check in (c for c in all_checks() if c.spec.suite == "check"):
        statuses = seen.get(check.spec.id, set())
        # A recommendation check's "bad" case is INFO (advice that never changes the exit code).
        bad_case = bool(statuses & {"FAIL", "WARN", "INFO"}) or check.spec.id in COVERED_BY_VARIANTS
        if ("PASS" not in statuses and check.spec.id not in PASS_COVERED_BY_TESTS) or not bad_case:
            missing.append(f"{check.spec.id}: scenarios give {sorted(statuses) or 'nothing'}")
    assert not missing, "checks without a passing and a failing scenario:\n" + "\n".join(missing)
    unknown = set(seen) - {c.spec.id for c in all_checks()}
    assert not unknown, f"expected.yaml names checks that do not exist: {sorted(unknown)}"
