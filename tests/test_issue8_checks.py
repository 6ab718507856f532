"""Unit tests of the issue-8 item-6 checks (ASC-FW-003, DEV-005, CTR-005, CFG-011, ENV-002, ENV-003,
DRV-003, DRV-004, ENG-003, the new MDL-004, CANN-001 on every install layout), their parsers, facts and
data. Whole machines live in fixtures/ (built by fixtures/build_issue8_scenarios.py); here tiny snapshots
written by the test pin down the value variants. Every command output is a sample of tests/samples/ (its
values changed where a case needs it, never its format).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from ascend_doctor.checkapi import Status
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.options import RunOptions
from ascend_doctor.parsers.cann_install_path import CannInstallPathError, parse_cann_install_paths
from ascend_doctor.parsers.id_output import IdParseError, parse_id
from ascend_doctor.parsers.npu_smi import NpuSmiParseError
from ascend_doctor.parsers.npu_smi_ecc import parse_npu_smi_ecc
from ascend_doctor.runner import run_checks

from .samples_util import sample_body

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
A2_SMI = sample_body("npu-smi-info/blog-800IA2-8x910B4-25.0.rc1.1.txt")
SMI_310P = sample_body("npu-smi-info/ascend-pytorch-94-300IDuo-npu1792-24.1.rc2.txt")
SMI_A3 = (FIXTURES / "serving-container-ready" / "commands" / "npu-smi_info.out").read_text(encoding="utf-8")
BOARD = sample_body("npu-smi-other/mindcluster-doc-board-910-d801.txt")
ECC_910 = sample_body("npu-smi-other/mindcluster-doc-ecc-910.txt")
ECC_NEXT = sample_body("npu-smi-other/npu-smi-reference-ecc-hbm-next-isolated.txt")
DRIVER_25 = sample_body("version-files/notes-800IA2-driver-version.info-25.0.rc1.1.txt")
FIRMWARE_25 = sample_body("version-files/notes-800IA2-firmware-version.info-7.7.0.1.231.txt")
INSTALL_INFO = sample_body("version-files/etc-ascend_install.info-910-23.0.rc1.txt")
TOOLKIT_82 = sample_body("version-files/vllm-ascend-2557-ascend_toolkit_install-8.2.RC1.txt")
MINDIE_21 = sample_body("version-files/notes-800IA2-mindie-version.info-2.1.RC1.txt")
ID_WORK = "uid=1101(work) gid=1101(work) groups=1101(work),1000(HwHiAiUser)\n"  # users/modelarts-log-id-...
ID_OTHER = "uid=1003(zjut-msadvisor) gid=1003(zjut-msadvisor) groups=1003(zjut-msadvisor)\n"  # users/ais-bench-...
ID_ROOT = "uid=0(root) gid=0(root) groups=0(root)\n"  # users/docker-container-id-root.txt


def _clean(text: str) -> str:
    """A sample body without the prompt line its author pasted."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(("/usr/local/bin/npu-smi", "[root@",
                                                                               "root@"))) + "\n"


def set_value(text: str, key: str, value: str) -> str:
    pattern = re.compile(r"^(\s*" + re.escape(key) + r"\s+:\s*).*$", re.M)
    assert pattern.search(text), key
    return pattern.sub(lambda m: m.group(1) + value, text, count=1)


def board(npu: int, software: str = "25.0.rc1.1", firmware: str = "7.7.0.1.231", verdict: str = "OK") -> str:
    text = set_value(_clean(BOARD), "NPU ID", str(npu))
    text = set_value(text, "Software Version", software)
    text = set_value(text, "Firmware Version", firmware)
    return set_value(text, "Compatibility", verdict)


def ecc(npu: int, **counts: str) -> str:
    text = set_value(ECC_NEXT, "NPU ID", str(npu))
    for key, value in counts.items():
        text = set_value(text, key.replace("_", " ").replace("Next Isolated", "Next-Isolated"), value)
    return text


