"""docs/checks.md is the catalogue as the registry sees it; regenerate with UPDATE_DOCS=1."""

from __future__ import annotations

import os
from pathlib import Path

from ascend_doctor.registry import all_checks

DOC = Path(__file__).resolve().parent.parent / "docs" / "checks.md"


def render_catalogue() -> str:
    lines = [
        "# The check catalogue",
        "",
        "Generated from the registry by `UPDATE_DOCS=1 python -m pytest tests/test_catalogue_docs.py`;",
        "`ascend-doctor checks` prints the same list and `ascend-doctor explain ID` one check's full text.",
        "Ids are stable and never reused.",
        "",
        "| id | title | runs when | what it checks |",
        "|---|---|---|---|",
    ]
    for check in all_checks():
        spec = check.spec
        what = " ".join(spec.what.split()).replace("|", "\\|")
        needs = ", ".join(f"`{r}`" for r in spec.requires) or "always"
        lines.append(f"| {spec.id} | {spec.title.replace('|', '/')} | {needs} | {what} |")
    return "\n".join(lines) + "\n"


def test_docs_checks_md_is_current() -> None:
    text = render_catalogue()
    if os.environ.get("UPDATE_DOCS"):
        DOC.write_text(text, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == text, "docs/checks.md is stale: run UPDATE_DOCS=1 pytest " \
        "tests/test_catalogue_docs.py"
