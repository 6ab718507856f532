"""The plan rows of the second advice review (advice_review_2.md P-rows and the matrix-review rows about
`matrix plan`): each test is named after its row, failed on 55a58a7's answer (quoted in the docstring)
and passes now that one resolver chooses the stack and both plans are its difference from the machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ascend_doctor.cli import main
from ascend_doctor.matrix.select import load_matrix
from ascend_doctor.resolve import StackState, resolve

from .clirunner import make_runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MINDIE_21RC1_HOSTS = ("dotted-weight-path", "dmesg-npu-abnormal", "hf-fp8-weights-on-910b", "logs-quiet",
                      "mindie-config-trailing-commas", "mindie-default-config-ok", "mindie-listen-all-no-https",
                      "mindie-token-limits", "mindie-worldsize-mismatch")


def report(name: str, *args: str) -> Dict[str, Any]:
    result = make_runner().invoke(main, ["check", "--from", str(FIXTURES / name), "--format", "json", *args],
                                catch_exceptions=False)
    data: Dict[str, Any] = json.loads(result.stdout)
    return data


def plan(*args: str) -> Dict[str, Any]:
    result = make_runner().invoke(main, ["matrix", "plan", "--format", "json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data: Dict[str, Any] = json.loads(result.stdout)["plan"]
    return data


def commands(data: Dict[str, Any]) -> List[str]:
    return [c for step in data.get("fix_plan", data.get("steps", [])) for c in step["commands"]]


def result(data: Dict[str, Any], check_id: str) -> Dict[str, Any]:
    found = [r for r in data["results"] if r["id"] == check_id]
    assert len(found) == 1, found
    return found[0]


def pins(lines: List[str], package: str) -> List[str]:
    """Every version a pip line pins ``package`` to."""
    return [m.group(1) for line in lines for m in re.finditer(rf"(?<![\w-]){re.escape(package)}==([^\s']+)", line)]


@pytest.mark.parametrize("name", MINDIE_21RC1_HOSTS)
def test_p2_mindie_abi0_host_keeps_torch_210_and_fixes_the_post_release(name: str) -> None:
    """P2: `pip install torch==2.6.0 torch-npu==2.6.0   # the pair released for CANN 8.2.RC1` on MindIE 2.1.RC1
    hosts with torch 2.1.0 (abi0). Now: torch stays 2.1.0, torch_npu moves to 2.1.0.post13 (CANN 8.2.RC1's)."""
    data = report(name)
    lines = commands(data)
    assert pins(lines, "torch") in ([], ["2.1.0"])
    assert set(pins(lines, "torch-npu")) <= {"2.1.0.post13"}
    py3 = result(data, "ASC-PY-003")
    if py3["status"] in ("WARN", "FAIL"):
        assert "torch==2.6.0" not in py3["remediation"] and "Fix plan step" in py3["remediation"]


def test_p3_nnal_is_never_installed_for_the_cann_the_plan_replaces() -> None:
    """P3: step 3 installed NNAL 8.2.RC1 with the new CANN, step 4 then `Ascend-cann-nnal_8.0.0…` for the old one."""
    data = report("rank-table-faults-8x910B3")
    nnal = [c for c in commands(data) if "Ascend-cann-nnal_" in c]
    assert len({re.search(r"nnal_([^_]+)_", c).group(1) for c in nnal}) <= 1  # type: ignore[union-attr]
    assert not any("nnal_8.0.0" in c for c in nnal)


def test_p5_dev_torch_npu_comes_from_the_huawei_mirror() -> None:
    """P5: `--extra-index-url https://download.pytorch.org/whl/cpu/ … torch-npu==2.7.1.dev20250724`: the CPU index
    does not carry torch-npu dev builds; the vLLM-Ascend guide of that period takes them from the Huawei mirror."""
    from ascend_doctor.matrix.pip import torch_pair

    advice = torch_pair(load_matrix(), "2.7.1", "2.7.1.dev20250724", "aarch64")
    assert "https://mirrors.huaweicloud.com/ascend/repos/pypi" in advice.lines[0]


def test_p7_one_torch_step_and_the_engine_row_is_kept() -> None:
    """P7: step 10 `torch==2.6.0 torch-npu==2.6.0` then step 11 `torch==2.7.1 torch-npu==2.7.1.dev20250724` on a
    vLLM-Ascend 0.10.2rc1 host. Now: at most one torch install, and it is the engine row's."""
    data = report("atb-abi-mismatch")
    torch_steps = [s for s in data["fix_plan"] if any("torch==" in c for c in s["commands"])]
    assert len(torch_steps) <= 1
    assert set(pins(commands(data), "torch")) <= {"2.7.1"}


def test_p8_vllm_ascend_is_never_installed_over_a_cann_its_row_does_not_name() -> None:
    """P8: torch for CANN 8.0.0, then `pip install vllm-ascend==0.9.1` (row: CANN 8.2.RC1): the end state is an
    unsupported CANN. Now the whole row or nothing: a vLLM-Ascend install comes with its row's CANN."""
    data = report("vllm-plain-debug-logs")
    lines = commands(data)
    if any("vllm-ascend==" in c for c in lines):
        assert any("Ascend-cann-toolkit_8.2.RC1" in c for c in lines) or "8.2.RC1" in json.dumps(data["facts"])
    assert len([s for s in data["fix_plan"] if any("torch==" in c for c in s["commands"])]) <= 1


def test_p9_two_engines_in_one_environment_get_no_torch_change() -> None:
    """P9: `pip install torch==2.6.0 torch-npu==2.6.0` in an environment shared by MindIE and vLLM-Ascend 0.9.1
    (torch 2.5.1): it breaks one of them. Two engines: the plan separates them and changes no torch in place."""
    data = report("both-engines")
    assert pins(commands(data), "torch") == []


def test_p12_hdk_target_prefers_a_release_whose_firmware_is_known() -> None:
    """P12: "Upgrade the HDK (driver + firmware) to 25.2.0" whose firmware number is not recorded, so the step has
    only the driver. MindIE 2.1.RC1 also lists 25.0.RC1, whose A2 firmware 7.7.0.1.231 is known."""
    data = report("engine-pairing-mismatch")
    hdk = [s for s in data["fix_plan"] if s["component"] == "hdk" and any(".run" in c for c in s["commands"])]
    assert len(hdk) == 1
    text = "\n".join(hdk[0]["commands"])
    assert "Ascend-hdk-910b-npu-firmware_7.7.0.1.231.run" in text and "driver_25.0.rc1" in text.lower()
    assert text.index("firmware_7.7.0.1.231") < text.lower().index("npu-driver_25.0.rc1")  # upgrade: firmware first


@pytest.mark.parametrize("name", ("dotted-weight-path", "rank-table-faults-8x910B3"))
def test_p13_engine_hosts_get_only_the_engines_torch_lines(name: str) -> None:
    """P13: "CANN 8.2.RC1 is released with torch_npu 2.4.0.post3 (torch 2.4.0)" on a MindIE 2.1.RC1 host, where
    ENG-002 accepts only torch 2.1.0 / 2.6.0 — and 2.4.0.post3 is not on PyPI."""
    data = report(name)
    assert set(pins(commands(data), "torch")) <= {"2.1.0", "2.6.0"}
    for check in ("ASC-PY-003", "ASC-ENG-002"):
        for r in (r for r in data["results"] if r["id"] == check and r["status"] in ("WARN", "FAIL")):
            assert "2.4.0.post3" not in r["remediation"]


def test_p17_nnal_environment_is_sourced_only_after_nnal_is_installed() -> None:
    """P17: the NNAL step was only `source /usr/local/Ascend/nnal/atb/set_env.sh` for an NNAL not installed."""
    for name in ("low-host-memory", "mindie-second-instance"):
        data = report(name)
        for step in data["fix_plan"]:
            if any("nnal/atb/set_env.sh" in c for c in step["commands"]) and step["component"] == "nnal":
                assert any("Ascend-cann-nnal_" in c for c in step["commands"]), step


def test_p21_one_hdk_target_per_report() -> None:
    """P21: one finding named 25.3.rc1, "25.5.0 (recommended)", and the plan picked 25.0.rc1.1."""
    data = report("cann-newer-than-driver")
    hdk = [s for s in data["fix_plan"] if s["component"] == "hdk" and any(".run" in c for c in s["commands"])]
    assert len(hdk) == 1
    target = hdk[0]["target"]
    for r in data["results"]:
        if r["id"] in ("ASC-CANN-002", "ASC-DRV-001", "ASC-FW-002") and r["status"] in ("WARN", "FAIL"):
            assert "Fix plan step" in r["remediation"]
            assert f"Fix plan step {hdk[0]['order']}" in r["remediation"], (target, r["remediation"])


def test_p26_reboot_title_says_what_changes() -> None:
    """P26: "Reboot the host: load the new driver and activate the firmware" when the firmware is untouched."""
    data = report("cann-newer-than-driver")
    hdk = next(s for s in data["fix_plan"] if s["component"] == "hdk" and any(".run" in c for c in s["commands"]))
    reboot = next(s for s in data["fix_plan"] if s["component"] == "reboot")
    installs_firmware = any("npu-firmware_" in c and not c.startswith("#") for c in hdk["commands"])
    assert ("firmware" in reboot["summary"]) == installs_firmware


def test_p23_row23_mindie_plan_takes_torch_from_mindie_not_from_vllm_ascend() -> None:
    """P23 / matrix row 23: torch 2.9.0 justified by "vLLM-Ascend 0.19.1rc1 pairs torch_npu 2.9.0 with CANN 8.5.1"."""
    data = plan("--chip", "910B3", "--engine", "mindie")
    reasons = [n for n in data["notes"] if n.startswith(("torch ", "torch_npu "))]
    assert reasons and not any("vLLM-Ascend" in n for n in reasons)
    assert any(n.startswith("torch ") and "MindIE" in n for n in reasons)  # the torch MindIE ships builds for


def test_row4_310p_source_route_installs_vllm_first() -> None:
    """Matrix row 4: `git clone … vllm-ascend && pip install -e .` then `vllm serve` — vLLM itself never installed."""
    data = plan("--chip", "310P3", "--engine", "vllm-ascend", "--arch", "aarch64")
    engine = data["steps"][-1]["commands"]
    vllm_build = next(i for i, c in enumerate(engine) if "VLLM_TARGET_DEVICE=empty" in c)
    ascend_build = next(i for i, c in enumerate(engine) if "vllm-ascend.git" in c)
    assert vllm_build < ascend_build
    assert any("git submodule update --init --recursive" in c for c in engine)


def test_row10_cann_python_dependencies_go_into_the_new_venv() -> None:
    """Matrix row 10: a new venv, then only torch/torch_npu/vllm: CANN's Python dependencies never installed."""
    data = plan("--chip", "910B3", "--engine", "vllm-ascend", "--arch", "aarch64")
    titles = [s["title"] for s in data["steps"]]
    venv = next(i for i, t in enumerate(titles) if t.startswith("Use Python"))
    deps = next(i for i, t in enumerate(titles) if "CANN's Python dependencies" in t)
    torch = next(i for i, t in enumerate(titles) if t.startswith("Install PyTorch"))
    assert venv < deps < torch
    assert "decorator" in " ".join(data["steps"][deps]["commands"])


def test_row11_mindspeed_is_checked_out_at_its_release_branch() -> None:
    """Matrix row 11: `git clone https://github.com/Ascend/MindSpeed.git && cd MindSpeed && pip install -e .`
    installs master, not 2.1.0."""
    data = plan("--chip", "910B3", "--engine", "mindspeed", "--version", "2.1.0")
    engine = data["steps"][-1]["commands"]
    assert "git checkout 2.1.0_core_r0.8.0" in engine


def test_row15_x86_sets_the_cpu_index_for_every_pip_step() -> None:
    """Matrix row 15: the CPU index only on the torch step; `pip install vllm==0.23.0` resolves CUDA wheels."""
    data = plan("--chip", "910B3", "--engine", "vllm-ascend", "--arch", "x86_64")
    lines = [c for s in data["steps"] for c in s["commands"]]
    config = next(i for i, c in enumerate(lines) if c.startswith("pip config set global.extra-index-url"))
    first_pip = next(i for i, c in enumerate(lines) if c.startswith("pip install"))
    assert config < first_pip


def test_row16_image_base_is_of_the_flavour_the_plan_pulls() -> None:
    """Matrix row 16: "release image base: quay.io/ascend/cann:9.1.0-910b-…" in an A3 / 310P plan."""
    for chip, flavour in (("A3", "-a3-"), ("310P3", "-310p-")):
        data = plan("--chip", chip, "--engine", "vllm-ascend")
        text = json.dumps(data)
        assert "-910b-ubuntu" not in text and flavour in text


def test_row17_kept_old_driver_gets_the_full_and_piecewise_caveat() -> None:
    """Matrix row 17: a plan that keeps driver 25.0.rc1.1 said nothing of FULL_AND_PIECEWISE."""
    data = plan("--chip", "910B3", "--engine", "vllm-ascend", "--driver", "25.0.rc1.1")
    assert any("FULL_AND_PIECEWISE" in n for n in data["notes"])


def test_resolver_names_conflicts_like_pip() -> None:
    """No stack satisfies a pinned engine on a driver its CANN cannot run with: the answer says who needs what."""
    m = load_matrix()
    target = resolve(m, StackState(chip="910B3", driver="23.0.7", engine="vllm-ascend", engine_version="0.23.0",
                                   pinned=("driver",)))
    assert not target.ok
    assert any("needs" in line for line in target.conflicts)


def test_p1_no_uninstall_under_a_use_title() -> None:
    """P1: step "Use the `latest` one everywhere: source …/set_env.sh" whose only command was
    `./Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run --uninstall` (the toolkit it said to use)."""
    data = report("mixed-driver-stacks")
    for step in data["fix_plan"]:
        if step["summary"].lower().startswith("use"):
            assert not any("--uninstall" in c for c in step["commands"]), step
    mix = [r for r in data["results"] if r["id"] == "ASC-MIX-004" and r["status"] == "WARN"]
    for finding in mix:
        action = finding["actions"][0]
        assert action["commands"] == ["source /usr/local/Ascend/ascend-toolkit/set_env.sh"]
        assert "uninstall" in action["alternative"]  # the other direction is stated, never a command


def test_p7_py003_defers_to_the_engine_row(tmp_path: Path) -> None:
    """P7: PY-003 WARNed "uncertain" on torch_npu 2.7.1.dev20250724 with CANN 8.2.RC1, exactly vLLM-Ascend
    0.10.2rc1's own release row. The atb-abi-mismatch host with the row's torch_npu installed."""
    import shutil

    snap = tmp_path / "snap"
    shutil.copytree(FIXTURES / "atb-abi-mismatch", snap, symlinks=True)
    python = json.loads((snap / "python.json").read_text(encoding="utf-8"))
    python["packages"]["torch-npu"] = "2.7.1.dev20250724"
    (snap / "python.json").write_text(json.dumps(python), encoding="utf-8")
    result_ = make_runner().invoke(main, ["check", "--from", str(snap), "--format", "json"], catch_exceptions=False)
    data = json.loads(result_.stdout)
    py3 = result(data, "ASC-PY-003")
    assert py3["status"] == "PASS" and py3["evidence"]["engine_row"] == "0.10.2rc1"
    assert not any("torch==" in c for c in commands(data))  # the engine's row is what is installed: no torch step


def test_row24_310p_mindie_plan_names_the_image_pattern() -> None:
    """Matrix row 24: "no MindIE image tag for this release and chip is recorded" while lookup prints the
    300I-Duo image pattern."""
    data = plan("--chip", "310P3", "--engine", "mindie")
    text = json.dumps(data["steps"])
    assert "300I-Duo" in text


def test_row2_mindie_plan_refuses_the_first_generation_910() -> None:
    """Matrix row 2: `matrix plan --chip 910A --engine mindie` printed a full plan (exit 0) with "MindIE support for
    910 is unknown". MindIE's hardware list is a hard constraint of the resolver: no plan, exit 1, with the list."""
    result = make_runner().invoke(main, ["matrix", "plan", "--chip", "910A", "--engine", "mindie"])
    assert result.exit_code == 1 and "does not support 910A" in result.output


def test_row5_mindie_plan_on_a3_is_planned() -> None:
    """Matrix row 5: MindIE on the Atlas 800I A3 was "unknown"; the plan is made, with the A3 image where known."""
    data = plan("--chip", "A3", "--engine", "mindie", "--version", "2.1.RC2")
    assert data["engine"] == "mindie" and data["versions"]["mindie"] == "2.1.RC2"
    assert "800I-A3" in json.dumps(data["steps"])


@pytest.mark.parametrize("state", [StackState(arch="x86_64", in_container=True),
                                   StackState(arch="x86_64", cann="8.2.RC1")])
def test_no_hdk_is_planned_without_a_driver_seen_in_a_container_or_without_a_chip(state: StackState) -> None:
    """A container that sees no driver (the driver is the host's), or a machine with no chip family (HDK files
    are per family): the plan installs no HDK, and DRV-001 keeps its own advice (a mount, the generic install)."""
    from ascend_doctor.resolve.fixsteps import plan_for_state

    fix = plan_for_state(load_matrix(), state, ["hdk", "cann"])
    assert not [s for s in fix.steps if s.component in ("hdk", "reboot")]
    assert fix.covers("ASC-DRV-001") == ()
