"""The JSON contract of every command: which docs/*-schema.json describes what it prints, and validators.

``COMMAND_SCHEMAS`` maps a command path (as typed after ``ascend-doctor``) to its schema. Every command
whose ``--format`` offers ``json`` must be listed (tests/test_json_schemas.py walks the click tree), and
so must a command that prints JSON without being asked (``model manifest``). Reports (check, fleet,
probe, report render) go through tests/report_schema.py, which picks the report schema by the report's
``host.source``.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Dict, List

from .report_schema import validate_report

DOCS = Path(__file__).resolve().parent.parent / "docs"

REPORT = "report-schema.json"  # and, by host.source, probe-report-schema.json / fleet-report-schema.json
COMMAND_SCHEMAS: Dict[str, str] = {
    "check": REPORT,
    "fleet": "fleet-report-schema.json",
    "probe": "probe-report-schema.json",
    "report render": REPORT,
    "report diff": "report-diff-schema.json",
    "checks": "checks-schema.json",
    "explain": "explain-schema.json",
    "plan": "plan-schema.json",
    "diagnose": "diagnose-schema.json",
    "matrix show": "matrix-show-schema.json",
    "matrix lookup": "matrix-lookup-schema.json",
    "matrix plan": "matrix-plan-schema.json",
    "matrix validate": "matrix-validate-schema.json",
    "matrix bundle": "matrix-bundle-schema.json",
    "matrix update": "matrix-update-schema.json",
    "model inspect": "model-inspect-schema.json",
    "model verify": "model-verify-schema.json",
    "model manifest": "model-manifest-schema.json",
    "watch": "watch-schema.json",
}
# Commands that print JSON with no --format option (so the click-tree walk cannot see it).
JSON_WITHOUT_FORMAT_OPTION = ("model manifest",)
# Commands printing JSON Lines (one document per line) rather than one document.
JSON_LINES = ("watch",)
# The report schemas predate this contract and are validated suite-wide by tests/conftest.py.
REPORT_SCHEMAS = ("report-schema.json", "probe-report-schema.json", "fleet-report-schema.json",
                  "report-diff-schema.json")


@functools.cache
def load_schema(name: str) -> Dict[str, Any]:
    schema: Dict[str, Any] = json.loads((DOCS / name).read_text(encoding="utf-8"))
    return schema


@functools.cache
def validator(name: str) -> Any:
    import jsonschema

    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate_json(doc: Any, name: str) -> None:
    """Assert that ``doc`` matches docs/``name``, listing the first problems by JSON path."""
    errors = sorted(validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, f"output does not match docs/{name}:\n" + "\n".join(_describe(e) for e in errors[:20])


def _describe(error: Any) -> str:
    """The problem and its JSON path. For a failed anyOf/oneOf (a nullable object, a sample-or-alert line):
    the problems of the branch the value was meant for (not the null branch, not the branch whose
    ``type``/``kind`` constant it does not carry)."""
    if not error.context:
        return f"  /{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}"
    branches: Dict[Any, List[Any]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    meant = [errs for errs in branches.values()
             if not any(e.validator in ("type", "const") and len(e.relative_path) <= 1 for e in errs)]
    chosen = min(meant or list(branches.values()), key=len)
    return "\n".join(_describe(e) for e in chosen[:5])


def parse_output(command: str, text: str) -> List[Any]:
    """The JSON documents a command printed: one, or one per line for JSON Lines."""
    if command in JSON_LINES:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return [json.loads(text)]


def validate_output(command: str, text: str) -> List[Any]:
    """Parse what ``command`` printed and validate every document against its schema."""
    name = COMMAND_SCHEMAS[command]
    docs = parse_output(command, text)
    assert docs, f"`{command}` printed no JSON"
    for doc in docs:
        if name == REPORT:
            validate_report(doc)
        else:
            validate_json(doc, name)
    return docs
