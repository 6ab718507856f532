"""Standard-library modules that click imports at start-up and a command rarely uses, loaded on
their first use instead.

``click.core`` (8.1 and 8.5) runs ``import inspect`` at the top but calls only ``inspect.cleandoc``
(on the help text of every option it defines) unless it shows help (``isfunction``, more
``cleandoc``) or a progress bar (``isgeneratorfunction``); ``dataclasses`` imports it for the
``__doc__`` of a class without one. ``inspect`` pulls in ``ast``, ``dis``, ``opcode``,
``tokenize``, ``token`` and ``linecache``: 5 ms of a 44 ms ``python -c 'import click'`` (3.11,
paired runs with and without this); 3-5 ms of an installed ``check`` or ``checks`` (3.9 and 3.11).

:func:`defer` puts a :class:`DeferredModule` in ``sys.modules`` under the module's name. ``import
inspect`` then binds that placeholder; its first attribute lookup imports the real module, copies
its namespace into the placeholder and turns the placeholder into a plain module, so every holder
of either object sees the same functions from then on. This is what ``importlib.util.LazyLoader``
does, except that LazyLoader loads the module as soon as the import system looks at its
``__spec__``, which the second ``import inspect`` of a run already does (3.9-3.11), so it
defers nothing here.

A placeholder may hold stand-ins for a few functions, so that the calls every run makes do not
load the module: ``inspect.cleandoc`` is :func:`clean_docstring` (the same result for every text,
tests/test_deferred.py compares the two with hypothesis); the module's own function replaces it
once the module is loaded.

Only the console script defers (launcher.py), and only a module nobody imported yet.
"""

from __future__ import annotations

import sys
import types
from _thread import RLock
from typing import Any, Callable, Dict, Optional


def clean_docstring(doc: str) -> str:
    """What ``inspect.cleandoc`` gives for the text ``doc``: tabs expanded, the first line's
    leading white space and the common indentation of the other lines' non-blank ones removed,
    empty lines at either end dropped."""
    if not isinstance(doc, str):  # inspect's own answer for anything else
        return load_module("inspect").cleandoc(doc)
    lines = doc.expandtabs().split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.lstrip()]
    margin = min(indents, default=0)
    lines = [lines[0].lstrip(), *(line[margin:] for line in lines[1:])]
    start, end = 0, len(lines)
    while start < end and not lines[start]:
        start += 1
    while end > start and not lines[end - 1]:
        end -= 1
    return "\n".join(lines[start:end])


# What the console script defers, with the stand-ins its placeholder holds: imported by click at
# start-up, loaded by no command's usual path.
DEFERRED: Dict[str, Dict[str, Callable[..., Any]]] = {"inspect": {"cleandoc": clean_docstring}}

# One load at a time: a second thread touching the placeholder while the first one imports the
# real module waits for it instead of importing it again.
_loading = RLock()


class DeferredModule(types.ModuleType):
    """Stands for a module not imported yet; the first attribute it does not have imports it."""

    def __getattr__(self, name: str) -> Any:
        # Only names the placeholder lacks get here: __name__ and __spec__ (None, which the import
        # system reads as "already imported") are its own; anything else, dunders included, is
        # the real module's.
        return getattr(load(self), name)


def defer(modules: Optional[Dict[str, Dict[str, Callable[..., Any]]]] = None) -> None:
    """Put a placeholder in ``sys.modules`` for each module of ``modules`` (name -> stand-ins;
    DEFERRED by default) not imported yet."""
    for name, stand_ins in (DEFERRED if modules is None else modules).items():
        if name not in sys.modules:
            placeholder = DeferredModule(name)
            placeholder.__dict__.update(stand_ins)
            sys.modules[name] = placeholder


def load_module(name: str) -> types.ModuleType:
    """The module ``name``, imported now if only its placeholder was."""
    module = sys.modules.get(name)
    if isinstance(module, DeferredModule):
        return load(module)
    import importlib

    return importlib.import_module(name)


def load(placeholder: types.ModuleType) -> types.ModuleType:
    """Import the module ``placeholder`` stands for and make the placeholder a copy of it; the
    real module (the placeholder itself once it has been loaded)."""
    with _loading:
        if type(placeholder) is not DeferredModule:  # loaded meanwhile by another thread
            return placeholder
        name = placeholder.__name__
        if sys.modules.get(name) is placeholder:
            del sys.modules[name]
        import importlib

        real = importlib.import_module(name)
        placeholder.__dict__.update(real.__dict__)
        placeholder.__class__ = types.ModuleType  # type: ignore[assignment]  # allowed for modules
        return real
