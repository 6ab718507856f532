"""JSON output: the report (the contract in docs/report-schema.json) and every other command's document.

Every JSON document a command prints is made here, from the dict its renderer assembles, so that all
of them share one layout: indented by two, non-ASCII kept as it is, keys in the order built. The
watch stream and the ``--on-alert`` payload are one object per line (``json_line``, ``json_payload``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ascend_doctor.report import Report


def json_document(data: Any) -> str:
    """One JSON document as the commands print it (docs/*-schema.json)."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def json_line(data: Any) -> str:
    """One compact JSON object on one line (JSON Lines: the ``watch --format json`` stream)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def json_payload(data: Any) -> str:
    """One JSON object on one line with the default separators, ended by a newline (what ``watch
    --on-alert CMD`` reads on its stdin)."""
    return json.dumps(data, ensure_ascii=False) + "\n"


def report_to_json(report: Report) -> str:
    return json_document(report.to_dict())
