"""Fleets of many nodes (issue 24 item 6, hostile_inputs_2.md "fleet of 10,000 reports"): a finding many
nodes share is said once with a count and examples, the report stays small, and its JSON keeps the
contract (docs/fleet-report-schema.json, checked on every fleet run of the test suite).

Sixty nodes stand for ten thousand: more than the examples a finding names (20), more values than a
fact lists (50). bench/bench_fleet.py measures the real sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ascend_doctor.fleet.facts import MAX_EXAMPLE_NODES, MAX_LISTED_VALUES

from .fleet_util import invoke
from .render_util import report_dict

NODES = 60


def cloned(index: int) -> Dict[str, Any]:
    """fleet-16's node01 under another name: every NPU address the same on every node."""
    data = report_dict("fleet-16/node01")
    data["host"]["hostname"] = f"node{index:03d}"
    data["facts"]["hccl_env"]["HCCL_IF_IP"] = f"172.16.0.{index + 1}"  # each node its own (a distinct value)
    return data


@pytest.fixture(scope="module")
def clones(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("clones") / "reports"
    folder.mkdir()
    for index in range(NODES):
        (folder / f"node{index:03d}.json").write_text(json.dumps(cloned(index)), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def fleet_json(clones: Path) -> Dict[str, Any]:
    result = invoke("fleet", str(clones), "--format", "json")
    assert result.exit_code == 1, result.stderr
    data: Dict[str, Any] = json.loads(result.stdout)
    data["_text"] = result.stdout
    return data


def results(data: Dict[str, Any], check_id: str) -> List[Dict[str, Any]]:
    return [r for r in data["results"] if r["id"] == check_id and r["status"] != "PASS"]


def test_addresses_every_clone_holds_are_one_finding(fleet_json: Dict[str, Any]) -> None:
    (shared,) = results(fleet_json, "ASC-FLT-011")  # was one result per address, naming every node
    evidence = shared["evidence"]
    assert shared["status"] == "FAIL" and evidence["node_count"] == NODES and len(evidence["addresses"]) == 8
    assert len(evidence["nodes"]) == MAX_EXAMPLE_NODES and shared["scope"].startswith("8 addresses from ")
    assert f"and the same on the other {NODES - 1 - MAX_EXAMPLE_NODES} nodes" in shared["remediation"]
    # commands for the examples only: 20 nodes x 8 devices, never 59 x 8
    commands = [c for a in shared["actions"] for c in a["commands"]]
    assert len(shared["actions"]) == MAX_EXAMPLE_NODES and len(commands) == MAX_EXAMPLE_NODES * 8
    assert all(c.startswith("hccn_tool -i ") for c in commands)


def test_nodes_alike_are_one_line_with_examples(fleet_json: Dict[str, Any]) -> None:
    (alike,) = results(fleet_json, "ASC-FLT-001")
    assert alike["evidence"]["node_count"] == NODES and len(alike["evidence"]["nodes"]) == MAX_EXAMPLE_NODES


def test_a_shared_worst_finding_is_written_once(fleet_json: Dict[str, Any]) -> None:
    facts = fleet_json["facts"]
    (worst,) = facts["shared_worst"]
    assert worst["nodes"] == NODES and worst["message"]
    for node in facts["nodes"]:
        assert node["worst"]["shared"] == 0 and "message" not in node["worst"]
        assert node["worst"]["id"] == worst["id"] and node["worst"]["title"] == worst["title"]
    assert len(facts["nodes"]) == NODES


def test_a_fact_lists_examples_not_every_node(fleet_json: Dict[str, Any]) -> None:
    # HCCL_IF_IP must differ on every node: its drift is the evidence of ASC-FLT-009's PASS
    (result,) = [r for r in fleet_json["results"] if r["id"] == "ASC-FLT-009" and r["scope"] == "HCCL_IF_IP"]
    if_ip = result["evidence"]
    assert result["status"] == "PASS" and len(if_ip["values"]) == MAX_LISTED_VALUES
    assert if_ip["values_not_listed"] == NODES - MAX_LISTED_VALUES
    assert all(len(v.get("nodes", [])) <= MAX_EXAMPLE_NODES for v in if_ip["values"])


def test_the_json_writes_one_node_a_line(fleet_json: Dict[str, Any]) -> None:
    lines = fleet_json["_text"].splitlines()
    rows = [line for line in lines if line.lstrip().startswith('{"name": "node')]
    assert len(rows) == NODES
    assert all(json.loads(row.strip().rstrip(","))["kind"] == "report" for row in rows)


def test_the_report_stays_small(fleet_json: Dict[str, Any], clones: Path) -> None:
    size = len(fleet_json["_text"].encode())
    inputs = sum(p.stat().st_size for p in clones.iterdir())
    # about 0.5 KB a node (the 10,000-node goal: 5 MB); the reports themselves are about 50 KB each
    assert size < 2_000 * NODES + 40_000, size
    assert size < inputs / 20


def test_text_and_markdown_render_the_grouped_report(clones: Path) -> None:
    for fmt in ("text", "markdown", "html"):
        result = invoke("fleet", str(clones), "--format", fmt)
        assert result.exit_code == 1, result.stderr
        assert "8 addresses" in result.stdout and "node059" in result.stdout


def test_a_saved_grouped_report_renders_again(fleet_json: Dict[str, Any], tmp_path: Path) -> None:
    saved = tmp_path / "fleet.json"
    saved.write_text(fleet_json["_text"], encoding="utf-8")
    result = invoke("report", "render", str(saved))
    assert result.exit_code in (0, 1), result.stderr
    assert "node059" in result.stdout
