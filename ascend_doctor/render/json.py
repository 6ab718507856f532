"""JSON output: the report (the contract in docs/report-schema.json) and every other command's document.

Every JSON document a command prints is made here, from the dict its renderer assembles, so that all
of them share one layout: indented by two, non-ASCII kept as it is, keys in the order built. The
watch stream and the ``--on-alert`` payload are one object per line (``json_line``, ``json_payload``).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any, Callable, List

if TYPE_CHECKING:
    from ascend_doctor.report import Report

INDENT = "  "
# Nesting the writer goes to before leaving the document to json.dumps (a report is ~6 deep).
_MAX_DEPTH = 100


def json_document(data: Any) -> str:
    """One JSON document as the commands print it (docs/*-schema.json): what
    ``json.dumps(data, indent=2, ensure_ascii=False)`` gives, character for character.

    json.dumps writes an indented document with its pure-Python encoder (the C one writes compact
    JSON only, before Python 3.14): 0.77 ms for a healthy machine's 44 KB report (3.11, median of
    40), where this writer, for the plain data the renderers build (dicts with text keys, lists,
    text, numbers, booleans, None), takes 0.47 ms. Anything else (another key type, an object json
    cannot write, a cycle or very deep nesting) goes to json.dumps, so its output or its error is
    json's own.
    """
    out: List[str] = []
    try:
        _write(data, out.append, "\n")
    except _NotPlain:
        return json.dumps(data, indent=2, ensure_ascii=False)
    return "".join(out)


class OneLineRows(list):  # type: ignore[type-arg]
    """A list written one compact element per line (``json.dumps`` of each, default separators): a
    fleet's node table, where ten thousand rows indented over fifteen lines each would be most of the
    document. Still one JSON value: any reader sees the same list."""


class _NotPlain(Exception):
    """The document holds something this writer leaves to json.dumps."""


def _write(value: Any, emit: Callable[[str], None], newline: str) -> None:
    """Append ``value`` at the indentation ``newline`` ("\\n" and the current indent) opens."""
    if isinstance(value, str):
        emit(encode_basestring(value))
    elif value is None:
        emit("null")
    elif value is True:
        emit("true")
    elif value is False:
        emit("false")
    elif isinstance(value, int):
        emit(int.__repr__(value))  # as json: an IntEnum is its number
    elif isinstance(value, float):
        emit(_float_text(value))
    elif isinstance(value, dict):
        if not value:
            emit("{}")
            return
        inner = _deeper(newline)
        separator = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotPlain()
            if type(item) is str:  # most values: written here, without a call
                emit(separator + encode_basestring(key) + ": " + encode_basestring(item))
            else:
                emit(separator + encode_basestring(key) + ": ")
                _write(item, emit, inner)
            separator = "," + inner
        emit(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            emit("[]")
            return
        inner = _deeper(newline)
        if type(value) is OneLineRows:
            emit("[" + inner + ("," + inner).join(json.dumps(item, ensure_ascii=False) for item in value)
                 + newline + "]")
            return
        separator = "[" + inner
        for item in value:
            if type(item) is str:
                emit(separator + encode_basestring(item))
            else:
                emit(separator)
                _write(item, emit, inner)
            separator = "," + inner
        emit(newline + "]")
    else:
        raise _NotPlain()


def _deeper(newline: str) -> str:
    if len(newline) > 1 + _MAX_DEPTH * len(INDENT):
        raise _NotPlain()  # json.dumps reports a cycle, or writes what is only very deep
    return newline + INDENT


def _float_text(value: float) -> str:
    """As json writes a float (allow_nan: NaN and the infinities as JavaScript names them)."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def json_line(data: Any) -> str:
    """One compact JSON object on one line (JSON Lines: the ``watch --format json`` stream)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def json_payload(data: Any) -> str:
    """One JSON object on one line with the default separators, ended by a newline (what ``watch
    --on-alert CMD`` reads on its stdin)."""
    return json.dumps(data, ensure_ascii=False) + "\n"


def report_to_json(report: Report) -> str:
    data = report.to_dict()
    facts = data.get("facts")
    if (data.get("host") or {}).get("source") == "fleet" and isinstance(facts, dict) \
            and isinstance(facts.get("nodes"), list):
        facts["nodes"] = OneLineRows(facts["nodes"])  # docs/fleet-report-schema.json: one node a line
    return json_document(data)
