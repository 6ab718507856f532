"""Suite-wide guarantees.

Every JSON report any test makes (through the renderer, whatever the command) is validated
against docs/report-schema.json, so the published contract cannot drift from the code.
"""

from __future__ import annotations

import json
from typing import Iterator

import pytest

from .report_schema import validate_report


@pytest.fixture(autouse=True)
def _every_json_report_matches_the_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import ascend_doctor.render.json as json_render

    original = json_render.report_to_json

    def checked(report):  # type: ignore[no-untyped-def]
        text = original(report)
        validate_report(json.loads(text))
        return text

    monkeypatch.setattr(json_render, "report_to_json", checked)
    yield
