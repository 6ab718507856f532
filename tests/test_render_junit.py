"""`--format junit`: valid against the JUnit schema Jenkins uses; one testcase per result."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Dict
from xml.etree import ElementTree as ET

import pytest
from msgspec import structs

from ascend_doctor.checkapi import Status
from ascend_doctor.render import render_report
from ascend_doctor.render.junit import report_to_junit
from ascend_doctor.reportio import report_from_dict

from .render_util import HOSTILE, SCENARIOS, downgrade_to_v1, every_status_report, report_dict, report_of

XSD = Path(__file__).resolve().parent / "schemas" / "junit-10.xsd"


@functools.lru_cache(maxsize=1)
def _schema() -> Any:
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is a dev dependency (pip install -e '.[dev]')")
    return xmlschema.XMLSchema(str(XSD))


def validate(xml: str) -> ET.Element:
    errors = list(_schema().iter_errors(xml))
    assert not errors, "JUnit XML does not match tests/schemas/junit-10.xsd:\n" + "\n".join(str(e)[:300]
                                                                                           for e in errors[:5])
    return ET.fromstring(xml)


def test_the_schema_rejects_what_jenkins_rejects() -> None:
    """The stored XSD really validates: a testcase without a name and a testsuite without tests fail."""
    assert list(_schema().iter_errors('<testsuites><testsuite tests="1"><testcase/></testsuite></testsuites>'))
    assert list(_schema().iter_errors('<testsuites><testsuite><testcase name="x"/></testsuite></testsuites>'))


@pytest.mark.parametrize("fixture", SCENARIOS)
def test_junit_of_every_scenario_is_valid_and_maps_each_result(fixture: str) -> None:
    report = report_of(fixture)
    root = validate(report_to_junit(report))
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == len(report.results) == int(suite.get("tests", "-1"))
    for case, result in zip(cases, report.results):
        assert case.get("classname") == f"ascend-doctor.{result.id.split('-')[1]}"
        assert case.get("name") == (f"{result.id} [{result.scope}]" if result.scope else result.id)
        _assert_mapped(case, result.status, report.fail_on)
    summary = report.summary()
    assert int(suite.get("failures", "-1")) == summary["FAIL"]
    assert int(suite.get("errors", "-1")) == summary["ERROR"]
    assert int(suite.get("skipped", "-1")) == summary["SKIP"]
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["ascend_doctor.version"] == report.tool_version
    assert props["matrix.version"] == report.matrix["version"]
    assert props["run.started_at"] == report.started_at == suite.get("timestamp")
    assert props["run.exit_code"] == str(int(report.exit_code))


def _assert_mapped(case: ET.Element, status: Status, fail_on: str) -> None:
    children = {child.tag for child in case}
    if status is Status.FAIL or (status is Status.WARN and fail_on == "warn"):
        assert children == {"failure"}
    elif status is Status.ERROR:
        assert children == {"error"}
    elif status is Status.SKIP:
        assert children == {"skipped"}
    elif status in (Status.INFO, Status.WARN):
        assert children == {"system-out"}
    else:
        assert children == set()


def test_every_status_maps_and_hostile_text_stays_text() -> None:
    report = every_status_report()
    xml = report_to_junit(report)
    root = validate(xml)
    by_name: Dict[str, ET.Element] = {c.get("name", ""): c for c in root.iter("testcase")}
    failure = by_name["ASC-DRV-001"].find("failure")
    assert failure is not None and failure.get("type") == "FAIL"
    assert '<script>alert("x")</script>' in failure.get("message", "")  # text again after parsing
    assert "Fix:\n./Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run --full" in (failure.text or "")
    assert "\x01" not in xml and "\x1b" not in xml  # characters XML 1.0 cannot carry
    assert by_name["ASC-CANN-002"].find("error") is not None
    assert by_name["ASC-LOG-001"].find("skipped") is not None
    info = by_name["ASC-ENV-010"].find("system-out")
    assert info is not None and "export TASK_QUEUE_ENABLE=2" in (info.text or "")
    warn = by_name["ASC-DEV-002 [npu 3]"]
    assert warn.find("failure") is None and warn.find("system-out") is not None
    suite_out = root.find("testsuite/system-out")
    assert suite_out is not None and "compatibility matrix: 2026.11.29" in (suite_out.text or "")
    assert "run at: 2026-12-01T08:00:00+00:00" in (suite_out.text or "")
    assert HOSTILE.split(" ")[0] not in xml  # "<script>" only ever escaped


def test_with_fail_on_warn_a_warning_fails_ci_like_the_exit_code() -> None:
    report = structs.replace(every_status_report(), fail_on="warn")
    root = validate(report_to_junit(report))
    warn = next(c for c in root.iter("testcase") if c.get("name") == "ASC-DEV-002 [npu 3]")
    failure = warn.find("failure")
    assert failure is not None and failure.get("type") == "WARN"
    assert root.find("testsuite").get("failures") == "2"  # type: ignore[union-attr]


def test_schema_v1_report_renders_as_valid_junit() -> None:
    old = report_from_dict(downgrade_to_v1(report_dict("healthy-8x910B3")), "v1")
    root = validate(render_report(old, "junit"))
    assert root.find("testsuite/testcase/failure") is None