def snapshot(tmp: Path, files: Optional[Dict[str, str]] = None, env: Optional[Dict[str, str]] = None,
             packages: Optional[Dict[str, str]] = None, commands: Optional[Dict[str, str]] = None,
             host: Optional[Dict[str, Any]] = None, links: Optional[Dict[str, str]] = None,
             meta: Optional[Dict[str, Any]] = None) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "snapshot.json").write_text(json.dumps({"format": 1, "arch": "aarch64", **(meta or {})}))
    (tmp / "env.json").write_text(json.dumps({"HOME": "/root", **(env or {})}))
    (tmp / "python.json").write_text(json.dumps({"executable": "/usr/bin/python3", "version": "3.11.4",
                                                 "packages": packages or {}}))
    (tmp / "host.json").write_text(json.dumps(host or {}))
    for path, text in (files or {}).items():
        dest = tmp / "files" / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
    for path, target in (links or {}).items():
        dest = tmp / "files" / path.lstrip("/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, dest)
    (tmp / "commands").mkdir(exist_ok=True)
    for stem, out in (commands or {}).items():
        (tmp / "commands" / f"{stem}.out").write_text(out, encoding="utf-8")
    return tmp


def devices(ids: List[int]) -> Dict[str, str]:
    nodes = {f"/dev/davinci{i}": "" for i in ids}
    nodes.update({"/dev/davinci_manager": "", "/dev/devmm_svm": "", "/dev/hisi_hdc": ""})
    return nodes


def report_of(path: Path, check_id: str, **options: Any) -> Any:
    from ascend_doctor.matrix import load_matrix

    return run_checks(SnapshotHost(str(path)), load_matrix(None), RunOptions(select=(check_id,), **options))


def results(path: Path, check_id: str, **options: Any) -> List[Any]:
    return [r for r in report_of(path, check_id, **options).results if r.id == check_id]


def worst(found: List[Any]) -> str:
    order = ["PASS", "SKIP", "INFO", "WARN", "ERROR", "FAIL"]
    return max((r.status.value for r in found), key=order.index)


def a2_machine(tmp: Path, extra_files: Optional[Dict[str, str]] = None, commands: Optional[Dict[str, str]] = None,
               **kw: Any) -> Path:
    files = {"/usr/local/Ascend/driver/version.info": DRIVER_25, "/usr/local/Ascend/firmware/version.info": FIRMWARE_25,
             "/etc/ascend_install.info": INSTALL_INFO, **devices(list(range(8))), **(extra_files or {})}
    return snapshot(tmp, files=files, commands={"npu-smi_info": A2_SMI, **(commands or {})}, **kw)


# -- parsers -----------------------------------------------------------------------------------


def test_ecc_parser_reads_both_samples() -> None:
    legacy = parse_npu_smi_ecc(ECC_910)
    assert legacy.npu_id == 1 and len(legacy.chips) == 1 and legacy.chips[0].chip_id == 0
    assert legacy.chips[0].get("DDR", "double", "isolated") == 0 and legacy.chips[0].get("HBM", "single", "errors") == 0
    newer = parse_npu_smi_ecc(ECC_NEXT)
    assert newer.npu_id == 0 and newer.chips[0].chip_id is None
    assert ("HBM", "double", "next_isolated") in newer.chips[0].counts


def test_ecc_parser_values_and_chip_blocks() -> None:
    info = parse_npu_smi_ecc(ecc(3, HBM_Double_Bit_Error_Count="2", HBM_Double_Bit_Next_Isolated_Pages_Count="4"))
    chip = info.chips[0]
    assert chip.total("double", "errors") == 2 and chip.total("double", "next_isolated") == 4
    # Two chips of one NPU, each block ending with its Chip ID (the legacy layout, printed twice).
    block = "\n".join(line for line in ECC_910.splitlines() if "NPU ID" not in line and "Chip Count" not in line)
    second = set_value(block, "Chip ID", "1")
    two = parse_npu_smi_ecc("NPU ID : 4\n" + block + "\n" + set_value(second, "HBM Single Bit Error Count", "7"))
    assert [c.chip_id for c in two.chips] == [0, 1] and two.chips[1].get("HBM", "single", "errors") == 7


@pytest.mark.parametrize("text", ["", "Error: the device is not supported\n", BOARD])
def test_ecc_parser_refuses_other_output(text: str) -> None:
    with pytest.raises(NpuSmiParseError):
        parse_npu_smi_ecc(text)


def test_id_parser_on_the_samples() -> None:
    work = parse_id(sample_body("users/modelarts-log-id-work-in-HwHiAiUser.txt"))
    assert (work.uid, work.user, work.in_group("HwHiAiUser"), work.is_root) == (1101, "work", True, False)
    other = parse_id(sample_body("users/ais-bench-id-HwHiAiUser-only.txt"))  # first id line: zjut-msadvisor
    assert other.user == "zjut-msadvisor" and not other.in_group("HwHiAiUser")
    root = parse_id(sample_body("users/docker-container-id-root.txt"))
    assert root.is_root and root.groups == ((0, "root"),)


def test_id_parser_edge_cases() -> None:
    spaced = parse_id("uid=5001(ann) gid=5001 groups=5001,1000(domain users) context=unconfined_u:s0-s0:c0.c1023")
    assert spaced.group is None and spaced.groups == ((5001, None), (1000, "domain users"))
    with pytest.raises(IdParseError):
        parse_id("id: cannot find name for group ID 1000\n")


def test_cann_install_paths_sample() -> None:
    paths = parse_cann_install_paths(sample_body("install-paths/blog-etc-Ascend-ascend_cann_install.info.txt"))
    assert paths.install_path == "/usr/local/Ascend" and paths.roots() == ["/usr/local/Ascend"]
    moved = parse_cann_install_paths("Toolkit_InstallPath=/opt/cann/ascend-toolkit\n")
    assert moved.roots() == ["/opt/cann"]
    with pytest.raises(CannInstallPathError):
        parse_cann_install_paths("something else\n")


# -- the OS support data -------------------------------------------------------------------------


def test_os_support_data_is_sourced_and_valid() -> None:
    from ascend_doctor.matrix.os_support import load_os_support

    entries = load_os_support()
    assert entries and all(e.source.startswith("https://") and e.release for e in entries)
    assert {"A2", "310P", "910"} <= {e.family for e in entries}


@pytest.mark.parametrize("host_os,expected", [
    ("openEuler 22.03 (LTS-SP3)", "match"), ("Ubuntu 22.04.5 LTS", "match"),
    ("Kylin Linux Advanced Server V10 (Sword)", "partial"), ("Ubuntu 24.04.1 LTS", None), ("CentOS Linux 7.6", "match"),
])
def test_os_matching(host_os: str, expected: Optional[str]) -> None:
    from ascend_doctor.matrix.os_support import find, load_os_support

    found = find(load_os_support(), "A2", host_os, "aarch64")
    assert (found[0].kind if found else None) == expected


@pytest.mark.parametrize("doc,error", [
    ({"schema_version": 2, "entries": []}, "schema_version"),
    ({"schema_version": 1, "entries": [{"family": "A2", "products": "p", "release": "r", "os": [{"name": "x",
                                                                                                "version": "1"}]}]},
     "source"),
    ({"schema_version": 1, "entries": [{"family": "A2", "products": "p", "release": "r", "source": "s",
                                        "os": [{"name": "x", "version": "1", "install": "magic"}]}]}, "install"),
])
def test_os_support_validation(doc: Dict[str, Any], error: str) -> None:
    from ascend_doctor.matrix.os_support import OsSupportDataError, parse_os_support

    with pytest.raises(OsSupportDataError, match=error):
        parse_os_support(doc)


# -- ASC-FW-003 ----------------------------------------------------------------------------------


def test_fw003_pass_when_running_is_installed(tmp_path: Path) -> None:
    snap = a2_machine(tmp_path, commands={f"npu-smi_info_-t_board_-i_{i}": board(i) for i in range(8)})
    found = results(snap, "ASC-FW-003")
    assert [r.status for r in found] == [Status.PASS] and "Compatibility OK" in found[0].message


def test_fw003_pending_firmware_asks_for_a_reboot(tmp_path: Path) -> None:
    snap = a2_machine(tmp_path, commands={f"npu-smi_info_-t_board_-i_{i}": board(i, firmware="7.5.0.1.129")
                                          for i in range(8)})
    found = results(snap, "ASC-FW-003")
    assert worst(found) == "WARN" and "next reboot" in found[0].message
    assert [a.component for a in found[0].actions] == ["reboot"]


def test_fw003_stale_version_info_in_a_container_is_not_a_reboot(tmp_path: Path) -> None:
    # The card runs newer firmware than the file says, inside a container: a copy baked into the image.
    snap = a2_machine(tmp_path, extra_files={"/.dockerenv": ""},
                      commands={f"npu-smi_info_-t_board_-i_{i}": board(i, firmware="7.8.0.2.212") for i in range(8)})
    found = results(snap, "ASC-FW-003")
    assert worst(found) == "WARN" and "image" in found[0].message and not found[0].actions
    assert "-v /usr/local/Ascend/firmware/version.info" in found[0].remediation


def test_board_nok_is_one_fw002_fail_with_the_driver_upgrade_first(tmp_path: Path) -> None:
    """Compatibility NOK is judged once, by ASC-FW-002 (FW-003 only compares running with installed)."""
    driver = ("Version=23.0.7\nInnerversion=V100R001C15SPC012B220\ncompatible_version_fw=[7.0.0,7.1.99]\n")
    snap = a2_machine(tmp_path, extra_files={"/usr/local/Ascend/driver/version.info": driver},
                      commands={f"npu-smi_info_-t_board_-i_{i}": board(i, software="23.0.7", verdict="NOK")
                                for i in range(8)})
    assert [r.status for r in results(snap, "ASC-FW-003")] == [Status.PASS]
    found = results(snap, "ASC-FW-002")
    assert [r.status for r in found] == [Status.FAIL]
    assert "Compatibility NOK on NPU 0, 1, 2, 3, 4, 5, 6, 7" in found[0].message
    # the driver upgrade is the plan's HDK step (issue 21), and the finding points at it
    plan = report_of(snap, "ASC-FW-002").fix_plan
    hdk = [s for s in plan if s.component == "hdk" and any("Ascend-hdk-910b-npu-driver" in c for c in s.commands)]
    assert hdk and found[0].remediation.startswith(f"Fix plan step {hdk[0].order}")


def test_board_unknown_on_one_npu_is_a_fw002_warning(tmp_path: Path) -> None:
    cmds = {f"npu-smi_info_-t_board_-i_{i}": board(i) for i in range(8)}
    cmds["npu-smi_info_-t_board_-i_2"] = board(2, verdict="UNKNOWN")
    found = results(a2_machine(tmp_path, commands=cmds), "ASC-FW-002")
    assert worst(found) == "WARN" and "UNKNOWN on NPU 2" in found[0].message


def test_fw003_board_query_not_recorded_is_a_skip(tmp_path: Path) -> None:
    found = results(a2_machine(tmp_path), "ASC-FW-003")
    assert [r.status for r in found] == [Status.SKIP] and "not recorded in this snapshot" in found[0].message


# -- ASC-DEV-005 ----------------------------------------------------------------------------------


def test_dev005_clean_counts_single_bit_errors_as_information(tmp_path: Path) -> None:
    cmds = {f"npu-smi_info_-t_ecc_-i_{i}": ecc(i) for i in range(8)}
    cmds["npu-smi_info_-t_ecc_-i_6"] = ecc(6, HBM_Single_Bit_Error_Count="14")
    found = results(a2_machine(tmp_path, commands=cmds), "ASC-DEV-005")
    assert [r.status for r in found] == [Status.PASS] and "14 corrected single-bit" in found[0].message


def test_dev005_double_bit_fails_and_pending_pages_warn(tmp_path: Path) -> None:
    cmds = {f"npu-smi_info_-t_ecc_-i_{i}": ecc(i) for i in range(8)}
    cmds["npu-smi_info_-t_ecc_-i_3"] = ecc(3, HBM_Double_Bit_Error_Count="2")
    cmds["npu-smi_info_-t_ecc_-i_5"] = ecc(5, HBM_Double_Bit_Next_Isolated_Pages_Count="1")
    found = {r.scope: r for r in results(a2_machine(tmp_path, commands=cmds), "ASC-DEV-005")}
    assert found["NPU 3"].status is Status.FAIL and "Huawei support" in found["NPU 3"].remediation
    assert found["NPU 5"].status is Status.WARN
    assert [a.component for a in found["NPU 5"].actions] == ["reboot", "system"]


def test_dev005_npus_outside_the_container_scope_are_information(tmp_path: Path) -> None:
    cmds = {f"npu-smi_info_-t_ecc_-i_{i}": ecc(i) for i in range(8)}
    cmds["npu-smi_info_-t_ecc_-i_7"] = ecc(7, HBM_Double_Bit_Error_Count="1")
    snap = a2_machine(tmp_path, commands=cmds, env={"ASCEND_VISIBLE_DEVICES": "0,1"}, extra_files={"/.dockerenv": ""})
    found = results(snap, "ASC-DEV-005")
    assert worst(found) == "PASS" and any("for information only" in r.message for r in found)


def test_dev005_garbage_query_is_a_warn_not_a_crash(tmp_path: Path) -> None:
    cmds = {f"npu-smi_info_-t_ecc_-i_{i}": ecc(i) for i in range(8)}
    cmds["npu-smi_info_-t_ecc_-i_4"] = "Error: the device is not supported\n"
    found = results(a2_machine(tmp_path, commands=cmds), "ASC-DEV-005")
    assert worst(found) == "WARN" and any(r.scope == "NPU 4" for r in found)


# -- ASC-CTR-005 ----------------------------------------------------------------------------------

MINDIE_CONFIG = sample_body("serving-configs/mindie-llm-default-config.json.txt")


def container(tmp: Path, nodes: List[int], shm: Optional[int], **kw: Any) -> Path:
    files = {"/.dockerenv": "", **devices(nodes), **kw.pop("files", {})}
    disks = [{"path": "/", "total_bytes": 2 ** 40, "free_bytes": 2 ** 39}]
    if shm is not None:
        disks.append({"path": "/dev/shm", "total_bytes": shm, "free_bytes": shm})
    return snapshot(tmp, files=files, host={"disks": disks}, commands={"npu-smi_info": A2_SMI}, **kw)


def test_ctr005_mindie_with_docker_default_shm_and_one_npu_fails(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(MINDIE_CONFIG, encoding="utf-8")
    snap = container(tmp_path / "snap", [0], 64 * 2 ** 20, files={"/usr/local/Ascend/mindie/latest/version.info":
                                                                   MINDIE_21})
    found = results(snap, "ASC-CTR-005", serving_config=str(config))
    assert [r.status for r in found] == [Status.FAIL]
    assert "64 MB" in found[0].message and "4 NPU(s)" in found[0].message
    command = found[0].actions[0].commands[0]
    assert "--shm-size=1g" in command and all(f"--device /dev/davinci{i}" in command for i in range(4))
    assert found[0].actions[0].component == "container" and found[0].actions[0].where == "host"


def test_ctr005_small_shm_for_vllm_is_a_warn(tmp_path: Path) -> None:
    found = results(container(tmp_path, list(range(8)), 64 * 2 ** 20), "ASC-CTR-005",
                    vllm_args="vllm serve /data/m --tensor-parallel-size 4")
    assert [r.status for r in found] == [Status.WARN]


def test_ctr005_multi_node_without_hccn_mounts_warns_and_names_net_host(tmp_path: Path) -> None:
    line = " ".join(sample_body("serving-configs/vllm-ascend-doc-deepseek-r1-w8a8-a2-node0-serve.txt")
                    .replace("\\", " ").split())
    found = results(container(tmp_path, list(range(8)), 2 ** 30), "ASC-CTR-005", vllm_args=line)
    assert [r.status for r in found] == [Status.WARN]
    assert "--net=host" in found[0].remediation and "hccn_tool" in found[0].message


def test_ctr005_passes_and_says_what_it_could_not_see(tmp_path: Path) -> None:
    found = results(container(tmp_path, list(range(8)), None), "ASC-CTR-005")
    assert [r.status for r in found] == [Status.PASS]
    assert "not recorded in this snapshot" in found[0].message and "ASC-CTR-003" in found[0].message


def test_ctr005_is_for_containers_only(tmp_path: Path) -> None:
    found = results(a2_machine(tmp_path), "ASC-CTR-005")
    assert [r.status for r in found] == [Status.SKIP]


# -- ASC-CFG-011 (live host on a temporary folder: modes and owners are real) -------------------


class _IdHost:
    """A LiveHost whose `id` is fixed (the folder and its modes are real, in tmp_path)."""

    def __new__(cls, uid: int, env: Dict[str, str]) -> Any:
        from ascend_doctor.host.base import CommandResult, CommandStatus
        from ascend_doctor.host.live import LiveHost

        host = LiveHost()
        real_run = host.run
        id_line = f"uid={uid}(run) gid={uid}(run) groups={uid}(run),1000(HwHiAiUser)\n"

        def run(argv: Any, timeout: Optional[float] = None) -> Any:
            if tuple(argv) == ("id",):
                return CommandResult(("id",), CommandStatus.OK, 0, id_line)
            if tuple(argv)[:1] == ("npu-smi",):
                return CommandResult(tuple(argv), CommandStatus.NOT_FOUND, detail="no npu-smi in the test")
            return real_run(argv, timeout)

        host.run = run  # type: ignore[method-assign]
        host.env = lambda: env  # type: ignore[method-assign]
        return host


def _weights(tmp: Path, dir_mode: int, file_mode: int) -> Path:
    folder = tmp / "weights"
    folder.mkdir()
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        (folder / name).write_text("{}", encoding="utf-8")
        os.chmod(folder / name, file_mode)
    os.chmod(folder, dir_mode)
    return folder


def _cfg011(tmp: Path, folder: Path, uid: int) -> List[Any]:
    from ascend_doctor.matrix import load_matrix

    config = tmp / "config.json"
    config.write_text(MINDIE_CONFIG.replace("/data/atb_testdata/weights/llama1-65b-safetensors", str(folder)),
                      encoding="utf-8")
    os.chmod(config, 0o640)
    host = _IdHost(uid, {"HOME": str(tmp)})
    report = run_checks(host, load_matrix(None), RunOptions(select=("ASC-CFG-011",), serving_config=str(config)))
    return [r for r in report.results if r.id == "ASC-CFG-011"]


def test_cfg011_mindie_modes_and_owner_pass(tmp_path: Path) -> None:
    folder = _weights(tmp_path, 0o750, 0o640)
    found = _cfg011(tmp_path, folder, os.getuid())
    assert [r.status for r in found] == [Status.PASS], found[0].message
    assert "5 MindIE path(s)" in found[0].message


def test_cfg011_644_files_and_foreign_owner_fail_with_the_commands(tmp_path: Path) -> None:
    folder = _weights(tmp_path, 0o755, 0o644)
    found = _cfg011(tmp_path, folder, os.getuid() + 4242)
    assert [r.status for r in found] == [Status.FAIL]
    text = found[0].remediation
    assert f"chmod 750 {folder}" in text and f"chmod 640 {folder}/config.json" in text
    assert f"chown -R run:run {folder}" in text and f"chown -R run:run {tmp_path}/config.json" in text
    assert "other 5 > 0" in found[0].message


def test_cfg011_group_write_is_too_wide() -> None:
    from ascend_doctor.checks.cfg_011_mindie_file_permissions import DIR_MAX, FILE_MAX, too_wide

    assert too_wide(0o660, FILE_MAX) == ["group 6 > 4"]
    assert too_wide(0o700, FILE_MAX) == ["owner 7 > 6"] and not too_wide(0o750, DIR_MAX)


def test_cfg011_snapshot_without_recorded_modes_is_not_judged(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(MINDIE_CONFIG, encoding="utf-8")
    snap = snapshot(tmp_path / "snap", files={"/usr/local/Ascend/mindie/latest/version.info": MINDIE_21,
                                              "/data/atb_testdata/weights/llama1-65b-safetensors/config.json": "{}"},
                    commands={"id": ID_WORK})
    found = results(snap, "ASC-CFG-011", serving_config=str(config))
    assert [r.status for r in found] == [Status.SKIP] and "not recorded in this snapshot" in found[0].message


def test_model_record_keeps_modes_and_owner(tmp_path: Path) -> None:
    from ascend_doctor.host.model_record import RecordedModels, record_models

    fs = tmp_path / "fs"
    folder = fs / "m"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}", encoding="utf-8")
    os.chmod(folder / "config.json", 0o600)
    tree = tmp_path / "tree"
    tree.mkdir()
    record_models(str(tree), ["/m"], fs_root=str(fs))
    listing = json.loads((tree / "model" / "model.json").read_text(encoding="utf-8"))
    models = RecordedModels(listing, lambda _p: None)
    st = models.stat("/m/config.json")
    assert st is not None and stat.S_IMODE(st.mode) == 0o600 and st.uid == os.getuid()
    del listing["entries"]["/m/config.json"]["mode"]  # a record made before modes were kept
    old = RecordedModels(listing, lambda _p: None).stat("/m/config.json")
    assert old is not None and old.uid is None


# -- ASC-ENV-002 / ENV-003 -------------------------------------------------------------------------

MINDIE_FILES = {"/usr/local/Ascend/mindie/2.1.RC1/version.info": MINDIE_21,
                "/usr/local/Ascend/mindie/2.1.RC1/mindie-service/conf/.keep": "",
                "/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_0/lib/.keep": ""}
MINDIE_LINKS = {"/usr/local/Ascend/mindie/latest": "2.1.RC1", "/usr/local/Ascend/nnal/atb/latest": "8.2.RC1"}


def test_env002_missing_scripts_fail_in_order(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files=MINDIE_FILES, links=MINDIE_LINKS)
    found = results(snap, "ASC-ENV-002")
    assert [r.status for r in found] == [Status.FAIL]
    assert found[0].actions[0].commands == ("source /usr/local/Ascend/nnal/atb/set_env.sh",
                                            "source /usr/local/Ascend/mindie/set_env.sh")


def test_env002_loaded_passes_and_a_dead_path_fails(tmp_path: Path) -> None:
    env = {"MIES_INSTALL_PATH": "/usr/local/Ascend/mindie/latest/mindie-service",
           "ATB_HOME_PATH": "/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_0"}
    assert [r.status for r in results(snapshot(tmp_path / "a", files=MINDIE_FILES, links=MINDIE_LINKS, env=env),
                                      "ASC-ENV-002")] == [Status.PASS]
    env["MIES_INSTALL_PATH"] = "/opt/mindie/gone"
    found = results(snapshot(tmp_path / "b", files=MINDIE_FILES, links=MINDIE_LINKS, env=env), "ASC-ENV-002")
    assert [r.status for r in found] == [Status.FAIL] and "does not exist" in found[0].message


def test_env002_needs_mindie(tmp_path: Path) -> None:
    assert [r.status for r in results(snapshot(tmp_path), "ASC-ENV-002")] == [Status.SKIP]


@pytest.mark.parametrize("env,status", [
    ({}, "PASS"), ({"ASCEND_GLOBAL_LOG_LEVEL": "3"}, "PASS"), ({"ASCEND_GLOBAL_LOG_LEVEL": "0"}, "WARN"),
    ({"ASCEND_GLOBAL_LOG_LEVEL": "1"}, "WARN"), ({"ASCEND_SLOG_PRINT_TO_STDOUT": "1"}, "WARN"),
    ({"ASCEND_SLOG_PRINT_TO_STDOUT": "0", "ASCEND_GLOBAL_LOG_LEVEL": "2"}, "PASS"),
    ({"ASCEND_GLOBAL_LOG_LEVEL": "debug"}, "PASS"),
])
def test_env003_log_level(tmp_path: Path, env: Dict[str, str], status: str) -> None:
    found = results(snapshot(tmp_path, env=env), "ASC-ENV-003")
    assert worst(found) == status
    if status == "WARN":
        assert found[0].actions and found[0].actions[0].component == "environment"


# -- ASC-DRV-003 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("id_out,for_all,status", [
    (ID_ROOT, "no", "PASS"), (ID_WORK, "no", "PASS"), (ID_OTHER, "yes", "PASS"), (ID_OTHER, "no", "FAIL"),
    (ID_OTHER, None, "WARN"),
])
def test_drv003_run_user(tmp_path: Path, id_out: str, for_all: Optional[str], status: str) -> None:
    files = {"/usr/local/Ascend/driver/version.info": DRIVER_25}
    if for_all is not None:
        files["/etc/ascend_install.info"] = INSTALL_INFO.replace("Driver_Install_For_All=yes",
                                                                 f"Driver_Install_For_All={for_all}")
    found = results(snapshot(tmp_path, files=files, commands={"id": id_out}), "ASC-DRV-003")
    assert worst(found) == status
    if status != "PASS":
        assert found[0].actions[0].commands == ("usermod -aG HwHiAiUser zjut-msadvisor",)


