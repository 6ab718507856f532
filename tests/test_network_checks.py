"""The NPU network facts and checks (ASC-NET-*) and the rank table checks (ASC-RT-*) beyond the
scenario fixtures: where hccn_tool is looked for, a hung device, A3, snapshot = live, the CLI
option and the environment variables, file modes, and the report's network facts."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

from ascend_doctor import capture
from ascend_doctor.cli import main
from ascend_doctor.facts import Facts, FactUnavailable
from ascend_doctor.facts.network import QUERIES, capture_hccn, query_argv
from ascend_doctor.facts.records.network import DRIVER_HCCN_TOOL
from ascend_doctor.host.base import CommandResult, CommandStatus, HostInfo, PythonEnv, command_file_name
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.matrix import load_matrix
from ascend_doctor.options import RunOptions
from ascend_doctor.parsers.npu_smi import parse_npu_smi_info
from ascend_doctor.runner import run_checks

from .clirunner import make_runner
from .report_schema import validate_report
from .samples_util import sample_body

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FAULTS = FIXTURES / "network-faults-8x910B3"
HEALTHY = FIXTURES / "network-healthy-8x910B3"
RT_FAULTS = FIXTURES / "rank-table-faults-8x910B3"
PD = FIXTURES / "vllm-pd-1p1d-container"


def answers_of(fixture: Path) -> Dict[Tuple[str, ...], CommandResult]:
    """The recorded hccn_tool and npu-smi outputs of a fixture, as live command results."""
    out: Dict[Tuple[str, ...], CommandResult] = {}
    host = SnapshotHost(str(fixture))
    smi = parse_npu_smi_info((fixture / "commands/npu-smi_info.out").read_text(encoding="utf-8"))
    ids = sorted({d.npu_id for d in smi.devices})
    for argv in [("npu-smi", "info")] + [query_argv(b, i, f) for b in ("hccn_tool", DRIVER_HCCN_TOOL)
                                         for i in ids for _, f in QUERIES]:
        result = host.run(argv)
        if result.status is not CommandStatus.NOT_FOUND:
            out[argv] = result
    return out


class TableHost(LiveHost):
    """A LiveHost whose commands answer from a table (this machine has no NPU)."""

    def __init__(self, answers: Dict[Tuple[str, ...], CommandResult]) -> None:
        super().__init__(timeout_s=10.0)
        self.answers = answers
        self.ran: List[Tuple[str, ...]] = []

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        key = tuple(argv)
        self.ran.append(key)
        return self.answers.get(key, CommandResult(key, CommandStatus.NOT_FOUND))

    def info(self) -> HostInfo:
        return HostInfo("live", "node-under-test", "aarch64", "5.10", "openEuler")

    def python_probe(self) -> Tuple[PythonEnv, Dict[str, Any]]:
        return PythonEnv("/usr/bin/python3", "3.10.14", {}), {"executable": "/usr/bin/python3", "version": "3.10.14",
                                                             "packages": {}, "path": []}

    def env(self) -> Dict[str, str]:
        return {"PATH": "/usr/bin"}


def facts_with_npus(host: Any, fixture: Path) -> Facts:
    facts = Facts(host, RunOptions())
    facts.seed(npu_smi=parse_npu_smi_info((fixture / "commands/npu-smi_info.out").read_text(encoding="utf-8")))
    return facts


def net_results(report: Any) -> List[Tuple[str, str, Optional[str], str]]:
    return sorted((r.id, r.status.value, r.scope, r.message) for r in report.results
                  if r.id.startswith("ASC-NET"))


# -- the hccn fact ------------------------------------------------------------------------------------------


def test_binary_found_at_the_driver_path_when_not_on_path() -> None:
    host = TableHost(answers_of(PD))
    hccn = facts_with_npus(host, PD).hccn
    assert hccn.binary == DRIVER_HCCN_TOOL
    assert ("hccn_tool", "-i", "0", "-link", "-g") in host.ran  # PATH was tried first
    assert hccn.devices[0].ip is not None and hccn.devices[0].ip.address == "192.170.100.100"


def test_missing_binary_is_a_fact_not_an_error() -> None:
    answers = {k: v for k, v in answers_of(HEALTHY).items() if k[0] == "npu-smi"}
    hccn = facts_with_npus(TableHost(answers), HEALTHY).hccn
    assert hccn.binary is None and hccn.devices == {}


def test_a_hung_link_probe_spares_the_other_queries() -> None:
    answers = answers_of(HEALTHY)
    probe = query_argv("hccn_tool", 5, "-link")
    answers[probe] = CommandResult(probe, CommandStatus.TIMEOUT, timeout_s=10.0, duration_s=10.0)
    host = TableHost(answers)
    device = facts_with_npus(host, HEALTHY).hccn.devices[5]
    assert [argv for argv in host.ran if argv[:3] == ("hccn_tool", "-i", "5")] == [probe]
    assert device.errors["link"].endswith("did not answer within 10 s and was killed")
    assert device.errors["ip"] == "not asked: `hccn_tool -i 5 -link -g` hung"


def test_a3_dies_are_read_as_the_phy_ids_the_table_shows() -> None:
    """Issue 22 item 1: an A3 node's 16 dies (8 NPUs x 2) are hccn_tool devices 0-15, taken from the
    table's Chip Phy-ID column, never from a guessed range."""
    smi = parse_npu_smi_info(sample_body("npu-smi-info/vllm-ascend-4480-A3-16die-24.1.rc3.7.txt"))
    answers: Dict[Tuple[str, ...], CommandResult] = {}
    for device in range(16):
        argv = query_argv("hccn_tool", device, "-link")
        answers[argv] = CommandResult(argv, CommandStatus.OK, returncode=0, stdout="link status: UP\n")
    host = TableHost(answers)
    facts = Facts(host, RunOptions())
    facts.seed(npu_smi=smi)
    hccn = facts.value(Facts.hccn)
    assert sorted(hccn.devices) == list(range(16))
    assert {d.link for d in hccn.devices.values()} == {"UP"}, {i: d.errors for i, d in hccn.devices.items()}
    assert query_argv("hccn_tool", 15, "-ip") in host.ran


