"""YAML from untrusted text: parsed once, bounded in depth and in alias expansion.

PyYAML's pure-Python scanner spends time proportional to the flow nesting on every token (a
40 KB ``models: [[[...]]]`` took 67 s), its composer recurses once per level, and aliases let a
few hundred bytes stand for billions of nodes (``a1: [*a0, *a0, ...]``). Here:

* the text is bounded in size first;
* nesting is bounded *while scanning*: libyaml (``CSafeLoader``) stops at its own nesting limit
  (1000 levels, checked once at start-up); for a libyaml without that limit, text that could
  nest deeper than ``MAX_UNCHECKED_DEPTH`` (a cheap count) first has its events streamed,
  stopping past ``max_depth``; without libyaml the pure-Python loader is a subclass that
  refuses to open a flow or block level past ``max_depth``. Either way the scan stays linear;
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
from ascend_doctor.lazy import lazy_re

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
def _libyaml() -> Tuple[Optional[type], bool]:
    """(``CSafeLoader`` or None, whether that libyaml stops deep nesting itself)."""
    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        return None, False
    try:
        yaml.compose("[" * 1100 + "]" * 1100, Loader=loader)
    except yaml.YAMLError:
        return loader, True  # refused: this libyaml has a nesting limit (0.2.5 and later builds)
    return loader, False


# Below this bound on the nesting, libyaml without its own limit is safe to call directly (its
# composer recursion and its per-token work stay small); the graph is measured afterwards.
MAX_UNCHECKED_DEPTH = 1500
_LEADING_INDICATORS = lazy_re(r"(?m)^[ \t?:-]*")


def _depth_bound(text: str) -> int:
    """An upper bound of the nesting depth, from the text alone (cheap: C-speed passes).

    Every flow level needs a ``[`` or ``{``; every block level needs more indentation or one more
    ``- ``/``? `` at the start of a line."""
    leading = max((m.end() - m.start() for m in _LEADING_INDICATORS.finditer(text)), default=0)
    return text.count("[") + text.count("{") + leading + 1


def _check_depth_with_events(text: str, loader: type, max_depth: int) -> None:
    """For a libyaml without its own nesting limit: stream its events (its parser keeps an
    explicit stack, no recursion) and stop past ``max_depth``, before its composer (which
    recurses in C) sees the document. Stopping early keeps the scan linear too."""
    depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > max_depth:
                line = f", line {event.start_mark.line + 1}" if event.start_mark is not None else ""
                raise TooComplex(f"nested too deeply (more than {max_depth} levels{line}): refused")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def _make_loader(text: str, what: str, max_depth: int) -> Any:
    """libyaml's loader when present (fast, keeps line marks), else the bounded pure one."""
    fast, nest_limited = _libyaml()
    if fast is None:
        loader = _BoundedPureLoader(text)
        loader.max_depth = max_depth
        return loader
    if not nest_limited and _depth_bound(text) > MAX_UNCHECKED_DEPTH:
        try:
            _check_depth_with_events(text, fast, max_depth)
        except TooComplex as exc:
            raise TooComplex(f"{what} is {exc}") from None
        except yaml.YAMLError as exc:
            _raise_if_nesting(exc, what)
            raise
    return fast(text)


def _raise_if_nesting(exc: yaml.YAMLError, what: str) -> None:
    """libyaml's own "exceeded maximum nesting depth" as our one-line refusal."""
    if "nesting depth" in str(exc):
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise TooComplex(f"{what} is nested too deeply{where}: refused") from None


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
    if not isinstance(root, (yaml.SequenceNode, yaml.MappingNode)):
        return 0, 0, 1
    expanded: Dict[int, int] = {}  # collections only: scalars are 1 node, 1 level
    height: Dict[int, int] = {}
    visiting = set()
    scalars_seen = set()  # only when aliases are counted (an alias of a scalar is the same object)
    aliases = 0

    def alias_at(node: yaml.Node) -> None:
        nonlocal aliases
        aliases += 1
        if max_aliases is not None and aliases > max_aliases:
            if max_aliases == 0:
                raise TooComplex(f"uses an alias at line {node.start_mark.line + 1}, and anchors/aliases are "
                                 "not allowed here: refused")
            raise TooComplex(f"uses more than {max_aliases} aliases (an expansion bomb?): refused")

    stack: List[Tuple[yaml.Node, Optional[List[yaml.Node]]]] = [(root, None)]
    while stack:
        node, kids = stack.pop()
        key = id(node)
        if kids is not None:  # all children measured: measure the node
            visiting.discard(key)
            size, levels = 1, 1
            for kid in kids:
                kid_key = id(kid)
                if kid_key in expanded:
                    size += expanded[kid_key]
                    levels = max(levels, height[kid_key] + 1)
                else:
                    size += 1
                    levels = max(levels, 2)
            if levels > max_depth + 1:  # scalars are level 1; collections count from there
                raise TooComplex(f"is nested too deeply (more than {max_depth} levels): refused")
            if size > max_expanded:
                raise TooComplex(f"has aliases that expand to more than {max_expanded} nodes (an expansion "
                                 "bomb?): refused")
            expanded[key], height[key] = size, levels
            continue
        if key in expanded:
            alias_at(node)
            continue
        if key in visiting:
            raise TooComplex(f"has a recursive alias at line {node.start_mark.line + 1}: refused")
        visiting.add(key)
        kids = _children(node)
        stack.append((node, kids))
        for kid in kids:
            if isinstance(kid, (yaml.SequenceNode, yaml.MappingNode)):
                stack.append((kid, None))
            elif max_aliases is not None:
                if id(kid) in scalars_seen:
                    alias_at(kid)
                else:
                    scalars_seen.add(id(kid))
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
        _raise_if_nesting(exc, what)
        raise
    if node is None:
        return None
    try:
        measure(node, max_depth=max_depth, max_expanded=max_expanded, max_aliases=max_aliases)
    except TooComplex as exc:
        raise TooComplex(f"{what} {exc}") from None
    checked: yaml.Node = node
    return checked


def _check_size(text: str, what: str, max_chars: int) -> None:
    if len(text) > max_chars:
        raise TooComplex(f"{what} is {len(text)} characters, more than the {max_chars} allowed: refused")


def compose(text: str, *, what: str = "YAML", max_chars: int = DEFAULT_MAX_CHARS,
            max_depth: int = DEFAULT_MAX_DEPTH, max_expanded: int = DEFAULT_MAX_EXPANDED_NODES,
            max_aliases: Optional[int] = None) -> Optional[yaml.Node]:
    """``yaml.compose`` with the bounds of the module docstring (None for an empty document)."""
    _check_size(text, what, max_chars)
    loader = _make_loader(text, what, max_depth)
    try:
        return _checked_node(loader, what, max_depth, max_expanded, max_aliases)
    finally:
        loader.dispose()


def safe_load(text: str, *, what: str = "YAML", max_chars: int = DEFAULT_MAX_CHARS,
              max_depth: int = DEFAULT_MAX_DEPTH, max_expanded: int = DEFAULT_MAX_EXPANDED_NODES,
              max_aliases: Optional[int] = None) -> Any:
    """``yaml.safe_load`` with the bounds of the module docstring, parsing the text once."""
    _check_size(text, what, max_chars)
    loader = _make_loader(text, what, max_depth)
    try:
        node = _checked_node(loader, what, max_depth, max_expanded, max_aliases)
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()
