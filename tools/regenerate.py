#!/usr/bin/env python3
"""Regenerate what is derived from the checks, in one command (docs/architecture.md, "Adding a check").

    python tools/regenerate.py           # the built data (python -m ascend_doctor.compiled_data:
                                         # compat_matrix/compiled.pickle, checks/_catalogue.py),
                                         # docs/checks.md from the registry, and the message catalogue:
                                         # new messages into ascend_doctor/locale/zh/.../ascend_doctor.po
                                         # (untranslated), the .mo compiled from it
    python tools/regenerate.py --check   # change nothing; exit 1 when either is stale or a message
                                         # lacks its translation

Installed plugins are left out: the catalogue documented here is ascend-doctor's own.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "checks.md"


def render_catalogue() -> str:
    """docs/checks.md: one row per check of the registry."""
    os.environ["ASCEND_DOCTOR_DISABLE_PLUGINS"] = "1"
    from ascend_doctor.registry import all_checks

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


def _extract_messages() -> Any:
    spec = importlib.util.spec_from_file_location("extract_messages", ROOT / "tools" / "extract_messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when something is stale")
    args = parser.parse_args(argv)
    from ascend_doctor import compiled_data  # first: the registry below reads the catalogue it builds

    built = compiled_data.main(["--check"] if args.check else [])
    text = render_catalogue()
    stale: List[str] = ["built data"] if built else []
    if DOC.read_text(encoding="utf-8") != text:
        if args.check:
            stale.append(str(DOC.relative_to(ROOT)))
        else:
            DOC.write_text(text, encoding="utf-8")
            print(f"{DOC.relative_to(ROOT)}: written")
    code = int(_extract_messages().main(["--check"] if args.check else []))
    if stale:
        print("stale: " + ", ".join(stale) + " (run python tools/regenerate.py)", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
