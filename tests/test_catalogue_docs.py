"""docs/checks.md is the catalogue as the registry sees it; regenerate with `python tools/regenerate.py`
(or UPDATE_DOCS=1)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "checks.md"


def render_catalogue() -> str:
    spec = importlib.util.spec_from_file_location("regenerate", ROOT / "tools" / "regenerate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text: str = module.render_catalogue()
    return text


def test_docs_checks_md_is_current() -> None:
    text = render_catalogue()
    if os.environ.get("UPDATE_DOCS"):
        DOC.write_text(text, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == text, "docs/checks.md is stale: run python tools/regenerate.py"
