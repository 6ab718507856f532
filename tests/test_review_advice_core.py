"""Advice review rows about running state, fix direction, severity and container context: each test
fails on 0.1.0's answer (quoted in its docstring) and passes now. The matrix, package-name and plan
rows are in tests/test_review_advice.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List

from ascend_doctor.cli import main

from .clirunner import make_runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def report(name: str, *args: str, fixture: Path = FIXTURES) -> Dict[str, Any]:
    result = make_runner().invoke(main, ["check", "--from", str(fixture / name), "--format", "json", *args],
                                catch_exceptions=False)
    data: Dict[str, Any] = json.loads(result.stdout)
    return data


def results(data: Dict[str, Any], check_id: str) -> List[Dict[str, Any]]:
    return [r for r in data["results"] if r["id"] == check_id]


def one(data: Dict[str, Any], check_id: str) -> Dict[str, Any]:
    found = results(data, check_id)
    assert len(found) == 1, found
    return found[0]


def plan_text(data: Dict[str, Any]) -> str:
    return "\n".join(f"{s['summary']}\n" + "\n".join(s["commands"]) for s in data["fix_plan"])


def test_review_s1_firmware_accepted_by_its_own_list_is_compatible() -> None:
    """§1: driver 24.1.rc3 + firmware 7.7.0.1.231 -> npu-smi prints Compatibility OK; FW-002 PASS saying
    the firmware's list accepts it, MIX-003 WARN, exit 0."""
    data = report("firmware-newer-than-driver")
    fw = one(data, "ASC-FW-002")
    assert fw["status"] == "PASS" and "accepted only by the firmware's driver list" in fw["message"]
    assert "[7.0.0,7.5.99]" in fw["message"]
    assert one(data, "ASC-MIX-003")["status"] == "WARN"
    assert data["exit_code"] == 0


def test_review_R1_R6_one_direction_upgrade_the_driver_to_the_firmwares_hdk() -> None:
    """R1/row 6: 0.1.0 always rolled the firmware back (`install the firmware shipped with driver 24.1.rc3`),
    contradicting CANN-002's HDK upgrade. Now: upgrade the driver to the firmware's HDK 25.0.rc1.1."""
    data = report("firmware-newer-than-driver")
    plan = data["fix_plan"]
    hdk = [s for s in plan if s["component"] == "hdk"]
    assert len(hdk) == 1 and hdk[0]["target"] == "25.0.rc1.1"
    assert "./Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-aarch64.run --full --install-for-all" in hdk[0]["commands"]
    assert not any("npu-firmware_" in c for c in hdk[0]["commands"])  # the firmware already matches it
    # the finding points at that step instead of carrying a command of its own (issue 21)
    assert one(data, "ASC-MIX-003")["remediation"].startswith(f"Fix plan step {hdk[0]['order']}:")


def test_review_R1_cann_newer_than_driver_one_hdk_step_fixes_both() -> None:
    """R1: in cann-newer-than-driver a user following 0.1.0 downgraded the firmware, then upgraded it again."""
    data = report("cann-newer-than-driver")
    hdk = [s for s in data["fix_plan"] if s["component"] == "hdk"]
    assert len(hdk) == 1
    assert set(hdk[0]["fixes"]) >= {"ASC-MIX-003", "ASC-CANN-002"} and hdk[0]["target"] == "25.0.rc1.1"
    assert [s["component"] for s in data["fix_plan"]].count("reboot") == 1
    assert "firmware_<firmware version of HDK" not in plan_text(data)


def test_review_R2_firmware_file_name_is_filled_in() -> None:
    """R2: the firmware package name was a placeholder although the matrix knows it."""
    data = report("driver-firmware-out-of-range")
    text = json.dumps(data)
    assert "<firmware version of HDK" not in text
    assert "Ascend-hdk-910b-npu-firmware_7.1.0" in text or "Ascend-hdk-910b-npu-driver_25.0.rc1.1" in text


def test_review_R3_board_query_is_the_authority(tmp_path: Path) -> None:
    """R3: 0.1.0 judged files on disk; a NOK board verdict on the running pair must FAIL even when the
    files accept each other."""
    snap = tmp_path / "snap"
    shutil.copytree(FIXTURES / "firmware-newer-than-driver", snap, symlinks=True)
    for board in (snap / "commands").glob("npu-smi_info_-t_board_-i_*.out"):
        board.write_text(board.read_text().replace("Compatibility                  : OK",
                                                   "Compatibility                  : NOK"))
    fw = one(report("snap", fixture=tmp_path), "ASC-FW-002")
    assert fw["status"] == "FAIL" and "Compatibility NOK" in fw["message"]


