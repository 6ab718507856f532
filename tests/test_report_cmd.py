"""`ascend-doctor report render|diff`: reports from elsewhere, in any format, compared; bad input in one line."""

from __future__ import annotations

import copy
import gzip
import json
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest
from click.testing import Result

from ascend_doctor import reportio
from ascend_doctor.cli import main
from ascend_doctor.render.diff import render_diff
from ascend_doctor.reportdiff import diff_reports, is_regression
from ascend_doctor.reportio import report_from_dict

from .clirunner import make_runner
from .render_util import ROOT, downgrade_to_v1, every_status_report, report_dict, report_of
from .report_schema import validate_report

DIFF_SCHEMA = ROOT / "docs" / "report-diff-schema.json"


def invoke(*args: str, stdin: Any = None) -> Result:
    runner = make_runner()
    return runner.invoke(main, list(args), input=stdin, catch_exceptions=False)


def save(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def validate_diff(data: Dict[str, Any]) -> None:
    import jsonschema

    schema = json.loads(DIFF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    assert not errors, [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]]


def assert_one_line_error(result: Result, code: int, *words: str) -> None:
    assert result.exit_code == code, (result.exit_code, result.output)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("ascend-doctor: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, (word, result.stderr)


# -- render -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["healthy-8x910B3", "cann-newer-than-driver", "a3-server"])
@pytest.mark.parametrize("fmt,start", [("text", "ascend-doctor "), ("json", "{"), ("markdown", "# ascend-doctor"),
                                       ("junit", "<?xml"), ("html", "<!DOCTYPE html>")])
def test_render_every_format(tmp_path: Path, fixture: str, fmt: str, start: str) -> None:
    source = save(tmp_path, "report.json", report_dict(fixture))
    result = invoke("report", "render", source, "--format", fmt)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(start)
    if fmt == "json":  # the same report again (and the conftest hook validated it)
        again = json.loads(result.stdout)
        original = report_dict(fixture)
        assert again["results"] == original["results"] and again["facts"] == original["facts"]
        assert again["started_at"] == original["started_at"] and again["exit_code"] == original["exit_code"]


def test_render_writes_o_file_and_reads_stdin(tmp_path: Path) -> None:
    text = json.dumps(report_dict("cann-newer-than-driver"))
    out = tmp_path / "ticket.md"
    result = invoke("report", "render", "-", "--format", "markdown", "-o", str(out), stdin=text)
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text(encoding="utf-8").startswith("# ascend-doctor report: cann-newer-than-driver")


def test_check_offers_every_format(tmp_path: Path) -> None:
    fixture = str(ROOT / "fixtures" / "cann-newer-than-driver")
    for fmt, start in (("markdown", "# ascend-doctor"), ("junit", "<?xml"), ("html", "<!DOCTYPE html>")):
        result = invoke("check", "--from", fixture, "--format", fmt)
        assert result.exit_code == 1 and result.stdout.startswith(start), (fmt, result.output[:300])


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "junit", "html"])
def test_schema_v1_report_renders(tmp_path: Path, fmt: str) -> None:
    source = save(tmp_path, "v1.json", downgrade_to_v1(report_dict("cann-newer-than-driver")))
    result = invoke("report", "render", source, "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "ASC-CANN-002" in result.stdout
    if fmt == "json":
        upgraded = json.loads(result.stdout)
        assert upgraded["schema_version"] == 2 and upgraded["fix_plan"] == []
        validate_report(upgraded)


def test_every_status_report_survives_a_round_trip() -> None:
    report = every_status_report()
    again = report_from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.to_dict() == report.to_dict()


# -- bad input ----------------------------------------------------------------------------------


def _newer(data: Dict[str, Any]) -> Dict[str, Any]:
    newer = copy.deepcopy(data)
    newer["schema_version"] = 3
    return newer


def _bad_status(data: Dict[str, Any]) -> Dict[str, Any]:
    bad = copy.deepcopy(data)
    bad["results"][0]["status"] = "MAYBE"
    return bad


def _no_results(data: Dict[str, Any]) -> Dict[str, Any]:
    bad = copy.deepcopy(data)
    del bad["results"]
    return bad


@pytest.mark.parametrize("content,words", [
    ("not json at all", ("is not JSON", "line 1")),
    ('{"schema_version": 2, "results": [', ("is not JSON",)),
    ("", ("is empty",)),
    ("[1, 2, 3]", ("not an ascend-doctor report",)),
    ('{"schema_version": 2, "tool": {"name": "something-else"}}', ("not an ascend-doctor report",)),
    ("[" * 5000 + "]" * 5000, ("nests deeper than",)),
    ("NEWER", ("report schema 3", "newer than this ascend-doctor reads", "upgrade")),
    ("BADSTATUS", ("results[0].status", "MAYBE")),
    ("NORESULTS", ("results is missing",)),
])
def test_bad_reports_are_one_line_errors_with_exit_3(tmp_path: Path, content: str, words: List[str]) -> None:
    data = report_dict("healthy-8x910B3")
    special = {"NEWER": _newer(data), "BADSTATUS": _bad_status(data), "NORESULTS": _no_results(data)}
    source = save(tmp_path, "bad.json", special.get(content, content))
    for command in (["report", "render", source], ["report", "diff", source, source]):
        assert_one_line_error(invoke(*command), 3, *words)


def test_unreadable_files_are_one_line_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_one_line_error(invoke("report", "render", str(tmp_path / "missing.json")), 3, "does not exist")
    assert_one_line_error(invoke("report", "render", str(tmp_path)), 3, "is a folder")
    (tmp_path / "snap.tar.gz").write_bytes(gzip.compress(b"x"))
    assert_one_line_error(invoke("report", "render", str(tmp_path / "snap.tar.gz")), 3, "gzip")
    (tmp_path / "latin1.json").write_bytes(b'{"a": "\xe9"}')
    assert_one_line_error(invoke("report", "render", str(tmp_path / "latin1.json")), 3, "not UTF-8")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening must not hang waiting for a writer
    assert_one_line_error(invoke("report", "render", str(fifo)), 3, "not a regular file")
    monkeypatch.setattr(reportio, "MAX_REPORT_BYTES", 1000)
    big = save(tmp_path, "big.json", report_dict("healthy-8x910B3"))
    assert_one_line_error(invoke("report", "render", big), 3, "larger than")


def test_output_cannot_replace_the_input(tmp_path: Path) -> None:
    source = save(tmp_path, "report.json", report_dict("healthy-8x910B3"))
    before = Path(source).read_text(encoding="utf-8")
    result = invoke("report", "render", source, "--format", "html", "-o", source)
    assert result.exit_code == 2 and Path(source).read_text(encoding="utf-8") == before


# -- diff -------------------------------------------------------------------------------------------


def test_diff_of_an_unchanged_pair_passes(tmp_path: Path) -> None:
    source = save(tmp_path, "r.json", report_dict("healthy-8x910B3"))
    result = invoke("report", "diff", source, source)
    assert result.exit_code == 0, result.output
    assert "no changes" in result.stdout and "REGRESSION" not in result.stdout
    data = json.loads(invoke("report", "diff", source, source, "--format", "json").stdout)
    validate_diff(data)
    assert data["exit_code"] == 0 and data["regressions"] == [] and data["versions"] == []
    assert data["results"]["unchanged"] == len(report_dict("healthy-8x910B3")["results"])


def _plant_regression(data: Dict[str, Any]) -> Dict[str, Any]:
    """After an "upgrade": a newer driver that CANN no longer pairs with, a lost NPU, a new fix step."""
    new = copy.deepcopy(data)
    new["started_at"] = "2099-01-01T00:00:00+00:00"
    new["facts"]["driver_version"] = "25.0.rc1"
    new["facts"]["devices"] = new["facts"]["devices"][:-1]
    for result in new["results"]:
        if result["id"] == "ASC-CANN-002":
            result["status"] = "FAIL"
            result["message"] = "CANN 8.0.0 does not support driver 25.0.rc1"
            result["remediation"] = "install CANN 8.1.RC1"
    new["fix_plan"] = [{"order": 1, "component": "cann", "summary": "Install CANN 8.1.RC1",
                        "commands": ["./Ascend-cann-toolkit_8.1.RC1_linux-aarch64.run --install"], "where": "host",
                        "fixes": ["ASC-CANN-002"], "target": "8.1.RC1", "why": "", "alternative": ""}]
    return new


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_diff_flags_a_planted_regression(tmp_path: Path, fmt: str) -> None:
    old = report_dict("healthy-8x910B3")
    old_path, new_path = save(tmp_path, "old.json", old), save(tmp_path, "new.json", _plant_regression(old))
    result = invoke("report", "diff", old_path, new_path, "--format", fmt)
    assert result.exit_code == 1, result.output
    out = result.stdout
    assert "ASC-CANN-002" in out and "25.0.rc1" in out and "23.0.7" in out
    assert "NPU 7 chip 0" in out and "Install CANN 8.1.RC1" in out
    if fmt == "json":
        data = json.loads(out)
        validate_diff(data)
        assert data["regressions"] == [{"id": "ASC-CANN-002", "scope": None, "old_status": "PASS",
                                        "new_status": "FAIL"}]
        assert {"name": "driver", "old": "23.0.7", "new": "25.0.rc1"} in data["versions"]
        assert [d["device"] for d in data["devices"]["disappeared"]] == ["NPU 7 chip 0"]
        assert data["fix_plan"]["appeared"][0]["summary"] == "Install CANN 8.1.RC1"
    else:
        assert "REGRESSION" in out


def test_diff_the_other_way_is_an_improvement(tmp_path: Path) -> None:
    old = report_dict("healthy-8x910B3")
    new_path, old_path = save(tmp_path, "new.json", _plant_regression(old)), save(tmp_path, "old.json", old)
    result = invoke("report", "diff", new_path, old_path)
    assert result.exit_code == 0 and "FAIL -> PASS" in result.stdout and "swapped" in result.stdout


def test_diff_of_two_real_runs_and_of_a_v1_report(tmp_path: Path) -> None:
    healthy, broken = report_dict("healthy-8x910B3"), report_dict("cann-newer-than-driver")
    old_path = save(tmp_path, "old.json", downgrade_to_v1(healthy))
    new_path = save(tmp_path, "new.json", broken)
    result = invoke("report", "diff", old_path, new_path, "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    validate_diff(data)
    ids = {(r["id"], r["new_status"]) for r in data["regressions"]}
    assert ("ASC-CANN-002", "FAIL") in ids and ("ASC-MIX-003", "WARN") in ids
    # a new scope of a check that was clean before is a regression too (NPU 0 now busy)
    assert ("ASC-DEV-010", "FAIL") in ids
    assert any("different hosts" in n for n in data["notes"])


def test_regression_rules() -> None:
    from ascend_doctor.checkapi import Status as S

    assert is_regression(S.PASS, S.WARN) and is_regression(S.SKIP, S.FAIL) and is_regression(S.INFO, S.FAIL)
    assert is_regression(S.WARN, S.FAIL)
    assert not is_regression(S.FAIL, S.WARN) and not is_regression(S.PASS, S.ERROR)
    assert not is_regression(S.ERROR, S.FAIL) and not is_regression(S.PASS, S.INFO)


def test_a_check_the_old_report_did_not_run_is_new_not_a_regression() -> None:
    old = report_of("healthy-8x910B3")
    data = report_dict("healthy-8x910B3")
    data["results"].append({"id": "ASC-NEW-001", "title": "a check from a newer version", "status": "FAIL",
                            "message": "x", "remediation": "y", "evidence": {}, "scope": None})
    diff = diff_reports(old, report_from_dict(data))
    assert diff.exit_code == 0 and diff.results_appeared[0]["new_check"] is True
    assert "(new check)" in render_diff(diff, "text")


def test_diff_usage_errors() -> None:
    assert invoke("report", "diff", "-", "-").exit_code == 2
    assert invoke("report", "diff", "a.json").exit_code == 2


# -- --redact -----------------------------------------------------------------------------------------


def test_render_redact_hides_identities_consistently(tmp_path: Path) -> None:
    data = every_status_report().to_dict()
    data["host"]["hostname"] = "gpu-node07.corp.example.com"
    data["results"][0]["message"] = ("gpu-node07 at 10.20.30.40 (user alice, /home/alice/venv) and gpu-node07 again; "
                                     "peer 10.20.30.41, NIC 0000:C1:00.0")
    source = save(tmp_path, "r.json", data)
    result = invoke("report", "render", source, "--format", "json", "--redact")
    assert result.exit_code == 0, result.output
    out = result.stdout
    for secret in ("gpu-node07", "corp.example.com", "10.20.30.4", "alice", "0000:C1:00.0"):
        assert secret not in out, secret
    redacted = json.loads(out)
    message = redacted["results"][0]["message"]
    assert message == ("host-1 at 192.0.2.1 (user user-1, /home/user-1/venv) and host-1 again; "
                       "peer 192.0.2.2, NIC pci-1")
    assert redacted["host"]["hostname"] == "host-1"
    assert redacted["facts"]["devices"][0]["bus_id"] == "pci-1"  # the same bus id, the same placeholder
    assert redacted["facts"]["python"]["executable"] == "/home/user-1/venv/bin/python"
    # versions are kept
    assert redacted["facts"]["firmware_version"] == "7.5.0.1.129" and redacted["tool"]["version"] == "0.1.0"
    assert any("identities redacted" in n for n in redacted["notes"])


def test_check_redact(tmp_path: Path) -> None:
    fixture = str(ROOT / "fixtures" / "cann-newer-than-driver")
    plain = json.loads(invoke("check", "--from", fixture, "--format", "json").stdout)
    result = invoke("check", "--from", fixture, "--format", "json", "--redact")
    assert result.exit_code == 1
    redacted = json.loads(result.stdout)
    assert "cann-newer-than-driver" not in result.stdout and "0000:C1:00.0" not in result.stdout
    assert redacted["host"]["hostname"] == "host-1" and redacted["facts"]["devices"][0]["bus_id"] == "pci-1"
    assert [(r["id"], r["status"]) for r in redacted["results"]] == [(r["id"], r["status"]) for r in plain["results"]]
    for key in ("driver_version", "firmware_version", "npu_smi_version", "cann", "python"):
        assert redacted["facts"][key] == plain["facts"][key], key
    assert redacted["host"]["kernel"] == plain["host"]["kernel"]
