"""Turn records into plain JSON values (shared by facts, report and renderers)."""

from __future__ import annotations

from typing import Any, Mapping


def jsonable(value: Any) -> Any:
    """Convert records (dataclasses with to_dict, enums, tuples, paths) to plain JSON values."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
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
    if hasattr(value, "__dataclass_fields__"):
        import dataclasses

        return jsonable(dataclasses.asdict(value))
    return str(value)
