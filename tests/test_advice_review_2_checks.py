"""The check-level rows of the second field review of `check` advice (issue 21, item 5).

One test per row, named after it (P6, P14 ... of the review's problem table); each failed on the
answer of 55a58a7 and passes now. Snapshots are the repository's fixtures (built from tests/samples
copies of real outputs); where a row is about a variant of a fixture (another Health state, an
empty process list) the test copies the fixture into a temporary folder and changes that one value.
Assertions are on ids, statuses, evidence keys and the commands printed, not on English sentences.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
import yaml

from ascend_doctor.cli import main
from ascend_doctor.shellcmd import words

from .clirunner import make_runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    monkeypatch.setenv("COLUMNS", "200")


def report(path: Path, *select: str, fixture: Optional[str] = None) -> Dict[str, Any]:
    """``check --from path --format json`` with the fixture's own arguments (from its expected.yaml)."""
    expected = yaml.safe_load((FIXTURES / (fixture or path.name) / "expected.yaml").read_text(encoding="utf-8"))
    extra = [str(a).replace("{fixture}", str(path)) for a in expected.get("args", [])]
    for prefix in select:
        extra += ["--select", prefix]
    result = make_runner().invoke(main, ["check", "--from", str(path), "--format", "json", *extra])
    assert result.exit_code in (0, 1, 3), result.output
    return dict(json.loads(result.stdout))


def results(name: str, *select: str) -> List[Dict[str, Any]]:
    return list(report(FIXTURES / name, *select)["results"])


def copied(name: str, tmp_path: Path) -> Path:
    """A copy of a fixture to change one value in."""
    target = tmp_path / name
    shutil.copytree(FIXTURES / name, target)
    return target


def of(found: List[Dict[str, Any]], check: str) -> List[Dict[str, Any]]:
    return [r for r in found if r["id"] == check]


def commands(found: List[Dict[str, Any]]) -> List[str]:
    """Every command line of the findings: remediation lines and their actions' commands."""
    lines = [line.strip() for r in found for line in (r.get("remediation") or "").splitlines()]
    lines += [c for r in found for a in r.get("actions") or () for c in a["commands"]]
    return [line for line in lines if line]


def plan_commands(rep: Dict[str, Any]) -> List[str]:
    return [c for step in rep.get("fix_plan") or () for c in step["commands"]]


# -- P6 / P14: HCCL per product ------------------------------------------------------------------

def test_p6_exec_timeout_default_is_1836_per_product_and_never_3600_with_aiv() -> None:
    # 310P (Atlas 300I Duo): no AIV there, so the longer timeout is still advised, from the 1836 s default
    for name in ("container-310p-ok", "kernels-wrong-chip"):
        exec_timeout = [r for r in of(results(name, "ASC-ENV-011"), "ASC-ENV-011")
                        if r["evidence"].get("variable") == "HCCL_EXEC_TIMEOUT"]
        assert [(r["status"], r["evidence"]["default_s"]) for r in exec_timeout] == [("INFO", 1836)], name
    # A3 engine host: ENV-012 recommends AIV and states the 1091 s cap; ENV-011 does not pair 3600 with it
    rep = report(FIXTURES / "atb-abi-mismatch", "ASC-ENV-011", "ASC-ENV-012")
    aiv = of(rep["results"], "ASC-ENV-012")
    assert [(r["status"], r["evidence"]["recommended"], r["evidence"]["exec_timeout_cap_s"]) for r in aiv] == \
        [("INFO", "AIV", 1091)]
    exec_timeout = [r for r in of(rep["results"], "ASC-ENV-011")
                    if r["evidence"].get("variable") == "HCCL_EXEC_TIMEOUT"]
    assert [(r["status"], r["evidence"]["aiv_mode"], r["evidence"]["cap_s"]) for r in exec_timeout] == \
        [("PASS", "recommended", 1091)]
    everything = commands(rep["results"]) + plan_commands(rep)
    assert not [c for c in everything if "HCCL_EXEC_TIMEOUT=3600" in c]
    # a host that set both (as the guides do): 3600 is reported as capped, not as followed advice
    both = [r for r in of(results("clean-a2-mindie", "ASC-ENV-011"), "ASC-ENV-011")
            if r["evidence"].get("variable") == "HCCL_EXEC_TIMEOUT"]
    assert [(r["status"], r["evidence"]["effective_s"]) for r in both] == [("PASS", 1091)]


