"""Issue 22 item 1: every npu-smi view and every hccn_tool output is read, from a snapshot and from pasted
text alone, and graded by a check: ``info -m``, ``-t health``, ``-t common|usages|memory|temp|power``,
``-t board`` / ``-t ecc`` on their own, A3 with 16 dies, and ``hccn_tool -i N ... -g`` outputs.

The samples are public outputs (tests/samples/, each with its source). A failing case plants one value in
a real sample's own layout (the planted value is named in the test); no output format is made up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from ascend_doctor.capture.declared import expansion
from ascend_doctor.cli import main
from ascend_doctor.facts import Facts
from ascend_doctor.facts.npu_views import query_ids
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.parsers import pasted as P
from ascend_doctor.parsers.npu_smi_views import parse_npu_smi_health, parse_npu_smi_mapping, parse_npu_smi_readings

from .clirunner import make_runner
from .samples_util import SAMPLES

SMI = "npu-smi-other/"
MAPPING_910B3 = "npu-smi-tables-other/sandbox-runner-info-m-910B3-mcu-rows.txt"
MAPPING_A3 = "npu-smi-tables-other/xllm-test-info-m-A3-phy-id-column.txt"
HEALTH_ALL = SMI + "hiascend-npusmi-027-health-all-chips.txt"
HEALTH_CHIP = SMI + "hiascend-npusmi-028-health-chip.txt"
COMMON_NOTES = SMI + "knowledge-notes-common-usages-memory-910-hbm91.txt"
TEMP_POWER = SMI + "telegraf-fixture-temp-power-910B-25.5.1.txt"
BOARD = SMI + "mindcluster-doc-board-910-d801.txt"
ECC = SMI + "mindcluster-doc-ecc-910.txt"
HCCN_BUNDLE = "hccn/mindcluster-doc-hccn_tool-bundle-netHealth-link-optical-tls-fec-ip-linkstat.txt"
HCCN_BLOG = "hccn/arthurchiao-hccn_tool-status-hwstats-lldp-ip-route-conf-ping.txt"
HCCN_STATUS = "hccn/knowledge-notes-hccn_tool-status-ip-route-ping-910.txt"
A3_TABLE = "npu-smi-info/vllm-ascend-4480-A3-16die-24.1.rc3.7.txt"


def body(rel: str) -> str:
    """What follows the sample's ``# ---`` line, prompts included (as a ticket has it)."""
    lines = (SAMPLES / rel).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[lines.index("# ---") + 1:]) + "\n"


def output(rel: str) -> str:
    """The output alone: the body without its prompt lines."""
    return "".join(line + "\n" for line in body(rel).splitlines() if not line.lstrip().startswith(("$ ", "> ")))


