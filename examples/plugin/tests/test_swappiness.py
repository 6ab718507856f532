"""ACME-SYS-001 through ascend-doctor's command line, on the two fixtures: as a site's CI would run it
after `pip install ./examples/plugin` (the check is found through its entry point, not by path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _check(fixture: str) -> Dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "ASCEND_DOCTOR_DISABLE_PLUGINS"}
    done = subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--from", str(FIXTURES / fixture),
                           "--select", "ACME", "--format", "json"], capture_output=True, text=True, env=env,
                          timeout=120)
    # A recommendation never fails the gate (exit 1); a run whose only result is INFO is exit 3 ("nothing
    # was verified"), as for ascend-doctor's own recommendations.
    assert done.returncode in (0, 3), done.stderr
    report: Dict[str, Any] = json.loads(done.stdout)
    return report


def _ours(report: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [r for r in report["results"] if r["id"] == "ACME-SYS-001"]


def test_low_swappiness_passes() -> None:
    [result] = _ours(_check("swappiness-0"))
    assert (result["status"], result["evidence"]) == ("PASS", {"swappiness": 0})


def test_default_swappiness_is_a_recommendation_with_its_command() -> None:
    report = _check("swappiness-60")
    [result] = _ours(report)
    assert (result["status"], result["evidence"]) == ("INFO", {"swappiness": 60})
    assert any("sysctl -w vm.swappiness=0" in command for step in report["fix_plan"] for command in step["commands"])


@pytest.mark.parametrize("fixture", ["swappiness-0", "swappiness-60"])
def test_the_plugin_loads_cleanly(fixture: str) -> None:
    report = _check(fixture)
    assert not [r for r in report["results"] if r["status"] == "ERROR"], report["results"]