def test_a3_container_dies_are_the_phy_ids_it_shows() -> None:
    smi = parse_npu_smi_info(sample_body("npu-smi-info/fixture-A3-25.5.1-container-sees-only-npu4-phy8-9.txt"))
    facts = Facts(TableHost({}), RunOptions())
    facts.seed(npu_smi=smi)
    from ascend_doctor.facts.network import device_ids_for

    assert device_ids_for(facts) == [8, 9]


def test_a3_logic_ids_of_info_m_come_first_and_skip_the_mcu() -> None:
    from ascend_doctor.facts.network import device_ids_from
    from ascend_doctor.parsers.npu_smi_views import parse_npu_smi_mapping

    smi = parse_npu_smi_info(sample_body("npu-smi-info/vllm-ascend-4480-A3-16die-24.1.rc3.7.txt"))
    mapping = parse_npu_smi_mapping(sample_body("npu-smi-tables-other/xllm-test-info-m-A3-phy-id-column.txt"))
    assert mapping.logic_ids == [0, 1, 2] and len(mapping.chips) == 4
    # Two NPUs' worth of rows against a 16-die table: the mapping does not cover it, the table's Phy-IDs do.
    assert device_ids_from(smi, mapping) == list(range(16))
    with pytest.raises(FactUnavailable):
        device_ids_from(None, None)


def test_no_ip_on_stderr_with_an_error_status_is_still_no_ip() -> None:
    answers = answers_of(HEALTHY)
    argv = query_argv("hccn_tool", 2, "-ip")
    answers[argv] = CommandResult(argv, CommandStatus.OK, returncode=1,
                                  stderr="Get ipconf failed, because no ip was preset there!\n")
    device = facts_with_npus(TableHost(answers), HEALTHY).hccn.devices[2]
    assert device.ip is not None and device.ip.missing and "ip" not in device.errors


# -- snapshot = live --------------------------------------------------------------------------------------


def test_snapshot_grades_the_network_exactly_as_live(tmp_path: Path) -> None:
    answers = answers_of(FAULTS)
    live = TableHost(answers)
    options = RunOptions(select=("ASC-NET",))
    matrix = load_matrix(None)
    live_report = run_checks(live, matrix, options)
    out = tmp_path / "snap"
    root = tmp_path / "root"
    root.mkdir()
    capture.capture_snapshot(str(out) + "/", timeout_s=10.0, host=TableHost(answers), fs_root=str(root))
    recorded = {p.name for p in (out / "commands").iterdir()}
    assert command_file_name(query_argv("hccn_tool", 7, "-optical")) + ".out" in recorded
    assert command_file_name(query_argv("hccn_tool", 2, "-tls")) + ".timeout" in recorded
    with SnapshotHost(str(out)) as snap:
        snap_report = run_checks(snap, matrix, options)
    assert net_results(snap_report) == net_results(live_report)
    assert {status for _, status, _, _ in net_results(live_report)} >= {"WARN", "FAIL"}


