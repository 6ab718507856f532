"""The CLI contract: help with examples, one-line errors, exit codes, JSON on stdout, -o FILE."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from ascend_doctor.cli import SUBCOMMANDS, main
from ascend_doctor.registry import all_checks

from .clirunner import make_runner
from .report_schema import validate_report

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
HEALTHY = FIXTURES / "healthy-8x910B3"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False)


def test_version_names_tool_and_matrix() -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith("ascend-doctor ") and "compatibility matrix" in result.stdout


@pytest.mark.parametrize("command", sorted(SUBCOMMANDS))
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0, result.output
    assert "ascend-doctor " in result.stdout and "xample" in result.stdout, result.stdout


def _leaf_commands() -> list:
    """Every runnable command path, nested groups included (matrix show, model verify...)."""
    import click

    paths = []
    for name in sorted(SUBCOMMANDS):
        command = main.get_command(None, name)  # type: ignore[arg-type]
        if isinstance(command, click.Group):
            paths.extend([name, sub] for sub in sorted(command.commands))
        else:
            paths.append([name])
    return paths


@pytest.mark.parametrize("path", _leaf_commands(), ids=lambda p: " ".join(p))
def test_every_nested_command_has_help_with_an_example(path: list) -> None:
    result = invoke(*path, "--help")
    assert result.exit_code == 0, result.output
    assert "ascend-doctor " in result.stdout and "xample" in result.stdout, result.stdout


def test_checks_lists_the_catalogue_and_explain_prints_docs() -> None:
    listing = invoke("checks")
    assert listing.exit_code == 0
    for check in all_checks():
        assert check.spec.id in listing.stdout
    data = json.loads(invoke("checks", "--format", "json").stdout)
    assert {c["id"] for c in data} == {c.spec.id for c in all_checks()}
    explained = invoke("explain", "asc-drv-001")
    assert explained.exit_code == 0
    for section in ("What it checks", "Why it matters", "How to fix"):
        assert section in explained.stdout


def test_explain_unknown_id_is_one_line_and_exit_2() -> None:
    result = invoke("explain", "ASC-NOPE-999")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "no check with id" in result.stderr


def test_check_json_goes_to_stdout_and_validates() -> None:
    result = invoke("check", "--from", str(HEALTHY), "--format", "json")
    report = json.loads(result.stdout)
    validate_report(report)
    assert result.exit_code == report["exit_code"] == 0
    assert report["matrix"]["version"] and report["matrix"]["origin"]
    assert report["facts"]["driver_version"] == "23.0.7"
    assert len(report["facts"]["devices"]) == 8


def test_check_output_file(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    result = invoke("check", "--from", str(HEALTHY), "--format", "json", "-o", str(out))
    assert result.stdout == ""
    validate_report(json.loads(out.read_text()))
    text_out = tmp_path / "report.txt"
    invoke("check", "--from", str(HEALTHY), "-o", str(text_out))
    assert "\x1b[" not in text_out.read_text() and "Summary:" in text_out.read_text()


def test_check_from_tarball(tmp_path: Path) -> None:
    archive = tmp_path / "snap.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(HEALTHY, arcname="snap")
    result = invoke("check", "--from", str(archive), "--format", "json")
    assert json.loads(result.stdout)["facts"]["driver_version"] == "23.0.7"


def test_missing_snapshot_is_exit_3_one_line(tmp_path: Path) -> None:
    result = invoke("check", "--from", str(tmp_path / "nope"))
    assert result.exit_code == 3
    assert result.stderr.startswith("ascend-doctor: error:") and result.stderr.count("\n") == 1


def test_garbage_snapshot_is_exit_3(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(b"\x00garbage" * 100)
    result = invoke("check", "--from", str(bad))
    assert result.exit_code == 3 and "error" in result.stderr


def test_fail_on_warn_and_select(tmp_path: Path) -> None:
    scenario = FIXTURES / "cann-newer-than-driver"
    # ASC-MIX-003 warns there: driver (HDK 24.1) and firmware (HDK 25.0) from different releases
    only = invoke("check", "--from", str(scenario), "--select", "ASC-MIX-003", "--format", "json")
    report = json.loads(only.stdout)
    assert {r["id"]: r["status"] for r in report["results"]} == {"ASC-MIX-003": "WARN"}
    assert only.exit_code == 0  # a WARN alone passes by default
    strict = invoke("check", "--from", str(scenario), "--select", "ASC-MIX-003", "--fail-on", "warn")
    assert strict.exit_code == 1


def test_usage_error_is_exit_2() -> None:
    assert invoke("check", "--fail-on", "sometimes").exit_code == 2
    assert invoke("check", "--verify", "m.json").exit_code == 2


def test_text_report_never_interprets_tool_output_as_markup() -> None:
    from ascend_doctor.checkapi import Status
    from ascend_doctor.render.text import report_to_text
    from ascend_doctor.report import Report, Result

    report = Report("0", {"version": "m", "origin": "shipped"}, {"source": "live", "hostname": "h"}, {},
                    [Result("ASC-SMI-001", "t", Status.FAIL, "npu-smi said [bold red]x[/] \x1b[31mred", "fix [it]")])
    text = report_to_text(report)
    assert "[bold red]x[/]" in text and "fix [it]" in text and "\x1b[31m" not in text


def test_weight_path_of_a_launch_line_gets_the_model_checks(tmp_path: Path) -> None:
    model = tmp_path / "DeepSeek-R1-Distill-Qwen-7B"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}))
    result = invoke("check", "--select", "ASC-MDL-007", "--vllm-args", f"vllm serve {model} --tensor-parallel-size 1",
                    "--format", "json")
    report = json.loads(result.stdout)
    statuses = {r["id"]: r["status"] for r in report["results"]}
    assert statuses["ASC-MDL-007"] != "SKIP", report["results"]
