"""`ascend-doctor diagnose FILE|-`: outputs, exit codes and unreadable input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ascend_doctor.cli import main

from .clirunner import make_runner

SAMPLES = Path(__file__).resolve().parent / "samples" / "dmesg-and-logs"


def body(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8").partition("\n# ---\n")[2]


def invoke(*args: str, stdin: str | bytes | None = None):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, ["diagnose", *args], input=stdin, catch_exceptions=False)


@pytest.fixture()
def ticket(tmp_path: Path) -> Path:
    path = tmp_path / "ticket.txt"
    path.write_text(body("vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt"), encoding="utf-8")
    return path


def test_text_report(ticket: Path) -> None:
    result = invoke(str(ticket))
    assert result.exit_code == 1
    out = result.stdout
    assert "1. Driver: device memory allocation failed (EL0004)  [SIG-DRV-EL0004, driver]" in out
    assert "line 5: EL0004: [PID: 3132] 2025-10-15-16:32:16.417.528 Failed to allocate memory." in out
    assert "Likely causes:" in out and "Check next:" in out and "Fix:" in out
    assert "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True" in out
    assert "secondary symptom: see SIG-DRV-EL0004" in out
    assert out.index("SIG-DRV-EL0004") < out.index("SIG-DEV-SDMA-SMMU-TERMINATE") < out.index("SIG-PTA-ERR00100")
    assert "\x1b[" not in out  # no colours when not a terminal


def test_log_text_is_never_rich_markup(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    path.write_text("[bold red]EL0004[/bold red] [link=http://x]y[/link] :smile:\n", encoding="utf-8")
    result = invoke(str(path))
    assert result.exit_code == 1
    assert "line 1: [bold red]EL0004[/bold red] [link=http://x]y[/link] :smile:" in result.stdout


def test_json_report_from_stdin_json_escaped_paste() -> None:
    paste = json.dumps({"stderr": body("issue-mirror-hccl-EI0006-socket-timeout-allreduce.txt")})
    result = invoke("-", "--format", "json", stdin=paste)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["command"] == "diagnose" and report["input"] == "<stdin>" and report["exit_code"] == 1
    first = report["findings"][0]
    assert first["id"] == "SIG-HCCL-EI0006" and first["secondary_of"] is None
    assert first["line_text"].startswith("EI0006: [PID: 1292363]")
    assert first["causes"] and first["fix"] and first["source"]
    generic = [f for f in report["findings"] if f["generic"]]
    assert generic and all(f["secondary_of"] == "SIG-HCCL-EI0006" for f in generic)
    assert report["signatures"]["count"] >= 90 and report["notes"] == []


def test_output_file(ticket: Path, tmp_path: Path) -> None:
    out = tmp_path / "diag.json"
    result = invoke(str(ticket), "--format", "json", "-o", str(out))
    assert result.exit_code == 1 and result.stdout == ""
    assert json.loads(out.read_text(encoding="utf-8"))["findings"][0]["id"] == "SIG-DRV-EL0004"


def test_clean_log_exits_zero(tmp_path: Path) -> None:
    path = tmp_path / "install.log"
    path.write_text(body("blog-800IA2-driver-firmware-install-log.txt"), encoding="utf-8")
    result = invoke(str(path))
    assert result.exit_code == 0
    assert result.stdout.startswith("No known Ascend error signature in")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    result = invoke(str(path), "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["notes"] == ["the input is empty"]


def test_binary_input_gets_a_note(tmp_path: Path) -> None:
    path = tmp_path / "core"
    path.write_bytes(bytes(range(256)) * 400)
    result = invoke(str(path))
    assert result.exit_code == 0 and "NUL bytes" in result.stdout


def test_missing_file() -> None:
    result = invoke("/nonexistent/ticket.log")
    assert result.exit_code == 3
    assert "cannot read /nonexistent/ticket.log: no such file" in result.stderr
    assert "Traceback" not in result.output


def test_directory(tmp_path: Path) -> None:
    result = invoke(str(tmp_path))
    assert result.exit_code == 3 and "it is a directory" in result.stderr


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can read anything")
def test_permission_denied(tmp_path: Path) -> None:
    path = tmp_path / "secret.log"
    path.write_text("EL0004\n")
    path.chmod(0)
    result = invoke(str(path))
    assert result.exit_code == 3 and "permission denied" in result.stderr


def test_usage_errors_exit_two() -> None:
    assert invoke().exit_code == 2
    assert invoke("x", "--format", "xml").exit_code == 2


def test_help_documents_exit_codes() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    for line in ("0  no known signature found", "1  at least one signature found", "2  usage error",
                 "3  the input could not be read"):
        assert line in result.stdout


def test_only_generic_wrapper_is_shown_as_the_finding(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    head = body("ascend-pytorch-94-atb-LinearOperation-ERR99999.txt").split("RuntimeError")[0]
    tail = "[ERROR] 2025-12-18-11:35:06 (PID:1700, Device:0, RankID:-1) ERR99999 UNKNOWN applicaiton exception\n"
    path.write_text(head + tail, encoding="utf-8")
    result = invoke(str(path))
    assert result.exit_code == 1
    assert "1. torch_npu: unknown application exception (ERR99999)" in result.stdout
    assert "Secondary symptoms" not in result.stdout
