"""Every command's output is made in ascend_doctor/render/ (issue 10 item 3).

The command modules parse options, compute a result and hand it to the renderer of their command;
they never build an output document themselves. tools/output_identity.py proved the move changed no
byte; these tests keep the structure: no JSON is made in cli/, a renderer's JSON path loads no rich,
and what a format choice changes (the exit code of `checks`) is the same in every format.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

from ascend_doctor.cli import main

from .clirunner import make_runner
from .imports_util import modules_imported_by

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "ascend_doctor" / "cli"
# Calls that make output text; in a command module they mean the command builds its own output.
OUTPUT_MAKERS = ("json.dumps", "json.dump", "dump_json", "json_document", "json_line")


def _calls(tree: ast.AST) -> Iterator[Tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                yield node.lineno, f"{func.value.id}.{func.attr}"
            elif isinstance(func, ast.Name):
                yield node.lineno, func.id


def output_made_in(path: Path) -> List[Tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [(line, name) for line, name in _calls(tree) if name in OUTPUT_MAKERS]


def test_command_modules_build_no_output_documents() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}: {name}()" for path in sorted(CLI.glob("*.py"))
             for line, name in output_made_in(path)]
    assert not found, ("the command line makes output itself; hand the result to its renderer in "
                       "ascend_doctor/render/ instead:\n" + "\n".join(found))


def test_the_grep_finds_a_command_that_dumps_json(tmp_path: Path) -> None:
    sample = tmp_path / "new_cmd.py"
    sample.write_text("import json\nfrom ascend_doctor.cli._common import write_output\n\n"
                      "def run(data, output):\n    write_output(json.dumps(data), output)\n", encoding="utf-8")
    assert output_made_in(sample) == [(5, "json.dumps")]


def _broken_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    import ascend_doctor.registry as registry

    catalogue, _problems = registry.load_catalogue()
    monkeypatch.setattr(registry, "_cache", (catalogue, ["checks/zzz_999_broken.py: SyntaxError: invalid syntax"]))


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_checks_with_a_module_that_did_not_load_exits_3_in_every_format(fmt: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _broken_catalogue(monkeypatch)
    result = make_runner().invoke(main, ["checks", "--format", fmt], catch_exceptions=False)
    assert result.exit_code == 3, result.output
    assert "zzz_999_broken.py" in result.stderr and "zzz_999" not in result.stdout
    if fmt == "json":
        assert {entry["id"] for entry in json.loads(result.stdout)} >= {"ASC-DRV-001"}


LOG = ROOT / "tests" / "samples" / "dmesg-and-logs" / "vllm-ascend-116-910B-stars-sdma-EI9999-507001.txt"
JSON_RUNS = {
    "checks": ["checks", "--format", "json"],
    "explain": ["explain", "ASC-DRV-001", "--format", "json"],
    "plan": ["plan", "--model", "DeepSeek-R1", "--chip", "910B3", "--format", "json"],
    "diagnose": ["diagnose", str(LOG), "--format", "json"],
    "matrix lookup": ["matrix", "lookup", "--cann", "8.0.RC3", "--format", "json"],
    "matrix plan": ["matrix", "plan", "--chip", "910B3", "--engine", "vllm-ascend", "--format", "json"],
}


@pytest.mark.parametrize("name", sorted(JSON_RUNS))
def test_a_json_result_loads_no_text_renderer(name: str, tmp_path: Path) -> None:
    """Renderers import what one format needs inside that format's function: JSON never loads rich."""
    modules = modules_imported_by(tmp_path, *JSON_RUNS[name])
    assert "ascend_doctor.render.json" in modules  # it did render
    assert not {m for m in modules if m == "rich" or m.startswith("rich.")}, f"{name} --format json imported rich"
