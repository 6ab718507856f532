"""Unit tests of the issue-4 checks and their fact providers (mixed stacks, kernels, NNAL, engines,
architecture, containers, busy NPUs, serving environment, host resources).

Whole machines live in fixtures/ (see tests/test_scenarios.py); here tiny snapshots written by the
test pin down edge cases. npu-smi and version-file texts are copies of corpus samples already
committed under fixtures/ or tests/samples/ (sources in their SOURCES.md / headers).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from ascend_doctor.checkapi import Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.engines import abi_from_torch_version, abi_of_path, classify_process
from ascend_doctor.facts.resources import cache_dirs, parse_limit, parse_proc_limits, parse_thp
from ascend_doctor.host.base import ProcessInfo
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.options import RunOptions
from ascend_doctor.runner import run_checks

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
ISSUE4_PREFIXES = ("ASC-MIX", "ASC-OPS", "ASC-NNAL", "ASC-ENG", "ASC-ARCH", "ASC-CTR", "ASC-DEV-01", "ASC-ENV-01",
                   "ASC-SYS")
ISSUE4_SCENARIOS = ("clean-a2-mindie", "mixed-driver-stacks", "install-info-points-elsewhere", "kernels-wrong-chip",
                    "kernels-missing", "both-engines", "atb-abi-mismatch", "container-310p-ok",
                    "container-missing-mounts", "busy-npus-other-container", "npu-smi-device-used", "low-host-memory",
                    "x86-toolkit-on-aarch64", "engine-pairing-mismatch")
A2_SMI = (FIXTURES / "clean-a2-mindie" / "commands" / "npu-smi_info.out").read_text(encoding="utf-8")
A3_BUSY_SMI = (FIXTURES / "busy-npus-other-container" / "commands" / "npu-smi_info.out").read_text(encoding="utf-8")
MINDIE_INFO = (FIXTURES / "clean-a2-mindie" / "files/usr/local/Ascend/mindie/2.1.RC1/version.info").read_text("utf-8")


# -- a tiny snapshot writer -------------------------------------------------------------------
def snapshot(tmp: Path, files: Optional[Dict[str, str]] = None, env: Optional[Dict[str, str]] = None,
             packages: Optional[Dict[str, str]] = None, commands: Optional[Dict[str, str]] = None,
             host: Optional[Dict[str, Any]] = None, links: Optional[Dict[str, str]] = None,
             arch: str = "aarch64") -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "snapshot.json").write_text(json.dumps({"format": 1, "arch": arch}))
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


def results(path: Path, select: str, matrix: Any = None) -> List[Any]:
    report = run_checks(SnapshotHost(str(path)), matrix, RunOptions(select=(select,)))
    return [r for r in report.results if r.id == select]


def statuses(path: Path, select: str) -> List[str]:
    return [r.status.value for r in results(path, select)]


def devices(n: int) -> Dict[str, str]:
    nodes = {f"/dev/davinci{i}": "" for i in range(n)}
    nodes.update({"/dev/davinci_manager": "", "/dev/devmm_svm": "", "/dev/hisi_hdc": ""})
    return nodes


# -- pure parsers -----------------------------------------------------------------------------
def test_parse_thp_selected_mode() -> None:
    assert parse_thp("always [madvise] never\n") == "madvise"
    assert parse_thp("[always] madvise never") == "always"
    assert parse_thp("never") == "never"
    assert parse_thp("") is None
    assert parse_thp("\x00\x01garbage here") is None


def test_parse_limits() -> None:
    assert parse_limit("65535\n") == 65535
    assert parse_limit("unlimited") == -1
    assert parse_limit("sh: ulimit: error") is None
    assert parse_limit("9" * 40) is None
    limits = ("Limit                     Soft Limit           Hard Limit           Units\n"
              "Max open files            1024                 524288               files\n")
    assert parse_proc_limits(limits) == (1024, 524288)
    assert parse_proc_limits("nothing") == (None, None)


def test_cache_dirs_follow_the_variables() -> None:
    dirs = {c.what: c.path for c in cache_dirs({"HOME": "/home/u", "ASCEND_CACHE_PATH": "/data/cache",
                                                "ASCEND_WORK_PATH": "relative/ignored"})}
    assert dirs["operator compile cache"] == "/data/cache"
    assert dirs["CANN logs (plog)"] == "/home/u/ascend/log"
    assert "CANN work files (kernel_meta)" not in dirs  # relative paths are not guessed at


def test_torch_abi_inference_and_atb_paths() -> None:
    assert abi_from_torch_version("2.1.0") == 0
    assert abi_from_torch_version("2.5.1+cpu") == 0
    assert abi_from_torch_version("2.6.0") == 1
    assert abi_from_torch_version("2.7.1+cpu") == 1
    assert abi_from_torch_version("junk") is None
    assert abi_of_path("/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/") == 1
    assert abi_of_path("/usr/local/Ascend/nnal/atb/latest/atb") is None


@pytest.mark.parametrize("name,cmdline,engine", [
    ("mindie_llm_back", (), "MindIE"),
    ("mindieservice_daemon", ("./bin/mindieservice_daemon",), "MindIE"),
    ("VLLMWorker_TP0", (), "vLLM"),
    ("python3", ("python3", "-m", "vllm.entrypoints.openai.api_server"), "vLLM"),
    ("vllm", ("/usr/local/bin/vllm", "serve", "/models/R1"), "vLLM"),
    ("python", ("python", "train.py"), None),
    ("bash", ("bash", "-c", "echo vllm-ascend docs"), None),
])
def test_classify_engine_processes(name: str, cmdline: tuple, engine: Optional[str]) -> None:
    assert classify_process(ProcessInfo(1, name, cmdline)) == engine


# -- every issue-4 scenario runs without the matrix and without crashing ----------------------
@pytest.mark.parametrize("name", ISSUE4_SCENARIOS)
def test_scenarios_never_error_without_matrix(name: str) -> None:
    report = run_checks(SnapshotHost(str(FIXTURES / name)), None, RunOptions(select=ISSUE4_PREFIXES))
    errors = [f"{r.id}: {r.message}" for r in report.results if r.status is Status.ERROR]
    assert not errors
    for r in report.results:
        if r.status in (Status.FAIL, Status.WARN):
            assert r.remediation.strip(), f"{r.id} {r.status.value} without a remediation: {r.message}"


# -- scope --------------------------------------------------------------------------------------
def test_rt_visible_devices_map_to_a3_dies(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files=devices(16), commands={"npu-smi_info": A3_BUSY_SMI},
                    env={"ASCEND_RT_VISIBLE_DEVICES": "2,3"})
    facts = Facts(SnapshotHost(str(snap)))
    scope = facts.npu_scope
    # logical devices are the 16 dies in npu-smi order: 2 and 3 are NPU 1's two chips
    assert scope.owned == frozenset({(1, 0), (1, 1)})
    assert scope.visible_chip_count == 16 and scope.out_of_range == ()
    found = results(snap, "ASC-DEV-010")
    assert any(r.status is Status.FAIL and r.scope == "NPU 1 chip 0" for r in found)
    assert not any(r.scope and r.scope.startswith("NPU 0") for r in found)


def test_rt_visible_out_of_range_and_duplicates(tmp_path: Path) -> None:
    nodes = devices(2)
    bad = snapshot(tmp_path / "bad", env={"ASCEND_RT_VISIBLE_DEVICES": "0,4"}, files=nodes)
    assert statuses(bad, "ASC-CTR-004") == ["FAIL"]
    assert "rang[0-2)" in results(bad, "ASC-CTR-004")[0].message
    dup = snapshot(tmp_path / "dup", env={"ASCEND_RT_VISIBLE_DEVICES": "1,1"}, files=nodes)
    assert statuses(dup, "ASC-CTR-004") == ["WARN"]
    junk = snapshot(tmp_path / "junk", env={"ASCEND_RT_VISIBLE_DEVICES": "npu0"}, files=nodes)
    assert statuses(junk, "ASC-CTR-004") == ["FAIL"]
    unset = snapshot(tmp_path / "unset", files=nodes)
    assert statuses(unset, "ASC-CTR-004") == ["SKIP"]


# -- mixed stacks -------------------------------------------------------------------------------
DRIVER = (FIXTURES / "clean-a2-mindie" / "files/usr/local/Ascend/driver/version.info").read_text("utf-8")
FIRMWARE = (FIXTURES / "clean-a2-mindie" / "files/usr/local/Ascend/firmware/version.info").read_text("utf-8")


def test_install_info_without_driver_line_warns(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files={"/etc/ascend_install.info": "UserName=HwHiAiUser\nUserGroup=HwHiAiUser\n",
                                     "/usr/local/Ascend/driver/version.info": DRIVER})
    assert statuses(snap, "ASC-MIX-002") == ["WARN"]


def test_unreadable_install_info_is_graded_not_raised(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files={"/etc/ascend_install.info": "\x00\x01\x02binary",
                                     "/usr/local/Ascend/driver/version.info": DRIVER})
    assert statuses(snap, "ASC-MIX-002") == ["FAIL"]


def test_same_hdk_family_other_release_passes_with_note(tmp_path: Path) -> None:
    fw = FIRMWARE.replace("package_version=25.0.rc1.1", "package_version=25.0.rc3")
    snap = snapshot(tmp_path, files={"/usr/local/Ascend/driver/version.info": DRIVER,
                                     "/usr/local/Ascend/firmware/version.info": fw})
    found = results(snap, "ASC-MIX-003")
    assert [r.status for r in found] == [Status.PASS] and "same 25.0 family" in found[0].message


# -- kernels --------------------------------------------------------------------------------------
TOOLKIT = (FIXTURES / "clean-a2-mindie" / "files/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux/"
           "ascend_toolkit_install.info").read_text("utf-8")
OPP_KERNEL = (FIXTURES / "clean-a2-mindie" / "files/usr/local/Ascend/ascend-toolkit/8.2.RC1/opp_kernel/"
              "version.info").read_text("utf-8")


def test_kernels_of_another_release_fail(tmp_path: Path) -> None:
    home = "/usr/local/Ascend/ascend-toolkit/8.0.0"
    snap = snapshot(tmp_path, files={
        f"{home}/aarch64-linux/ascend_toolkit_install.info": TOOLKIT.replace("version=8.2.RC1", "version=8.0.0"),
        f"{home}/opp_kernel/version.info": OPP_KERNEL}, links={"/usr/local/Ascend/ascend-toolkit/latest": "8.0.0"})
    found = results(snap, "ASC-OPS-001")
    assert [r.status for r in found] == [Status.FAIL]
    assert "Ascend-cann-kernels" in found[0].remediation and "8.0.0" in found[0].remediation


def test_half_installed_kernels_fail_for_this_chip(tmp_path: Path) -> None:
    home = "/usr/local/Ascend/ascend-toolkit/8.2.RC1"
    kernel = f"{home}/opp/built-in/op_impl/ai_core/tbe/kernel"
    snap = snapshot(tmp_path, files={**devices(8), f"{home}/aarch64-linux/ascend_toolkit_install.info": TOOLKIT,
                                     f"{home}/opp_kernel/version.info": OPP_KERNEL, f"{kernel}/ascend910b/.keep": ""},
                    links={"/usr/local/Ascend/ascend-toolkit/latest": "8.2.RC1"},
                    commands={"npu-smi_info": A2_SMI})
    found = results(snap, "ASC-OPS-002")
    assert [r.status for r in found] == [Status.FAIL] and "binary_info_config.json" in found[0].message


# -- NNAL -------------------------------------------------------------------------------------------
def test_atb_not_sourced_warns(tmp_path: Path) -> None:
    nnal = (FIXTURES / "clean-a2-mindie" / "files/usr/local/Ascend/nnal/atb/8.2.RC1/version.info").read_text("utf-8")
    snap = snapshot(tmp_path, files={"/usr/local/Ascend/nnal/atb/8.2.RC1/version.info": nnal,
                                     "/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_0/lib/.keep": "",
                                     "/usr/local/Ascend/nnal/atb/8.2.RC1/atb/cxx_abi_1/lib/.keep": ""},
                    links={"/usr/local/Ascend/nnal/atb/latest": "8.2.RC1"}, packages={"torch": "2.6.0"})
    found = results(snap, "ASC-NNAL-002")
    assert [r.status for r in found] == [Status.WARN]
    assert "--cxx_abi=1" in found[0].remediation


def test_hostile_nnal_version_file_is_a_finding(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files={"/usr/local/Ascend/nnal/atb/latest/version.info": "\x00" * 50},
                    packages={"vllm-ascend": "0.9.1", "vllm": "0.9.1"})
    assert statuses(snap, "ASC-NNAL-001") == ["WARN"]


def test_inferred_abi_mismatch_is_only_a_warning(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files={"/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib/.keep": ""},
                    env={"ATB_HOME_PATH": "/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1"},
                    packages={"torch": "2.1.0"})
    found = results(snap, "ASC-NNAL-002")
    assert [r.status for r in found] == [Status.FAIL]  # cxx_abi_0 is not even installed
    both = snapshot(tmp_path / "b", files={"/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib/.keep": "",
                                           "/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_0/lib/.keep": ""},
                    env={"ATB_HOME_PATH": "/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1"},
                    packages={"torch": "2.1.0"})
    assert statuses(both, "ASC-NNAL-002") == ["WARN"]


# -- engines --------------------------------------------------------------------------------------
def test_mindie_turbo_is_not_a_second_engine(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, packages={"vllm": "0.7.3", "vllm-ascend": "0.7.3", "mindie-turbo": "2.0rc1"})
    assert statuses(snap, "ASC-ENG-001") == ["PASS"]


def test_engine_pairing_needs_a_matrix(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, packages={"vllm": "0.9.1", "vllm-ascend": "0.9.1"})
    assert statuses(snap, "ASC-ENG-002") == ["SKIP"]


# -- containers -----------------------------------------------------------------------------------
def test_host_without_nodes_points_at_the_driver(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files={"/usr/local/Ascend/driver/version.info": DRIVER})
    found = results(snap, "ASC-CTR-001")
    assert [r.status for r in found] == [Status.FAIL] and "reboot" in found[0].remediation


def test_container_mount_flags_follow_the_driver_root(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files={"/.dockerenv": "", "/etc/ascend_install.info":
                                     "Driver_Install_Path_Param=/opt/Ascend\n",
                                     "/opt/Ascend/driver/version.info": DRIVER, **devices(1)})
    found = results(snap, "ASC-CTR-002")
    lib = [r for r in found if r.scope == "/opt/Ascend/driver/lib64"]
    assert lib and lib[0].status is Status.FAIL
    assert "-v /opt/Ascend/driver/lib64/:/opt/Ascend/driver/lib64/" in lib[0].remediation


# -- busy NPUs ------------------------------------------------------------------------------------
def test_dcmi_8005_is_reported(tmp_path: Path) -> None:
    text = "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\ndcmi module initialize failed. ret is -8005\n"
    snap = snapshot(tmp_path, commands={"npu-smi_info": text})
    found = results(snap, "ASC-DEV-010")
    assert [r.status for r in found] == [Status.FAIL] and found[0].evidence["code"] == "-8005"


# -- serving environment ---------------------------------------------------------------------------
def test_aiv_is_advised_against_on_mindie_2_0_t3(tmp_path: Path) -> None:
    info = MINDIE_INFO.replace("2.1.RC1.B152", "2.0.T3.B010")
    snap = snapshot(tmp_path, files={"/usr/local/Ascend/mindie/latest/version.info": info},
                    env={"HCCL_OP_EXPANSION_MODE": "AIV"})
    found = results(snap, "ASC-ENV-012")
    assert [r.status for r in found] == [Status.WARN] and "unset HCCL_OP_EXPANSION_MODE" in found[0].remediation


def test_recommendations_never_fail(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, packages={"vllm-ascend": "0.9.1"},
                    env={"HCCL_CONNECT_TIMEOUT": "abc", "PYTORCH_NPU_ALLOC_CONF": "garbage"})
    report = run_checks(SnapshotHost(str(snap)), None, RunOptions(select=("ASC-ENV-01",)))
    # Recommendations are INFO (never counted by --fail-on warn); WARN only for a documented crash risk.
    assert report.results and all(r.status in (Status.PASS, Status.INFO) for r in report.results)
    assert all("source" in r.message for r in report.results if r.status is Status.INFO)


# -- host resources --------------------------------------------------------------------------------
def test_unlimited_open_files_pass_and_hard_limit_is_explained(tmp_path: Path) -> None:
    ok = snapshot(tmp_path / "ok", commands={"sh_-c_ulimit -n": "unlimited\n"})
    assert statuses(ok, "ASC-SYS-005") == ["PASS"]
    low = snapshot(tmp_path / "low", commands={"sh_-c_ulimit -n": "1024\n"}, files={
        "/proc/self/limits": "Max open files            1024                 1048576              files\n"})
    found = results(low, "ASC-SYS-005")
    assert [r.status for r in found] == [Status.WARN] and "lets vLLM raise it" in found[0].message


def test_memory_sized_against_hbm_in_scope(tmp_path: Path) -> None:
    host = {"memory": {"total_bytes": 300 * 2**30, "available_bytes": 200 * 2**30, "swap_total_bytes": 0,
                       "swap_free_bytes": 0}}
    snap = snapshot(tmp_path, files=devices(8), commands={"npu-smi_info": A2_SMI}, host=host)
    # 8 x 32 GB 910B4 = 256 GiB of HBM: 200 GiB available is short (WARN), 300 GiB total is not < 1/4 (no FAIL)
    assert statuses(snap, "ASC-SYS-001") == ["WARN"]
    scoped = snapshot(tmp_path / "s", files=devices(8), commands={"npu-smi_info": A2_SMI}, host=host,
                      env={"ASCEND_RT_VISIBLE_DEVICES": "0,1"})
    assert statuses(scoped, "ASC-SYS-001") == ["PASS"]


def test_disk_groups_paths_by_filesystem(tmp_path: Path) -> None:
    host = {"disks": [{"path": "/", "total_bytes": 100 * 2**30, "free_bytes": 50 * 2**30},
                      {"path": "/data", "total_bytes": 10 * 2**40, "free_bytes": 1 * 2**30}]}
    snap = snapshot(tmp_path, env={"ASCEND_CACHE_PATH": "/data/atc"}, host=host)
    found = {r.scope: r.status for r in results(snap, "ASC-SYS-002")}
    assert found == {"/": Status.PASS, "/data": Status.FAIL}


def test_missing_sysfs_files_skip_not_fail(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, files={"/sys/kernel/mm/transparent_hugepage/enabled": "\x00\x00"})
    assert statuses(snap, "ASC-SYS-004") == ["SKIP"]
    assert statuses(snap, "ASC-SYS-001") == ["SKIP"]


def test_unrecorded_operator_tree_is_not_judged(tmp_path: Path) -> None:
    home = "/usr/local/Ascend/ascend-toolkit/8.2.RC1"
    snap = snapshot(tmp_path, files={f"{home}/aarch64-linux/ascend_toolkit_install.info": TOOLKIT},
                    links={"/usr/local/Ascend/ascend-toolkit/latest": "8.2.RC1"})
    assert statuses(snap, "ASC-OPS-001") == ["SKIP"]
