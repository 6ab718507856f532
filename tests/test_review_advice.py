"""The field review of 0.1.0's advice (research/advice_review.md), rows about package names, pip
commands, the matrix and the plans: one test per row, each failing on 0.1.0's answer.

test_review_row_<n> is §2 row n; test_review_M<n> is §3 row Mn. Snapshots are the repository's
fixtures (built from tests/samples copies of real outputs) or tiny ones written here from the same
samples.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml
from click.testing import Result

from ascend_doctor.checkapi import Status
from ascend_doctor.cli import main
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.matrix import Matrix, VerdictKind, load_matrix
from ascend_doctor.options import RunOptions
from ascend_doctor.runner import run_checks

from .clirunner import make_runner
from .samples_util import SAMPLES, sample_body

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HDK_NAME = re.compile(r"(?:Ascend-hdk-[0-9a-z]+|Atlas-A\d-hdk)-npu-driver_[^ ]*?\.run")


@pytest.fixture(scope="module")
def m() -> Matrix:
    return load_matrix()


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    monkeypatch.setenv("COLUMNS", "200")


def cli(*args: str) -> Result:
    return make_runner().invoke(main, list(args))


def plan_json(*args: str) -> Dict[str, Any]:
    result = cli("matrix", "plan", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout)["plan"])


def commands(plan: Dict[str, Any]) -> List[str]:
    return [c for step in plan["steps"] for c in step["commands"]]


def scenario(name: str, *select: str) -> List[Dict[str, Any]]:
    """The results of ``check --from fixtures/<name>`` with the fixture's own arguments."""
    path = FIXTURES / name
    expected = yaml.safe_load((path / "expected.yaml").read_text(encoding="utf-8"))
    extra = [str(a).replace("{fixture}", str(path)) for a in expected.get("args", [])]
    for prefix in select:
        extra += ["--select", prefix]
    result = cli("check", "--from", str(path), "--format", "json", *extra)
    assert result.exit_code in (0, 1, 3), result.output
    return list(json.loads(result.stdout)["results"])


def remediations(results: List[Dict[str, Any]]) -> str:
    return "\n".join(r.get("remediation") or "" for r in results)


# -- §2 ---------------------------------------------------------------------------------------

def test_review_row_1(m: Matrix) -> None:
    """A3 hosts were offered Ascend-hdk-910b-… packages; A3 HDK packages are Atlas-A3-hdk-npu-*."""
    pk = m.packages("A3", "aarch64")
    assert pk is not None
    assert pk.hdk_driver("25.0.rc1.3") == "Atlas-A3-hdk-npu-driver_25.0.rc1.3_linux-aarch64.run"
    assert pk.hdk_firmware("7.7.0.3.228") == "Atlas-A3-hdk-npu-firmware_7.7.0.3.228.run"
    fixes = remediations(scenario("atb-abi-mismatch", "ASC-DRV", "ASC-FW", "ASC-MIX"))  # an A3 host
    # npu-smi answers there, so no check offers to (re)install the HDK; whatever is named is A3's
    assert "Ascend-hdk-910b" not in fixes
    assert "Ascend-hdk-910b" not in "\n".join(commands(plan_json("--chip", "A3", "--engine", "vllm-ascend")))


def test_review_row_2(m: Matrix) -> None:
    """HDK driver files are linux-x86-64 (hyphen), never linux-x86_64 or $(uname -m)."""
    pk = m.packages("A2", "x86_64")
    assert pk is not None
    assert pk.hdk_driver("25.0.rc1.1") == "Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-x86-64.run"
    text = "\n".join(commands(plan_json("--chip", "910B3", "--engine", "vllm-ascend", "--arch", "x86_64")))
    assert "Ascend-hdk-910b-npu-driver_26.1.0_linux-x86-64.run" in text and "$(uname" not in text
    assert all("x86_64" not in name for name in HDK_NAME.findall(text))
    fixes = remediations(scenario("no-driver"))  # a bare x86_64 machine
    assert "$(uname" not in fixes and not [n for n in HDK_NAME.findall(fixes) if "x86_64" in n]