def test_drv003_in_a_container_adds_the_group_at_docker_run(tmp_path: Path) -> None:
    files = {"/.dockerenv": "", "/etc/ascend_install.info": INSTALL_INFO.replace("=yes", "=no")}
    found = results(snapshot(tmp_path, files=files, commands={"id": ID_OTHER}), "ASC-DRV-003")
    assert worst(found) == "FAIL" and "--group-add $(getent group HwHiAiUser | cut -d: -f3)" in found[0].remediation
    assert "usermod" not in found[0].remediation


def test_drv003_without_id_says_not_recorded(tmp_path: Path) -> None:
    found = results(snapshot(tmp_path, files={"/usr/local/Ascend/driver/version.info": DRIVER_25}), "ASC-DRV-003")
    assert [r.status for r in found] == [Status.SKIP] and "not recorded in this snapshot" in found[0].message


# -- ASC-DRV-004 ---------------------------------------------------------------------------------


@pytest.mark.parametrize("os_name,status,text", [
    ("openEuler 22.03 (LTS-SP3)", "PASS", "listed for A2"),
    ("Kylin Linux Advanced Server V10 (Sword)", "WARN", "cannot be confirmed"),
    ("Ubuntu 24.04.1 LTS", "WARN", "not in the support list we know"),
])
def test_drv004_os_list(tmp_path: Path, os_name: str, status: str, text: str) -> None:
    found = results(a2_machine(tmp_path, meta={"os": os_name, "kernel": "5.10.0-182.0.0.95.oe2203sp3.aarch64"}),
                    "ASC-DRV-004")
    assert worst(found) == status and text in found[0].message