def test_p14_no_aiv_advice_on_310p() -> None:
    for name in ("kernels-wrong-chip", "container-310p-ok"):
        rep = report(FIXTURES / name, "ASC-ENV-012")
        found = of(rep["results"], "ASC-ENV-012")
        assert [(r["status"], r["evidence"]["family"]) for r in found] == [("PASS", "310P")], name
        assert not [c for c in commands(found) + plan_commands(rep) if "HCCL_OP_EXPANSION_MODE=AIV" in c]


def test_p14_aiv_set_on_310p_is_said_to_do_nothing(tmp_path: Path) -> None:
    snapshot = copied("container-310p-ok", tmp_path)
    env = json.loads((snapshot / "env.json").read_text(encoding="utf-8"))
    env["HCCL_OP_EXPANSION_MODE"] = "AIV"
    (snapshot / "env.json").write_text(json.dumps(env), encoding="utf-8")
    found = of(report(snapshot, "ASC-ENV-012", fixture="container-310p-ok")["results"], "ASC-ENV-012")
    assert [(r["status"], r["evidence"]["current"]) for r in found] == [("INFO", "AIV")]
    assert [list(words(c)) for c in commands(found)] == [["unset", "HCCL_OP_EXPANSION_MODE"]]


# -- P15: npu-smi Health Warning is a minor alarm --------------------------------------------------

def test_p15_health_warning_is_warn_with_error_code_lookup() -> None:
    found = [r for r in of(results("a5-device-warning", "ASC-DEV-001"), "ASC-DEV-001") if r["status"] != "PASS"]
    assert [(r["status"], r["evidence"]["health"], r["evidence"]["alarm_level"]) for r in found] == \
        [("WARN", "Warning", "minor")]
    lookup = [list(words(c)) for c in commands(found) if c.startswith("npu-smi")]
    assert lookup == [["npu-smi", "info", "-t", "health", "-i", "7", "-c", "0"]]


@pytest.mark.parametrize("state", ["Alarm", "Critical"])
def test_p15_health_alarm_and_critical_fail(tmp_path: Path, state: str) -> None:
    snapshot = copied("a5-device-warning", tmp_path)
    table = snapshot / "commands" / "npu-smi_info.out"
    table.write_text(table.read_text(encoding="utf-8").replace("| Warning       |", f"| {state:<13} |"),
                     encoding="utf-8")
    found = [r for r in of(report(snapshot, "ASC-DEV-001", fixture="a5-device-warning")["results"], "ASC-DEV-001")
             if r["status"] != "PASS"]
    assert [(r["status"], r["evidence"]["health"]) for r in found] == [("FAIL", state)]


# -- P10 / P22: NPUs held by another serving engine; an empty process list is "not recorded" ----

def test_p10_npus_held_by_serving_engine_fail_when_free_hbm_below_engine_request() -> None:
    rep = report(FIXTURES / "vllm-workers-hold-npus", "ASC-DEV-010", "ASC-ENG-001")
    busy = of(rep["results"], "ASC-DEV-010")
    assert [r["scope"] for r in busy] == ["NPU 0 chip 0", "NPU 1 chip 0"]
    for r in busy:  # under half of the HBM is held, but less than 0.9 of the card is free
        ev = r["evidence"]
        assert r["status"] == "FAIL" and ev["held_mb"] < ev["capacity_mb"] / 2
        assert ev["request_engine"] == "vLLM-Ascend" and ev["request_fraction"] == 0.9
        assert ev["free_mb"] < ev["request_mb"] == int(0.9 * ev["capacity_mb"])
        assert ev["holder_engines"] == ["vLLM"]
    assert rep["exit_code"] == 1
    # the engine check counts npu-smi's process names
    engine = of(rep["results"], "ASC-ENG-001")
    assert [(r["status"], r["evidence"]["running"]) for r in engine] == [("PASS", ["vLLM"])]
    assert {p["name"] for p in engine[0]["evidence"]["on_npus"]} == {"VLLMWorker_TP"}


def test_p10_engine_check_counts_npu_smi_names_with_no_engine_installed(tmp_path: Path) -> None:
    snapshot = copied("vllm-workers-hold-npus", tmp_path)
    python = json.loads((snapshot / "python.json").read_text(encoding="utf-8"))
    python["packages"] = {}
    (snapshot / "python.json").write_text(json.dumps(python), encoding="utf-8")
    rep = report(snapshot, "ASC-DEV-010", "ASC-ENG-001", fixture="vllm-workers-hold-npus")
    assert [(r["status"], r["evidence"]["running"]) for r in of(rep["results"], "ASC-ENG-001")] == \
        [("PASS", ["vLLM"])]
    # which engine comes next is not known: the smaller default request (MindIE's 0.8) still does not fit
    assert {(r["status"], r["evidence"]["request_fraction"]) for r in of(rep["results"], "ASC-DEV-010")} == \
        {("FAIL", 0.8)}


