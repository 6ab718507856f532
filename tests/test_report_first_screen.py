"""The report a person reads, over every fixture: problems first on one screen, one root cause
leading (its step first, "Start with" and step 1 agreeing, tuning last), and honest about what it
could not judge (a full snapshot never falls under "not enough to judge" unless something failed:
a machine without a driver judges little, and says why in its first sentence).

A terminal page is 100 columns by 60 rows here (a full-height terminal on a 1080p screen; rows
are counted as printed, a longer line taking as many rows as it wraps into). Every fixture with
three problems (FAIL, WARN, ERROR) or fewer fits it, and every one with two or fewer fits 45 rows
(measured at this commit: healthy fixtures 15-22 rows, one or two problems 23-40, three 47-55;
the text report printed 203-378 lines before).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Dict, List

import pytest
import yaml

from ascend_doctor.checkapi import Status
from ascend_doctor.cli import main
from ascend_doctor.coverage import NOT_JUDGED, classify
from ascend_doctor.render.common import verdict_key
from ascend_doctor.render.text import report_to_text
from ascend_doctor.report import Report
from ascend_doctor.reportio import parse_report_text
from ascend_doctor.rootcause import CONTAINER, NO_NPU, find_root_cause, name_of, only_tunes
from ascend_doctor.widewrap import cell_width

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SCENARIOS = sorted(p for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file())
PAGE_COLUMNS, PAGE_ROWS, SHORT_PAGE_ROWS = 100, 60, 45
SPARSE_PASTE = ROOT / "tests/samples/collect-env/llamafactory-tutorial-env-910B2-cann8.2.RC1.txt"
_CACHE: Dict[str, str] = {}


def report_json(scenario: Path) -> str:
    """``check --from`` in JSON (args of expected.yaml), once per fixture for all tests here."""
    if scenario.name not in _CACHE:
        expected = yaml.safe_load((scenario / "expected.yaml").read_text(encoding="utf-8"))
        extra = [str(a).replace("{fixture}", str(scenario)) for a in expected.get("args", [])]
        result = make_runner().invoke(main, ["check", "--from", str(scenario), "--format", "json", *extra])
        assert result.exit_code in (0, 1, 3), result.output
        _CACHE[scenario.name] = result.stdout
    return _CACHE[scenario.name]


def report_of(scenario: Path) -> Report:
    return parse_report_text(report_json(scenario))


def rows(text: str, columns: int = PAGE_COLUMNS) -> int:
    return sum(max(1, math.ceil(cell_width(line) / columns)) for line in text.splitlines())


def problems(report: Report) -> int:
    return sum(1 for r in report.results if r.status in (Status.FAIL, Status.WARN, Status.ERROR))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_the_default_report_fits_a_page_and_wraps_clean(scenario: Path) -> None:
    report = report_of(scenario)
    text = report_to_text(report, width=PAGE_COLUMNS)
    if problems(report) <= 2:
        assert rows(text) <= SHORT_PAGE_ROWS, text
    elif problems(report) <= 3:
        assert rows(text) <= PAGE_ROWS, text
    for shown in (text, report_to_text(report, width=PAGE_COLUMNS, verbose=True)):
        assert [line for line in shown.splitlines() if line != line.rstrip()] == []
    # Every problem is there in full; PASS and SKIP only as counts.
    for result in report.results:
        if result.status in (Status.FAIL, Status.WARN, Status.ERROR):
            assert result.id in text
    assert "PASS  ASC-" not in text and "SKIP  ASC-" not in text


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_start_with_and_step_one_agree_and_tuning_comes_last(scenario: Path) -> None:
    report = report_of(scenario)
    text = report_to_text(report, width=PAGE_COLUMNS)
    start = [line for line in text.splitlines() if line.startswith("Start with ")]
    if report.fix_plan and start:
        started = start[0].split(" ")[2].rstrip(":")
        assert any(name.split(" ")[0] == started for name in report.fix_plan[0].fixes), (start, report.fix_plan[0])
    info_only = [only_tunes(step, report.results) for step in report.fix_plan]
    assert info_only == sorted(info_only), "a tuning (INFO) step comes before a fix"
    assert [step.order for step in report.fix_plan] == list(range(1, len(report.fix_plan) + 1))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_a_root_cause_leads_when_npu_smi_or_the_driver_is_missing(scenario: Path) -> None:
    report = report_of(scenario)
    cause = find_root_cause(report)
    failing = {r.id for r in report.results if r.status is Status.FAIL}
    if failing & {"ASC-SMI-001", "ASC-DRV-001"}:
        assert cause is not None and cause.kind in (NO_NPU, CONTAINER)
    if cause is not None and cause.lead is not None:
        assert name_of(cause.lead) in report.fix_plan[0].fixes
        text = report_to_text(report, width=PAGE_COLUMNS)
        assert text.index(cause.sentence(report)[:40]) < text.index(cause.lead.id)


def test_the_named_root_causes() -> None:
    no_driver = report_of(FIXTURES / "no-driver")
    cause = find_root_cause(no_driver)
    assert cause is not None and cause.kind == NO_NPU and cause.lead is not None
    assert cause.lead.id == "ASC-DRV-001" and "ASC-SMI-001" in cause.follows
    assert "ASC-PY-001" not in cause.follows  # torch is missing whatever the driver does
    text = report_to_text(no_driver, width=PAGE_COLUMNS)
    assert "No Ascend NPU is visible on this machine" in text.splitlines()[3]
    container = report_of(FIXTURES / "container-missing-mounts")
    cause = find_root_cause(container)
    assert cause is not None and cause.kind == CONTAINER
    assert {"ASC-SMI-001", "ASC-CTR-003"} <= set(cause.follows) and "ASC-CTR-004" not in cause.follows
    assert find_root_cause(report_of(FIXTURES / "healthy-8x910B3")) is None


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_a_full_snapshot_judges_enough(scenario: Path) -> None:
    """No fixture (a full snapshot) falls under "not enough to judge"; the healthy ones are READY."""
    report = report_of(scenario)
    failed = any(r.status is Status.FAIL for r in report.results)
    assert failed or not report.too_little_to_judge(), report.coverage()
    counts = report.coverage()
    assert sum(counts.values()) == len({r.id for r in report.results})
    data = json.loads(report_json(scenario))
    assert data["coverage"] == counts
    if data["exit_code"] == 0:
        assert verdict_key(report) == "READY"
        summary = [line for line in report_to_text(report).splitlines() if line.startswith("Summary:")]
        assert summary[0].endswith(": READY")


def _paste(tmp_path: Path) -> Dict[str, Any]:
    result = make_runner().invoke(main, ["check", "--from-text", str(SPARSE_PASTE), "--format", "json"])
    assert result.exit_code == 3, result.output
    data: Dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_sparse_paste_is_not_enough_to_judge_and_says_what_to_ask_for(tmp_path: Path) -> None:
    data = _paste(tmp_path)
    report = parse_report_text(json.dumps(data))
    assert data["exit_code"] == 3 and data["summary"]["FAIL"] == 0
    assert verdict_key(report) == "NOT ENOUGH TO JUDGE"
    assert data["coverage"]["judged"] * 4 < data["coverage"]["judged"] + data["coverage"]["not_judged"]
    text = report_to_text(report, width=PAGE_COLUMNS)
    assert "Not enough to judge" in text and "NOT ENOUGH TO JUDGE" in text
    commands = [line.strip() for line in text.splitlines() if line.startswith("      ")]
    assert "npu-smi info" in commands and "cat /usr/local/Ascend/driver/version.info" in commands


def test_a_paste_never_states_a_fact_about_a_machine_nobody_saw(tmp_path: Path) -> None:
    data = _paste(tmp_path)
    report = parse_report_text(json.dumps(data))
    kinds = classify(report.results, "pasted-text", report.facts)
    facts_claimed = ("not running inside a container", "no Ascend driver and no NPU device node",
                     "no driver installed", "is not installed here")
    skipped: List[str] = []
    for result, kind in zip(report.results, kinds):
        if result.status is Status.SKIP and kind == NOT_JUDGED:
            skipped.append(result.message)
            assert "not in the pasted text" in result.message, result
            assert not any(claim in result.message for claim in facts_claimed), result
    assert len(skipped) > 40