def test_review_row_7() -> None:
    """Both install orders are printed; --driver keeps the driver (no "install the driver" step)."""
    plan = plan_json("--chip", "910B3", "--engine", "vllm-ascend", "--arch", "aarch64")
    hdk = plan["steps"][0]["commands"]
    driver = next(i for i, c in enumerate(hdk) if "npu-driver_" in c)
    firmware = next(i for i, c in enumerate(hdk) if "npu-firmware_" in c or "firmware of HDK" in c)
    upgrade = next(i for i, c in enumerate(hdk) if c.startswith("# upgrade"))
    assert driver < firmware < upgrade  # first install: driver -> firmware
    later = hdk[upgrade:]
    assert next(i for i, c in enumerate(later) if "firmware" in c and not c.startswith("# upgrade")) < \
        next(i for i, c in enumerate(later) if "npu-driver_" in c)  # upgrade: firmware -> driver
    assert hdk.count("reboot") == 2  # one reboot per path
    kept = plan_json("--chip", "910B3", "--engine", "vllm-ascend", "--driver", "24.1.rc3")
    assert kept["steps"][0]["title"].startswith("Keep the installed HDK")
    assert not any("npu-driver_" in c for c in commands(kept))


def test_review_row_8() -> None:
    """matrix plan for MindIE chose Python 3.13; MindIE needs Python 3.10/3.11."""
    for extra in ((), ("--driver", "24.1.rc3")):
        plan = plan_json("--chip", "910B3", "--engine", "mindie", *extra)
        assert plan["versions"]["python"] in ("3.10", "3.11")
        assert any("MindIE" in n and "Python 3.10-3.11" in n for n in plan["notes"])
    pinned = plan_json("--chip", "910B3", "--engine", "mindie", "--driver", "24.1.rc3", "--version", "2.1.RC1")
    # MindIE 2.1.RC1 ships packages for torch 2.1.0 (abi0) and 2.6.0 (abi1): the newer, not PTA 7.1.0's 2.5.1
    assert pinned["versions"]["torch"] == "2.6.0" and pinned["versions"]["torch_npu"] == "2.6.0"
    assert pinned["versions"]["python"] == "3.11"  # the MindIE images are -py311-


def test_review_row_9() -> None:
    """310P: the -310p image (or a 310P build), never the A2 wheel/image; serve in float16."""
    plan = plan_json("--chip", "310P3", "--engine", "vllm-ascend")
    engine = plan["steps"][-1]
    text = "\n".join(engine["commands"])
    assert "quay.io/ascend/vllm-ascend:v0.23.0-310p" in text and "--dtype float16" in text
    assert "SOC_VERSION=ascend310p1" in text
    assert not any(c.startswith("pip install") and "vllm-ascend==" in c for c in engine["commands"])
    assert "300I Duo" in (engine.get("note") or "")


def test_review_row_10() -> None:
    """`--chip A3` is accepted; the plan uses the -a3 image and A3 names; A3 + 24.1.rc3 firmware is unknown."""
    plan = plan_json("--chip", "A3", "--engine", "vllm-ascend", "--driver", "24.1.rc3")
    assert plan["family"] == "A3" and "firmware" not in plan["versions"]
    assert any("A3 firmware of HDK 24.1.rc3 is not recorded" in n for n in plan["notes"])
    assert any(re.search(r"vllm-ascend:v[0-9.a-z]+-a3$", c) for c in commands(plan))
    for name in ("Ascend910", "910_9392", "Ascend910_9392", "Ascend910_93xx", "910C1", "910C"):
        assert plan_json("--chip", name, "--engine", "vllm-ascend")["family"] == "A3", name
    unpinned = plan_json("--chip", "A3", "--engine", "vllm-ascend")
    assert "7.5.0.1.129" not in json.dumps(unpinned)  # never an A2 firmware number on an A3


def test_review_row_11() -> None:
    """ENG-002 said `pip install torch==2.6.0` in an env with torch_npu 2.5.1.post1 and vllm-ascend 0.9.1."""
    found = [r for r in scenario("both-engines", "ASC-ENG-002") if r["status"] == "FAIL" and "torch" in r["message"]]
    assert found
    for result in found:
        fix = result["remediation"]
        # second review P9: no torch is changed under one of two engines; each gets its own environment
        assert "pip install" not in fix and "own environment" in fix


