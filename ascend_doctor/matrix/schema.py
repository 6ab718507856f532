"""Typed conversion of YAML nodes into matrix records, collecting ``file:line key.path`` problems.

Records are msgspec structs whose fields carry a ``Kind`` in their annotation (see ``fld``). Walking a
composed YAML node (not a loaded Python value) keeps every line number and lets us see duplicate
mapping keys, which ``yaml.safe_load`` silently drops.
"""

from __future__ import annotations

import re
import typing
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Type, TypeVar

from ascend_doctor.matrix.errors import Location, Problem
from ascend_doctor.matrix.specs import (
    SpecError,
    ascend,
    ascend_spec,
    parse_code_list,
    parse_driver_patterns,
    parse_firmware_ranges,
    pypi,
    pyspec,
)
from ascend_doctor.versions import ReleaseCode, VersionError

if TYPE_CHECKING:
    import yaml
else:  # the records are defined at every start; PyYAML is needed only when a matrix file is parsed
    from ascend_doctor.lazy import lazy_module

    yaml = lazy_module("yaml")


STR_TAG = "tag:yaml.org,2002:str"
_TAG_NAMES = {
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:timestamp": "a date",
}
MAX_NODES = 200_000  # generous for the real matrix, fatal for alias bombs
MAX_PROBLEMS = 500  # a hostile file must not produce an unbounded report


class Invalid(Exception):
    """A value failed its kind; ``node`` (when given) points at the offending part."""

    def __init__(self, message: str, node: Optional[yaml.Node] = None) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


