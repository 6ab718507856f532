"""Modules and regular expressions made on first use, for a short start-up.

Every command imports the modules of its whole path, but a run uses a fraction of what they hold:
a parser's thirty patterns when one table is present, PyYAML when a file (not the compiled data) is
read. Compiling a pattern costs 20 µs to several ms (a Unicode class); importing PyYAML, 10 ms.

    if TYPE_CHECKING:
        import yaml
    else:
        yaml = lazy_module("yaml")     # imported at the first ``yaml.<name>``

    _ROW_RE = lazy_re(r"^\\|\\s*(\\d+)")  # compiled at the first ``_ROW_RE.match(...)``

Both stand-ins behave as what they stand for; a lazy pattern in a hot loop is best bound once
(``match = _ROW_RE.match``), since each attribute read goes through one more call.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Optional, cast


class _LazyModule:
    def __init__(self, name: str) -> None:
        self.__dict__["_lazy_name"] = name

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self.__dict__["_lazy_name"])
        self.__dict__.update(vars(module))  # later reads are plain attribute look-ups
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_lazy_name']!r}>"


def lazy_module(name: str) -> Any:
    """A stand-in for module ``name`` that imports it when an attribute is first read."""
    return _LazyModule(name)


class _LazyPattern:
    __slots__ = ("_compiled", "_flags", "_pattern")

    def __init__(self, pattern: str, flags: int) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: Optional[re.Pattern[str]] = None

    def __getattr__(self, attr: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return getattr(compiled, attr)

    def __repr__(self) -> str:
        return f"lazy_re({self._pattern!r})"


def lazy_re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))  # typed as the pattern it stands for