def test_capture_runs_nothing_when_npu_smi_lists_no_npu() -> None:
    host = TableHost({})
    assert capture_hccn(lambda argvs: host.run_many(argvs), "garbage\n") == []
    assert host.ran == []


# -- the CLI: --rank-table, the environment, modes ------------------------------------------------------


def check_json(*args: str, env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    result = make_runner().invoke(main, ["check", "--format", "json", *args], catch_exceptions=False, env=env)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(result.stdout)
    validate_report(report)
    return report


def by_id(report: Dict[str, Any], check_id: str) -> List[Dict[str, Any]]:
    return [r for r in report["results"] if r["id"] == check_id]


def mindie_copy(tmp_path: Path, mode: int) -> Path:
    """rank-table-faults' machine (MindIE installed) with the healthy fixture's rank table at ``mode``."""
    table = tmp_path / "rank_table.json"
    shutil.copyfile(HEALTHY / "files/data/rank_table/rank_table.json", table)
    os.chmod(table, mode)
    return table


@pytest.mark.parametrize("mode, status", [(0o640, "PASS"), (0o600, "PASS"), (0o644, "FAIL"), (0o660, "FAIL"),
                                          (0o740, "FAIL")])
def test_rt007_mode_of_the_rank_table(tmp_path: Path, mode: int, status: str) -> None:
    table = mindie_copy(tmp_path, mode)
    report = check_json("--from", str(RT_FAULTS), "--rank-table", str(table), "--select", "ASC-RT")
    (result,) = by_id(report, "ASC-RT-007")
    assert result["status"] == status, result["message"]
    if status == "FAIL":
        assert f"chmod 640 {table}" in result["remediation"]
        steps = [s for s in report["fix_plan"] if "ASC-RT-007" in " ".join(s.get("fixes", []))]
        assert steps and steps[0]["component"] == "config" and f"chmod 640 {table}" in steps[0]["commands"]
    assert {r["status"] for r in report["results"] if r["id"] != "ASC-RT-007"} == {"PASS"}


def test_rt007_skips_a_snapshot_copy(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    shutil.copytree(RT_FAULTS, snap, symlinks=True)
    inside = snap / "files/data/rank_table.json"
    inside.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(HEALTHY / "files/data/rank_table/rank_table.json", inside)
    os.chmod(inside, 0o644)
    env = json.loads((snap / "env.json").read_text(encoding="utf-8"))
    env["RANK_TABLE_FILE"] = "/data/rank_table.json"
    (snap / "env.json").write_text(json.dumps(env), encoding="utf-8")
    report = check_json("--from", str(snap), "--select", "ASC-RT")
    (result,) = by_id(report, "ASC-RT-007")
    assert result["status"] == "SKIP" and "a snapshot does not keep file permissions" in result["message"]
    assert {r["status"] for r in report["results"] if r["id"] != "ASC-RT-007"} == {"PASS"}


def test_documentation_template_fails_with_the_reason(tmp_path: Path) -> None:
    from .test_parser_rank_table import templates

    table = tmp_path / "hccl.json"
    table.write_text(templates()[0], encoding="utf-8")
    report = check_json("--from", str(HEALTHY), "--rank-table", str(table), "--select", "ASC-RT")
    (shape,) = by_id(report, "ASC-RT-001")
    assert shape["status"] == "FAIL"
    assert "line 2 column" in shape["message"] and "// comments" in shape["message"]
    assert f"python3 -m json.tool {table}" in shape["remediation"]
    assert {r["status"] for r in report["results"] if r["id"] != "ASC-RT-001"} == {"SKIP"}
    assert report["exit_code"] == 1


def test_rank_table_named_by_the_environment(tmp_path: Path) -> None:
    snap = tmp_path / "snap"
    shutil.copytree(HEALTHY, snap, symlinks=True)
    env = json.loads((snap / "env.json").read_text(encoding="utf-8"))
    env["RANK_TABLE_FILE"] = "./ranktable.json"
    (snap / "env.json").write_text(json.dumps(env), encoding="utf-8")
    (result,) = by_id(check_json("--from", str(snap), "--select", "ASC-RT-001"), "ASC-RT-001")
    assert result["status"] == "SKIP" and "relative to the folder the engine starts in" in result["message"]
    env["RANK_TABLE_FILE"] = "/data/elsewhere.json"
    (snap / "env.json").write_text(json.dumps(env), encoding="utf-8")
    (result,) = by_id(check_json("--from", str(snap), "--select", "ASC-RT-001"), "ASC-RT-001")
    assert result["status"] == "SKIP" and "the snapshot does not hold" in result["message"]
    del env["RANK_TABLE_FILE"]
    env["RANKTABLEFILE"] = "/data/rank_table/rank_table.json"
    (snap / "env.json").write_text(json.dumps(env), encoding="utf-8")
    (result,) = by_id(check_json("--from", str(snap), "--select", "ASC-RT-001"), "ASC-RT-001")
    assert result["status"] == "PASS" and "(RANKTABLEFILE)" in result["message"]


def test_no_rank_table_skips_as_not_asked_for() -> None:
    report = check_json("--from", str(FIXTURES / "healthy-8x910B3"), "--select", "ASC-RT")
    assert {r["status"] for r in report["results"]} == {"SKIP"}
    assert all("--rank-table FILE" in r["message"] for r in report["results"])


def test_missing_hccn_tool_warns_only_for_a_multi_node_job(tmp_path: Path) -> None:
    plain = FIXTURES / "healthy-8x910B3"
    (alone,) = by_id(check_json("--from", str(plain), "--select", "ASC-NET-001"), "ASC-NET-001")
    assert alone["status"] == "SKIP" and "/usr/local/Ascend/driver/tools/hccn_tool" in alone["message"]
    table = mindie_copy(tmp_path, 0o640)
    (joined,) = by_id(check_json("--from", str(plain), "--rank-table", str(table), "--select", "ASC-NET-001"),
                      "ASC-NET-001")
    assert joined["status"] == "WARN" and "multi-node" in joined["message"]


def test_rank_table_path_is_guarded_from_o(tmp_path: Path) -> None:
    table = mindie_copy(tmp_path, 0o640)
    result = make_runner().invoke(main, ["check", "--from", str(HEALTHY), "--rank-table", str(table), "-o", str(table)])
    assert result.exit_code == 2
    assert json.loads(table.read_text(encoding="utf-8"))["server_count"] == "2"


# -- report facts -------------------------------------------------------------------------------------------


def test_report_network_facts_for_the_fleet() -> None:
    report = check_json("--from", str(FAULTS), "--rank-table", str(FAULTS / "ranktable.json"))
    facts = report["facts"]
    network = facts["network"]
    assert network["read"] is True and network["hccn_tool"] == "hccn_tool"
    devices = {d["device_id"]: d for d in network["devices"]}
    assert sorted(devices) == list(range(8))
    assert devices[1]["missing"] is True and devices[1]["address"] is None
    assert devices[1]["conf_address"] == "29.1.137.206"
    assert devices[5]["address"] == devices[6]["address"] == "29.1.137.211"
    assert devices[4]["gateway"] == "29.1.0.254" and devices[4]["conf_gateway"] == "29.1.0.1"
    assert devices[2]["errors"]["tls"].endswith("did not answer within 10 s and was killed")
    assert network["tls"] == [0, 0, 0, 1, 0, 0, 0]  # device 2 did not answer
    assert network["fec"].count("rs FEC mode") == 7
    assert network["hccn_conf"]["present"] is True and network["hccn_conf"]["devices"]["3"]["address"] == \
        "29.1.112.213"
    names = ("HCCL_IF_IP", "HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT", "HCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME",
             "TP_SOCKET_IFNAME")
    assert facts["hccl_env"] == {name: None for name in names}
    table = facts["rank_table"]
    assert table["kind"] == "vllm-pd" and table["this_node"] == [] and table["error"] is None
    assert [d["device_ip"] for d in table["devices"]] == ["192.170.100.100", "192.170.100.101"]
    assert len(table["canonical_sha256"]) == 64 and table["read_from"] == "this machine"


def test_report_facts_when_the_network_was_not_read() -> None:
    report = check_json("--from", str(PD), "--rank-table", str(PD / "ranktable.json"), "--select", "ASC-DRV")
    facts = report["facts"]
    assert facts["network"]["read"] is False and facts["network"]["devices"] == []
    assert facts["hccl_env"]["HCCL_SOCKET_IFNAME"] == "eth0" and facts["hccl_env"]["HCCL_IF_IP"] is None
    assert facts["rank_table"]["this_node"] == []  # no device address known without hccn_tool: no match
    a3 = check_json("--from", str(FIXTURES / "a3-server"), "--select", "ASC-NET")
    assert a3["facts"]["network"]["unavailable"] is None  # its 16 dies are known (Phy-IDs): nothing recorded
    assert {r["status"] for r in a3["results"]} == {"SKIP"}