def test_review_row_12() -> None:
    """`pip install torch-npu==2.7.1.dev20250724` is not on PyPI: say where it is."""
    data = json.loads(cli("check", "--from", str(FIXTURES / "atb-abi-mismatch"), "--format", "json").stdout)
    found = [r for r in data["results"] if r["id"] == "ASC-ENG-002" and "torch_npu" in r["message"]
             and r["status"] == "FAIL"]
    assert found and "Fix plan step" in found[0]["remediation"]
    step = next(s for s in data["fix_plan"] if any("torch-npu==2.7.1.dev20250724" in c for c in s["commands"]))
    line = next(c for c in step["commands"] if "torch-npu==2.7.1.dev20250724" in c)
    # second review P5: dev builds come from the Huawei mirror, not the PyTorch CPU index
    assert "--extra-index-url https://mirrors.huaweicloud.com/ascend/repos/pypi" in line and "torch==2.7.1" in line
    assert any("not on PyPI" in c for c in step["commands"])


def test_review_row_14() -> None:
    """plan on 310P defaulted to bf16; 310P has no BF16: fp16 by default, bf16 "not loadable"."""
    result = cli("plan", "--model", "DeepSeek-R1-Distill-Qwen-7B", "--chip", "310P3", "--format", "json")
    data = json.loads(result.stdout)
    assert data["plan"]["precision"] == "fp16"
    assert "bf16" in data["not_loadable"] and any("no BF16" in n for n in data["notes"])
    text = cli("plan", "--model", "DeepSeek-R1-Distill-Qwen-7B", "--chip", "310P3").stdout
    assert re.search(r"bf16 .*not loadable on 310P3", text)


def test_review_row_15() -> None:
    """A KV-bound batch is not "does not fit on up to 128 cards": the weights need N cards, K sequences fit."""
    mdl = [r for r in scenario("dotted-weight-path", "ASC-MDL-020")]
    assert mdl and "up to 128" not in mdl[0]["remediation"]
    assert "32 x 910B4 for the weights" in mdl[0]["remediation"]
    # review 2 row 6: `plan` now tries attention DP, so 200 x 2560 fits on 64 cards (TP x DP); a batch no
    # layout up to 128 cards holds still gets "the weights need N cards, K sequences fit"
    result = cli("plan", "--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B4", "--batch", "5000",
                 "--max-seq-len", "2560")
    assert "the weights need 32 card(s)" in result.stdout and "37 of the 5000" in result.stdout


def test_review_row_16() -> None:
    """BF16 R1/V3 needs 32 x 910B3 (a sensible layout), not the 64 of the seed's DP replication."""
    mdl = scenario("seed-fp8-671b-config", "ASC-MDL-020")
    fix = mdl[0]["remediation"]
    assert "BF16 (fp8_cast_bf16.py) needs 32 x 910B3" in fix and "64 x" not in fix


def _kernels_host(tmp: Path, smi_sample: str) -> Path:
    """kernels-wrong-chip (A2 kernels in CANN 8.2.RC1) with another machine's npu-smi output."""
    dest = tmp / "snap"
    shutil.copytree(FIXTURES / "kernels-wrong-chip", dest, symlinks=True)
    (dest / "commands" / "npu-smi_info.out").write_text(sample_body(smi_sample), encoding="utf-8")
    return dest


def test_review_row_22(tmp_path: Path, m: Matrix) -> None:
    """A 910A host was told to use the -910b image; the first-generation 910 is the 910 flavour, and
    vLLM-Ascend does not support it."""
    snap = _kernels_host(tmp_path, "npu-smi-info/br-ai-ns-ascend-utils-atlas800-3010-2x910A-21.0.2-no-hugepages.txt")
    report = run_checks(SnapshotHost(str(snap)), m, RunOptions(select=("ASC-OPS-002",)))
    result = next(r for r in report.results if r.id == "ASC-OPS-002")
    assert result.status is Status.FAIL
    # the finding points at the plan; the plan installs the 910 flavour's kernels and says the engine
    # (vLLM-Ascend) cannot run on the 910 at all
    steps = [s for s in report.fix_plan if "ASC-OPS-002" in s.fixes]
    assert steps and result.remediation.startswith(f"Fix plan step {steps[0].order}")
    text = "\n".join(c for s in report.fix_plan for c in s.commands) + " ".join(s.why for s in report.fix_plan)
    assert "-910b" not in text and "Ascend-cann-kernels-910_8.2.RC1_linux-aarch64.run" in text
    assert "vLLM-Ascend does not support 910" in text


