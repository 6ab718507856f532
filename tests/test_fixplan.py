"""The fix plan: one ordered, deduplicated plan per report that never contradicts itself."""

from __future__ import annotations

from typing import Optional, Tuple

from ascend_doctor.checkapi import FixAction, Status
from ascend_doctor.fixplan import build_fix_plan
from ascend_doctor.report import Result


def result(cid: str, status: Status, *actions: FixAction, remediation: str = "", scope: Optional[str] = None
           ) -> Result:
    return Result(cid, f"title of {cid}", status, "message", remediation, {}, scope, 0.0, tuple(actions))


def hdk(target: str, direction: str = "upgrade", accepts: Tuple[str, ...] = (), summary: str = "") -> FixAction:
    """An HDK step as the driver/firmware checks propose it."""
    return FixAction("hdk", summary or f"Install HDK {target}", (f"./driver_{target}.run --upgrade",),
                     target=target, direction=direction, accepts=accepts)


def test_two_findings_pulling_the_hdk_apart_get_one_version_that_fixes_both() -> None:
    """Review §1 R1: MIX-003 wants the driver of the firmware's HDK (25.0.rc1.1); CANN-002 accepts any
    HDK of CANN 8.5.0's list and recommends 25.5.0. One plan step: 25.0.rc1.1 fixes both."""
    plan = build_fix_plan([
        result("ASC-MIX-003", Status.WARN, hdk("25.0.rc1.1")),
        result("ASC-CANN-002", Status.FAIL, hdk("25.5.0", accepts=("25.0.*", "25.2.*", "25.3.*", "25.5.*"))),
    ])
    hdk_steps = [s for s in plan if s.component == "hdk"]
    assert len(hdk_steps) == 1
    step = hdk_steps[0]
    assert step.target == "25.0.rc1.1"
    assert set(step.fixes) == {"ASC-MIX-003", "ASC-CANN-002"}
    assert "25.0.rc1.1" in step.why and "25.5.0" in step.why


def test_a_downgrade_is_only_the_alternative() -> None:
    plan = build_fix_plan([
        result("ASC-MIX-003", Status.WARN,
               FixAction("firmware", "Roll the firmware back to 7.5.0.1.129", ("./fw_7.5.0.1.129.run --full",),
                         target="24.1.rc3", direction="downgrade")),
        result("ASC-FW-002", Status.WARN, hdk("25.0.rc1.1")),
    ])
    steps = [s for s in plan if s.component in ("hdk", "firmware", "driver")]
    assert len(steps) == 1
    assert steps[0].target == "25.0.rc1.1"
    assert "Roll the firmware back" in steps[0].alternative
    assert "without a downgrade" in steps[0].why


def test_identical_steps_merge_and_name_every_finding() -> None:
    action = FixAction("environment", "Source the CANN environment",
                       ("source /usr/local/Ascend/ascend-toolkit/set_env.sh",))
    plan = build_fix_plan([result("ASC-ENV-001", Status.FAIL, action), result("ASC-OPS-001", Status.WARN, action),
                           result("ASC-DEV-001", Status.PASS, action)])
    assert len(plan) == 1
    assert plan[0].fixes == ("ASC-ENV-001", "ASC-OPS-001")


def test_order_follows_the_install_order_and_one_reboot() -> None:
    plan = build_fix_plan([
        result("ASC-PY-002", Status.FAIL, FixAction("python", "Install the torch pair",
                                                     ("pip install torch==2.6.0 torch-npu==2.6.0",),
                                                     target="2.6.0", subject="torch")),
        result("ASC-CANN-001", Status.FAIL, FixAction("cann", "Install CANN", ("./Ascend-cann-toolkit_8.2.RC1.run",))),
        result("ASC-DRV-002", Status.FAIL, FixAction("reboot", "Reboot the host", ("reboot",))),
        result("ASC-FW-003", Status.WARN, FixAction("reboot", "Reboot to activate the firmware", ("reboot",))),
        result("ASC-DRV-001", Status.FAIL, hdk("25.0.rc1.1")),
    ])
    assert [s.component for s in plan] == ["hdk", "reboot", "cann", "python"]
    assert set(plan[1].fixes) == {"ASC-DRV-002", "ASC-FW-003"}
    assert [s.order for s in plan] == [1, 2, 3, 4]


def test_findings_without_actions_get_a_step_from_their_text() -> None:
    plan = build_fix_plan([result("ASC-MDL-016", Status.FAIL,
                                  remediation="Rename the folder without dots:\n  mv /data/a.b /data/a_b")])
    assert len(plan) == 1
    assert plan[0].component == "model"
    assert plan[0].commands == ("mv /data/a.b /data/a_b",)
    assert plan[0].summary == "Rename the folder without dots"


def test_only_commands_are_summarised_by_the_title() -> None:
    plan = build_fix_plan([result("ASC-ENV-010", Status.INFO, remediation="export A=1\nexport A=1")])
    assert plan[0].summary == "Goal: title of ASC-ENV-010"
    assert plan[0].commands == ("export A=1",)


def test_info_steps_come_after_problem_steps_of_the_same_component() -> None:
    plan = build_fix_plan([
        result("ASC-ENV-010", Status.INFO, FixAction("environment", "Tune A", ("export A=1",))),
        result("ASC-ENV-001", Status.FAIL, FixAction("environment", "Source set_env", ("source x",))),
    ])
    assert [s.fixes[0] for s in plan] == ["ASC-ENV-001", "ASC-ENV-010"]