def test_drv004_kernel_other_than_the_packages_default_is_named(tmp_path: Path) -> None:
    files = {"/usr/local/Ascend/driver/version.info": DRIVER_25, **devices([0])}
    snap = snapshot(tmp_path, files=files, commands={"npu-smi_info": legacy_910_table()},
                    meta={"os": "Ubuntu 20.04.6 LTS", "kernel": "5.4.0-150-generic"})
    found = results(snap, "ASC-DRV-004")
    assert worst(found) == "PASS" and "default 5.4.0-26-generic" in found[0].message


def legacy_910_table() -> str:
    """A legacy-910 npu-smi table (two 910A cards, the br-ai-ns sample)."""
    return sample_body("npu-smi-info/br-ai-ns-ascend-utils-atlas800-3010-2x910A-21.0.2-no-hugepages.txt")


def test_drv004_driver_not_loaded_in_the_running_kernel(tmp_path: Path) -> None:
    files = {"/usr/local/Ascend/driver/version.info": DRIVER_25, "/etc/ascend_install.info": INSTALL_INFO}
    snap = snapshot(tmp_path, files=files, meta={"os": "Ubuntu 22.04.5 LTS", "kernel": "5.15.0-130-generic"})
    found = results(snap, "ASC-DRV-004")
    assert worst(found) == "WARN" and "does not answer in the running kernel 5.15.0-130-generic" in found[0].message
    assert "apt-get install -y dkms gcc make linux-headers-$(uname -r)" in found[0].remediation


