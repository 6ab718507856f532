"""Import contracts that see typing-only imports too (``lint-imports`` loads this: .importlinter
``contract_types``).

``.importlinter`` leaves imports under ``if TYPE_CHECKING:`` out of every contract
(``exclude_type_checking_imports``: they name a type for mypy and never run), and that setting is
one for the whole session. A circle of imports that closes only through such an import still
ties two modules together (neither can be read, moved or tested without the other), so the
contracts that keep circles from coming back see the typing-only imports:

* ``forbidden_with_typing``: a forbidden contract checked over a graph that includes them;
* ``acyclic_with_typing``: no circle of imports at all among the modules of its ``containers``
  (a strongly connected component of more than one module), each circle reported with its
  modules and one shortest round of imports through it, the typing-only imports marked.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Sequence, Set, Tuple

import grimp
from importlinter.application import output
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck
from importlinter.domain.imports import Module


@functools.cache
def _graph_with_typing(root_packages: Tuple[str, ...], external: bool) -> grimp.ImportGraph:
    # No grimp cache: it would be one more folder in the checkout. Built once per run and shared
    # by the contracts below, each with its own copy (a contract may remove imports from its graph).
    return grimp.build_graph(*root_packages, include_external_packages=external,
                             exclude_type_checking_imports=False, cache_dir=None)


def graph_with_typing(session_options: Dict[str, Any]) -> grimp.ImportGraph:
    """The session's import graph with the ``if TYPE_CHECKING:`` imports in it."""
    external = str(session_options.get("include_external_packages", "")).lower() == "true"
    return copy.deepcopy(_graph_with_typing(tuple(session_options["root_packages"]), external))


class ForbiddenWithTypingContract(ForbiddenContract):
    """``forbidden``, over the import graph with the ``if TYPE_CHECKING:`` imports in it."""

    type_name = "forbidden_with_typing"

    def check(self, graph: Any, verbose: bool) -> Any:
        return super().check(graph_with_typing(self.session_options), verbose)


def circles(nodes: Iterable[str], imports_of: Mapping[str, Sequence[str]]) -> List[List[str]]:
    """The strongly connected components of more than one node, each sorted, in sorted order.

    Tarjan's algorithm, with an explicit stack rather than recursion: chains of imports run
    deeper than Python's default recursion limit."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def enter(node: str) -> Tuple[str, Iterator[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return node, iter(imports_of.get(node, ()))

    for root in sorted(nodes):
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, successors = work[-1]
            for nxt in successors:
                if nxt not in index:
                    work.append(enter(nxt))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:  # every import of ``node`` seen: close it
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component: List[str] = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def shortest_round(component: FrozenSet[str], imports_of: Mapping[str, Sequence[str]]) -> List[Tuple[str, str]]:
    """The imports of one shortest circle from the component's first module back to it, by a
    breadth-first walk that stays inside the component."""
    first = min(component)
    came_from: Dict[str, str] = {}
    frontier = [first]
    while frontier and first not in came_from:
        following: List[str] = []
        for module in frontier:
            for nxt in imports_of.get(module, ()):
                if nxt in component and nxt not in came_from:
                    came_from[nxt] = module
                    following.append(nxt)
        frontier = following
    path = [first, came_from[first]]
    while path[-1] != first:
        path.append(came_from[path[-1]])
    path.reverse()
    return list(zip(path, path[1:]))


class AcyclicWithTypingContract(Contract):
    """No import circle among the modules of ``containers``, ``if TYPE_CHECKING:`` imports counted."""

    type_name = "acyclic_with_typing"

    containers = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        with_typing = graph_with_typing(self.session_options)
        inside: Set[str] = set()
        # Contract.__init__ sets the parsed option over the class's field, per instance
        containers: List[Module] = vars(self)["containers"]
        for container in containers:
            inside |= {container.name, *with_typing.find_descendants(container.name)}
        imports_of = {module: sorted(with_typing.find_modules_directly_imported_by(module) & inside)
                      for module in inside}
        found = []
        for component in circles(inside, imports_of):
            steps = [{"importer": importer, "imported": imported,
                      "line_numbers": sorted(d["line_number"] for d in with_typing.get_import_details(
                          importer=importer, imported=imported)),
                      # the session's graph leaves the typing-only imports out
                      "typing_only": not graph.direct_import_exists(importer=importer, imported=imported)}
                     for importer, imported in shortest_round(frozenset(component), imports_of)]
            found.append({"modules": component, "round": steps})
        return ContractCheck(kept=not found, metadata={"circles": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for circle in check.metadata["circles"]:
            output.print_error(f"{len(circle['modules'])} modules import one another in a circle:")
            output.new_line()
            for module in circle["modules"]:
                output.print_error(f"-   {module}", bold=False)
            output.new_line()
            output.print_error("for instance:", bold=False)
            for step in circle["round"]:
                lines = ", ".join(f"l.{n}" for n in step["line_numbers"])
                typing_only = ", under TYPE_CHECKING" if step["typing_only"] else ""
                output.indent_cursor()
                output.print_error(f"{step['importer']} -> {step['imported']} ({lines}{typing_only})", bold=False)
            output.new_line()
