"""jsonutil.jsonable: records and containers to the plain values JSON writes."""

from __future__ import annotations

import enum
import json
from collections import OrderedDict
from pathlib import PurePosixPath
from typing import Any, Dict

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import Struct

from ascend_doctor.jsonutil import jsonable

plain = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                     lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                     | st.dictionaries(st.text(), inner, max_size=4), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(plain)
def test_plain_data_comes_back_as_json_reads_it(data: Any) -> None:
    assert jsonable(data) == json.loads(json.dumps(data))


class Colour(enum.Enum):
    RED = "red"


class Point(Struct):
    x: int
    tags: frozenset  # type: ignore[type-arg]


class WithToDict(dict):  # a dict subclass that says how it is written: to_dict wins
    def to_dict(self) -> Dict[str, Any]:
        return {"as": "record"}


def test_records_enums_sets_and_paths() -> None:
    assert jsonable(Point(1, frozenset({"b", "a"}))) == {"x": 1, "tags": ["a", "b"]}
    assert jsonable({"c": Colour.RED, 2: PurePosixPath("/x")}) == {"c": "red", "2": "/x"}
    assert jsonable(WithToDict(a=1)) == {"as": "record"}
    assert jsonable(OrderedDict([("z", (1, 2))])) == {"z": [1, 2]}
    assert jsonable([{"k": {"inner"}}]) == [{"k": ["inner"]}]