def test_drv004_family_without_a_list_is_a_skip(tmp_path: Path) -> None:
    files = {"/usr/local/Ascend/driver/version.info": DRIVER_25, **devices(list(range(16)))}
    snap = snapshot(tmp_path, files=files, commands={"npu-smi_info": SMI_A3}, meta={"os": "Ubuntu 22.04.5 LTS"})
    found = results(snap, "ASC-DRV-004")
    assert [r.status for r in found] == [Status.SKIP] and "A3" in found[0].message


# -- ASC-ENG-003 ---------------------------------------------------------------------------------


def test_eng003_pairs_and_pip_line(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, packages={"vllm": "0.13.0"})
    found = results(snap, "ASC-ENG-003")
    assert [r.status for r in found] == [Status.WARN]
    # no CANN can be seen here (nothing installed, no set_env.sh loaded): the resolver cannot check the row's
    # CANN, so the finding keeps its own step, the row's vllm-ascend with its index
    action = found[0].actions[0]
    assert action.target == "0.13.0" and action.subject == "vllm-ascend"
    assert "vllm-ascend==0.13.0" in action.commands[-1] and "--extra-index-url" in action.commands[-1]


def test_eng003_unknown_vllm_and_310p_note(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, packages={"vllm": "0.10.2rc3.dev14"}, commands={"npu-smi_info": SMI_310P},
                    files=devices([1792]))
    found = results(snap, "ASC-ENG-003")
    assert [r.status for r in found] == [Status.WARN] and not found[0].actions
    assert "-310p" in found[0].remediation