def test_p10_mindie_request_follows_npu_memory_fraction(tmp_path: Path) -> None:
    snapshot = copied("vllm-workers-hold-npus", tmp_path)
    python = json.loads((snapshot / "python.json").read_text(encoding="utf-8"))
    python["packages"] = {"mindie-llm": "2.1.RC1"}
    (snapshot / "python.json").write_text(json.dumps(python), encoding="utf-8")
    env = json.loads((snapshot / "env.json").read_text(encoding="utf-8"))
    env["NPU_MEMORY_FRACTION"] = "0.4"
    (snapshot / "env.json").write_text(json.dumps(env), encoding="utf-8")
    found = of(report(snapshot, "ASC-DEV-010", fixture="vllm-workers-hold-npus")["results"], "ASC-DEV-010")
    # 0.4 of the card fits in what is free, but the holder is a serving engine
    assert {(r["status"], r["evidence"]["request_engine"], r["evidence"]["request_fraction"]) for r in found} == \
        {("FAIL", "MindIE", 0.4)}
    assert all(r["evidence"]["free_mb"] >= r["evidence"]["request_mb"] for r in found)


def test_p22_empty_process_list_is_not_recorded_not_another_container() -> None:
    for name in ("cann-newer-than-driver", "training-node-reboot-pending", "vllm-workers-hold-npus"):
        host = json.loads((FIXTURES / name / "host.json").read_text(encoding="utf-8"))
        assert host["processes"] == []
        busy = [r for r in of(results(name, "ASC-DEV-010"), "ASC-DEV-010") if r["status"] != "PASS"]
        assert busy and all(r["evidence"]["processes_recorded"] is False for r in busy), name


# -- P11: an operator package alone is not a CANN toolkit ---------------------------------------

def _opp_only_under_ascend_toolkit(tmp_path: Path) -> Path:
    """cann-bare-opp-sourced with its CANN 8.5.0 home moved to ascend-toolkit/8.5.0 (the review's shape)."""
    snapshot = copied("cann-bare-opp-sourced", tmp_path)
    old, new = "/usr/local/Ascend/cann-8.5.0", "/usr/local/Ascend/ascend-toolkit/8.5.0"
    (snapshot / "files" / new.lstrip("/")).parent.mkdir(parents=True)
    shutil.move(str(snapshot / "files" / old.lstrip("/")), str(snapshot / "files" / new.lstrip("/")))
    env = json.loads((snapshot / "env.json").read_text(encoding="utf-8"))
    env = {k: v.replace(old, new) for k, v in env.items()}
    (snapshot / "env.json").write_text(json.dumps(env), encoding="utf-8")
    return snapshot


@pytest.mark.parametrize("layout", ["cann-<v>", "ascend-toolkit/<v>"])
def test_p11_opp_tree_alone_is_not_a_cann_toolkit(tmp_path: Path, layout: str) -> None:
    snapshot = (FIXTURES / "cann-bare-opp-sourced" if layout == "cann-<v>" else
                _opp_only_under_ascend_toolkit(tmp_path))
    found = report(snapshot, "ASC-CANN-001", "ASC-CANN-002", fixture="cann-bare-opp-sourced")["results"]
    toolkit = of(found, "ASC-CANN-001")
    assert [(r["status"], r["evidence"]["basis"], r["evidence"]["version"]) for r in toolkit] == \
        [("WARN", "opp/version.info", "8.5.0")]
    assert not [r for r in of(found, "ASC-CANN-002") if r["status"] == "PASS"]
    assert [r["evidence"]["toolkit_identified"] for r in of(found, "ASC-CANN-002")] == [False]


# -- P16: MindIE's environment missing from the doctor's shell while MindIE runs -------------------

def test_p16_mindie_env_not_in_this_shell_is_warn_when_mindie_runs() -> None:
    for name in ("both-engines", "mindie-second-instance"):
        found = of(results(name, "ASC-ENV-002"), "ASC-ENV-002")
        assert [(r["status"], r["evidence"]["mindie_running"], r["evidence"]["scope_of_env"]) for r in found] == \
            [("WARN", True, "this shell")], name
    # where MindIE does not run, the environment that will start it lacks the scripts: still FAIL
    idle = of(results("serving-container-defaults", "ASC-ENV-002"), "ASC-ENV-002")
    assert [(r["status"], r["evidence"]["mindie_running"]) for r in idle] == [("FAIL", False)]


