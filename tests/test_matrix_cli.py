"""``ascend-doctor matrix`` commands: output formats, exit codes, one-line errors, help examples."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest
from click.testing import Result

from ascend_doctor.cli import main
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.matrix.meta import shipped_matrix_path, shipped_matrix_version

from .clirunner import make_runner


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    monkeypatch.setenv("COLUMNS", "160")


def run(*args: str) -> Result:
    return make_runner().invoke(main, ["matrix", *args])


def header() -> str:
    date = re.search(r'^date: "([0-9-]+)"', Path(shipped_matrix_path()).read_text(encoding="utf-8"), re.M)
    assert date is not None
    return f"compatibility matrix {shipped_matrix_version()} ({date.group(1)}, shipped)"


def one_line_error(result: Result) -> str:
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("ascend-doctor: error: ")
    return result.stderr


@pytest.mark.parametrize("command", ["show", "lookup", "plan", "validate", "bundle", "update"])
def test_help_has_examples_and_exit_codes(command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout and f"ascend-doctor matrix {command}" in result.stdout
    assert "Exit codes:" in result.stdout and "--format" in result.stdout and "--output" in result.stdout


def test_show_overview_and_component() -> None:
    overview = run("show")
    assert overview.exit_code == 0
    assert overview.stdout.splitlines()[0] == header()
    assert "vllm-ascend" in overview.stdout and "hdk-cann" in overview.stdout
    table = run("show", "torch-npu")
    assert table.exit_code == 0 and "2.1.0.post8" in table.stdout and "v2.1.0-6.0.rc3" in table.stdout
    assert "[1] github.com/Ascend/pytorch COMPATIBILITY.en.md@9e73e70" in table.stdout


def test_show_json() -> None:
    result = run("show", "vllm_ascend", "--format", "json")
    data = json.loads(result.stdout)
    assert data["matrix"]["version"] == shipped_matrix_version() and data["matrix"]["origin"] == "shipped"
    rows = data["sections"]["vllm_ascend"]
    assert rows[0]["version"] == "0.23.0" and rows[0]["source"]
    assert re.search(r"vllm_ascend\.yaml:\d+$", rows[0]["where"])


def test_show_unknown_component() -> None:
    result = run("show", "kubernetes")
    assert result.exit_code == ExitCode.USAGE
    assert "unknown component" in one_line_error(result)


def test_lookup_cann_text() -> None:
    result = run("lookup", "--cann", "8.0.RC3")
    assert result.exit_code == 0
    out = result.stdout
    assert out.splitlines()[0] == header()
    assert "CANN 8.0.RC3" in out and "24.1.RC2" in out and "recommended" in out and "2.1.0.post8" in out
    assert "package_info.js" in out  # the source is printed


def test_lookup_json_answers_carry_verdicts_and_sources() -> None:
    result = run("lookup", "--torch-npu", "2.1.0.post8", "--format", "json")
    data = json.loads(result.stdout)
    assert data["matrix"]["origin"] == "shipped"
    answers = data["results"][0]["answers"]
    cann = [a for a in answers if a["component"] == "cann"]
    assert cann[0]["version"] == "8.0.RC3" and cann[0]["verdict"] == "recommended" and cann[0]["sources"]
    torch = [a for a in answers if a["component"] == "torch"]
    assert torch[0]["version"] == "2.1.0"


def test_lookup_each_option() -> None:
    for option, value, expected in (("--driver", "24.1.rc2", "8.0.RC3"), ("--vllm-ascend", "v0.9.1", "8.2.RC1"),
                                    ("--mindie", "2.1.RC1", "8.2.RC1"), ("--chip", "910B3", "A2")):
        result = run("lookup", option, value)
        assert result.exit_code == 0 and expected in result.stdout, (option, result.stdout[:500])


def test_lookup_unknown_and_usage() -> None:
    result = run("lookup", "--cann", "8.4.0")
    assert result.exit_code == 0 and "CANN 8.4.0 is not in the matrix" in result.stdout
    usage = run("lookup")
    assert usage.exit_code == ExitCode.USAGE and "give at least one of" in one_line_error(usage)


def test_plan_text_lists_versions_and_install_order() -> None:
    result = run("plan", "--chip", "910B3", "--engine", "vllm-ascend")
    assert result.exit_code == 0, result.output
    out = result.stdout
    titles = [m.group(1) for m in re.finditer(r"^\d+\. (.*)$", out, re.MULTILINE)]
    order = ["Install the NPU driver", "Install the CANN toolkit", "Install the operator package",
             "Install NNAL", "Use Python", "Install CANN's Python dependencies",
             "Install PyTorch 2.10.0 with torch_npu 2.10.0.post4", "Install vLLM"]
    assert [next(i for i, t in enumerate(titles) if t.startswith(o)) for o in order] == list(range(len(order)))
    assert "./Ascend-cann-toolkit_9.1.0_linux-aarch64.run --install" in out
    assert "./Ascend-cann-toolkit_9.1.0_linux-x86_64.run --install" in out
    assert "$(uname -m)" not in out
    assert "pip install torch==2.10.0 torch-npu==2.10.0.post4" in out


def test_plan_with_fixed_driver_json() -> None:
    result = run("plan", "--chip", "910B3", "--engine", "vllm-ascend", "--driver", "24.1.rc2", "--format", "json")
    assert result.exit_code == 0
    plan = json.loads(result.stdout)["plan"]
    assert plan["versions"]["driver"] == "24.1.rc2" and plan["versions"]["cann"] == "8.3.RC2"
    assert plan["versions"]["firmware"] == "7.3.0.1.231"
    assert all(p["verdict"] in ("recommended", "compatible") for p in plan["pairings"])
    assert plan["skipped"] and plan["fixed"] == {"driver": "24.1.rc2"}


def test_plan_errors() -> None:
    unknown_chip = run("plan", "--chip", "H100", "--engine", "vllm-ascend")
    assert unknown_chip.exit_code == ExitCode.USAGE and "unknown chip" in one_line_error(unknown_chip)
    unsupported = run("plan", "--chip", "310B1", "--engine", "vllm-ascend")
    assert unsupported.exit_code == ExitCode.FINDINGS and "does not support" in one_line_error(unsupported)
    no_fit = run("plan", "--chip", "910B3", "--engine", "vllm-ascend", "--driver", "20.0.0", "--python", "3.14")
    assert no_fit.exit_code == ExitCode.FINDINGS and "no vLLM-Ascend release fits" in one_line_error(no_fit)


def test_validate_shipped_and_defects(tmp_path: Path) -> None:
    ok = run("validate")
    assert ok.exit_code == 0 and ok.stdout.startswith(f"{shipped_matrix_path()}: OK — matrix ")
    bad = tmp_path / "bad.yaml"
    bad.write_text('schema_version: 1\nversion: "2026.1.1"\ndate: "2026-01-01"\n'
                   'hdk_releases:\n  - {version: "24.1.RC2"}\n', encoding="utf-8")
    result = run("validate", str(bad))
    assert result.exit_code == ExitCode.FINDINGS
    lines: List[str] = result.stdout.splitlines()
    assert f"{bad}:5 hdk_releases[0].source: missing required key (every entry needs a source)" in lines
    assert lines[-1].startswith(f"{bad}: ") and lines[-1].endswith("problems")
    data = json.loads(run("validate", str(bad), "--format", "json").stdout)
    assert data["files"][0]["valid"] is False
    assert {"file": str(bad), "line": 5, "path": "hdk_releases[0].source",
            "message": "missing required key (every entry needs a source)"} in data["files"][0]["problems"]


def test_bundle_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "bundle.yaml"
    result = run("bundle", "-o", str(out))
    assert result.exit_code == 0 and out.is_file()
    assert run("validate", "--bundle", str(out)).exit_code == 0
    assert run("validate", "--bundle", shipped_matrix_path()).exit_code == ExitCode.FINDINGS
    data = json.loads(run("bundle", "--format", "json").stdout)
    assert data["version"] == shipped_matrix_version() and len(data["sha256"]) == 64
    # the bundle answers exactly like the split matrix
    same = make_runner().invoke(main, ["matrix", "--matrix", str(out), "lookup", "--cann", "8.0.RC3", "--format",
                                     "json"])
    split = run("lookup", "--cann", "8.0.RC3", "--format", "json")
    assert json.loads(same.stdout)["results"] == json.loads(split.stdout)["results"]
    assert json.loads(same.stdout)["matrix"]["origin"] == f"file: {out}"


def test_matrix_option_with_invalid_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: [\n", encoding="utf-8")
    result = make_runner().invoke(main, ["matrix", "--matrix", str(bad), "show"])
    assert result.exit_code == ExitCode.FINDINGS
    err = one_line_error(result)
    assert "invalid compatibility matrix" in err and f"{bad}:" in err and "YAML syntax error" in err


def test_env_matrix_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "bundle.yaml"
    run("bundle", "-o", str(out))
    monkeypatch.setenv("ASCEND_DOCTOR_MATRIX", str(out))
    result = run("show")
    assert f"env ASCEND_DOCTOR_MATRIX: {out}" in result.stdout.splitlines()[0]


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "lookup.json"
    result = run("lookup", "--chip", "Ascend910", "--format", "json", "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    facts = {f["name"]: f["value"] for f in json.loads(out.read_text())["results"][0]["facts"]}
    assert facts["family"] == "A3"


def test_version_flag_does_not_import_yaml() -> None:
    code = ("import sys; from ascend_doctor.matrix.meta import shipped_matrix_version as v; "
            "print(v()); print('yaml' in sys.modules, 'ascend_doctor.matrix.model' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == [shipped_matrix_version(), "False", "False"]
