"""Node reports for the fleet tests: real `check --format json` runs over the scenario fixtures,
written into a folder with values changed per node (what a fleet of those machines would send)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

from click.testing import Result

from ascend_doctor.cli import main

from .clirunner import make_runner
from .render_util import report_dict

Mutator = Callable[[Dict[str, Any]], None]


def invoke(*args: str) -> Result:
    runner = make_runner()
    return runner.invoke(main, list(args), catch_exceptions=False)


def node_report(name: str, fixture: str = "healthy-8x910B3", change: Optional[Mutator] = None) -> Dict[str, Any]:
    """The report of `fixture`, as host `name`, with ``change`` applied."""
    data = copy.deepcopy(report_dict(fixture))
    data["host"]["hostname"] = name
    if change is not None:
        change(data)
    return data


def write_nodes(folder: Path, reports: Sequence[Dict[str, Any]]) -> List[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for report in reports:
        path = folder / f"{report['host']['hostname']}.json"
        path.write_text(json.dumps(report), encoding="utf-8")
        paths.append(path)
    return paths


def fleet_json(*args: str) -> Dict[str, Any]:
    result = invoke("fleet", *args, "--format", "json")
    assert result.exit_code in (0, 1, 3), (result.exit_code, result.stderr)
    data: Dict[str, Any] = json.loads(result.stdout)
    data["_exit"] = result.exit_code
    return data


def findings(data: Dict[str, Any], check_id: Optional[str] = None) -> List[Dict[str, Any]]:
    """The fleet report's non-PASS results (of one check)."""
    return [r for r in data["results"] if r["status"] not in ("PASS", "SKIP")
            and (check_id is None or r["id"] == check_id)]


def set_driver(version: str) -> Mutator:
    def change(data: Dict[str, Any]) -> None:
        data["facts"]["driver_version"] = version

    return change


def set_package(name: str, version: Optional[str]) -> Mutator:
    def change(data: Dict[str, Any]) -> None:
        packages = data["facts"]["python"]["packages"]
        if version is None:
            packages.pop(name, None)
        else:
            packages[name] = version

    return change
