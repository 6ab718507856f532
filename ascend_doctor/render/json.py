"""The JSON report (the contract in docs/report-schema.json)."""

from __future__ import annotations

import json

from ascend_doctor.report import Report


def report_to_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False)