def test_review_row_23(tmp_path: Path, m: Matrix) -> None:
    """PY-002 printed two alternatives as if they were steps; the second is now marked "or"."""
    toolkit = sample_body("version-files/vllm-ascend-198-ascend_toolkit_install-8.0.0.txt")
    toolkit = re.sub(r"(?m)^version=.*$", "version=8.0.RC3", toolkit)
    home = "/usr/local/Ascend/ascend-toolkit/8.0.RC3"
    snap = _kernels_host(tmp_path, "npu-smi-info/vllm-ascend-6509-8x910B2-25.5.0.txt")
    shutil.rmtree(snap / "files/usr/local/Ascend/ascend-toolkit")
    (snap / "files" / home.lstrip("/") / "aarch64-linux").mkdir(parents=True)
    (snap / "files" / home.lstrip("/") / "aarch64-linux/ascend_toolkit_install.info").write_text(toolkit)
    (snap / "files/usr/local/Ascend/ascend-toolkit/latest").symlink_to("8.0.RC3")
    python = json.loads((snap / "python.json").read_text())
    python["packages"] = {"torch": "2.1.0", "torch-npu": "2.4.0.post2"}
    (snap / "python.json").write_text(json.dumps(python))
    report = run_checks(SnapshotHost(str(snap)), m, RunOptions(select=("ASC-PY-002",)))
    result = next(r for r in report.results if r.id == "ASC-PY-002")
    assert result.status is Status.FAIL
    # one decision in the plan (issue 21): one torch step, torch always with its torch_npu, and the
    # finding points at it instead of listing alternatives as if they were steps
    steps = [s for s in report.fix_plan if any("torch==" in c for c in s.commands)]
    assert len(steps) == 1 and result.remediation.startswith(f"Fix plan step {steps[0].order}")
    pip = [c for c in steps[0].commands if c.startswith("pip install")]
    assert len(pip) == 1 and "torch-npu==" in pip[0]
    assert not any(line.strip() == "pip install torch==2.4.0" for line in steps[0].commands)


def test_review_row_27() -> None:
    """x86 torch needs the PyTorch CPU index; newer vllm-ascend wheels the Ascend variant index."""
    plan = plan_json("--chip", "910B3", "--engine", "vllm-ascend", "--arch", "x86_64")
    text = commands(plan)
    torch = next(c for c in text if "torch-npu==" in c)
    assert torch == ("pip install --extra-index-url https://download.pytorch.org/whl/cpu/ torch==2.10.0 "
                     "torch-npu==2.10.0.post4")
    assert ("pip install --extra-index-url https://mirrors.huaweicloud.com/ascend/repos/pypi/variant "
            "vllm-ascend==0.23.0") in text


def test_review_row_28(m: Matrix) -> None:
    """The A3 ops package is Ascend-cann-A3-ops (capital A3)."""
    pk = m.packages("A3", "aarch64")
    assert pk is not None and pk.kernels("8.5.0") == "Ascend-cann-A3-ops_8.5.0_linux-aarch64.run"
    shown = json.loads(cli("matrix", "show", "chips", "--format", "json").stdout)
    a3 = next(f for f in shown["sections"]["chip_families"] if f["family"] == "A3")
    assert a3["kernels_package"]["ops"] == "Ascend-cann-A3-ops_{cann}_linux-{arch}.run"


