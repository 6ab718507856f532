"""The fleet checks one at a time, each with a fleet that passes and one that does not: reports of
fleet-16 nodes (real network facts, HCCL variables, rank table) with one value changed."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from ascend_doctor.registry import all_checks

from .fleet_util import findings, fleet_json, node_report, write_nodes
from .render_util import report_dict

NODES = ("node01", "node02", "node03", "node04")
Change = Callable[[Dict[str, Any]], None]
SEEN: Dict[str, Set[str]] = {}  # check id -> statuses the tests below produced


def fleet_node(name: str, change: Optional[Change] = None) -> Dict[str, Any]:
    data = copy.deepcopy(report_dict(f"fleet-16/{name}"))
    if change is not None:
        change(data)
    return data


def merge(tmp_path: Path, changes: Optional[Dict[str, Change]] = None, nodes: Tuple[str, ...] = NODES
          ) -> Dict[str, Any]:
    reports = [fleet_node(name, (changes or {}).get(name)) for name in nodes]
    folder = tmp_path / "reports"
    write_nodes(folder, reports)
    data = fleet_json(str(folder))
    for result in data["results"]:
        SEEN.setdefault(result["id"], set()).add(result["status"])
    return data


def only(data: Dict[str, Any], check_id: str) -> List[Dict[str, Any]]:
    return findings(data, check_id)


def network(field: str, value: Any) -> Change:
    def change(data: Dict[str, Any]) -> None:
        data["facts"]["network"][field] = [value] * len(data["facts"]["network"][field])

    return change


def env(name: str, value: Optional[str]) -> Change:
    return lambda data: data["facts"]["hccl_env"].__setitem__(name, value)


def device_address(device: int, address: str, netmask: Optional[str] = None) -> Change:
    def change(data: Dict[str, Any]) -> None:
        entry = data["facts"]["network"]["devices"][device]
        entry["address"] = address
        if netmask:
            entry["netmask"] = netmask

    return change


def own_table(data: Dict[str, Any]) -> None:
    """The rank table of these four nodes only (the fixture's names sixteen, with a planted duplicate)."""
    table = data["facts"]["rank_table"]
    servers = {f"10.155.111.{140 + i}" for i in range(len(NODES))}
    table["devices"] = [d for d in table["devices"] if d["server_id"] in servers]
    table["canonical_sha256"] = "a" * 64


def test_a_clean_fleet_of_real_network_reports(tmp_path: Path) -> None:
    data = merge(tmp_path, {name: own_table for name in NODES})
    for check_id in ("ASC-FLT-008", "ASC-FLT-009", "ASC-FLT-011", "ASC-FLT-012", "ASC-FLT-013", "ASC-FLT-014"):
        assert only(data, check_id) == [], check_id
    (table,) = [r for r in data["results"] if r["id"] == "ASC-FLT-014"]
    assert "32 device_ips, each once and each the address its device reports (4 nodes)" in table["message"]


def test_rank_table_of_more_servers_than_merged(tmp_path: Path) -> None:
    data = merge(tmp_path)
    results = {r["status"]: r for r in only(data, "ASC-FLT-014")}
    assert "device_ip 192.170.100.219 appears 2 times" in results["FAIL"]["message"]  # the fixture's planted one
    assert "belong to no node of this merge" in results["WARN"]["message"]  # servers 5-16 are not merged here


def test_tls_on_one_node_and_another_fec_mode(tmp_path: Path) -> None:
    data = merge(tmp_path, {"node03": network("tls", 1), "node04": network("fec", "base-r FEC mode")})
    tls, fec = only(data, "ASC-FLT-008")
    assert tls["status"] == "FAIL" and "node03 on 1" in tls["message"]
    assert "for i in {0..7}; do hccn_tool -i $i -tls -s enable 0; done" in tls["remediation"]
    assert fec["status"] == "WARN" and "node04 on base-r FEC mode" in fec["message"]
    assert "hccn_tool -i $i -fec -s encoding rs" in fec["remediation"]


def test_hccl_variables_agree_and_hccl_if_ip_differs(tmp_path: Path) -> None:
    data = merge(tmp_path, {"node02": env("HCCL_CONNECT_TIMEOUT", "120"), "node03": env("HCCL_IF_IP", "10.155.111.140"),
                            "node04": env("HCCL_SOCKET_IFNAME", "enp189s0f0")})
    results = {r["scope"]: r for r in only(data, "ASC-FLT-009")}
    assert results["HCCL_CONNECT_TIMEOUT"]["status"] == "WARN"
    assert "export HCCL_CONNECT_TIMEOUT=1800" in results["HCCL_CONNECT_TIMEOUT"]["remediation"]
    assert results["HCCL_IF_IP"]["status"] == "FAIL" and "node01, node03" in results["HCCL_IF_IP"]["message"]
    # Set on one node only: the others' "unset" is the majority, so the fix unsets it there.
    assert "unset HCCL_SOCKET_IFNAME" in results["HCCL_SOCKET_IFNAME"]["remediation"]


def test_two_devices_with_one_address(tmp_path: Path) -> None:
    data = merge(tmp_path, {"node04": device_address(2, "192.170.100.102")})  # node01's device 2
    (dup,) = only(data, "ASC-FLT-011")
    assert dup["status"] == "FAIL" and dup["scope"] == "192.170.100.102"
    assert "node01 device 2, node04 device 2" in dup["message"]
    assert "hccn_tool -i 2 -ip -s address '<free address>' netmask 255.255.255.0" in dup["remediation"]


def test_address_outside_the_plan_and_another_netmask(tmp_path: Path) -> None:
    data = merge(tmp_path, {"node02": device_address(5, "10.99.0.5"),
                            "node03": device_address(1, "192.170.100.117", "255.255.0.0")})
    by_scope = {r["scope"]: r for r in only(data, "ASC-FLT-013")}
    assert by_scope["netmask"]["status"] == "WARN" and "node03 device 1" in by_scope["netmask"]["message"]
    assert by_scope["subnets"]["status"] == "WARN" and "node02 device 5 (10.99.0.5" in by_scope["subnets"]["message"]


def test_nodes_holding_different_rank_tables(tmp_path: Path) -> None:
    def other_table(data: Dict[str, Any]) -> None:
        data["facts"]["rank_table"]["canonical_sha256"] = "0" * 64

    data = merge(tmp_path, {"node04": other_table, "node03": lambda d: d["facts"].__setitem__("rank_table", None)})
    results = {r["scope"]: r for r in only(data, "ASC-FLT-012")}
    assert results["rank table"]["status"] == "FAIL" and "node04: 000000000000" in results["rank table"]["message"]
    assert results["rank table missing"]["status"] == "WARN" and "node03" in results["rank table missing"]["message"]


def test_rank_table_entry_with_another_device_s_address(tmp_path: Path) -> None:
    def wrong_entry(data: Dict[str, Any]) -> None:
        own_table(data)
        device = next(d for d in data["facts"]["rank_table"]["devices"] if d["path"] == "server_list[1].device[3]")
        device["device_id"] = "5"  # its device_ip, 192.170.100.111, is node02's device 3

    data = merge(tmp_path, {name: wrong_entry for name in NODES})
    (wrong,) = only(data, "ASC-FLT-014")
    assert wrong["status"] == "FAIL" and wrong["scope"] == "server_list[1].device[3]"
    assert "is 192.170.100.111 for device_id 5, but 192.170.100.111 is device 3 of node02" in wrong["message"]


def test_hardware_stack_and_engine_drift(tmp_path: Path) -> None:
    def other_chip(data: Dict[str, Any]) -> None:
        data["facts"]["chip"]["name"] = "910B4"

    def fewer_npus(data: Dict[str, Any]) -> None:
        data["facts"]["chip"]["chip_count"] = 7

    def kernels_and_nnal(data: Dict[str, Any]) -> None:
        data["facts"]["kernels_version"] = "8.0.RC3"
        data["facts"]["nnal_version"] = "8.0.RC3"

    def other_engine(version: str) -> Change:
        return lambda data: data["facts"]["python"]["packages"].update({"vllm": "0.9.1", "vllm-ascend": version})

    def everyone(version: str) -> Change:
        def change(data: Dict[str, Any]) -> None:
            other_engine(version)(data)
            data["facts"]["kernels_version"] = data["facts"]["nnal_version"] = "8.0.0"

        return change

    data = merge(tmp_path, {"node01": everyone("0.9.1"), "node02": lambda d: (everyone("0.9.1")(d), other_chip(d)),
                            "node03": lambda d: (everyone("0.9.1")(d), fewer_npus(d)),
                            "node04": lambda d: (everyone("0.9.0rc2")(d), kernels_and_nnal(d))})
    hardware = {r["scope"]: r for r in only(data, "ASC-FLT-003")}
    assert hardware["NPU model"]["status"] == "FAIL" and "node02 on 910B4" in hardware["NPU model"]["message"]
    assert hardware["NPU count"]["status"] == "WARN" and "node03 on 7" in hardware["NPU count"]["message"]
    cann = {r["scope"]: r for r in only(data, "ASC-FLT-005")}
    assert "./Ascend-cann-kernels-910b_8.0.0_linux-aarch64.run --install" in cann["kernels/ops package"]["remediation"]
    assert "./Ascend-cann-nnal_8.0.0_linux-aarch64.run --install" in cann["NNAL (ATB)"]["remediation"]
    (engine,) = only(data, "ASC-FLT-007")
    assert engine["scope"] == "vLLM-Ascend" and "node04 on 0.9.0rc2" in engine["message"]
    assert "pip install vllm==0.9.1" in engine["remediation"] and "vllm-ascend==0.9.1" in engine["remediation"]


def test_a_node_whose_check_verified_nothing_is_incomplete(tmp_path: Path) -> None:
    def all_skipped(data: Dict[str, Any]) -> None:
        for result in data["results"]:
            result["status"] = "SKIP"

    data = merge(tmp_path, {"node02": all_skipped}, nodes=("node01", "node02"))
    (node,) = [r for r in only(data, "ASC-FLT-001") if r["scope"] == "node node02"]
    assert node["status"] == "ERROR" and "verified nothing" in node["message"]


def test_every_fleet_check_passes_somewhere_and_fails_somewhere(tmp_path: Path) -> None:
    """Across the tests of this module and of tests/test_fleet.py's kind of fleets. The module's other
    tests are run again here: pytest-xdist may have run them in another process, whose record this
    one never sees."""
    this = test_every_fleet_check_passes_somewhere_and_fails_somewhere
    scenarios = [test for name, test in sorted(globals().items()) if name.startswith("test_") and test is not this]
    assert len(scenarios) >= 10
    for index, scenario in enumerate(scenarios):
        folder = tmp_path / f"scenario-{index}"
        folder.mkdir()
        scenario(folder)
    healthy = [node_report(f"h{i}") for i in range(3)]
    write_nodes(tmp_path / "h", healthy)
    for result in fleet_json(str(tmp_path / "h"))["results"]:
        SEEN.setdefault(result["id"], set()).add(result["status"])
    missing = []
    elsewhere = ("ASC-FLT-002", "ASC-FLT-004", "ASC-FLT-006", "ASC-FLT-010")  # failing cases in tests/test_fleet.py
    for check in (c for c in all_checks() if c.spec.suite == "fleet" and c.spec.id not in elsewhere):
        statuses = SEEN.get(check.spec.id, set())
        if "PASS" not in statuses or not statuses & {"FAIL", "WARN", "ERROR"}:
            missing.append(f"{check.spec.id}: {sorted(statuses)}")
    assert not missing, missing