# -- P18: a CANN of the wrong architecture is uninstalled before the right one is installed ----------

def test_p18_wrong_arch_cann_is_uninstalled_before_the_right_install() -> None:
    from ascend_doctor.matrix import load_matrix

    packages = load_matrix().packages("A2", "x86_64")
    assert packages is not None
    wrong_file = packages.toolkit("8.2.RC1")  # the matrix's name of the installed (x86_64) build
    assert wrong_file == "Ascend-cann-toolkit_8.2.RC1_linux-x86_64.run"
    rep = report(FIXTURES / "x86-toolkit-on-aarch64", "ASC-CANN-001", "ASC-ARCH-001")
    for check in ("ASC-CANN-001", "ASC-ARCH-001"):
        found = of(rep["results"], check)
        assert [r["status"] for r in found] == ["FAIL"] and found[0]["evidence"]["uninstall_source"]
        lines = [list(words(c)) for c in commands(found) if c.startswith(("/", "./"))]
        uninstall, install = lines[0], lines[1]
        assert uninstall == ["/usr/local/Ascend/ascend-toolkit/latest/x86_64-linux/script/uninstall.sh"], check
        assert install == ["./Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run", "--install"], check
        assert f"./{wrong_file} --uninstall" in next(c for c in commands(found) if "uninstall.sh" in c)
    # one plan step carries both, uninstall first
    step = next(s for s in rep["fix_plan"] if any("--install" in c for c in s["commands"]))
    assert [c.split()[0] for c in step["commands"]] == [
        "/usr/local/Ascend/ascend-toolkit/latest/x86_64-linux/script/uninstall.sh",
        "./Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run"]
    assert set(step["fixes"]) >= {"ASC-CANN-001"} and step["where"] == "host"


# -- P24: a log line the signature itself calls harmless is INFO ------------------------------------

def test_p24_harmless_signature_is_info() -> None:
    from ascend_doctor.logscan.signatures import default_path, load_signatures

    signature = load_signatures(default_path()).get("SIG-DRV-DEVMM-REMOTE-MAP")
    assert signature is not None and signature.harmless and not signature.fault
    found = of(results("plog-aicore-error", "ASC-LOG-002"), "ASC-LOG-002")
    remote_map = [r for r in found if r["evidence"].get("signature") == "SIG-DRV-DEVMM-REMOTE-MAP"]
    assert [r["status"] for r in remote_map] == ["INFO"]
    # the other signatures of the same plog keep their grade
    assert {r["status"] for r in found if r not in remote_map} == {"WARN"}


# -- P25: a CTR-002 re-create keeps the container's NPUs -----------------------------------------------

CONTROL = ["--device", "/dev/davinci_manager", "--device", "/dev/devmm_svm", "--device", "/dev/hisi_hdc"]


@pytest.mark.parametrize("name,nodes", [("310p3-inference", ["/dev/davinci1792"]),
                                        ("container-missing-mounts", ["/dev/davinci0", "/dev/davinci1"])])
def test_p25_ctr002_recreate_carries_device_flags(name: str, nodes: List[str]) -> None:
    rep = report(FIXTURES / name, "ASC-CTR-002")
    found = [r for r in of(rep["results"], "ASC-CTR-002") if r["status"] != "PASS"]
    assert found
    for r in found:
        assert r["evidence"]["devices"] == nodes
        run = [list(words(c)) for a in r["actions"] for c in a["commands"]]
        assert len(run) == 1 and run[0][:2] == ["docker", "run"]
        devices = [w for i, w in enumerate(run[0]) if i and run[0][i - 1] == "--device"]
        assert devices == nodes + CONTROL[1::2]
    plan_runs = [list(words(c)) for c in plan_commands(rep) if c.startswith("docker run")]
    assert plan_runs and all(set(nodes) <= set(run) for run in plan_runs)


def test_p25_ctr002_without_known_devices_says_keep_the_other_flags(tmp_path: Path) -> None:
    snapshot = copied("container-missing-mounts", tmp_path)
    for node in (snapshot / "files" / "dev").glob("davinci[0-9]*"):
        node.unlink()
    found = [r for r in of(report(snapshot, "ASC-CTR-002", fixture="container-missing-mounts")["results"],
                           "ASC-CTR-002") if r["status"] != "PASS"]
    assert found and all(r["evidence"]["devices"] == [] for r in found)
    for r in found:
        command = r["actions"][0]["commands"][0]
        assert "--device" not in words(command) and "  # " in command and "--device" in command.split("  # ")[1]


# -- P20: out-of-range ASCEND_RT_VISIBLE_DEVICES asks which NPUs were meant ----------------------------

