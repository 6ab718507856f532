"""YAML from untrusted text: parsed once, bounded in depth and in alias expansion.

PyYAML's pure-Python scanner spends time proportional to the flow nesting on every token (a
40 KB ``models: [[[...]]]`` took 67 s), its composer recurses once per level, and aliases let a
few hundred bytes stand for billions of nodes (``a1: [*a0, *a0, ...]``). Here:

* the text is bounded in size first;
* nesting is bounded *while scanning*: libyaml (``CSafeLoader``) stops at its own nesting limit
  (1000 levels, checked once at start-up; without it we use the pure-Python loader), and the
  pure-Python loader is a subclass that refuses to open a flow or block level past
  ``max_depth``, so the scan stays linear;
* the composed node graph is measured without recursion before anything is built: depth,
  number of aliases, size once every alias is expanded, and recursive aliases (``&a [*a]``);
* :func:`safe_load` then constructs Python objects from that same graph (one parse, not two).

Errors: :class:`ascend_doctor.boundedjson.TooComplex` (a ``ValueError``) for a limit, with a
one-line message; ``yaml.YAMLError`` for text that is not YAML. Import this module only where
YAML is read: it imports PyYAML.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Optional, Tuple

import yaml

from ascend_doctor.boundedjson import TooComplex

DEFAULT_MAX_DEPTH = 64
DEFAULT_MAX_CHARS = 16 * 1024 * 1024
DEFAULT_MAX_EXPANDED_NODES = 1_000_000  # the shipped matrix, the largest YAML we read, is ~1% of this


class _BoundedPureLoader(yaml.SafeLoader):
    """The pure-Python safe loader, refusing to nest deeper than ``max_depth`` while scanning."""

    max_depth = DEFAULT_MAX_DEPTH

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        if self.flow_level >= self.max_depth:
            raise TooComplex(f"nested too deeply (more than {self.max_depth} levels, line {self.line + 1}): "
                             "refused")
        super().fetch_flow_collection_start(TokenClass)

    def add_indent(self, column: int) -> bool:
        if len(self.indents) >= self.max_depth:
            raise TooComplex(f"nested too deeply (more than {self.max_depth} levels, line {self.line + 1}): "
                             "refused")
        return bool(super().add_indent(column))


@functools.lru_cache(maxsize=1)
def _libyaml_loader() -> Optional[type]:
    """``CSafeLoader`` when libyaml is present *and* bounds nesting itself, else None."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        return None
    probe = "[" * 1100 + "]" * 1100
    try:
        yaml.compose(probe, Loader=loader)
    except yaml.YAMLError:
        return loader  # refused: this libyaml has a nesting limit
    return None  # pragma: no cover - libyaml older than 0.2.5: its composer recursion is unbounded


def _make_loader(text: str, max_depth: int) -> Any:
    fast = _libyaml_loader()
    if fast is not None:
        return fast(text)
    loader = _BoundedPureLoader(text)
    loader.max_depth = max_depth
    return loader


def _children(node: yaml.Node) -> List[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def measure(root: yaml.Node, *, max_depth: int = DEFAULT_MAX_DEPTH,
            max_expanded: int = DEFAULT_MAX_EXPANDED_NODES,
            max_aliases: Optional[int] = None) -> Tuple[int, int, int]:
    """(depth, aliases, nodes once aliases are expanded) of a composed graph, without recursion.

    Raises ``TooComplex`` for a recursive alias, or as soon as the depth, the number of aliases
    or the expanded size passes its limit (so a billion-laughs graph costs its few hundred
    distinct nodes).
    """
    expanded: Dict[int, int] = {}
    height: Dict[int, int] = {}
    visiting = set()
    aliases = 0
    stack: List[Tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        kids = _children(node)
        if finished:
            visiting.discard(key)
            size = 1 + sum(expanded[id(k)] for k in kids)
            levels = 1 + max((height[id(k)] for k in kids), default=0)
            if levels > max_depth + 1:  # scalars are level 1; collections count from there
                raise TooComplex(f"is nested too deeply (more than {max_depth} levels): refused")
            if size > max_expanded:
                raise TooComplex(f"has aliases that expand to more than {max_expanded} nodes (an expansion "
                                 "bomb?): refused")
            expanded[key], height[key] = size, levels
            continue
        if key in expanded:
            aliases += 1
            if max_aliases is not None and aliases > max_aliases:
                if max_aliases == 0:
                    raise TooComplex(f"uses an alias at line {node.start_mark.line + 1}, and anchors/aliases are "
                                     "not allowed here: refused")
                raise TooComplex(f"uses more than {max_aliases} aliases (an expansion bomb?): refused")
            continue
        if key in visiting:
            raise TooComplex(f"has a recursive alias at line {node.start_mark.line + 1}: refused")
        visiting.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in kids)
    return height[id(root)] - 1, aliases, expanded[id(root)]


def _checked_node(loader: Any, what: str, max_depth: int, max_expanded: int,
                  max_aliases: Optional[int]) -> Optional[yaml.Node]:
    try:
        node = loader.get_single_node()
    except TooComplex as exc:
        raise TooComplex(f"{what} is {exc}") from None
    except RecursionError:  # pragma: no cover - nesting is bounded while scanning
        raise TooComplex(f"{what} is nested too deeply: refused") from None
    except yaml.YAMLError as exc:
        if "nesting depth" not in str(exc):
            raise
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise TooComplex(f"{what} is nested too deeply{where}: refused") from None
    if node is None:
        return None
    try:
        measure(node, max_depth=max_depth, max_expanded=max_expanded, max_aliases=max_aliases)
    except TooComplex as exc:
        raise TooComplex(f"{what} {exc}") from None
    return node


def _check_size(text: str, what: str, max_chars: int) -> None:
    if len(text) > max_chars:
        raise TooComplex(f"{what} is {len(text)} characters, more than the {max_chars} allowed: refused")


def compose(text: str, *, what: str = "YAML", max_chars: int = DEFAULT_MAX_CHARS,
            max_depth: int = DEFAULT_MAX_DEPTH, max_expanded: int = DEFAULT_MAX_EXPANDED_NODES,
            max_aliases: Optional[int] = None) -> Optional[yaml.Node]:
    """``yaml.compose`` with the bounds of the module docstring (None for an empty document)."""
    _check_size(text, what, max_chars)
    loader = _make_loader(text, max_depth)
    try:
        return _checked_node(loader, what, max_depth, max_expanded, max_aliases)
    finally:
        loader.dispose()


def safe_load(text: str, *, what: str = "YAML", max_chars: int = DEFAULT_MAX_CHARS,
              max_depth: int = DEFAULT_MAX_DEPTH, max_expanded: int = DEFAULT_MAX_EXPANDED_NODES,
              max_aliases: Optional[int] = None) -> Any:
    """``yaml.safe_load`` with the bounds of the module docstring, parsing the text once."""
    _check_size(text, what, max_chars)
    loader = _make_loader(text, max_depth)
    try:
        node = _checked_node(loader, what, max_depth, max_expanded, max_aliases)
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()
