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


# Stands for a fleet's node table while the rest of its report is written (no text a report holds
# has a NUL in it: render/sanitize.py makes control characters visible).
_NODES_MARK = "\x00nodes\x00"


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
            and isinstance(facts.get("nodes"), list) and facts["nodes"]:
        # docs/fleet-report-schema.json: one node a line, compact, where ten thousand nodes indented
        # over fifteen lines each would be most of the document; still one JSON list for any reader.
        nodes = facts["nodes"]
        facts["nodes"] = _NODES_MARK
        text = json_document(data)
        mark = json.dumps(_NODES_MARK)
        line = text[text.rindex("\n", 0, text.index(mark)) + 1:]
        indent = "\n" + " " * (len(line) - len(line.lstrip(" ")))  # the key's: its list's closing bracket
        rows = ("," + indent + "  ").join(json.dumps(node, ensure_ascii=False) for node in nodes)
        return text.replace(mark, "[" + indent + "  " + rows + indent + "]", 1)
    return json_document(data)