def test_review_R5_out_of_range_fix_upgrades_the_driver_first() -> None:
    """R5: driver 23.0.7 with firmware 7.7: FAIL is right, but 0.1.0 downgraded the firmware 7.7 -> 7.1."""
    data = report("driver-firmware-out-of-range")
    fw = one(data, "ASC-FW-002")
    assert fw["status"] == "FAIL"
    hdk = [s for s in data["fix_plan"] if s["component"] == "hdk"]
    assert len(hdk) == 1 and any("driver_25.0.rc1.1" in c for c in hdk[0]["commands"])
    assert not any("firmware_7.1" in c for c in hdk[0]["commands"])  # never the firmware downgrade
    assert fw["remediation"].startswith(f"Fix plan step {hdk[0]['order']}:")


def test_review_row_3_a_running_driver_is_installed() -> None:
    """Row 3: 'no Ascend driver found … Install the driver' on hosts where npu-smi answers; CANN-002 SKIP."""
    data = report("atb-abi-mismatch")
    drv = one(data, "ASC-DRV-001")
    assert drv["status"] == "WARN" and "the driver runs (npu-smi 24.1.rc3.7)" in drv["message"]
    assert "Install the driver" not in drv["remediation"]
    assert one(data, "ASC-CANN-002")["status"] != "SKIP"


def test_review_row_4_container_stale_version_info_is_not_a_reboot() -> None:
    """Row 4 / M28: 'the new driver is not active yet … reboot' inside a container whose running driver
    is newer than its version.info."""
    drv = one(report("container-310p-ok"), "ASC-DRV-002")
    assert "stale copy" in drv["message"] and "reboot" not in drv["remediation"].lower()
    assert "-v /usr/local/Ascend/driver/version.info" in drv["remediation"]


def test_review_row_4_pending_reboot_names_the_host() -> None:
    drv = one(report("training-node-reboot-pending"), "ASC-DRV-002")
    assert drv["status"] == "FAIL" and "newer driver is not loaded" in drv["message"]


def test_review_row_5_two_stacks_are_judged_on_the_running_one() -> None:
    """Row 5: FW-002 FAILed against the stale 23.0.7 stack and asked to downgrade a matching firmware;
    MIX-001 called the running stack 'leftover'; ENV-001 wanted the stale stack's lib64."""
    data = report("two-stacks-running-new")
    assert one(data, "ASC-FW-002")["status"] == "PASS"
    mix = results(data, "ASC-MIX-001")
    assert mix and all(m["status"] == "FAIL" for m in mix)
    assert "/usr/local/Ascend/driver/version.info (24.1.rc3, running)" in mix[0]["message"]
    assert "/opt/Ascend/driver/script/uninstall.sh" in mix[0]["remediation"].splitlines()
    assert "/usr/local/Ascend/driver/script/uninstall.sh" not in mix[0]["remediation"]
    assert one(data, "ASC-MIX-002")["status"] == "FAIL"
    assert one(data, "ASC-ENV-001")["status"] == "PASS"
    assert data["facts"]["driver_version"] == "24.1.rc3"


def test_review_row_13_nnal_is_not_downgraded_against_the_engine() -> None:
    """Row 13: NNAL-001 said install NNAL 8.0.0 while ENG-002 wanted CANN 8.2.RC1 (NNAL already 8.2.RC1);
    the 23.0.7 driver below MindIE's HDK list was not flagged."""
    data = report("engine-pairing-mismatch")
    nnal = one(data, "ASC-NNAL-001")
    assert "nnal_8.0.0" not in nnal["remediation"] and "toolkit is the part out of step" in nnal["message"]
    eng = {r["scope"]: r for r in results(data, "ASC-ENG-002")}
    assert eng["MindIE driver"]["status"] == "FAIL"
    cann = [s for s in data["fix_plan"] if s["component"] == "cann"]
    assert len(cann) == 1 and cann[0]["target"] == "8.2.RC1"
    order = [s["component"] for s in data["fix_plan"]]
    assert order.index("hdk") < order.index("cann")


