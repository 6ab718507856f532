"""render/json.py: documents are json.dumps(indent=2, ensure_ascii=False); a fleet's node table is one
compact node a line, and the document is still the same JSON."""

from __future__ import annotations

import json
from pathlib import Path

from ascend_doctor.render.json import json_document

from .fleet_util import invoke, node_report, write_nodes


def test_a_document_is_what_json_dumps_writes() -> None:
    data = {"中文": ["\u2028", 1.5, None, True, {"a": []}], "z": {}}
    assert json_document(data) == json.dumps(data, indent=2, ensure_ascii=False)


def test_a_fleets_nodes_are_one_a_line_and_the_same_json(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    write_nodes(folder, [node_report(f"node{n:02}") for n in range(1, 4)])
    text = invoke("fleet", str(folder), "--format", "json").stdout
    data = json.loads(text)
    nodes = data["facts"]["nodes"]
    assert len(nodes) == 3
    lines = text.splitlines()
    for node in nodes:
        compact = json.dumps(node, ensure_ascii=False)
        assert any(line.strip().rstrip(",") == compact for line in lines), compact