def run_check(args: List[str]) -> Dict[str, Any]:
    result = make_runner().invoke(main, ["check", "--format", "json", *args], catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output
    report: Dict[str, Any] = json.loads(result.stdout)
    return report


def from_text(tmp_path: Path, text: str, *select: str) -> Dict[str, Any]:
    paste = tmp_path / "paste.txt"
    paste.write_text(text, encoding="utf-8")
    extra = [a for s in select for a in ("--select", s)]
    return run_check(["--from-text", str(paste), *extra])


def from_snapshot(tmp_path: Path, commands: Dict[str, str], *select: str) -> Dict[str, Any]:
    """A hand-made snapshot that holds only these command outputs (stem -> stdout)."""
    root = tmp_path / "snap"
    (root / "commands").mkdir(parents=True)
    (root / "snapshot.json").write_text(json.dumps({"format": 1, "hostname": "node"}), encoding="utf-8")
    for stem, text in commands.items():
        (root / "commands" / f"{stem}.out").write_text(text, encoding="utf-8")
    extra = [a for s in select for a in ("--select", s)]
    return run_check(["--from", str(root), *extra])


def results(report: Dict[str, Any], check_id: str) -> List[Dict[str, Any]]:
    return [r for r in report["results"] if r["id"] == check_id]


def status(report: Dict[str, Any], check_id: str) -> str:
    found = {r["status"] for r in results(report, check_id)}
    for worst in ("FAIL", "WARN", "INFO", "PASS", "SKIP"):
        if worst in found:
            return worst
    raise AssertionError(f"{check_id} not in the report")


def evidence(report: Dict[str, Any], check_id: str, wanted: str) -> Dict[str, Any]:
    found = [r for r in results(report, check_id) if r["status"] == wanted]
    assert found, results(report, check_id)
    value: Dict[str, Any] = found[0].get("evidence") or {}
    return value


# -- npu-smi info -m --------------------------------------------------------------------------------------------


def test_mapping_reads_logic_ids_and_leaves_the_mcu_out() -> None:
    mapping = parse_npu_smi_mapping(output(MAPPING_910B3))
    assert [(c.npu_id, c.chip_id, c.logic_id, c.name) for c in mapping.chips] == [
        (0, 0, 0, "Ascend 910B3"), (0, 1, None, "Mcu"), (1, 0, 1, "Ascend 910B3"), (1, 1, None, "Mcu")]
    assert mapping.logic_ids == [0, 1] and mapping.npu_ids == [0, 1]
    a3 = parse_npu_smi_mapping(output(MAPPING_A3))
    assert [(c.logic_id, c.phy_id) for c in a3.compute_chips] == [(0, 0), (1, 1), (2, 2)]
    assert a3.chips_per_npu() == {0: 2, 1: 1} and not a3.chips[2].is_compute


@pytest.mark.parametrize("way", ["paste", "snapshot"])
def test_mapping_alone_names_the_chips(tmp_path: Path, way: str) -> None:
    report = (from_text(tmp_path, body(MAPPING_910B3), "ASC-DEV-004") if way == "paste" else
              from_snapshot(tmp_path, {"npu-smi_info_-m": output(MAPPING_910B3)}, "ASC-DEV-004"))
    assert status(report, "ASC-DEV-004") == "PASS"
    assert "910B3" in results(report, "ASC-DEV-004")[0]["message"]


def test_mapping_with_two_models_warns(tmp_path: Path) -> None:
    planted = body(MAPPING_910B3).replace("1                              0                              1  "
                                          "                            Ascend 910B3",
                                          "1                              0                              1  "
                                          "                            Ascend 910B4")  # planted: NPU 1 a 910B4
    assert planted != body(MAPPING_910B3)
    report = from_text(tmp_path, planted, "ASC-DEV-004")
    assert status(report, "ASC-DEV-004") == "WARN"
    assert evidence(report, "ASC-DEV-004", "WARN")["models"] == {"910B3": [0], "910B4": [1]}


def test_mapping_names_the_npus_a_paste_asks_about(tmp_path: Path) -> None:
    root = tmp_path / "snap"
    (root / "commands").mkdir(parents=True)
    (root / "commands" / "npu-smi_info_-m.out").write_text(output(MAPPING_910B3), encoding="utf-8")
    with SnapshotHost(str(root)) as host:
        facts = Facts(host)
        assert query_ids(facts) == [0, 1] and facts.npu_ids.source == "npu-smi info -m"
        chip = facts.npu_chip
        assert chip is not None and (chip.name, chip.family, chip.chip_count) == ("910B3", "A2", 2)


# -- npu-smi info -t health -------------------------------------------------------------------------------------


def test_health_parsers_read_both_forms() -> None:
    every = parse_npu_smi_health(output(HEALTH_ALL))
    assert every.npu_id == 0 and [(c.chip_id, c.health) for c in every.chips] == [(0, "OK")]  # MCU left out
    chip = parse_npu_smi_health(output(HEALTH_CHIP), chip_id=0)
    assert [(c.chip_id, c.status, c.error_codes) for c in chip.chips] == [(0, "OK", ())]


@pytest.mark.parametrize("rel", [HEALTH_ALL, HEALTH_CHIP])
def test_health_pasted_alone_passes(tmp_path: Path, rel: str) -> None:
    report = from_text(tmp_path, body(rel), "ASC-DEV-001")
    assert status(report, "ASC-DEV-001") == "PASS"


def alarm(text: str) -> str:
    """Planted: the chip in Alarm with an error code (the documented fields, values changed)."""
    return text.replace("Health Status                  : OK", "Health Status                  : Alarm").replace(
        "Error Code                     : NA", "Error Code                     : 80E01801")


@pytest.mark.parametrize("way", ["paste", "snapshot"])
def test_health_alarm_fails_with_its_error_code(tmp_path: Path, way: str) -> None:
    text = alarm(body(HEALTH_CHIP))
    report = (from_text(tmp_path, text, "ASC-DEV-001") if way == "paste" else
              from_snapshot(tmp_path, {"npu-smi_info_-t_health_-i_0_-c_0": alarm(output(HEALTH_CHIP))},
                            "ASC-DEV-001"))
    assert status(report, "ASC-DEV-001") == "FAIL"
    found = evidence(report, "ASC-DEV-001", "FAIL")
    assert found["error_codes"] == ["80E01801"] and found["alarm_level"] == "major"
    assert (found["npu_id"], found["chip_id"]) == (0, 0)
    assert "80E01801" in results(report, "ASC-DEV-001")[0]["message"]


def test_health_query_adds_the_code_to_the_tables_alarm(tmp_path: Path) -> None:
    table = (SAMPLES / "npu-smi-info/vllm-ascend-198-8x910B3-23.0.7.txt").read_text(encoding="utf-8")
    table = "".join(line + "\n" for line in table.split("# ---\n", 1)[1].splitlines())
    lines = table.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("| 0 ") and "910B3" in line)
    lines[row] = lines[row].replace("OK ", "Alarm", 1)  # planted: NPU 0 in Alarm
    report = from_snapshot(tmp_path, {"npu-smi_info": "\n".join(lines) + "\n",
                                      "npu-smi_info_-t_health_-i_0_-c_0": alarm(output(HEALTH_CHIP))},
                           "ASC-DEV-001")
    found = evidence(report, "ASC-DEV-001", "FAIL")
    assert found["error_codes"] == ["80E01801"] and found["read_from"] == "npu-smi info -t health -i 0 -c 0"