def test_eng003_with_the_plugin_passes(tmp_path: Path) -> None:
    found = results(snapshot(tmp_path, packages={"vllm": "0.9.1", "vllm-ascend": "0.9.1"}), "ASC-ENG-003")
    assert [r.status for r in found] == [Status.PASS]


# -- ASC-MDL-004 ---------------------------------------------------------------------------------


def test_mdl004_fp16_choice() -> None:
    from types import SimpleNamespace

    from ascend_doctor.checks.mdl_004_bf16_on_310p import fp16_choice

    def vllm(dtype: Optional[str]) -> Any:
        return SimpleNamespace(ok=True, kind="vllm", source="--vllm-args",
                               models=(SimpleNamespace(dtype=dtype, precision=None),))

    assert fp16_choice(vllm("float16"), "bfloat16")[0] is True
    assert fp16_choice(vllm("half"), None)[0] is True
    assert fp16_choice(vllm("bfloat16"), "float16")[0] is False
    assert fp16_choice(vllm(None), "float16")[0] is True  # --dtype auto follows config.json
    assert fp16_choice(None, "bfloat16")[0] is None
    mindie = SimpleNamespace(ok=True, kind="mindie", source="c", models=(SimpleNamespace(dtype=None, precision=None),))
    assert fp16_choice(mindie, "bfloat16")[0] is None and fp16_choice(mindie, "float16")[0] is True


