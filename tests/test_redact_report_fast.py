"""redact_report's short cuts give what redacting every field with redact_json gives.

redact_report (every report output goes through it) skips a short string holding none of the
literals redact_text's rules start from, redacts each distinct string of a report once, and walks
facts and evidence without copying them. These tests hold it to the plain definition: each field
of the report and of its records, redacted by redact_json after jsonable, kept when unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, List

from hypothesis import given
from hypothesis import strategies as st
from msgspec import Struct, structs

from ascend_doctor.checkapi import FixAction, Status
from ascend_doctor.jsonutil import jsonable
from ascend_doctor.redaction.secrets import (
    _LINE_RULES,
    _TOKEN_SHAPES,
    REDACTED,
    _redact_plain,
    _ReportText,
    redact_json,
    redact_report,
    redact_text,
)
from ascend_doctor.report import FixStep, Report, Result

from .test_secrets_planted import DMESG, HCCN_CONF, LSPCI, PLANTED_ENV, PLANTED_PROCESSES, PLOG, PROC_CMDLINE


def _reference_report(report: Report) -> Report:
    """The definition: every field redacted with redact_json, records field by field."""
    changed = _reference_fields(report)
    return structs.replace(report, **changed) if changed else report


def _reference_fields(record: Any) -> Dict[str, Any]:
    changed: Dict[str, Any] = {}
    for name in record.__struct_fields__:
        value = getattr(record, name)
        new = _reference(value, name)
        if new is not value:
            changed[name] = new
    return changed


def _reference(value: Any, name: str) -> Any:
    if isinstance(value, str):
        new = redact_json(value, name)
        return value if new == value else new
    if isinstance(value, Struct):
        changed = _reference_fields(value)
        return structs.replace(value, **changed) if changed else value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Struct) for v in value):
        items = [_reference(v, name) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    if isinstance(value, (Mapping, list, tuple)):
        plain = jsonable(value)
        new = redact_json(plain, name)
        return value if new == plain else (tuple(new) if isinstance(value, tuple) else new)
    return value


# Pieces every rule of redact_text reacts to (and near misses), to build texts from.
_PIECES = sorted({
    *(literal for literal, _shape in _TOKEN_SHAPES), *(n for needles, _p, _k in _LINE_RULES for n in needles),
    "PRIVATE KEY", "-----BEGIN RSA PRIVATE KEY-----", "://", "https://u:pw@h/x", "--", "--token ", "--api-key=",
    "=", "password=", "TOKEN=", "sig=", "@", "user:pass@proxy:3128", "Bearer ", "BEARER ", "Basic ", "Authorization: ",
    "Cookie: ", '"password": "', '":', " ", "\n", "x", "A", "K", "\u212a", "\u0130", "0123456789abcdefghijKLMNOPQRST",
    "$HF_TOKEN", "<token>", "***", REDACTED, "ASC-DRV-001", "8.0.RC3", "/usr/local/Ascend",
})
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=12).map("".join)
_PLANTED = [*PLANTED_ENV.values(), *(a for p in PLANTED_PROCESSES for a in p.cmdline), DMESG, PROC_CMDLINE,
            HCCN_CONF, PLOG, LSPCI]
_KEYS = st.sampled_from(["", "message", "evidence", "token", "api_key", "cmdline", "argv", "path", "signature"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXTS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12)


def test_planted_secrets_are_redacted_as_redact_text_does() -> None:
    text = _ReportText()
    for value in _PLANTED:
        assert text(value) == redact_text(value)
        assert text(value) == redact_text(value)  # the second time from its memo


@given(_TEXTS)
def test_a_report_string_is_redacted_as_redact_text_does(value: str) -> None:
    assert _ReportText()(value) == redact_text(value)


@given(_JSON, _KEYS)
def test_plain_values_are_redacted_as_redact_json_does_and_kept_when_unchanged(value: Any, key: str) -> None:
    new = _redact_plain(value, key, _ReportText())
    expected = redact_json(value, key)
    assert new == expected
    assert (new is value) == (expected == value)


def _report(evidence: Dict[str, Any], message: str, notes: List[str]) -> Report:
    action = FixAction("cann", message, commands=(message, "echo ok"))
    results = [Result("ASC-DRV-001", "Driver", Status.PASS, "driver 24.1.rc2"),
               Result("ASC-ENV-001", "Env", Status.WARN, message, message, evidence, "npu 0", 0.5, (action,))]
    step = FixStep(1, "cann", message, commands=(message,), fixes=("ASC-ENV-001",))
    return Report("0.1.0", {"version": "2026.11.29", "warnings": []}, {"hostname": "h", "cmdline": ["a", message]},
                  {"env": evidence, "list": [message, 1, None]}, results, notes=notes, fix_plan=[step])


@given(st.dictionaries(_KEYS, _JSON, max_size=4), _TEXTS, st.lists(_TEXTS, max_size=3))
def test_report_redaction_equals_field_by_field_redact_json(evidence: Dict[str, Any], message: str,
                                                            notes: List[str]) -> None:
    report = _report(evidence, message, notes)
    fast, reference = redact_report(report), _reference_report(report)
    assert fast == reference
    assert (fast is report) == (reference is report)
    for name in ("facts", "host", "results", "fix_plan", "notes"):
        assert (getattr(fast, name) is getattr(report, name)) == (getattr(reference, name) is getattr(report, name))


def test_planted_secrets_in_a_report_are_redacted() -> None:
    for planted in _PLANTED:
        report = _report({"value": planted, "args": [planted]}, planted, [planted])
        assert redact_report(report) == _reference_report(report)
