"""``@dataclass`` for the tool's records, at a fraction of the start-up cost of ``dataclasses``.

The standard decorator generates the source of ``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__`` and ``__delattr__`` and compiles each one when the class is defined
(about 1 ms per class; a ``check`` run defines some 200 records, most of which it never creates).
This decorator makes the same classes with the same behaviour for the two forms the code base uses,
``@dataclass`` and ``@dataclass(frozen=True)``:

- the fields are the real ``dataclasses.Field`` objects, stored where ``dataclasses`` looks for
  them, so ``dataclasses.fields``, ``replace``, ``asdict``, ``astuple`` and ``is_dataclass`` work
  unchanged;
- ``__init__`` is generated and compiled on the first instantiation of the class (a class that is
  only defined costs no compilation; one that is used gets the same fast ``__init__``);
- ``__eq__``, ``__hash__`` and ``__repr__`` compare, hash and show the same field tuples, through
  ``operator.attrgetter`` instead of generated code; frozen classes raise ``FrozenInstanceError``.

Anything else (``order``, ``unsafe_hash``, ``slots``, ``InitVar``, ``KW_ONLY``...) goes to the
standard decorator, as does everything on a Python whose ``dataclasses`` internals differ from the
ones relied on here. tests/test_fastdataclass.py holds the two side by side.

Type checkers see ``dataclasses.dataclass`` itself.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from _thread import get_ident
from types import MemberDescriptorType
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, List, Set, Tuple

if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass
    from dataclasses import field as field
else:
    from dataclasses import field

__all__ = ["dataclass", "field"]

_MISSING = dataclasses.MISSING
_FIELD = getattr(dataclasses, "_FIELD", None)
_FIELD_CLASSVAR = getattr(dataclasses, "_FIELD_CLASSVAR", None)
_PARAMS_CLASS = getattr(dataclasses, "_DataclassParams", None)
_PARAMS_SLOTS: Tuple[str, ...] = tuple(getattr(_PARAMS_CLASS, "__slots__", ()))
# What this module needs from the dataclasses internals; when a Python release changes them, every
# class goes to the standard decorator (slower start-up, same behaviour).
_SUPPORTED = (_FIELD is not None and _FIELD_CLASSVAR is not None
              and {"init", "repr", "eq", "order", "unsafe_hash", "frozen"} <= set(_PARAMS_SLOTS)
              and hasattr(dataclasses, "_FIELDS") and hasattr(dataclasses, "_PARAMS"))
_HAS_MATCH_ARGS = sys.version_info >= (3, 10)
_MODULE_IDENTIFIER_RE = re.compile(r"^(?:\s*(\w+)\s*\.)?\s*(\w+)")
_PSEUDO_FIELD_WORDS = re.compile(r"ClassVar|InitVar|KW_ONLY")


class _Unsupported(Exception):
    """The class uses a feature this module leaves to the standard decorator."""


def _dataclass(cls: Any = None, *, init: bool = True, repr: bool = True, eq: bool = True,
               frozen: bool = False, **others: Any) -> Any:
    if any(others.values()) or not _SUPPORTED:  # order, unsafe_hash, slots, kw_only...: the standard one
        def standard(klass: type) -> type:
            return dataclasses.dataclass(klass, init=init, repr=repr, eq=eq, frozen=frozen, **others)

        return standard if cls is None else standard(cls)

    def wrap(klass: type) -> type:
        try:
            return _process(klass, init=init, repr_=repr, eq=eq, frozen=frozen)
        except _Unsupported:
            return dataclasses.dataclass(klass, init=init, repr=repr, eq=eq, frozen=frozen)

    return wrap if cls is None else wrap(cls)


if not TYPE_CHECKING:
    dataclass = _dataclass


# -- class processing (mirrors dataclasses._process_class for init/repr/eq/frozen) --------------


def _process(cls: Any, *, init: bool, repr_: bool, eq: bool, frozen: bool) -> type:
    fields: Dict[str, dataclasses.Field[Any]] = {}
    any_frozen_base = False
    has_dataclass_bases = False
    for base in cls.__mro__[-1:0:-1]:
        base_fields = getattr(base, "__dataclass_fields__", None)
        if base_fields is not None:
            has_dataclass_bases = True
            for f in base_fields.values():
                fields[f.name] = f
            if base.__dataclass_params__.frozen:
                any_frozen_base = True
    annotations = vars(cls).get("__annotations__", {})
    own = [_make_field(cls, name, annotation) for name, annotation in annotations.items()]
    for f in own:
        fields[f.name] = f
        if isinstance(getattr(cls, f.name, None), dataclasses.Field):
            if f.default is _MISSING:
                delattr(cls, f.name)
            else:
                setattr(cls, f.name, f.default)
    for name, value in cls.__dict__.items():
        if isinstance(value, dataclasses.Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    if has_dataclass_bases:
        if any_frozen_base and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if not any_frozen_base and frozen:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")

    cls.__dataclass_params__ = (_params(init=init, repr_=repr_, eq=eq, frozen=frozen))
    cls.__dataclass_fields__ = fields
    own_dict = cls.__dict__
    class_hash = own_dict.get("__hash__", _MISSING)
    has_explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in own_dict))

    init_fields = [f for f in fields.values() if f._field_type is _FIELD]  # type: ignore[attr-defined]
    _check_default_order(init_fields)
    if init and "__init__" not in own_dict:
        _set_method(cls, "__init__", _lazy_init(cls, init_fields, frozen))
    real = init_fields
    if repr_ and "__repr__" not in own_dict:
        _set_method(cls, "__repr__", _repr_fn(tuple(f.name for f in real if f.repr)))
    if eq and "__eq__" not in own_dict:
        _set_method(cls, "__eq__", _eq_fn(_getter(tuple(f.name for f in real if f.compare))))
    if frozen:
        names = frozenset(f.name for f in real)
        for fn in (_frozen_setattr(cls, names), _frozen_delattr(cls, names)):
            if fn.__name__ in own_dict:
                raise TypeError(f"Cannot overwrite attribute {fn.__name__} in class {cls.__name__}")
            _set_method(cls, fn.__name__, fn)
    if eq and not has_explicit_hash:
        if frozen:  # dataclasses' _hash_add
            hashed = tuple(f.name for f in real if (f.compare if f.hash is None else f.hash))
            _set_method(cls, "__hash__", _hash_fn(_getter(hashed)))
        else:  # _hash_set_none
            cls.__hash__ = None
    if _HAS_MATCH_ARGS and "__match_args__" not in own_dict:
        setattr(cls, "__match_args__", tuple(f.name for f in init_fields if f.init))  # noqa: B010
    if _HAS_MATCH_ARGS and getattr(cls, "__abstractmethods__", None):
        import abc

        abc.update_abstractmethods(cls)  # as dataclasses does on 3.10+
    processed: type = cls
    return processed


def _make_field(cls: type, name: str, annotation: Any) -> dataclasses.Field[Any]:
    default = getattr(cls, name, _MISSING)  # as dataclasses: a base class attribute is a default too
    if isinstance(default, dataclasses.Field):
        f = default
    else:
        if isinstance(default, MemberDescriptorType):  # a __slots__ entry, not a default
            default = _MISSING
        f = field(default=default)  # type: ignore[arg-type]  # MISSING: no default
    f.name = name
    f.type = annotation
    kind = _annotation_kind(cls, annotation)
    if kind == "initvar":
        raise _Unsupported(name)
    f._field_type = _FIELD_CLASSVAR if kind == "classvar" else _FIELD  # type: ignore[attr-defined]
    if hasattr(f, "kw_only") and f.kw_only is _MISSING:  # 3.10+
        f.kw_only = False
    if f._field_type is _FIELD_CLASSVAR:  # type: ignore[attr-defined]
        if f.default_factory is not _MISSING:
            raise TypeError(f"field {name} cannot have a default factory")
    elif isinstance(f.default, (list, dict, set)):
        raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
    return f


def _annotation_kind(cls: type, annotation: Any) -> str:
    """"classvar", "initvar" (also KW_ONLY: left to dataclasses) or "" for a field."""
    if isinstance(annotation, str) and not _PSEUDO_FIELD_WORDS.search(annotation):
        return ""  # most annotations: no name that could make a pseudo-field
    import typing

    if annotation is typing.ClassVar or getattr(annotation, "__origin__", None) is typing.ClassVar:
        return "classvar"
    if isinstance(annotation, dataclasses.InitVar) or annotation is dataclasses.InitVar or \
            annotation is getattr(dataclasses, "KW_ONLY", object()):
        return "initvar"
    if not isinstance(annotation, str):
        return ""
    match = _MODULE_IDENTIFIER_RE.match(annotation)
    if not match:
        return ""
    module = sys.modules.get(cls.__module__)
    namespace: Dict[str, Any] = module.__dict__ if module is not None else {}
    prefix, name = match.group(1), match.group(2)
    if prefix:
        holder = namespace.get(prefix)
        if holder is typing and name == "ClassVar":
            return "classvar"
        if holder is dataclasses and name in ("InitVar", "KW_ONLY"):
            return "initvar"
        return ""
    value = namespace.get(name)
    if value is typing.ClassVar:
        return "classvar"
    if value is dataclasses.InitVar or value is getattr(dataclasses, "KW_ONLY", object()):
        return "initvar"
    return ""


def _check_default_order(fields: List[dataclasses.Field[Any]]) -> None:
    seen_default = False
    for f in fields:
        if not f.init:
            continue
        if not (f.default is _MISSING and f.default_factory is _MISSING):
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _params(*, init: bool, repr_: bool, eq: bool, frozen: bool) -> Any:
    values = {"init": init, "repr": repr_, "eq": eq, "order": False, "unsafe_hash": False, "frozen": frozen,
              "match_args": True, "kw_only": False, "slots": False, "weakref_slot": False}
    params = object.__new__(_PARAMS_CLASS)  # type: ignore[arg-type]
    for name in _PARAMS_SLOTS:
        setattr(params, name, values.get(name, False))
    return params


def _set_method(cls: type, name: str, fn: Any) -> None:
    if callable(fn):
        fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
    setattr(cls, name, fn)


def _getter(names: Tuple[str, ...]) -> Callable[[Any], Tuple[Any, ...]]:
    """A function returning the tuple of these attributes (what the generated methods build)."""
    from operator import attrgetter

    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


# -- methods --------------------------------------------------------------------------------------


def _lazy_init(cls: type, fields: List[dataclasses.Field[Any]], frozen: bool) -> Callable[..., None]:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real = _compile_init(cls, fields, frozen)
        _set_method(cls, "__init__", real)
        real(self, *args, **kwargs)

    return __init__


def _compile_init(cls: type, fields: List[dataclasses.Field[Any]], frozen: bool) -> Callable[..., None]:
    """The ``__init__`` dataclasses would generate (dataclasses._init_fn), compiled now."""
    source, namespace = _init_source(cls, fields, frozen)
    exec(source, namespace)  # the same generated code as dataclasses, compiled once per used class
    init: Callable[..., None] = namespace["__init__"]
    return init


def _init_source(cls: type, fields: List[dataclasses.Field[Any]], frozen: bool) -> Tuple[str, Dict[str, Any]]:
    """The source of the ``__init__`` of ``cls`` and the namespace it runs in."""
    self_name = "__dataclass_self__" if any(f.name == "self" for f in fields) else "self"
    namespace: Dict[str, Any] = {"__name__": cls.__module__, "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY,
                                 "_setattr": object.__setattr__}
    params: List[str] = [self_name]
    body: List[str] = []
    for f in fields:
        default_name = f"_dflt_{f.name}"
        if f.default_factory is not _MISSING:
            namespace[default_name] = f.default_factory
            if f.init:
                params.append(f"{f.name}=_HAS_DEFAULT_FACTORY")
                value = f"{default_name}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}"
            else:
                value = f"{default_name}()"
        elif f.init:
            if f.default is _MISSING:
                params.append(f.name)
            else:
                namespace[default_name] = f.default
                params.append(f"{f.name}={default_name}")
            value = f.name
        else:
            continue  # reading it finds the class attribute holding the default
        if frozen:
            body.append(f"_setattr({self_name}, {f.name!r}, {value})")
        else:
            body.append(f"{self_name}.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append(f"{self_name}.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    return source, namespace


class _HasDefaultFactory:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_DEFAULT_FACTORY = _HasDefaultFactory()


def _repr_fn(names: Tuple[str, ...]) -> Callable[[Any], str]:
    """The repr dataclasses gives, "..." for a record met again inside itself (per thread), as
    reprlib.recursive_repr guards it; written out, because wrapping with reprlib copies five
    attributes of the function per class, a fifth of the cost of defining one (3.11)."""
    running: Set[Tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = id(self), get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"
        finally:
            running.discard(key)

    return __repr__


def _eq_fn(values: Callable[[Any], Tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash_fn(values: Callable[[Any], Tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen_setattr(cls: Any, names: FrozenSet[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls: Any, names: FrozenSet[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__

