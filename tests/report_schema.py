"""Validate JSON reports against docs/report-schema.json (used by every test that makes one).

A probe report (``host.source`` "endpoint", from ``ascend-doctor probe``) is validated against
docs/probe-report-schema.json instead, and a fleet report (``host.source`` "fleet", from
``ascend-doctor fleet``) against docs/fleet-report-schema.json.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Dict

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "report-schema.json"
PROBE_SCHEMA_PATH = SCHEMA_PATH.with_name("probe-report-schema.json")
FLEET_SCHEMA_PATH = SCHEMA_PATH.with_name("fleet-report-schema.json")
SCHEMA_BY_SOURCE = {"endpoint": PROBE_SCHEMA_PATH, "fleet": FLEET_SCHEMA_PATH}


@functools.lru_cache(maxsize=3)
def _validator(path: Path = SCHEMA_PATH) -> Any:
    import jsonschema

    schema = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate_report(report: Dict[str, Any]) -> None:
    host = report.get("host") if isinstance(report, dict) else None
    path = SCHEMA_BY_SOURCE.get(host.get("source"), SCHEMA_PATH) if isinstance(host, dict) else SCHEMA_PATH
    errors = sorted(_validator(path).iter_errors(report), key=lambda e: list(e.path))
    assert not errors, f"report does not match docs/{path.name}:\n" + "\n".join(
        f"  {'/'.join(map(str, e.path))}: {e.message}" for e in errors[:20])