def test_mdl004_bf16_on_310p_fails_and_fp16_launch_passes() -> None:
    path = "/data/models/DeepSeek-R1-Distill-Qwen-7B"
    failing = results(FIXTURES / "bf16-on-310p", "ASC-MDL-004", model_dir=path)
    assert [r.status for r in failing] == [Status.FAIL]
    assert "--dtype float16" in failing[0].remediation and "torch_dtype" in failing[0].remediation
    passing = results(FIXTURES / "bf16-on-310p", "ASC-MDL-004", model_dir=path,
                      vllm_args=f"vllm serve {path} --dtype float16")
    assert [r.status for r in passing] == [Status.PASS] and "--dtype float16" in passing[0].message
    bf16 = results(FIXTURES / "bf16-on-310p", "ASC-MDL-004", model_dir=path,
                   vllm_args=f"vllm serve {path} --dtype bfloat16")
    assert [r.status for r in bf16] == [Status.FAIL] and "--dtype bfloat16" in bf16[0].message


# -- CANN from every install layout ---------------------------------------------------------------


def test_cann_found_under_the_root_of_ascend_cann_install_info(tmp_path: Path) -> None:
    cann_info = "Install_Path=/opt/Ascend\nToolkit_InstallPath=/opt/Ascend/ascend-toolkit\n"
    snap = snapshot(tmp_path, files={"/etc/Ascend/ascend_cann_install.info": cann_info,
                                     "/opt/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux/ascend_toolkit_install.info":
                                         TOOLKIT_82},
                    links={"/opt/Ascend/ascend-toolkit/latest": "8.2.RC1"})
    found = results(snap, "ASC-CANN-001")
    assert [r.status for r in found] == [Status.PASS] and "/opt/Ascend" in found[0].message