def test_review_row_30() -> None:
    """A5 driver packages are Atlas-A5-hdk-npu-*."""
    fixes = remediations(scenario("a5-device-warning", "ASC-DRV", "ASC-FW", "ASC-MIX"))
    assert "Ascend-hdk-<chip>" not in fixes and "Ascend-hdk-910b" not in fixes
    names = HDK_NAME.findall(fixes)
    assert all(n.startswith("Atlas-A5-hdk-npu-") for n in names), names


def test_review_row_33() -> None:
    """MindIE states Python 3.10.x/3.11.x: ENG-002 gives a verdict (PASS on 3.10.15), not "unknown"."""
    results = scenario("mindie-second-instance", "ASC-ENG-002")
    python = next(r for r in results if "/ python" in r["message"])
    assert python["status"] == "PASS" and "3.10-3.11" in python["message"]


# -- §3 ---------------------------------------------------------------------------------------

def _answers(m: Matrix, **query: str) -> List[Any]:
    from ascend_doctor.matrix.lookup import lookup

    return [a for r in lookup(m, **query) for a in r.answers]


def test_review_M1(m: Matrix) -> None:
    """Co-existence lists are not compatibility statements."""
    for cann, driver in (("8.0.RC3", "25.1.RC1"), ("8.1.RC1", "1.0.RC1"), ("8.1.RC1", "26.0.RC1")):
        verdict = m.cann_vs_driver(cann, driver)
        assert verdict.kind is VerdictKind.UNKNOWN, (cann, driver, verdict)
    for a in _answers(m, cann="8.0.RC3"):
        if a.component == "driver" and a.version in ("25.1.RC1", "1.0.RC1", "26.0.RC1"):
            assert a.verdict.kind is VerdictKind.UNKNOWN


def test_review_M2(m: Matrix) -> None:
    """CANN 8.5.0's official HDK list wins over co-listing; 1.0.RC1 is another numbering."""
    v = m.cann_vs_driver("8.5.0", "25.1.RC1")
    assert v.kind is VerdictKind.UNKNOWN and "not in CANN 8.5.0's official HDK list" in v.message
    atlas350 = m.cann_vs_driver("8.5.0", "1.0.RC1")
    assert atlas350.kind is VerdictKind.UNKNOWN and "Atlas 350" in atlas350.message


def test_review_M3(m: Matrix) -> None:
    """MindIE 2.1.RC1 with torch_npu 2.5.1.post1 is not "recommended" (MindIE ships torch 2.1.0/2.6.0 packages)."""
    answer = next(a for a in _answers(m, mindie="2.1.RC1") if a.component == "torch_npu"
                  and a.version.startswith("2.5.1.post1"))
    assert answer.verdict.kind is VerdictKind.INCOMPATIBLE
    assert m.engine_vs_stack("mindie", "2.1.RC1", torch_npu="2.5.1.post1")[0][1].kind is VerdictKind.INCOMPATIBLE
    ok = next(a for a in _answers(m, mindie="2.1.RC1") if a.component == "torch_npu" and a.version.startswith("2.6.0"))
    assert ok.verdict.kind is VerdictKind.RECOMMENDED


def test_review_M4(m: Matrix) -> None:
    """MindIE 2.1.RC1: Python 3.10/3.11 and its image."""
    from ascend_doctor.matrix.lookup import lookup

    result = lookup(m, mindie="2.1.RC1")[0]
    python = next(a for a in result.answers if a.component == "python")
    assert python.version == "3.10-3.11"
    image = "swr.cn-south-1.myhuaweicloud.com/ascendhub/mindie:2.1.RC1-800I-A2-py311-openeuler24.03-lts"
    assert ("image (A2)", image) in result.facts


def test_review_M5(m: Matrix) -> None:
    """24.1.RC1 is cited with C17 (release-code alignment), not the uncertain doc example's C15."""
    verdict = m.cann_vs_driver("8.0.RC3", "24.1.RC1")
    assert "V100R001C17" in verdict.message and "C15)" not in verdict.message