# -- npu-smi info -t common | usages | memory | temp | power ----------------------------------------------------


def test_readings_parser_keeps_chips_and_drops_the_mcu() -> None:
    text = body(COMMON_NOTES)
    common = parse_npu_smi_readings(text.split("$ npu-smi info -t common -i 7")[0])
    assert [(c.chip_id, c.hbm_usage_pct, c.aicore_usage_pct, c.temperature_c, c.power_w, c.aicore_count)
            for c in common.chips] == [(0, 91.0, 6.0, 46.0, 130.4, 20)]  # the mcu block (40 C) is not a chip
    memory = parse_npu_smi_readings(text.split("$ npu-smi info -t memory -i 1")[1])
    assert (memory.npu_id, memory.chips[0].hbm_capacity_mb, memory.chips[0].hbm_temperature_c) == (1, 32768, 35.0)
    temp = parse_npu_smi_readings(output(TEMP_POWER).split("\n\n        NPU ID")[0])
    assert [c.temperature_c for c in temp.chips] == [39.0]  # LM75A/LM75B are the MCU's sensors


def test_common_usages_memory_pasted_alone_are_graded(tmp_path: Path) -> None:
    report = from_text(tmp_path, body(COMMON_NOTES), "ASC-DEV-002", "ASC-DEV-003")
    assert status(report, "ASC-DEV-002") == "PASS" and "66 °C" in results(report, "ASC-DEV-002")[0]["message"]
    assert status(report, "ASC-DEV-003") == "PASS"  # 91 % is below 95 %
    notes = " ".join(report.get("notes", []))
    assert "-t common -i 1" in notes and "-t memory -i 1" in notes


def test_hbm_nearly_full_warns_with_the_capacity_of_usages(tmp_path: Path) -> None:
    planted = body(COMMON_NOTES).replace("HBM Usage Rate(%)              : 91",
                                         "HBM Usage Rate(%)              : 97")  # planted: 97 %
    report = from_text(tmp_path, planted, "ASC-DEV-003")
    assert status(report, "ASC-DEV-003") == "WARN"
    found = evidence(report, "ASC-DEV-003", "WARN")
    assert (found["pct"], found["total_mb"], found["used_mb"]) == (97.0, 32768, 31785)


@pytest.mark.parametrize("field, value", [("Temperature(C)                 : 66", "91"),
                                          ("HBM Temperature(C)             : 35", "92")])