def test_cann_found_from_the_environment_and_from_a_bare_opp(tmp_path: Path) -> None:
    home = "/srv/cann/8.2.RC1"
    env = {"ASCEND_HOME_PATH": home, "ASCEND_TOOLKIT_HOME": home}
    snap = snapshot(tmp_path / "env", files={f"{home}/aarch64-linux/ascend_toolkit_install.info": TOOLKIT_82},
                    env=env)
    assert worst(results(snap, "ASC-CANN-001")) == "PASS"
    opp = "Version=8.5.0.2.220\nversion_dir=8.5.0\n"
    bare = snapshot(tmp_path / "bare", files={"/usr/local/Ascend/cann-8.5.0/opp/version.info": opp})
    found = results(bare, "ASC-CANN-001")
    # found and named, but an operator package alone is not a toolkit (advice review 2, P11)
    assert worst(found) == "WARN" and found[0].evidence["version"] == "8.5.0"


def test_cann001_says_when_set_env_was_not_sourced(tmp_path: Path) -> None:
    unsourced = results(snapshot(tmp_path / "a"), "ASC-CANN-001")
    assert worst(unsourced) == "FAIL" and "set_env.sh not sourced" in unsourced[0].message
    assert "source '<CANN install root/ascend-toolkit/set_env.sh>'" in unsourced[0].remediation
    sourced = results(snapshot(tmp_path / "b", env={"ASCEND_HOME_PATH": "/nowhere"}), "ASC-CANN-001")
    assert worst(sourced) == "FAIL" and "not sourced" not in sourced[0].message


# -- pasted text: what a ticket does not show is never "missing" ---------------------------------


def test_pasted_text_never_turns_absence_into_a_finding() -> None:
    from ascend_doctor.cli import main

    from .clirunner import make_runner

    sample = ROOT / "tests/samples/collect-env/vllm-ascend-6509-910B2-vllm0.14.1-cann8.5.0.txt"
    result = make_runner().invoke(main, ["check", "--from-text", str(sample), "--format", "json"])
    report = json.loads(result.stdout)
    mine = {"ASC-FW-003", "ASC-DEV-005", "ASC-CTR-005", "ASC-CFG-011", "ASC-ENV-002", "ASC-ENV-003", "ASC-DRV-003",
            "ASC-DRV-004", "ASC-ENG-003"}
    graded = {r["id"]: r for r in report["results"] if r["id"] in mine}
    assert graded and all(r["status"] in ("PASS", "SKIP") for r in graded.values()), graded
    assert "not in the pasted text" in graded["ASC-DEV-005"]["message"]
    assert "not in the pasted text" in graded["ASC-FW-003"]["message"]