def test_p20_out_of_range_rt_visible_devices_asks_which_npus_were_meant() -> None:
    rep = report(FIXTURES / "container-missing-mounts", "ASC-CTR-004")
    found = of(rep["results"], "ASC-CTR-004")
    assert [r["status"] for r in found] == ["FAIL"]
    ev = found[0]["evidence"]
    assert (ev["out_of_range"], ev["logical_ids"], ev["in_container"]) == ([4], [0, 1], True)
    assert ev["own_devices"] == ["/dev/davinci0", "/dev/davinci1"] and ev["meant_devices"] == ["/dev/davinci4"]
    everything = commands(found) + plan_commands(rep)
    # never a silent renumbering to concrete ids
    assert not [c for c in everything if c.startswith("export ASCEND_RT_VISIBLE_DEVICES=") and "<" not in c]
    recreate = [list(words(c)) for c in commands(found) if c.startswith("docker run")]
    assert recreate and recreate[0][:4] == ["docker", "run", "--device", "/dev/davinci4"]


# -- P4 / P19: the mixed-stack clean-up keeps the running driver's firmware; documented scripts, reboot last --

def _mix_commands(found: List[Dict[str, Any]]) -> List[List[str]]:
    return [list(words(c)) for r in found for a in r["actions"] for c in a["commands"]]


def test_p4_mixed_stack_cleanup_keeps_the_running_drivers_firmware() -> None:
    rep = report(FIXTURES / "mixed-driver-stacks", "ASC-MIX-001")
    found = of(rep["results"], "ASC-MIX-001")
    assert [(r["status"], r["evidence"]["kind"]) for r in found] == [("FAIL", "driver")]
    ev = found[0]["evidence"]
    # the only firmware package (7.7.0.1.231, the running driver 25.0.rc1.1's) stays where it is
    assert (ev["keep"], ev["keep_firmware"], ev["firmware_basis"]) == \
        ("/root/Ascend", "/usr/local/Ascend", "the only firmware package")
    assert ev["uninstall"] == ["/usr/local/Ascend/driver/script/uninstall.sh"]
    run = _mix_commands(found)
    assert not [w for w in run if any("firmware/script/uninstall.sh" in x for x in w)]
    sed = next(w for w in run if w[0] == "sed")
    assert "Firmware_Install_Path_Param=/usr/local/Ascend#" in sed[2] and "Driver_Install_Path_Param=/root/Ascend#" \
        in sed[2]


def test_p19_mixed_stack_cleanup_is_documented_absolute_and_reboots_last() -> None:
    for name in ("mixed-driver-stacks", "two-stacks-running-new"):
        found = of(results(name, "ASC-MIX-001"), "ASC-MIX-001")
        run = _mix_commands(found)
        flat = [x for w in run for x in w]
        assert "--force" not in flat and "bash" not in flat, name
        assert [w[0] for w in run if w][-1] == "reboot", name  # reboot last, after the cache clean-up
        removals = [w for w in run if w[:2] == ["rm", "-rf"]]
        assert removals and all(path.startswith("/") for w in removals for path in w[2:]), name
        assert not [x for x in flat if "kernel_meta" in x], name
    # the firmware is called running only when npu-smi info -t board says so
    board = [r for r in of(results("two-stacks-running-new", "ASC-MIX-001"), "ASC-MIX-001")
             if r["evidence"]["kind"] == "firmware"]
    assert [r["evidence"]["firmware_basis"] for r in board] == ["npu-smi board"]


def test_p19_stale_stack_without_firmware_gets_no_firmware_uninstall(tmp_path: Path) -> None:
    # the same machine, but npu-smi reports the /usr/local/Ascend driver running: the stale stack under
    # /root/Ascend records no firmware, so nothing there is a firmware to uninstall
    snapshot = copied("mixed-driver-stacks", tmp_path)
    table = snapshot / "commands" / "npu-smi_info.out"
    table.write_text(table.read_text(encoding="utf-8").replace(
        "npu-smi 25.0.rc1.1               Version: 25.0.rc1.1", "npu-smi 24.1.rc2.2               Version: 24.1.rc2.2"),
        encoding="utf-8")
    found = of(report(snapshot, "ASC-MIX-001", fixture="mixed-driver-stacks")["results"], "ASC-MIX-001")
    assert [r["evidence"]["keep"] for r in found] == ["/usr/local/Ascend"]
    assert found[0]["evidence"]["uninstall"] == ["/root/Ascend/driver/script/uninstall.sh"]
    assert not [w for w in _mix_commands(found) if any("/root/Ascend/firmware" in x for x in w)]