def test_review_M6(m: Matrix) -> None:
    """An uncertain statement is shown as uncertain and graded WARN, not PASS."""
    verdict = m.torch_npu_vs_cann("2.8.0", "8.0.RC3")
    assert verdict.kind is VerdictKind.COMPATIBLE and verdict.uncertain
    assert verdict.label == "compatible (uncertain)" and verdict.to_dict()["uncertain"] is True
    from ascend_doctor.checks._support import verdict_finding

    finding = verdict_finding(verdict, "torch_npu 2.8.0 with CANN 8.0.RC3", "pip install …")
    assert finding.status is Status.WARN
    text = cli("matrix", "lookup", "--cann", "8.0.RC3").stdout
    assert "compatible (uncertain)" in text


def test_review_M7(m: Matrix) -> None:
    """CANN 8.1.RC1 has one recommended driver (25.0.RC1, installer); 24.1.RC2 only "works" (quick-install)."""
    drivers = {a.version: a.verdict for a in _answers(m, cann="8.1.RC1") if a.component == "driver"}
    assert drivers["25.0.RC1"].kind is VerdictKind.RECOMMENDED
    assert drivers["24.1.RC2"].kind is VerdictKind.COMPATIBLE and drivers["24.1.RC2"].message.startswith("works:")


def test_review_M8(m: Matrix) -> None:
    """--driver 24.1.rc3: every row stays "compatible (inferred)", and the CANN of the same release
    code (C19: CANN 8.0.RC3) is named as the natural pair, as an inference."""
    from ascend_doctor.matrix.lookup import lookup

    result = lookup(m, driver="24.1.rc3")[0]
    assert next(v for k, v in result.facts if k == "same release code").startswith("V100R001C19: CANN 8.0.RC3")
    assert not any(a.verdict.kind is VerdictKind.RECOMMENDED for a in result.answers if a.component == "cann")


def test_review_M10(m: Matrix) -> None:
    """Correct in 0.1.0 and kept: 25.0.rc1.1 -> CANN 8.5.0/8.5.1 compatible, 8.1.RC1 recommended,
    firmware 7.7.0.1.231."""
    answers = _answers(m, driver="25.0.rc1.1")
    cann = {a.version: a.verdict.kind for a in answers if a.component == "cann"}
    assert cann["8.5.0"] is VerdictKind.COMPATIBLE and cann["8.5.1"] is VerdictKind.COMPATIBLE
    assert cann["8.1.RC1"] is VerdictKind.RECOMMENDED
    assert any(a.component == "firmware" and a.version == "7.7.0.1.231" for a in answers)


def test_review_M11(m: Matrix) -> None:
    """Correct in 0.1.0 and kept: torch_npu 2.5.1 -> torch 2.5.1, CANN 8.1.RC1, Python 3.9-3.11."""
    answers = {a.component: a.version for a in _answers(m, torch_npu="2.5.1")
               if a.verdict.kind is not VerdictKind.COMPATIBLE or a.component == "python"}
    assert answers["torch"] == "2.5.1" and answers["cann"] == "8.1.RC1" and answers["python"] == "3.9-3.11"
    old = {a.component: a.version for a in _answers(m, torch_npu="2.1.0.post8")}
    assert old["torch"] == "2.1.0" and old["cann"] == "8.0.RC3" and old["python"] == "3.8-3.11"


def test_review_M9(m: Matrix) -> None:
    """CANN 8.2.RC1 with driver 24.1.rc3 comes from MindIE 2.1.RC1's list, not a CANN release note."""
    verdict = m.cann_vs_driver("8.2.RC1", "24.1.rc3")
    assert verdict.message.startswith("MindIE 2.1.RC1's release note lists CANN 8.2.RC1")


def test_review_M12(m: Matrix) -> None:
    """vLLM-Ascend v0.9.1: the -a3/-310p images and the lowest documented HDK."""
    from ascend_doctor.matrix.lookup import lookup

    facts = dict(lookup(m, vllm_ascend="v0.9.1")[0].facts)
    assert facts["release image (A3)"] == "quay.io/ascend/vllm-ascend:v0.9.1-a3"
    assert facts["release image (310P)"] == "quay.io/ascend/vllm-ascend:v0.9.1-310p"
    assert facts["lowest HDK documented with CANN 8.2.RC1"].startswith("24.1.RC2")


