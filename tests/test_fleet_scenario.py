"""The 16-node scenario (fixtures/fleet-16, built by fixtures/build_fleet_scenario.py): `ascend-doctor fleet`
finds exactly the five planted differences, and nothing else (fixtures/fleet-16/fleet-expected.yaml)."""

from __future__ import annotations

import functools
import json
from typing import Any, Dict, List

import yaml

from .fleet_util import invoke
from .render_util import FIXTURES

FLEET = FIXTURES / "fleet-16"


@functools.lru_cache(maxsize=1)
def fleet_report() -> Dict[str, Any]:
    result = invoke("fleet", str(FLEET), "--format", "json")
    data: Dict[str, Any] = json.loads(result.stdout)
    data["_exit"] = result.exit_code
    return data


def expected() -> Dict[str, Any]:
    data: Dict[str, Any] = yaml.safe_load((FLEET / "fleet-expected.yaml").read_text(encoding="utf-8"))
    return data


def odd_nodes(result: Dict[str, Any]) -> List[str]:
    evidence = result["evidence"]
    return sorted(n for entry in evidence["values"] if entry["value"] != evidence["majority"] for n in entry["nodes"])


def test_the_verdict_and_exit_code() -> None:
    data = fleet_report()
    assert data["_exit"] == expected()["exit_code"] == data["exit_code"]
    assert data["facts"]["node_count"] == 16 and data["facts"]["unreadable"] == 0
    assert {n["name"] for n in data["facts"]["nodes"]} == {f"node{i:02d}" for i in range(1, 17)}


def test_exactly_the_planted_fleet_findings() -> None:
    data = fleet_report()
    found = {(r["id"], r["scope"]): r for r in data["results"]
             if r["status"] not in ("PASS", "SKIP") and r["id"] != "ASC-FLT-001"}
    wanted = {(e["id"], e["scope"]): e for e in expected()["fleet"]}
    assert set(found) == set(wanted), sorted(found)
    for key, want in wanted.items():
        result = found[key]
        assert result["status"] == want["status"], key
        if "odd" in want:
            assert odd_nodes(result) == want["odd"], key
            assert result["evidence"]["majority"] == want["majority"], key
            assert all(node in result["remediation"] for node in want["odd"]), key
        if "paths" in want:
            assert sorted(result["evidence"]["paths"]) == want["paths"]


def test_every_node_shows_exactly_its_own_findings() -> None:
    nodes = {n["name"]: n for n in fleet_report()["facts"]["nodes"]}
    for name, wanted in expected()["nodes"].items():
        node = nodes[name]
        assert node["findings"] == sorted(wanted), (name, node["findings"])
        counts = {status: list(wanted.values()).count(status) for status in ("FAIL", "WARN", "ERROR")}
        assert {s: node["summary"][s] for s in counts} == counts, (name, node["summary"])
        assert node["verdict"] == "NOT READY" and node["devices"] == 8 and node["health"] == "OK"


def test_node_findings_are_grouped_by_what_they_share() -> None:
    groups = [r for r in fleet_report()["results"] if r["id"] == "ASC-FLT-001"]
    assert all(r["status"] == "FAIL" for r in groups)
    sizes = sorted(len(r["evidence"]["nodes"]) for r in groups)
    assert sizes == [1, 1, 1, 13]  # the rank table everywhere; node09, node14 and node16 with more


def test_text_names_the_odd_nodes_and_the_fix() -> None:
    result = invoke("fleet", str(FLEET))
    text = result.stdout
    assert result.exit_code == 1
    for needle in ("15 nodes on 23.0.7; node05 on 23.0.3", "15 nodes on 8.0.0; node14 on 8.1.RC1",
                   "15 nodes on 0; node12 on 1", "hccn_tool -i $i -tls -s enable 0",
                   "./Ascend-hdk-910b-npu-driver_23.0.7_linux-aarch64.run",
                   "./Ascend-cann-toolkit_8.0.0_linux-aarch64.run",
                   "device_ip 192.170.100.219 appears 2 times", "address_3=192.170.100.250"):
        assert needle in text, needle
