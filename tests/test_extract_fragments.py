"""tools/extract_messages.py --todo/--import: several people translate areas in parallel, each in a
fragment .po, and the catalogue takes their translations without losing anyone's."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("extract_messages", ROOT / "tools" / "extract_messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("extract_messages", module)
    spec.loader.exec_module(module)
    return module


def test_todo_lists_only_the_untranslated_messages_of_the_area(tmp_path: Path) -> None:
    tool = _tool()
    entries = [
        tool.Entry("Driver {version} is installed", references=["checks/drv_001_driver_installed.py"]),
        tool.Entry("Model {path} has no config.json", references=["checks/mdl_001_model_present.py"]),
        tool.Entry("Already done", "已完成", references=["checks/mdl_002_x.py"]),
        tool.Entry("Close to an old text", "旧译文", fuzzy=True, references=["checks/mdl_003_y.py"]),
    ]
    out = tmp_path / "mdl.po"
    assert tool.write_todo(entries, ["checks/mdl_"], str(out)) == 2
    _, todo = tool.read_po(str(out))
    assert [e.msgid for e in todo] == ["Model {path} has no config.json", "Close to an old text"]
    assert todo[1].fuzzy and todo[1].msgstr == "旧译文"  # the suggestion travels with its flag


def test_import_fills_untranslated_and_fuzzy_entries_and_keeps_translations(tmp_path: Path) -> None:
    tool = _tool()
    fragment = tmp_path / "drv.po"
    tool.write_po(str(fragment), dict(tool.HEADER), [
        tool.Entry("Driver {version} is installed", "已安装驱动 {version}"),
        tool.Entry("Close to an old text", "新译文"),
        tool.Entry("Already done", "另一种译法"),
        tool.Entry("Not in the catalogue", "目录中没有"),
        tool.Entry("Left untranslated", ""),
    ])
    entries = [
        tool.Entry("Driver {version} is installed"),
        tool.Entry("Close to an old text", "旧译文", fuzzy=True),
        tool.Entry("Already done", "已完成"),
        tool.Entry("Left untranslated"),
    ]
    assert tool.import_fragments(entries, [str(fragment)], overwrite=False) == 2
    assert [(e.msgstr, e.fuzzy) for e in entries] == [
        ("已安装驱动 {version}", False), ("新译文", False), ("已完成", False), ("", False)]
    assert tool.import_fragments(entries, [str(fragment)], overwrite=True) == 1
    assert entries[2].msgstr == "另一种译法"
