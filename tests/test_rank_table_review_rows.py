"""Rank tables checked against the node and the product (issue 22 item 6; review rows 12, 13, 29, 30).

Each table is the healthy fixture's own (fixtures/network-healthy-8x910B3, an 8x910B3 node whose
hccn_tool and /etc/hccn.conf set 192.170.100.x) with the one change the review planted; the A3 table
follows the MindCluster hccl.json version 1.2 template (tests/samples/hccn/).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

from ascend_doctor.cli import main

from .clirunner import make_runner
from .report_schema import validate_report

HEALTHY = Path(__file__).resolve().parent.parent / "fixtures" / "network-healthy-8x910B3"
TABLE = HEALTHY / "files/data/rank_table/rank_table.json"


def check_table(tmp_path: Path, table: Any) -> List[Dict[str, Any]]:
    path = tmp_path / "rank_table.json"
    path.write_text(table if isinstance(table, str) else json.dumps(table, indent=2), encoding="utf-8")
    result = make_runner().invoke(main, ["check", "--format", "json", "--from", str(HEALTHY), "--rank-table", str(path),
                                       "--select", "ASC-RT"], catch_exceptions=False)
    report = json.loads(result.stdout)
    validate_report(report)
    results: List[Dict[str, Any]] = report["results"]
    return results


def of(results: List[Dict[str, Any]], check_id: str) -> List[Dict[str, Any]]:
    return [r for r in results if r["id"] == check_id]


def healthy() -> Dict[str, Any]:
    data: Dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return data


def test_row12_every_device_ip_in_another_subnet_is_named(tmp_path: Path) -> None:
    text = TABLE.read_text(encoding="utf-8").replace("192.170.100.", "192.170.101.")
    results = check_table(tmp_path, text)
    (rt6,) = of(results, "ASC-RT-006")
    assert rt6["status"] == "FAIL"
    assert "outside this node's NPU subnets" in rt6["message"] and "192.170.100.0/24" in rt6["message"]
    assert "hccn_tool -i 0 -ip -g" in rt6["remediation"] and "192.170.100.100" in rt6["remediation"]
    assert "HOST_IP" not in rt6["remediation"]
    # one wrong address: the node is still found by the others, and RT-005 names the device
    data = healthy()
    data["server_list"][0]["device"][3]["device_ip"] = "192.170.101.103"
    results = check_table(tmp_path, data)
    assert of(results, "ASC-RT-006")[0]["status"] == "PASS"
    assert any(r["status"] == "FAIL" for r in of(results, "ASC-RT-005"))


def test_row13_super_device_id_unique_in_a_super_pod(tmp_path: Path) -> None:
    def server(server_id: str, first_rank: int) -> Dict[str, Any]:
        return {"server_id": server_id, "host_ip": server_id, "device": [
            {"device_id": str(i), "device_ip": f"29.{first_rank}.0.{i + 1}", "super_device_id": "0" if i == 0
             else str(first_rank + i), "rank_id": str(first_rank + i)} for i in range(2)]}

    table = {"status": "completed", "version": "1.2", "server_count": "2",
             "server_list": [server("10.0.0.1", 0), server("10.0.0.2", 2)],
             "super_pod_list": [{"super_pod_id": "0", "server_list": [{"server_id": "10.0.0.1"},
                                                                     {"server_id": "10.0.0.2"}]}]}
    results = check_table(tmp_path, table)
    fails = [r for r in of(results, "ASC-RT-004") if r["status"] == "FAIL"]
    assert len(fails) == 1 and "super_device_id 0 is used 2 times in super pod 0" in fails[0]["message"]


def test_row29_device_id_beyond_the_a2_range(tmp_path: Path) -> None:
    data = healthy()
    data["server_list"][1]["device"][7]["device_id"] = "8"
    results = check_table(tmp_path, data)
    fails = [r for r in of(results, "ASC-RT-003") if r["status"] == "FAIL"]
    assert len(fails) == 1 and "A2 range 0..7" in fails[0]["message"]
    assert "server_list[1].device[7] = 8" in fails[0]["message"]
    assert all(r["status"] == "PASS" for r in of(check_table(tmp_path, healthy()), "ASC-RT-003"))


def test_row30_numbers_say_write_it_as_a_string(tmp_path: Path) -> None:
    data = healthy()
    data["server_count"] = 2
    for server in data["server_list"]:
        for device in server["device"]:
            device["device_id"] = int(device["device_id"])
            device["rank_id"] = int(device["rank_id"])
    results = of(check_table(tmp_path, data), "ASC-RT-001")
    assert len(results) == 1  # one finding for all 33 values, not 33
    (rt1,) = results
    assert rt1["status"] == "WARN" and rt1["message"].startswith("33 value(s) written as JSON numbers")
    assert 'server_count: "2" instead of 2' in rt1["remediation"]


def test_unconfigured_device_ip_is_caught_before_start(tmp_path: Path) -> None:
    data = healthy()
    data["server_list"][1]["device"][2]["device_ip"] = "-.-.-.-"
    fails = [r for r in of(check_table(tmp_path, data), "ASC-RT-004") if r["status"] == "FAIL"]
    assert len(fails) == 1 and "not configured on 10.155.111.141" in fails[0]["message"]
    assert "hccn_tool -i 2 -ip -s address '<address>' netmask '<netmask>'" in fails[0]["remediation"]
