"""The gate an install script relies on cannot pass by mistake: a typo in --select/--ignore, a run
in which nothing was verified, a mistyped --python or a model name given as --model.

Rows refer to ../shared/research/hostile_inputs.md (§3b M-ids).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_doctor.cli import main
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.registry import all_checks, closest_ids, unmatched_prefixes

from .clirunner import make_runner

REPO = Path(__file__).resolve().parent.parent
HEALTHY = REPO / "fixtures" / "healthy-8x910B3"
README = REPO / "README.md"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("option, value, suggestion", [
    ("--select", "ASC-DRIVER", "ASC-DRV"),
    ("--select", "DRV", "ASC-DRV"),
    ("--select", "ASC-CNN", "ASC-CANN"),
    ("--ignore", "ASC-DRIVER", "ASC-DRV"),
    ("--select", "ASC-DRV,ASC-CANNN", "ASC-CANN"),
])
def test_row_M17_select_typo_is_a_usage_error_naming_the_closest_ids(option: str, value: str,
                                                                      suggestion: str) -> None:
    result = invoke("check", "--from", str(HEALTHY), option, value)
    assert result.exit_code == ExitCode.USAGE, result.output
    assert "matches no check" in result.output and suggestion in result.output
    assert "Summary" not in result.output  # nothing was run


def test_row_M18_ignore_everything_is_a_usage_error() -> None:
    result = invoke("check", "--from", str(HEALTHY), "--ignore", "ASC", "--format", "json")
    assert result.exit_code == ExitCode.USAGE
    assert "leave no check to run" in result.output


def test_valid_prefixes_still_select() -> None:
    ids = [c.spec.id for c in all_checks()]
    assert unmatched_prefixes(["ASC-DRV", "asc-cann-002"], ids) == []
    assert unmatched_prefixes(["ASC-DRIVER"], ids) == ["ASC-DRIVER"]
    assert "ASC-DRV" in closest_ids("ASC-DRVV", ids)
    result = invoke("check", "--from", str(HEALTHY), "--select", "ASC-DRV,ASC-CANN", "--format", "json")
    assert result.exit_code == 0
    assert {r["id"].rsplit("-", 1)[0] for r in json.loads(result.stdout)["results"]} <= {"ASC-DRV", "ASC-CANN"}


def test_every_check_skipped_is_not_ready_and_says_so() -> None:
    # No --model given: every model check SKIPs, nothing is verified.
    result = invoke("check", "--from", str(HEALTHY), "--select", "ASC-MDL", "--format", "json")
    report = json.loads(result.stdout)
    assert {r["status"] for r in report["results"]} == {"SKIP"}
    assert result.exit_code == ExitCode.INCOMPLETE == report["exit_code"]
    assert any("nothing was verified" in note for note in report["notes"])
    text = invoke("check", "--from", str(HEALTHY), "--select", "ASC-MDL")
    assert text.exit_code == ExitCode.INCOMPLETE and "nothing was verified" in text.output
    assert "(exit code 3)" in text.output


def test_all_skipped_exit_code_is_documented() -> None:
    help_text = invoke("check", "--help").stdout
    assert "every check was SKIP" in help_text and "130" in help_text and "143" in help_text
    readme = README.read_text(encoding="utf-8")
    table = readme[readme.index("## Exit codes"):]
    assert "every selected check was SKIP" in table and "| 130 |" in table and "| 143 |" in table


def test_row_M19_mistyped_python_is_one_line() -> None:
    result = invoke("check", "--python", "/nonexistent/python", "--select", "ASC-PY-001")
    assert result.exit_code == ExitCode.USAGE
    assert "no such interpreter: /nonexistent/python" in result.output
    assert len(result.output.splitlines()) <= 4 and "import" not in result.output  # no probe source


def test_row_M19_probe_failure_never_quotes_the_probe_source(tmp_path: Path) -> None:
    from ascend_doctor.host.live import LiveHost

    broken = tmp_path / "python"
    broken.write_text("#!/bin/sh\necho 'boom' >&2\nexit 3\n")
    broken.chmod(0o755)
    env = LiveHost(python=str(broken)).python_env()
    assert env.error is not None and "\n" not in env.error
    assert "<probe>" in env.error and "def " not in env.error and len(env.error) < 300


def test_row_M20_builtin_model_name_as_check_model_is_a_usage_error() -> None:
    for args in (("check", "--model", "DeepSeek-R1"),
                 ("check", "--from", str(HEALTHY), "--model", "DeepSeek-R1", "--select", "ASC-MDL")):
        result = invoke(*args)
        assert result.exit_code == ExitCode.USAGE, result.output
        assert "plan --model" in result.output and "folder" in result.output


def test_row_M20_a_folder_is_still_accepted(tmp_path: Path) -> None:
    folder = tmp_path / "DeepSeek-R1"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    result = invoke("check", "--from", str(HEALTHY), "--model", "/data/models/DeepSeek-R1", "--select", "ASC-MDL-001")
    assert result.exit_code != ExitCode.USAGE
