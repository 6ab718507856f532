"""No import circle, typing-only imports counted (issue 23): the ``acyclic_with_typing`` contract
of tools/import_contracts.py finds circles and names one round of imports through each, and the
package has none (the matrix query modules annotate with matrix/tables.py's ``MatrixTables``, the
resolver's engines.py with its ``ProviderView``)."""

from __future__ import annotations

import configparser
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Dict, List, Sequence, Tuple

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_contracts", ROOT / "tools" / "import_contracts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("import_contracts", module)
    spec.loader.exec_module(module)
    return module


def _graph(imports: Sequence[Tuple[str, str, int]]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    graph.add_module("pkg")
    for importer, imported, line in imports:
        graph.add_import(importer=importer, imported=imported, line_number=line, line_contents=f"import {imported}")
    return graph


def test_circles_are_the_components_of_more_than_one_module() -> None:
    imports_of: Dict[str, List[str]] = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["e"], "e": ["d"], "f": ["a"]}
    assert _tool().circles(imports_of, imports_of) == [["a", "b", "c"], ["d", "e"]]
    assert _tool().circles(["x", "y"], {"x": ["y"]}) == []


def test_a_deep_chain_needs_no_recursion() -> None:
    chain = {f"m{i}": [f"m{i + 1}"] for i in range(5000)}
    chain["m5000"] = ["m0"]
    assert len(_tool().circles(chain, chain)[0]) == 5001


def test_the_round_reported_is_a_shortest_one_through_the_first_module() -> None:
    imports_of = {"a": ["b", "x"], "b": ["c"], "c": ["a"], "x": ["a"]}
    assert _tool().shortest_round(frozenset(imports_of), imports_of) == [("a", "x"), ("x", "a")]


def test_the_contract_breaks_on_a_typing_only_circle_and_marks_that_import(monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _tool()
    run_time = [("pkg.facade", "pkg.query", 7), ("pkg.query", "pkg.low", 3), ("pkg.other", "pkg.low", 2)]
    monkeypatch.setattr(tool, "graph_with_typing", lambda options: _graph([*run_time, ("pkg.query", "pkg.facade", 12)]))
    contract = tool.AcyclicWithTypingContract(name="no circles", session_options={"root_packages": ["pkg"]},
                                              contract_options={"containers": ["pkg"]})
    check = contract.check(_graph(run_time), verbose=False)
    assert not check.kept
    [circle] = check.metadata["circles"]
    assert circle["modules"] == ["pkg.facade", "pkg.query"]
    assert [(s["importer"], s["imported"], s["line_numbers"], s["typing_only"]) for s in circle["round"]] == [
        ("pkg.facade", "pkg.query", [7], False), ("pkg.query", "pkg.facade", [12], True)]
    monkeypatch.setattr(tool, "graph_with_typing", lambda options: _graph(run_time))
    assert contract.check(_graph(run_time), verbose=False).kept


def test_the_package_has_no_circle_and_a_contract_keeps_it_so() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter", encoding="utf-8")
    contracts = [name for name in config.sections() if config.get(name, "type", fallback="") == "acyclic_with_typing"]
    assert contracts and "ascend_doctor" in config.get(contracts[0], "containers").split()
    graph = grimp.build_graph("ascend_doctor", include_external_packages=False, exclude_type_checking_imports=False,
                              cache_dir=None)
    imports_of = {module: sorted(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    assert _tool().circles(graph.modules, imports_of) == []