def test_hot_chip_or_hbm_warns(tmp_path: Path, field: str, value: str) -> None:
    planted = body(COMMON_NOTES).replace(field, field.rsplit(":", 1)[0] + ": " + value)
    assert planted != body(COMMON_NOTES)
    report = from_snapshot(tmp_path, {
        "npu-smi_info_-t_common_-i_7": planted.split("$ npu-smi info -t common -i 7\n")[1].split("\n$ ")[0],
        "npu-smi_info_-t_memory_-i_1": planted.split("$ npu-smi info -t memory -i 1\n")[1]}, "ASC-DEV-002")
    assert status(report, "ASC-DEV-002") == "WARN"
    assert float(value) in [r["evidence"]["temp_c"] for r in results(report, "ASC-DEV-002")]


def test_temp_and_power_pasted_together_are_two_outputs(tmp_path: Path) -> None:
    pasted = P.parse_pasted_text(body(TEMP_POWER))
    assert [s.command for s in pasted.of_kind(P.KIND_NPU_SMI_QUERY)] == [
        ("npu-smi", "info", "-t", "temp", "-i", "0"), ("npu-smi", "info", "-t", "power", "-i", "0")]


# -- board and ecc on their own ---------------------------------------------------------------------------------


def test_board_pasted_alone_is_graded(tmp_path: Path) -> None:
    report = from_text(tmp_path, body(BOARD), "ASC-FW-003")
    assert status(report, "ASC-FW-003") == "PASS"
    assert "7.1.0.7.220" in results(report, "ASC-FW-003")[0]["message"]


@pytest.mark.parametrize("way", ["paste", "snapshot"])
def test_ecc_alone_is_graded_and_a_double_bit_error_fails(tmp_path: Path, way: str) -> None:
    clean = body(ECC)
    planted = clean.replace("HBM Double Bit Error Count               : 0",
                            "HBM Double Bit Error Count               : 2")  # planted: 2 double-bit errors
    assert planted != clean
    for text, want in ((clean, "PASS"), (planted, "FAIL")):
        sub = tmp_path / want
        sub.mkdir()
        report = (from_text(sub, text, "ASC-DEV-005") if way == "paste" else
                  from_snapshot(sub, {"npu-smi_info_-t_ecc_-i_1": text}, "ASC-DEV-005"))
        assert status(report, "ASC-DEV-005") == want
        if want == "FAIL":
            assert results(report, "ASC-DEV-005")[0]["scope"].startswith("NPU 1")


# -- A3: 16 dies, hccn_tool devices 0-15 ------------------------------------------------------------------------


def a3_snapshot(tmp_path: Path, down: Optional[int] = None) -> Path:
    root = tmp_path / "a3"
    (root / "commands").mkdir(parents=True)
    (root / "commands/npu-smi_info.out").write_text(output(A3_TABLE), encoding="utf-8")
    for device in range(16):
        link = "DOWN" if device == down else "UP"
        (root / f"commands/hccn_tool_-i_{device}_-link_-g.out").write_text(f"link status: {link}\n",
                                                                            encoding="utf-8")
    return root


def test_a3_hccn_devices_are_the_16_dies(tmp_path: Path) -> None:
    root = a3_snapshot(tmp_path, down=13)
    report = run_check(["--from", str(root), "--select", "ASC-NET-002"])
    assert status(report, "ASC-NET-002") == "FAIL"
    assert [r["scope"] for r in results(report, "ASC-NET-002") if r["status"] == "FAIL"] == ["npu 13"]
    with SnapshotHost(str(root)) as host:
        ids = expansion(Facts(host))
    assert ids.device_ids == list(range(16)) and ids.npu_ids == list(range(8))
    assert ids.chips[7] == [0, 1]


def test_declared_hccn_reads_cover_every_die() -> None:
    from ascend_doctor.capture.declared import declarations

    argvs = declarations(adaptive=True).argvs({}, list(range(8)), {n: [0, 1] for n in range(8)}, list(range(16)))
    assert ("hccn_tool", "-i", "15", "-link", "-g") in argvs
    assert ("npu-smi", "info", "-t", "health", "-i", "7", "-c", "1") in argvs