def test_review_M13(m: Matrix) -> None:
    """MindIE on the 300I Duo is official (MindIE install guide), not a field report."""
    info = m.chip("310P3")
    assert info is not None
    mindie = info.engines["mindie"]
    assert mindie.support == "supported" and any("hiascend.com" in s and "mindie" in s for s in mindie.source)
    assert not any("seed" in s for s in mindie.source)
    assert not any("seed" in s for s in info.dtypes["bf16"].source)  # the seed's "模拟路径" claim is gone


def test_review_M14() -> None:
    """The 910B3 vllm-ascend plan: versions right; no $(uname -m); both orders; indexes."""
    result = cli("matrix", "plan", "--chip", "910B3", "--engine", "vllm-ascend")
    assert result.exit_code == 0
    assert "$(uname" not in result.stdout
    assert "# first install" in result.stdout and "# upgrade" in result.stdout
    assert "./Ascend-hdk-910b-npu-driver_26.1.0_linux-aarch64.run --full --install-for-all" in result.stdout
    assert "./Ascend-hdk-910b-npu-driver_26.1.0_linux-x86-64.run --full --install-for-all" in result.stdout
    assert "ascend/repos/pypi/variant vllm-ascend==0.23.0" in result.stdout


def test_review_M15() -> None:
    """The MindIE plan: Python 3.11, MindIE's torch, env scripts, 640/750 permissions, image route."""
    plan = plan_json("--chip", "910B3", "--engine", "mindie", "--driver", "24.1.rc3", "--version", "2.1.RC1")
    step = plan["steps"][-1]
    text = "\n".join(step["commands"])
    assert "source /usr/local/Ascend/mindie/set_env.sh" in text
    assert "source /usr/local/Ascend/atb-models/set_env.sh" in text
    assert "chmod 640" in text and "chmod 750" in text and "640" in step["note"]
    assert "docker pull swr.cn-south-1.myhuaweicloud.com/ascendhub/mindie:2.1.RC1-800I-A2-py311" in text
    assert plan["versions"]["python"] == "3.11"


def test_review_M16() -> None:
    """= row 9: the 310P plan never uses the A2 wheel or image."""
    plan = plan_json("--chip", "310P3", "--engine", "vllm-ascend")
    assert not any(re.search(r"vllm-ascend:v[0-9.a-z]+$", c) for c in commands(plan))


def test_review_M17() -> None:
    """= row 10: `matrix plan --chip A3` is not "unknown chip"; every command takes every chip name."""
    for name in ("A3", "Ascend910_93xx", "910C1"):
        assert cli("matrix", "plan", "--chip", name, "--engine", "vllm-ascend").exit_code == 0
        assert cli("matrix", "lookup", "--chip", name).exit_code == 0
        assert "is not a chip name" not in cli("matrix", "lookup", "--chip", name).stdout
        assert cli("plan", "--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", name, "--cards", "16"
                   ).exit_code in (0, 1)


def test_samples_used_here_exist() -> None:
    assert (SAMPLES / "npu-smi-info/vllm-ascend-6509-8x910B2-25.5.0.txt").is_file()


ALL_SCENARIOS = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file())


@pytest.mark.parametrize("name", ALL_SCENARIOS)
def test_no_fixture_prints_a_made_up_package_name(name: str) -> None:
    """Rows 1, 2, 28, 30 over every fixture: no `$(uname -m)` inside a file name, no HDK driver file
    spelled x86_64, no <chip> placeholder in an HDK name, no 910b HDK on an A3, no lower-case A3 ops."""
    results = scenario(name)
    text = remediations(results)
    assert "$(uname" not in text
    assert not [n for n in HDK_NAME.findall(text) if "x86_64" in n]
    assert "Ascend-hdk-<chip>" not in text and "Ascend-cann-a3-ops" not in text
    host = json.loads((FIXTURES / name / "snapshot.json").read_text(encoding="utf-8"))
    smi = FIXTURES / name / "commands" / "npu-smi_info.out"
    if smi.is_file() and "Ascend910 " in smi.read_text(encoding="utf-8", errors="replace"):
        assert "Ascend-hdk-910b" not in text, (name, host.get("arch"))
