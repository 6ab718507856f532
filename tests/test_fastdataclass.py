"""ascend_doctor.fastdataclass makes the same classes as dataclasses.dataclass, only cheaper to define.

Each test defines the same class body twice, once with each decorator, and compares what a caller
can observe: constructor, defaults and factories, equality, hashes, repr, frozenness, the
``dataclasses`` functions (fields, replace, asdict, astuple), pickling and copying.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import pickle
import re
import sys
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, List, Optional, Tuple

import pytest

from ascend_doctor import fastdataclass

ROOT = Path(__file__).resolve().parent.parent
DECORATORS = {"std": dataclasses.dataclass, "fast": fastdataclass.dataclass}


def _both(make: Callable[[Any], Any]) -> Tuple[Any, Any]:
    return make(DECORATORS["std"]), make(DECORATORS["fast"])


# Module-level classes so that pickle can find them by name.
@dataclasses.dataclass(frozen=True)
class StdLoc:
    file: str = ""
    line: int = 0


@fastdataclass.dataclass(frozen=True)
class FastLoc:
    file: str = ""
    line: int = 0


@fastdataclass.dataclass(frozen=True)
class FastRow:
    loc: FastLoc = dataclasses.field(default=FastLoc(), compare=False, repr=False)
    lines: Dict[str, int] = dataclasses.field(default_factory=dict, compare=False, repr=False)
    KEY: ClassVar[Tuple[str, ...]] = ()


@fastdataclass.dataclass(frozen=True)
class FastEntry(FastRow):
    name: str = ""
    source: Tuple[str, ...] = dataclasses.field(default_factory=tuple, metadata={"kind": "source"})
    note: Optional[str] = None
    KEY = ("name",)


@fastdataclass.dataclass
class FastMutable:
    items: List[int] = dataclasses.field(default_factory=list)
    count: int = 0


def _frozen(deco: Any) -> Any:
    @deco(frozen=True)
    class Version:
        major: int
        minor: int = 0
        tags: Tuple[str, ...] = dataclasses.field(default_factory=tuple)
        raw: str = dataclasses.field(default="", compare=False)
        hidden: str = dataclasses.field(default="x", repr=False)
        seen: Dict[str, int] = dataclasses.field(default_factory=dict, hash=False)
        KIND: ClassVar[str] = "version"

        def label(self) -> str:
            return f"{self.major}.{self.minor}"

    return Version


def _mutable(deco: Any) -> Any:
    @deco
    class Options:
        name: str
        paths: List[str] = dataclasses.field(default_factory=list)
        limit: Optional[int] = None

    return Options


def _fields_view(cls: Any) -> List[Tuple[Any, ...]]:
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash, dict(f.metadata))
            for f in dataclasses.fields(cls)]


def test_fields_and_class_attributes_match() -> None:
    std, fast = _both(_frozen)
    assert _fields_view(std) == _fields_view(fast)
    assert dataclasses.is_dataclass(fast) and dataclasses.is_dataclass(fast(1))
    for name in ("minor", "raw", "hidden", "KIND"):
        assert getattr(std, name) == getattr(fast, name)
    for name in ("major", "tags", "seen"):  # no default, or a factory: no class attribute either way
        assert hasattr(std, name) == hasattr(fast, name)
    assert fast.__dataclass_params__.frozen and fast.__dataclass_params__.eq
    if sys.version_info >= (3, 10):
        assert std.__match_args__ == fast.__match_args__


@pytest.mark.parametrize("args,kwargs", [((1,), {}), ((1, 2), {}), ((1,), {"tags": ("a",), "raw": "r"}),
                                         ((), {"major": 3, "minor": 4, "hidden": "h"})])
def test_construction_equality_hash_and_repr_match(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> None:
    std, fast = _both(_frozen)
    a, b = std(*args, **kwargs), fast(*args, **kwargs)
    assert repr(a).replace("std", "") == repr(b)
    assert hash(a) == hash(b)
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert dataclasses.astuple(a) == dataclasses.astuple(b)
    assert fast(*args, **kwargs) == b and (fast(*args, **kwargs) != b) is False
    assert b != fast(99) and b != a  # another class is never equal
    assert fast(1, raw="one") == fast(1, raw="two")  # compare=False
    assert hash(fast(1, seen={"a": 1})) == hash(fast(1))  # hash=False
    assert b.label() == a.label()


def test_factories_give_each_instance_its_own_value() -> None:
    _, fast = _both(_mutable)
    one, two = fast("a"), fast("b")
    one.paths.append("/x")
    assert two.paths == [] and one.paths == ["/x"]
    assert fast.__hash__ is None  # eq without frozen: unhashable, as dataclasses makes it
    with pytest.raises(TypeError):
        hash(one)
    one.limit = 3  # not frozen
    assert one == fast("a", ["/x"], 3)


def test_constructor_errors_match() -> None:
    std, fast = _both(_frozen)
    for args, kwargs in (((), {}), ((1, 2, (), "", "", {}, "extra"), {}), ((1,), {"nope": 1}),
                         ((1,), {"major": 2})):
        with pytest.raises(TypeError):
            std(*args, **kwargs)
        with pytest.raises(TypeError):
            fast(*args, **kwargs)


def test_frozen_instances_refuse_assignment_and_deletion() -> None:
    _, fast = _both(_frozen)
    value = fast(1)
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'major'"):
        value.major = 2
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'major'"):
        del value.major
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.other = 1


def test_replace_pickle_and_copy() -> None:
    _, fast = _both(_frozen)
    value = fast(1, 2, ("t",))
    assert dataclasses.replace(value, minor=5) == fast(1, 5, ("t",))
    assert copy.copy(value) == value and copy.deepcopy(value) == value
    entry = FastEntry(name="910B3", source=("https://example.invalid/doc",), loc=FastLoc("chips.yaml", 3))
    again = pickle.loads(pickle.dumps(entry))
    assert again == entry and again.loc == FastLoc("chips.yaml", 3) and repr(again) == repr(entry)
    assert pickle.loads(pickle.dumps(FastMutable([1], 2))) == FastMutable([1], 2)


def test_inheritance_keeps_base_fields_first() -> None:
    assert [f.name for f in dataclasses.fields(FastEntry)] == ["loc", "lines", "name", "source", "note"]
    assert FastEntry.KEY == ("name",) and FastRow.KEY == ()
    entry = FastEntry(name="a")
    assert entry.loc == FastLoc() and entry.lines == {} and repr(entry) == "FastEntry(name='a', source=(), note=None)"
    assert FastEntry(FastLoc("f", 1), {}, "a") == FastEntry(name="a")  # loc/lines do not compare
    assert dataclasses.fields(FastEntry)[3].metadata["kind"] == "source"


def test_mixing_frozen_and_mutable_bases_is_refused_as_by_dataclasses() -> None:
    with pytest.raises(TypeError, match="non-frozen dataclass from a frozen one"):
        @fastdataclass.dataclass
        class Child(FastLoc):
            extra: int = 0
    with pytest.raises(TypeError, match="frozen dataclass from a non-frozen one"):
        @fastdataclass.dataclass(frozen=True)
        class Child2(FastMutable):
            extra: int = 0


def test_definition_errors_match() -> None:
    with pytest.raises(TypeError, match="non-default argument"):
        @fastdataclass.dataclass
        class Order:
            a: int = 0
            b: int
    with pytest.raises(ValueError, match="mutable default"):
        @fastdataclass.dataclass
        class Shared:
            a: List[int] = []  # noqa: RUF012


def test_explicit_methods_are_kept_and_cached_property_works() -> None:
    @fastdataclass.dataclass(frozen=True)
    class Custom:
        a: int

        def __repr__(self) -> str:
            return "custom"

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 7

        @functools.cached_property
        def double(self) -> int:
            return self.a * 2

    value = Custom(2)
    assert repr(value) == "custom" and value == object() and hash(value) == 7
    assert value.double == 4 and value.double == 4


def test_recursive_repr_and_post_init() -> None:
    calls: List[int] = []

    @fastdataclass.dataclass
    class Node:
        children: List[Any] = dataclasses.field(default_factory=list)

        def __post_init__(self) -> None:
            calls.append(1)

    node = Node()
    node.children.append(node)
    assert repr(node) == "test_recursive_repr_and_post_init.<locals>.Node(children=[...])"
    assert calls == [1]


def test_a_repr_that_raised_does_not_leave_the_record_marked_as_being_shown() -> None:
    class Flaky:
        fail = True

        def __repr__(self) -> str:
            if Flaky.fail:
                raise RuntimeError("boom")
            return "flaky"

    @fastdataclass.dataclass
    class Holder:
        item: Any

    holder = Holder(Flaky())
    with pytest.raises(RuntimeError):
        repr(holder)
    Flaky.fail = False
    assert repr(holder).endswith("Holder(item=flaky)")  # not "...": the failed call was forgotten


def test_features_it_does_not_implement_go_to_dataclasses() -> None:
    @fastdataclass.dataclass(order=True, frozen=True)
    class Ordered:
        a: int

    assert Ordered(1) < Ordered(2)

    @fastdataclass.dataclass
    class WithInitVar:
        a: int
        scale: dataclasses.InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            self.a *= scale

    assert WithInitVar(2, 3).a == 6


def test_package_records_use_the_cheap_decorator() -> None:
    """Start-up: a record defined with dataclasses.dataclass costs ~1 ms per class at import."""
    offenders = []
    pattern = re.compile(r"^from dataclasses import .*\bdataclass\b|^@dataclasses\.dataclass", re.MULTILINE)
    for folder in ("ascend_doctor", "checks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "fastdataclass.py":
                continue
            if pattern.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"use `from ascend_doctor.fastdataclass import dataclass, field` in {offenders}"