def test_a3_mapping_logic_ids_name_the_devices_of_a_paste(tmp_path: Path) -> None:
    text = body(MAPPING_A3) + "\n$ hccn_tool -i 2 -link -g\nlink status: DOWN\n"  # planted: die 2 DOWN
    report = from_text(tmp_path, text, "ASC-NET-002")
    assert status(report, "ASC-NET-002") == "FAIL"
    assert [r["scope"] for r in results(report, "ASC-NET-002") if r["status"] == "FAIL"] == ["npu 2"]


# -- pasted hccn_tool outputs -----------------------------------------------------------------------------------


def test_hccn_bundle_pasted_alone_is_graded(tmp_path: Path) -> None:
    report = from_text(tmp_path, body(HCCN_BUNDLE))
    assert status(report, "ASC-NET-002") == "PASS"
    assert status(report, "ASC-NET-003") == "WARN"  # net health "Init": no detection result
    assert status(report, "ASC-NET-007") == "PASS"  # -tls -g | grep switch: switch 0
    assert status(report, "ASC-NET-008") == "PASS"  # rs FEC mode
    assert status(report, "ASC-NET-009") in ("PASS", "INFO")  # -optical: "not present" on a copper link
    kinds = [s.kind for s in P.parse_pasted_text(body(HCCN_BUNDLE)).segments]
    assert kinds.count(P.KIND_HCCN) == 7 and P.KIND_HCCN_OTHER in kinds  # -stat is not a query the checks read


def test_hccn_status_link_detected_is_read(tmp_path: Path) -> None:
    report = from_text(tmp_path, body(HCCN_STATUS), "ASC-NET-002", "ASC-NET-004")
    assert status(report, "ASC-NET-002") == "PASS"
    planted = body(HCCN_STATUS).replace("Link detected: yes", "Link detected: no")  # planted: link lost
    (tmp_path / "down").mkdir()
    down = from_text(tmp_path / "down", planted, "ASC-NET-002")
    assert status(down, "ASC-NET-002") == "FAIL"
    assert evidence(down, "ASC-NET-002", "FAIL")["read_from"] == "-status -g (Link detected)"


def test_hccn_link_down_names_the_lldp_switch_port(tmp_path: Path) -> None:
    text = body(HCCN_BLOG) + "\n$ hccn_tool -i 3 -link -g\nlink status: DOWN\n"  # planted: the link is down
    report = from_text(tmp_path, text, "ASC-NET-002", "ASC-NET-004")
    assert status(report, "ASC-NET-002") == "FAIL"
    assert evidence(report, "ASC-NET-002", "FAIL")["switch_port"] == "400GE1/1/20:2"
    # /etc/hccn.conf was pasted cut ("..."): device 3 has no address_3 line there, and it is not claimed to.
    message = results(report, "ASC-NET-004")[0]["message"]
    assert results(report, "ASC-NET-004")[0]["status"] == "PASS" and "no address_N line for device(s) 3" in message


def test_hccn_outputs_a_paste_does_not_hold_are_not_failures(tmp_path: Path) -> None:
    report = from_text(tmp_path, body(HCCN_STATUS), "ASC-NET-001")
    assert status(report, "ASC-NET-001") == "PASS"  # -link, -tls... were not pasted: not "failed"


def test_hccn_header_mentions_are_not_commands() -> None:
    pasted = P.parse_pasted_text((SAMPLES / HCCN_BLOG).read_text(encoding="utf-8"))
    assert all(s.first_line > 3 for s in pasted.segments)  # "# what: hccn_tool outputs ..." names nothing


def test_hccn_with_a_device_variable_cannot_be_placed() -> None:
    pasted = P.parse_pasted_text("/usr/local/Ascend/driver/tools/hccn_tool -i ${device_id} -link -g\n"
                                 "link status: UP\n")
    assert [s.kind for s in pasted.segments] == [P.KIND_HCCN_OTHER]


def test_the_paste_docs_list_every_view() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs/snapshot-format.md").read_text(encoding="utf-8")
    for view in ("npu-smi info -m", "-t ecc\\|health\\|common\\|memory\\|temp\\|power", "hccn_tool -i N -link",
                 "-status -g", "/etc/hccn.conf", "`{device}`"):
        assert view in doc, view
