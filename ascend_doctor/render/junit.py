"""The report as JUnit XML, for CI servers (Jenkins junit/xunit, GitLab ``artifacts:reports:junit``).

One ``testsuite`` per report, one ``testcase`` per result: ``classname`` is the area
(``ascend-doctor.DRV``), ``name`` the id and scope (``ASC-DEV-010 [NPU 3]``). FAIL is a
``failure``, ERROR an ``error``, SKIP ``skipped``; PASS and INFO pass (INFO with its
recommendation in ``system-out``). WARN passes with its text in ``system-out``, unless the run
used ``--fail-on warn``, where it is a ``failure``: CI then goes red exactly when the exit code says so.
The tool and matrix versions and the time of the run are testsuite ``properties``.

Valid against the JUnit schema Jenkins' xunit plugin uses (tests/schemas/junit-10.xsd).
"""

from __future__ import annotations

from typing import Dict, List, Tuple
from xml.etree import ElementTree as ET

from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n import labelled
from ascend_doctor.lazy import lazy_re
from ascend_doctor.render.common import area_of, facts_parts, result_name, run_header
from ascend_doctor.report import Report, Result

# Characters XML 1.0 cannot carry at all (ElementTree would write them and produce invalid XML).
_XML_ILLEGAL = lazy_re("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: object) -> str:
    """Text for the XML: controls made visible first (render/sanitize.py: a CI log shows them), then
    anything XML 1.0 cannot carry (lone surrogates, U+FFFE) dropped."""
    from ascend_doctor.render.sanitize import visible_lines

    return _XML_ILLEGAL.sub("", visible_lines(text))


def report_to_junit(report: Report) -> str:
    counts = _counts(report)
    total_time = f"{sum(r.duration_s for r in report.results):.3f}"
    suites = ET.Element("testsuites", {"name": "ascend-doctor", "tests": str(len(report.results)),
                                       "failures": str(counts["failures"]), "errors": str(counts["errors"]),
                                       "time": total_time})
    host = (report.host or {}).get("hostname") or "?"
    suite_attrs = {"name": xml_text(f"ascend-doctor check {host}"), "tests": str(len(report.results)),
                   "failures": str(counts["failures"]), "errors": str(counts["errors"]),
                   "skipped": str(counts["skipped"]), "time": total_time,
                   "hostname": xml_text(host)}
    if report.started_at:
        suite_attrs["timestamp"] = xml_text(report.started_at)
    suite = ET.SubElement(suites, "testsuite", suite_attrs)
    properties = ET.SubElement(suite, "properties")
    for name, value in _properties(report):
        ET.SubElement(properties, "property", {"name": name, "value": xml_text(value)})
    for result in report.results:
        _testcase(suite, result, report.fail_on)
    header = [f"{label}: {value}" for label, value in run_header(report)]
    parts = facts_parts(report)
    if parts:
        header.append(labelled(_("machine:")) + " · ".join(parts))
    header.extend(labelled(_("note:")) + n for n in report.notes)
    ET.SubElement(suite, "system-out").text = xml_text("\n".join(header))
    ET.indent(suites)
    body = ET.tostring(suites, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _counts(report: Report) -> Dict[str, int]:
    failures = sum(1 for r in report.results if _is_failure(r, report.fail_on))
    errors = sum(1 for r in report.results if r.status is Status.ERROR)
    skipped = sum(1 for r in report.results if r.status is Status.SKIP)
    return {"failures": failures, "errors": errors, "skipped": skipped}


def _is_failure(result: Result, fail_on: str) -> bool:
    return result.status is Status.FAIL or (result.status is Status.WARN and fail_on == "warn")


def _properties(report: Report) -> List[Tuple[str, str]]:
    matrix = report.matrix or {}
    host = report.host or {}
    props = [("ascend_doctor.version", report.tool_version),
             ("matrix.version", matrix.get("version") or ""),
             ("matrix.date", matrix.get("date") or ""),
             ("matrix.origin", matrix.get("origin") or ""),
             ("run.started_at", report.started_at),
             ("run.fail_on", report.fail_on),
             ("run.exit_code", str(int(report.exit_code))),
             ("host.source", host.get("source") or ""),
             ("host.arch", host.get("arch") or "")]
    if host.get("captured_at"):
        props.append(("host.captured_at", host["captured_at"]))
    return [(name, str(value)) for name, value in props]


def _testcase(suite: ET.Element, result: Result, fail_on: str) -> None:
    case = ET.SubElement(suite, "testcase", {
        "classname": xml_text(f"ascend-doctor.{area_of(result)}"),
        "name": xml_text(result_name(result)),
        "time": f"{result.duration_s:.3f}",
    })
    headline = xml_text(f"{result.title}: {result.message}")
    detail = xml_text(result.message + (f"\n\n{_('Fix:')}\n{result.remediation}" if result.remediation else ""))
    if _is_failure(result, fail_on):
        ET.SubElement(case, "failure", {"message": headline, "type": result.status.value}).text = detail
    elif result.status is Status.ERROR:
        ET.SubElement(case, "error", {"message": headline, "type": "ERROR"}).text = detail
    elif result.status is Status.SKIP:
        ET.SubElement(case, "skipped", {"message": xml_text(result.message)})
    elif result.status in (Status.INFO, Status.WARN):
        ET.SubElement(case, "system-out").text = xml_text(f"{result.status.value}: {result.title}\n{detail}")
