"""The Slurm and pdsh one-liners of docs/fleet.md, tested without Slurm or pdsh: `check -o reports/%N.json`
names the report after the node (srun hands the pattern over unexpanded), `fleet reports/` reads the
folder, and the per-node files `dshbak -d` writes (named after the node, no suffix) are read as reports."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from .fleet_util import invoke, node_report, set_driver
from .render_util import FIXTURES, ROOT

DOC = ROOT / "docs" / "fleet.md"
HEALTHY = str(FIXTURES / "healthy-8x910B3")


def test_the_documented_one_liners_are_the_tested_ones() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "srun --nodes=16 --ntasks-per-node=1 ascend-doctor check --format json -o reports/%N.json" in text
    assert "ascend-doctor fleet reports/" in text
    assert "dshbak -d reports" in text


def test_percent_n_names_the_report_after_this_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").mkdir()
    result = invoke("check", "--from", HEALTHY, "--format", "json", "-o", "reports/%N.json")
    assert result.exit_code == 0, result.stderr
    expected = tmp_path / "reports" / f"{socket.gethostname().split('.')[0]}.json"
    assert [p.name for p in (tmp_path / "reports").iterdir()] == [expected.name]
    assert json.loads(expected.read_text(encoding="utf-8"))["tool"]["name"] == "ascend-doctor"
    assert invoke("check", "--from", HEALTHY, "--format", "json", "-o", "reports/100%%.json").exit_code == 0
    assert (tmp_path / "reports" / "100%.json").exists()


def test_unknown_percent_pattern_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke("check", "--from", HEALTHY, "--format", "json", "-o", "report-%j.json")
    assert result.exit_code == 2 and "%j is not a pattern" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_fleet_reads_the_reports_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    for name, change in (("node01", None), ("node02", set_driver("23.0.3")), ("node03", None)):
        (reports / f"{name}.json").write_text(json.dumps(node_report(name, change=change)), encoding="utf-8")
    result = invoke("fleet", "reports/", "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [n["name"] for n in data["facts"]["nodes"]] == ["node01", "node02", "node03"]
    assert any(r["id"] == "ASC-FLT-004" and "node02 on 23.0.3" in r["message"] for r in data["results"])


def test_fleet_reads_dshbak_output(tmp_path: Path) -> None:
    """`pdsh -w node[01-03] 'ascend-doctor check --format json' | dshbak -d reports` writes reports/node01..."""
    reports = tmp_path / "reports"
    reports.mkdir()
    for name in ("node01", "node02", "node03"):
        (reports / name).write_text("\n" + json.dumps(node_report(name), indent=2), encoding="utf-8")
    (reports / "README").write_text("not a report\n", encoding="utf-8")
    result = invoke("fleet", str(reports), "--format", "json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["facts"]["node_count"] == 3 and data["facts"]["skipped_inputs"] == 1