class Ctx:
    """Walk state: file name, collected problems and a node budget."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: List[Problem] = []
        self.budget = MAX_NODES

    def problem(self, node: Optional[yaml.Node], path: str, message: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(self.file, line_of(node), path, message))
        elif len(self.problems) == MAX_PROBLEMS:
            self.problems.append(Problem(self.file, line_of(node), "", "too many problems; stopped reporting"))

    def spend(self, node: yaml.Node) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise Invalid("the document has too many nodes (alias expansion?)", node)


def line_of(node: Optional[yaml.Node]) -> int:
    return node.start_mark.line + 1 if node is not None and node.start_mark is not None else 0


def describe(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    name = _TAG_NAMES.get(node.tag, "text")
    return f"{name} ({node.value!r})" if name != "text" else f"text {node.value!r}"


def mapping_items(node: yaml.Node, path: str, ctx: Ctx) -> List[Tuple[str, yaml.Node, yaml.Node]]:
    """Key/value pairs of a mapping, reporting non-text and duplicate keys."""
    if not isinstance(node, yaml.MappingNode):
        raise Invalid(f"expected a mapping, got {describe(node)}", node)
    seen: Dict[str, int] = {}
    items: List[Tuple[str, yaml.Node, yaml.Node]] = []
    for key_node, value_node in node.value:
        ctx.spend(key_node)
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
            ctx.problem(key_node, path, "mapping keys must be plain text (no merge keys)")
            continue
        key = str(key_node.value)
        if key in seen:
            ctx.problem(key_node, join(path, key), f"duplicate key (first defined on line {seen[key]})")
            continue
        seen[key] = line_of(key_node)
        items.append((key, key_node, value_node))
    return items


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


# -- kinds ------------------------------------------------------------------------------------

class Kind:
    """Converts a node to a Python value or raises Invalid."""

    label = "value"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        raise NotImplementedError

    def normalize(self, value: Any) -> Any:
        """A comparable form used for duplicate detection."""
        return value


class Text(Kind):
    label = "text"

    def __init__(self, pattern: Optional[str] = None, hint: str = "") -> None:
        self.pattern = re.compile(pattern) if pattern else None
        self.hint = hint

    def scalar(self, node: yaml.Node) -> str:
        if not isinstance(node, yaml.ScalarNode):
            raise Invalid(f"expected {self.label}, got {describe(node)}", node)
        if node.tag != STR_TAG:
            advice = "; quote it" if node.tag in _TAG_NAMES and node.tag != "tag:yaml.org,2002:null" else ""
            raise Invalid(f"expected {self.label}, got {describe(node)}{advice}", node)
        text = str(node.value).strip()
        if not text:
            raise Invalid(f"expected {self.label}, got an empty string", node)
        return text

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        text = self.scalar(node)
        if self.pattern and not self.pattern.match(text):
            raise Invalid(f"{text!r} is not {self.hint or 'valid here'}", node)
        return text


class _Checked(Text):
    """Text that must pass a parser; keeps the text as written."""

    def check(self, text: str) -> Any:
        raise NotImplementedError

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        text = self.scalar(node)
        try:
            self.check(text)
        except (VersionError, SpecError, ValueError) as exc:  # packaging's InvalidVersion is a ValueError
            raise Invalid(f"{text!r} is not {self.label}: {exc}", node) from exc
        return text


class AscendVersionKind(_Checked):
    label = "an Ascend version (e.g. 24.1.RC2, 8.0.RC3, 7.3.0.1.231)"

    def check(self, text: str) -> Any:
        return ascend(text)

    def normalize(self, value: Any) -> Any:
        return ascend(value).sort_key


class AscendSpecKind(_Checked):
    label = "an Ascend version spec (e.g. 24.1.RC2, 25.5.X, <25.0, >=8.0.RC1)"

    def check(self, text: str) -> Any:
        return ascend_spec(text)


class PypiVersionKind(_Checked):
    label = "a PyPI version (e.g. 2.1.0.post8)"

    def check(self, text: str) -> Any:
        return pypi(text)

    def normalize(self, value: Any) -> Any:
        return pypi(value)


class PySpecKind(_Checked):
    label = "a version specifier (e.g. >=3.9,<3.12)"

    def check(self, text: str) -> Any:
        return pyspec(text)


class ReleaseCodeKind(_Checked):
    label = "a release code (e.g. V100R001C19)"

    def check(self, text: str) -> Any:
        return ReleaseCode.parse(text)


class CodeListKind(_Checked):
    label = "a compatible_version list (e.g. [V100R001C13,V100R001C19],[V100R001C30])"

    def check(self, text: str) -> Any:
        if not parse_code_list(text):
            raise ValueError("no codes")


class FirmwareRangesKind(_Checked):
    label = "a firmware range list (e.g. [7.0.0,7.5.99])"

    def check(self, text: str) -> Any:
        return parse_firmware_ranges(text)


class DriverPatternsKind(_Checked):
    label = "a driver pattern list (e.g. [24.1,24.1.])"

    def check(self, text: str) -> Any:
        return parse_driver_patterns(text)


class MatrixVersionKind(_Checked):
    label = "a matrix version (PEP 440, e.g. 2026.11.29)"

    def check(self, text: str) -> Any:
        return pypi(text)


class Choice(Text):
    def __init__(self, *values: str) -> None:
        super().__init__()
        self.values = values
        self.label = "one of " + ", ".join(values)

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        text = self.scalar(node)
        if text not in self.values:
            raise Invalid(f"{text!r} is not {self.label}", node)
        return text


class Int(Kind):
    label = "an integer"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:int":
            raise Invalid(f"expected an integer, got {describe(node)}", node)
        try:
            return int(str(node.value).replace("_", ""), 0)
        except ValueError as exc:
            raise Invalid(f"expected an integer, got {describe(node)}", node) from exc


class Bool(Kind):
    label = "true or false"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:bool":
            raise Invalid(f"expected true or false, got {describe(node)}", node)
        return node.value.lower() in ("true", "yes", "on")


class Tristate(Kind):
    """true / false / partial / null (no source either way)."""

    label = "true, false, partial or null"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        if isinstance(node, yaml.ScalarNode):
            if node.tag == "tag:yaml.org,2002:null":
                return None
            if node.tag == "tag:yaml.org,2002:bool":
                return node.value.lower() in ("true", "yes", "on")
            if node.tag == STR_TAG and node.value == "partial":
                return "partial"
        raise Invalid(f"expected {self.label}, got {describe(node)}", node)


class ListOf(Kind):
    def __init__(self, item: Kind, min_items: int = 0) -> None:
        self.item = item
        self.min_items = min_items
        self.label = f"a list of {item.label}"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        if not isinstance(node, yaml.SequenceNode):
            raise Invalid(f"expected {self.label}, got {describe(node)}", node)
        if len(node.value) < self.min_items:
            raise Invalid(f"expected at least {self.min_items} item(s)", node)
        values = []
        for index, child in enumerate(node.value):
            ctx.spend(child)
            child_path = f"{path}[{index}]"
            try:
                values.append(self.item.convert(child, child_path, ctx))
            except Invalid as exc:
                ctx.problem(exc.node or child, child_path, exc.message)
        return tuple(values)

    def normalize(self, value: Any) -> Any:
        return tuple(sorted(str(self.item.normalize(v)) for v in value))


class SourceText(Text):
    """One source a user can follow (``ascend_doctor.sourceref``): a URL, ``host/owner/repo path``,
    or an ``observed:`` / ``unconfirmed:`` marker; never a project-internal note."""

    label = "a source (URL, repository path, or observed:/unconfirmed: marker)"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        from ascend_doctor.sourceref import source_problem

        value = super().convert(node, path, ctx)
        problem = source_problem(value)
        if problem is not None:
            raise Invalid(f"source {value[:80]!r}: {problem}", node)
        return value


class SourceKind(Kind):
    """``source``: a source a user can follow, or a non-empty list of them."""

    label = "a source (URL, repository path, or observed:/unconfirmed: marker) or a list of them"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        if isinstance(node, yaml.SequenceNode):
            if not node.value:
                raise Invalid("source list is empty: every entry needs at least one source", node)
            return ListOf(SourceText()).convert(node, path, ctx)
        return (SourceText().convert(node, path, ctx),)


class OpenMapping(Kind):
    """A mapping of text keys to one kind (keys limited to ``keys`` when given)."""

    def __init__(self, value: Kind, keys: Sequence[str] = ()) -> None:
        self.value = value
        self.keys = tuple(keys)
        self.label = "a mapping"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        result = {}
        for key, key_node, value_node in mapping_items(node, path, ctx):
            child_path = join(path, key)
            if self.keys and key not in self.keys:
                ctx.problem(key_node, child_path, f"unknown key (expected one of {', '.join(self.keys)})")
                continue
            try:
                result[key] = self.value.convert(value_node, child_path, ctx)
            except Invalid as exc:
                ctx.problem(exc.node or value_node, child_path, exc.message)
        return result


R = TypeVar("R")


class Nested(Kind):
    """A mapping converted into a record instance; fields described by their ``fld`` specs."""

    def __init__(self, cls: Type[Any]) -> None:
        self.cls = cls
        self.label = f"a {cls.__name__} mapping"

    def convert(self, node: yaml.Node, path: str, ctx: Ctx) -> Any:
        specs = field_specs(self.cls)
        values: Dict[str, Any] = {}
        lines: Dict[str, int] = {}
        failed = False
        for key, key_node, value_node in mapping_items(node, path, ctx):
            child_path = join(path, key)
            spec = specs.get(key)
            if spec is None:
                ctx.problem(key_node, child_path, f"unknown key (expected one of {', '.join(sorted(specs))})")
                continue
            lines[key] = line_of(value_node)
            if (isinstance(value_node, yaml.ScalarNode) and value_node.tag == "tag:yaml.org,2002:null"
                    and spec.nullable):
                values[key] = None
                continue
            try:
                values[key] = spec.kind.convert(value_node, child_path, ctx)
            except Invalid as exc:
                ctx.problem(exc.node or value_node, child_path, exc.message)
                failed = True
        for name, spec in specs.items():
            if spec.required and name not in values and name not in lines:
                hint = " (every entry needs a source)" if name == "source" else ""
                ctx.problem(node, join(path, name), f"missing required key{hint}")
                failed = True
        if failed:
            raise Invalid("", None)  # already reported; the caller drops this record
        extras: Dict[str, Any] = {}
        field_names = set(self.cls.__struct_fields__)
        if "loc" in field_names:
            extras["loc"] = Location(ctx.file, line_of(node))
        if "lines" in field_names:
            extras["lines"] = lines
        if "path" in field_names:
            extras["path"] = path
        return self.cls(**values, **extras)


class FieldSpec:
    """How a record field is read from YAML: its ``kind``, whether the key is required, whether
    ``null`` is allowed, and (``ref``) which table a version must exist in. Written into the field's
    annotation, ``Annotated[T, fld(...)]``, where only the build step (``field_specs``) reads it."""

    __slots__ = ("kind", "nullable", "ref", "required")

    def __init__(self, kind: Kind, required: bool, ref: Optional[str], nullable: bool) -> None:
        self.kind = kind
        self.required = required
        self.ref = ref
        self.nullable = nullable


def fld(kind: Kind, *, required: bool = False, ref: Optional[str] = None, nullable: bool = False) -> FieldSpec:
    """A record field read from YAML with ``kind``; ``ref`` names the table it must exist in."""
    return FieldSpec(kind, required, ref, nullable)


_field_specs: Dict[type, Dict[str, FieldSpec]] = {}


def field_specs(cls: Type[Any]) -> Dict[str, FieldSpec]:
    """The ``fld`` specs of a record class by field name, in field order (annotations are strings
    until asked for: resolving them here, at build time, costs the run-time loader nothing)."""
    specs = _field_specs.get(cls)
    if specs is None:
        hints = typing.get_type_hints(cls, include_extras=True)
        specs = _field_specs[cls] = {}
        for name in cls.__struct_fields__:
            for extra in getattr(hints.get(name), "__metadata__", ()):
                if isinstance(extra, FieldSpec):
                    specs[name] = extra
    return specs


def convert_rows(cls: Type[R], node: yaml.Node, path: str, ctx: Ctx) -> List[R]:
    """A list section: each item a ``cls`` record; bad items are reported and skipped."""
    if not isinstance(node, yaml.SequenceNode):
        ctx.problem(node, path, f"expected a list of entries, got {describe(node)}")
        return []
    rows: List[R] = []
    struct = Nested(cls)
    for index, child in enumerate(node.value):
        ctx.spend(child)
        child_path = f"{path}[{index}]"
        try:
            rows.append(struct.convert(child, child_path, ctx))
        except Invalid as exc:
            if exc.message:
                ctx.problem(exc.node or child, child_path, exc.message)
    return rows