def test_scoped_findings_are_named_with_their_scope() -> None:
    action = FixAction("system", "Stop what holds the NPU", ("kill 123",))
    plan = build_fix_plan([result("ASC-DEV-010", Status.WARN, action, scope="NPU 0 chip 0")])
    assert plan[0].fixes == ("ASC-DEV-010 [NPU 0 chip 0]",)


def test_every_container_re_creation_is_one_docker_run_with_all_flags() -> None:
    devices = FixAction("container", "Re-create the container with the NPU device nodes",
                        ("docker run --device /dev/davinci0 --device /dev/davinci1 --device /dev/davinci_manager "
                         "<image> ...",), where="host")
    dcmi = FixAction("container", "Re-create the container with the host's /usr/local/dcmi mounted",
                     ("docker run ... -v /usr/local/dcmi:/usr/local/dcmi ...",), where="host")
    placeholder = FixAction("system", "npu-smi cannot work here",
                            ("docker run --device /dev/davinci<N> --device /dev/davinci_manager --shm-size=1g "
                             "<image> ...   # one --device /dev/davinciN per NPU of the job",), where="host")
    plan = build_fix_plan([result("ASC-CTR-001", Status.FAIL, devices),
                           result("ASC-CTR-002", Status.WARN, dcmi, scope="/usr/local/dcmi"),
                           result("ASC-SMI-001", Status.FAIL, placeholder),
                           result("ASC-ENV-001", Status.WARN, FixAction("environment", "Load CANN",
                                                                        ("source /x/set_env.sh",), where="either"))])
    runs = [s for s in plan if s.commands and s.commands[0].startswith("docker run")]
    assert len(runs) == 1 and runs[0].order == 1  # before what is set inside the new container
    assert runs[0].commands == (
        "docker run --device /dev/davinci0 --device /dev/davinci1 --device /dev/davinci_manager "
        "-v /usr/local/dcmi:/usr/local/dcmi --shm-size=1g '<image>' ...",)
    assert runs[0].fixes == ("ASC-CTR-001", "ASC-CTR-002 [/usr/local/dcmi]", "ASC-SMI-001")
    assert "3 steps" in runs[0].why


def test_one_goal_per_npu_is_one_step_with_every_line() -> None:
    """Eight busy NPUs were eight steps that differed in a pid: the same goal is one step, each line once."""
    def stop(*pids: int) -> FixAction:
        return FixAction("system", "Find and stop what holds the busy NPUs",
                         tuple(f"ps -fp {pid}; cat /proc/{pid}/cgroup" for pid in pids), where="host",
                         alternative="deploy on free NPUs")
    plan = build_fix_plan([result("ASC-DEV-010", Status.FAIL, stop(11, 12), scope="NPU 0 chip 0"),
                           result("ASC-DEV-010", Status.WARN, stop(12, 13), scope="NPU 1 chip 0")])
    assert len(plan) == 1
    assert plan[0].commands == ("ps -fp 11; cat /proc/11/cgroup", "ps -fp 12; cat /proc/12/cgroup",
                                "ps -fp 13; cat /proc/13/cgroup")
    assert plan[0].fixes == ("ASC-DEV-010 [NPU 0 chip 0]", "ASC-DEV-010 [NPU 1 chip 0]")
    assert plan[0].alternative == "deploy on free NPUs"


def test_a_line_is_pasted_once_whatever_its_comment() -> None:
    """plog-aicore-error: two log findings ask for the same export with different comments."""
    plan = build_fix_plan([
        result("ASC-LOG-002", Status.WARN, remediation="export ASCEND_LAUNCH_BLOCKING=1   # find the op", scope="a"),
        result("ASC-LOG-002", Status.WARN, remediation="export ASCEND_LAUNCH_BLOCKING=1   # then align", scope="b")])
    assert len(plan) == 1
    assert plan[0].commands == ("export ASCEND_LAUNCH_BLOCKING=1   # find the op",)


def test_two_checks_giving_the_same_words_are_one_step() -> None:
    """no-driver: SMI-001 and DRV-001 both say 'install the driver, then the firmware' (areas system and hdk)."""
    text = "Install the driver, then the firmware, of one Ascend HDK release, and reboot once:\n  # which release: ..."
    plan = build_fix_plan([result("ASC-SMI-001", Status.FAIL, remediation=text),
                           result("ASC-DRV-001", Status.FAIL, remediation=text)])
    assert len(plan) == 1
    assert set(plan[0].fixes) == {"ASC-SMI-001", "ASC-DRV-001"}


def test_versioned_steps_with_the_same_words_are_left_to_the_conflict_step() -> None:
    plan = build_fix_plan([result("ASC-MIX-003", Status.WARN, hdk("25.0.rc1.1", summary="Install the HDK")),
                           result("ASC-FW-002", Status.WARN, hdk("25.5.0", summary="Install the HDK"))])
    assert len([s for s in plan if s.component == "hdk"]) == 1
    assert plan[0].target == "25.0.rc1.1" or plan[0].target == "25.5.0"
    assert plan[0].commands in (("./driver_25.0.rc1.1.run --upgrade",), ("./driver_25.5.0.run --upgrade",))


def test_the_runner_skips_the_plan_only_where_it_would_be_empty() -> None:
    from ascend_doctor.report import needs_fix_plan

    action = hdk("24.1.0")
    for status in Status:
        results = [result("ASC-FW-002", status, action, remediation="./Ascend-hdk-910b-npu-firmware_7.5.0.run --full")]
        assert needs_fix_plan(results) == bool(build_fix_plan(results)), status
    assert not needs_fix_plan([result("ASC-DRV-001", Status.PASS), result("ASC-CFG-001", Status.SKIP)])
