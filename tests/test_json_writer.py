"""render/json.py writes indented JSON itself: the same text as json.dumps(indent=2, ensure_ascii=False)."""

from __future__ import annotations

import enum
import json
from collections import OrderedDict
from typing import Any, Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.render.json import json_document


def reference(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text()
documents = st.recursive(scalars, lambda inner: (st.lists(inner, max_size=4) | st.tuples(inner, inner)
                                                 | st.dictionaries(st.text(), inner, max_size=4)), max_leaves=40)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_any_plain_document_is_written_as_json_dumps_writes_it(data: Any) -> None:
    assert json_document(data) == reference(data)


class Colour(enum.IntEnum):
    RED = 1


class Text(str):
    pass


@pytest.mark.parametrize("data", [
    {}, [], (), "", "中文 \u2028 \x00 \"quoted\" \\", {"a": {}, "b": [], "c": [{}]}, [Colour.RED, True, 1.5e300, -0.0],
    OrderedDict([("z", 1), ("a", 2)]), {Text("key"): Text("value")}, float("nan"), [float("-inf")],
])
def test_edge_values_match(data: Any) -> None:
    assert json_document(data) == reference(data)


@pytest.mark.parametrize("data", [{1: "int key"}, {None: 1, True: 2, 2.5: 3}, {("a",): 1}, {"set": {1}}, object()])
def test_what_the_writer_leaves_to_json_gives_json_own_answer(data: Any) -> None:
    try:
        expected = reference(data)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            json_document(data)
    else:
        assert json_document(data) == expected


def test_a_cycle_is_reported_as_json_reports_it() -> None:
    looped: Dict[str, Any] = {}
    looped["self"] = looped
    with pytest.raises(ValueError, match="Circular"):
        json_document(looped)


def test_deep_nesting_is_written_by_json_itself() -> None:
    deep: List[Any] = []
    for _ in range(300):
        deep = [deep]
    assert json_document(deep) == reference(deep)