def test_review_row_18_dcmi_mount_is_not_a_warning_when_npu_smi_works() -> None:
    """Row 18: CTR-002 WARNed '-8020' for a missing /usr/local/dcmi while npu-smi answered in the same run."""
    for r in results(report("container-310p-ok"), "ASC-CTR-002"):
        if r["scope"] == "/usr/local/dcmi":
            assert r["status"] == "INFO"


def test_review_row_19_container_template_names_every_npu_of_the_job() -> None:
    """Row 19: the docker run template passed only /dev/davinci0 and no shm / net / hccn mounts."""
    smi = one(report("container-missing-mounts"), "ASC-SMI-001")  # ASCEND_VISIBLE_DEVICES=0-3 in that container
    assert smi["status"] == "FAIL"
    assert "--device /dev/davinci0 --device /dev/davinci1 --device /dev/davinci2 --device /dev/davinci3" in \
        smi["remediation"]


def test_review_row_20_env_set_but_not_recorded_is_not_not_loaded() -> None:
    """Row 20: 'the CANN environment is not loaded: ASCEND_OPP_PATH=… does not exist' on a replay that did
    not record the folder."""
    env = one(report("bf16-config-edit-broken"), "ASC-ENV-001")
    assert "not loaded" not in env["message"] and "not recorded in this snapshot" in env["message"]


def test_review_row_21_missing_firmware_record_is_not_a_missing_firmware() -> None:
    """Row 21: FW-001 FAIL 'Install the driver, then the firmware' when only firmware/version.info was missing."""
    fw = one(report("training-node-reboot-pending"), "ASC-FW-001")
    assert fw["status"] == "WARN" and "npu-smi info -t board" in fw["remediation"]
    assert "Install the driver" not in fw["remediation"]


def test_review_row_25_post_release_vllm_is_a_warning() -> None:
    """Row 25: FAIL 'vLLM-Ascend 0.8.5rc1 is the plugin for vLLM 0.8.5.post1, not 0.8.5'."""
    eng = {r["scope"]: r for r in results(report("low-host-memory"), "ASC-ENG-002")}
    assert eng["vLLM-Ascend vllm"]["status"] == "WARN"


def test_review_row_26_recommendations_do_not_fail_a_strict_gate() -> None:
    """Row 26: 119 ENV-010…013 WARNs made every engine host fail --fail-on warn."""
    data = report("low-host-memory")
    assert {r["status"] for r in data["results"] if r["id"].startswith("ASC-ENV-01")} <= {"INFO", "PASS"}
    healthy = report("clean-a2-mindie", "--fail-on", "warn", "--select", "ASC-ENV-01")
    assert healthy["exit_code"] == 0


def test_review_row_29_two_engine_split_uses_devices_that_exist() -> None:
    """Row 29: `ASCEND_VISIBLE_DEVICES=0-7 … 8-15` on a 2 × 910B4 host."""
    fix = "\n".join(r["remediation"] for r in results(report("both-engines"), "ASC-ENG-001"))
    assert "8-15" not in fix and "0-7" not in fix
    assert "--device /dev/davinci0" in fix and "--device /dev/davinci1" in fix


def test_review_row_32_privileged_is_not_a_fix() -> None:
    """Row 32: 'Containers that must share NPUs need --privileged' presented as a remedy."""
    smi = one(report("npu-smi-device-used"), "ASC-SMI-001")
    assert "need --privileged" not in smi["remediation"] and "own NPUs" in smi["remediation"]


def test_review_row_35_reset_says_physical_host_root_and_a3_dies() -> None:
    """Row 35: `npu-smi set -t reset` without 'physical host, root' and the A3 two-die caveat."""
    fixes = "\n".join(r["remediation"] for r in results(report("busy-npus-other-container"), "ASC-DEV-011"))
    assert "npu-smi set -t reset" in fixes
    assert "physical host" in fixes and "root" in fixes and "A3" in fixes


def test_review_row_31_replayed_log_times_are_not_the_checkouts() -> None:
    """Row 31: LOG-002 on a replay printed 'File last written <the checkout's mtime>'."""
    logs = results(report("plog-aicore-error"), "ASC-LOG-002")
    assert logs and all("File last written" not in r["message"] for r in logs if r["status"] != "PASS")
    assert any("not recorded in this snapshot" in r["message"] for r in logs)
