"""Scenario fixtures: every directory under fixtures/ is a machine snapshot plus the statuses
``ascend-doctor check --from`` must give on it (``expected.yaml``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from click.testing import CliRunner

from ascend_doctor.cli import main

from .report_schema import validate_report

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCENARIOS = sorted(p for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file()) if FIXTURES.is_dir() else []
ORDER = ["PASS", "SKIP", "WARN", "ERROR", "FAIL"]


def load_expected(path: Path) -> Dict[str, Any]:
    data = yaml.safe_load((path / "expected.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("expect"), dict), f"{path}/expected.yaml needs expect:"
    return data


def run_scenario(path: Path, extra: List[str]) -> Dict[str, Any]:
    args = ["check", "--from", str(path), "--format", "json", *extra]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
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
