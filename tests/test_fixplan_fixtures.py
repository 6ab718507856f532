"""The fix plan of every fixture is one plan that never contradicts itself (issue 8 item 3).

For every scenario under fixtures/: no component is set to two versions, no step undoes another,
every torch change pins torch_npu, every HDK file named is a real file name of the host's chip
family and architecture, there is at most one reboot and it comes after every host package step.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml

from ascend_doctor.checkapi import FIX_COMPONENTS
from ascend_doctor.cli import main
from ascend_doctor.matrix import load_matrix

from .clirunner import make_runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCENARIOS = sorted(p for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file())
HDK_FILE = re.compile(r"\b(?:Ascend-hdk-[0-9a-z]+|Atlas-A\d-hdk)-npu-(?:driver|firmware)_[^\s]+?\.run\b")
RUN_FILE = re.compile(r"\./(\S+?\.run)\b")
PIP_INSTALL = re.compile(r"\bpip3? install\b(.*)")
PIP_UNINSTALL = re.compile(r"\bpip3? uninstall\b(.*)")
CONFLICT_GROUP = {"driver": "hdk", "firmware": "hdk"}


def report_for(scenario: Path) -> Dict[str, Any]:
    expected = yaml.safe_load((scenario / "expected.yaml").read_text(encoding="utf-8"))
    extra = [str(a).replace("{fixture}", str(scenario)) for a in expected.get("args", [])]
    result = make_runner().invoke(main, ["check", "--from", str(scenario), "--format", "json", *extra],
                                catch_exceptions=False)
    report: Dict[str, Any] = json.loads(result.stdout)
    return report


def commands(plan: List[Dict[str, Any]]) -> List[str]:
    return [c for step in plan for c in step["commands"] if not c.lstrip().startswith("#")]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_fix_plan_agrees_with_itself(scenario: Path) -> None:
    report = report_for(scenario)
    plan = report["fix_plan"]
    assert [s["order"] for s in plan] == list(range(1, len(plan) + 1))

    # one version per component (the driver and the firmware are one HDK)
    targets: Dict[Any, set] = {}
    for step in plan:
        if step["target"]:
            key = (CONFLICT_GROUP.get(step["component"], step["component"]), step.get("subject", ""))
            targets.setdefault(key, set()).add(step["target"].lower())
    assert all(len(v) == 1 for v in targets.values()), targets

    # nothing installed by one step is removed by another
    lines = commands(plan)
    installed_runs = {m for c in lines if "--uninstall" not in c for m in RUN_FILE.findall(c)}
    removed_runs = {m for c in lines if "--uninstall" in c for m in RUN_FILE.findall(c)}
    assert not installed_runs & removed_runs, installed_runs & removed_runs
    pip_in = {re.split(r"[=<>\s]", w)[0].lower().replace("_", "-") for c in lines
              for m in PIP_INSTALL.findall(c) for w in m.split() if not w.startswith("-")}
    pip_out = {w.lower().replace("_", "-") for c in lines for m in PIP_UNINSTALL.findall(c)
               for w in m.split() if not w.startswith("-")}
    assert not pip_in & pip_out, pip_in & pip_out

    # torch never moves without its torch_npu
    for command in lines:
        if re.search(r"\btorch==", command):
            assert re.search(r"\btorch[-_]npu==", command), command

    # HDK files are the host's family and architecture
    chip = (report["facts"].get("chip") or {}).get("family")
    arch = report["host"].get("arch")
    names = {n for c in lines for n in HDK_FILE.findall(c)}
    if names:
        packages = load_matrix(None).packages(chip, arch) if chip and arch else None
        assert packages is not None, f"HDK files {names} named for an unknown family/arch {chip}/{arch}"
        family = load_matrix(None).family(chip)
        driver_prefix = family.hdk_package.driver.split("{version}")[0]
        firmware_prefix = family.hdk_package.firmware.split("{firmware}")[0]
        hdk_arch = "x86-64" if arch == "x86_64" else arch
        for name in names:
            if "-driver_" in name:
                assert name.startswith(driver_prefix) and name.endswith(f"_linux-{hdk_arch}.run"), name
            else:
                assert name.startswith(firmware_prefix), name

    # at most one reboot, after every host package step, in install order
    components = [s["component"] for s in plan]
    assert components.count("reboot") <= 1
    # a container is re-created once: one docker run, whichever checks asked for it (a plan that sets up
    # one container per engine is one step of several docker run lines)
    runs = [s for s in plan if len(s["commands"]) == 1 and s["commands"][0].startswith("docker run ")]
    assert len(runs) <= 1, [s["summary"] for s in runs]
    # ...and no other step asks for a second re-creation in prose (CTR-003 once did, beside the docker run)
    if runs:
        recreations = [s["summary"] for s in plan
                       if re.match(r"(?i)re-?create the container", s["summary"]) and s not in runs]
        assert not recreations, recreations
    # the same commands are pasted once, however many findings word them
    unversioned = [tuple(s["commands"]) for s in plan if s["commands"] and not s.get("target")]
    assert len(unversioned) == len(set(unversioned)), [s["summary"] for s in plan]
    for step in plan:  # a command is a line to paste, never buried in a step's prose ("On the host: npu-smi info")
        assert not re.search(r"(?i)\bon the host(?: \(root\))?: ", step["summary"]), step["summary"]
    for step in plan:  # a pasted line never hides a continuation or a note inside a command
        assert not any("(one per" in c or c.rstrip().endswith("\\") for c in step["commands"]), step
    # install order, but for the steps that only tune (INFO), which come last whatever they touch
    problems = {r["id"] + (f" [{r['scope']}]" if r["scope"] else "") for r in report["results"]
                if r["status"] in ("FAIL", "WARN", "ERROR")}
    tuning = [bool(s["fixes"]) and not problems & set(s["fixes"]) for s in plan]
    assert tuning == sorted(tuning), "a tuning step comes before a fix"
    order = [FIX_COMPONENTS.index(s["component"]) for s, tune in zip(plan, tuning)
             if s["component"] in FIX_COMPONENTS and not tune]
    assert order == sorted(order), components

    # issue 21: one version per package across the whole plan, every line parses as bash, and a step's
    # title agrees with its commands (never an uninstall under a "use"/"keep" title)
    for package in ("torch", "torch-npu", "vllm", "vllm-ascend"):
        pinned = {m.group(1) for c in lines for m in re.finditer(rf"(?<![\w-]){package}==(\S+)", c)}
        assert len(pinned) <= 1, (package, pinned)
    for kind in ("toolkit", "nnal", "kernels"):
        versions = {m.group(1) for c in lines for m in re.finditer(rf"Ascend-cann-{kind}[-\w]*?_([^_]+)_", c)
                    if "--uninstall" not in c}
        assert len(versions) <= 1, (kind, versions)
    for step in plan:
        assert_bash_parses(step["commands"])
        if re.match(r"(?i)(use|keep)\b", step["summary"]) and not re.search(r"(?i)\b(remove|uninstall)",
                                                                             step["summary"]):
            assert not any("--uninstall" in c or "uninstall.sh" in c for c in step["commands"]), step


def assert_bash_parses(lines: List[str]) -> None:
    import subprocess

    text = "\n".join(lines) + "\n"
    result = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, check=False)
    assert result.returncode == 0, (lines, result.stderr)


MATRIX = load_matrix(None)
PLAN_CASES = [(chip, engine, arch) for chip in ("910B1", "910B3", "910B4", "A3", "310P3", "910A")
              for engine in ("vllm-ascend", "mindie", "mindspeed") for arch in ("aarch64", "x86_64")]


@pytest.mark.parametrize("chip,engine,arch", PLAN_CASES)
def test_matrix_plan_agrees_with_itself(chip: str, engine: str, arch: str) -> None:
    """Every chip x engine x architecture plan: one version per package, every line parses as bash, the
    title's version is the one its commands install."""
    from ascend_doctor.matrix.plan import PlanError
    from ascend_doctor.resolve.plan import make_plan

    try:
        plan = make_plan(MATRIX, chip, engine, {}, arch=arch)
    except PlanError:
        return  # a refusal (the engine does not support the chip) is an answer, not a plan
    lines = [c for s in plan.steps for c in s.commands if not c.startswith("#")]
    for package in ("torch", "torch-npu", "vllm", "vllm-ascend"):
        assert len({m.group(1) for c in lines for m in re.finditer(rf"(?<![\w-]){package}==(\S+)", c)}) <= 1
    for step in plan.steps:
        assert_bash_parses(list(step.commands))
        version = re.search(r"CANN toolkit (\S+)", step.title)
        if version:
            assert any(f"toolkit_{version.group(1)}_" in c for c in step.commands), step
