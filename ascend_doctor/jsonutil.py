"""Turn records into plain JSON values (shared by facts, report and renderers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def jsonable(value: Any) -> Any:
    """Convert records (dataclasses with to_dict, enums, tuples, paths) to plain JSON values."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    # Plain dicts, lists and tuples first, the bulk of evidence and facts: they have no to_dict,
    # and looking for one (a failed attribute lookup) cost more than converting them.
    kind = type(value)
    if kind is dict:
        return {str(k): jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [jsonable(v) for v in value]
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return jsonable(to_dict())
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [jsonable(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (set, frozenset)) else items
    enum_value = getattr(value, "value", None)
    if enum_value is not None and isinstance(enum_value, (str, int)):
        return enum_value
    if hasattr(value, "__struct_fields__"):  # a record (msgspec.Struct)
        return jsonable({name: getattr(value, name) for name in value.__struct_fields__})
    return str(value)
