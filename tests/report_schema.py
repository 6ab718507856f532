"""Validate JSON reports against docs/report-schema.json (used by every test that makes one)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Dict

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "report-schema.json"


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate_report(report: Dict[str, Any]) -> None:
    errors = sorted(_validator().iter_errors(report), key=lambda e: list(e.path))
    assert not errors, "report does not match docs/report-schema.json:\n" + "\n".join(
        f"  {'/'.join(map(str, e.path))}: {e.message}" for e in errors[:20])
