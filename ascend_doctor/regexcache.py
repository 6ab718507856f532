"""Regular expressions compiled by the package build, for a short start-up.

A ``check`` run compiles about a hundred patterns (module constants of the parsers, facts, checks
and matrix, ``lazy_re`` patterns when used, and those of click and the standard library): 10 ms of
the run, all in the pure-Python parser and compiler of ``re``. Their compiled form depends only on
the pattern, the flags and the Python version, so the package build (setup.py) compiles those it
can find (every pattern compiled while every module of the package is imported, every
``lazy_re`` pattern, and the log scanner's prefilter patterns of the shipped signatures) into
``compat_matrix/regex_cache.marshal``, and the console script (launcher.py) hands them to
``re``'s own cache of compiled patterns: ``re.compile(p)`` then finds ``p`` there instead of
compiling it. Each is made at its first use, from the code the build's
compiler produced (checked at build time to equal ``re.compile``'s), through the same
``_sre.compile`` call ``re`` makes.

Used only on the Python version (and ``_sre`` engine) that wrote the file, and only where ``re``
keeps its cache as this module expects (3.9 to 3.11); anything else compiles as before.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

CACHE_FILE = os.path.join("compat_matrix", "regex_cache.marshal")
# (str or bytes pattern, pattern, int flags) as re._compile looks it up -> what _sre.compile takes
_Key = Tuple[type, Any, int]
_Entry = Tuple[int, bytes, int, Dict[str, int], Tuple[Optional[str], ...]]


def _engine() -> Optional[Tuple[Any, ...]]:
    """What the compiled code depends on, or None where ``re``'s cache is not the dict this module
    knows (``re._compile``: ``_cache[type(pattern), pattern, flags]``, a KeyError when absent)."""
    _sre = _sre_module()
    if _sre is None:  # pragma: no cover - every CPython has it
        return None
    cache = getattr(re, "_cache", None)
    if not ((3, 9) <= sys.version_info < (3, 12)) or type(cache) is not dict or \
            getattr(_sre, "CODESIZE", 0) != 4 or memoryview(b"\0\0\0\0").cast("I").itemsize != 4:
        return None
    return (sys.hexversion, sys.implementation.cache_tag, getattr(_sre, "MAGIC", None))


def _sre_module() -> Any:
    """re's engine (no type stubs: it is an implementation module)."""
    return sys.modules.get("_sre") or __import__("_sre")


class _PrebuiltCache(Dict[_Key, Any]):
    """``re``'s cache, which makes a missing pattern from the build's code when it has it."""

    def __init__(self, current: Dict[_Key, Any], prebuilt: Dict[Tuple[str, Any, int], _Entry]) -> None:
        super().__init__(current)
        self._prebuilt = prebuilt

    def __missing__(self, key: _Key) -> Any:
        kind, pattern, flags = key
        entry = self._prebuilt.pop((kind.__name__, pattern, flags), None)
        if entry is None:
            raise KeyError(key)
        final_flags, code, groups, groupindex, indexgroup = entry
        compiled = _sre_module().compile(pattern, final_flags, memoryview(code).cast("I").tolist(), groups, groupindex,
                                indexgroup)
        self[key] = compiled
        return compiled


def install(path: Optional[str] = None) -> bool:
    """Give ``re`` the patterns the build compiled (the file beside the package, or ``path``) when
    they were compiled for this Python; True when it did."""
    import marshal

    engine = _engine()
    if engine is None:
        return False
    try:
        with open(path or os.path.join(os.path.dirname(os.path.abspath(__file__)), CACHE_FILE), "rb") as fh:
            written_for, prebuilt = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return False
    if written_for != engine or not isinstance(prebuilt, dict):
        return False
    re._cache = _PrebuiltCache(re._cache, prebuilt)  # type: ignore[attr-defined]
    return True


# -- the package build -------------------------------------------------------------------------


def build() -> bytes:
    """The file of CACHE_FILE: every pattern compiled while every module of the package is
    imported (and those of the standard library compiled before), every ``lazy_re`` pattern of
    their globals and the log scanner's patterns, compiled by this Python."""
    import marshal

    engine = _engine()
    if engine is None:
        raise RuntimeError("this Python's re keeps no cache this module can fill")
    # The standard library's module patterns compiled before the recording starts (tokenize, gettext,
    # locale... imported by this very process): a run compiles them too, when click imports them.
    keys = {key for key in re._cache if isinstance(key, tuple) and len(key) == 3  # type: ignore[attr-defined]
            and isinstance(key[1], (str, bytes))}
    original = re._compile  # type: ignore[attr-defined]

    def recording(pattern: Any, flags: Any) -> Any:
        if isinstance(pattern, (str, bytes)):
            keys.add((type(pattern), pattern, int(flags)))
        return original(pattern, flags)

    re._compile = recording  # type: ignore[attr-defined]
    try:
        from ascend_doctor.compiled_data import _import_every_module

        _import_every_module()
        keys |= _log_scanner_patterns()  # recording: loading the database compiles patterns too
    finally:
        re._compile = original  # type: ignore[attr-defined]
    keys |= _lazy_patterns()
    prebuilt: Dict[Tuple[str, Any, int], _Entry] = {}
    for kind, pattern, flags in sorted(keys, key=repr):
        entry = _compile(pattern, flags)
        if entry is not None:
            prebuilt[(kind.__name__, pattern, flags)] = entry
    return marshal.dumps((engine, prebuilt))


def _lazy_patterns() -> set:  # type: ignore[type-arg]
    from ascend_doctor.lazy import _LazyPattern

    found = set()
    for name, module in list(sys.modules.items()):
        if name.startswith("ascend_doctor") and module is not None:
            for value in list(vars(module).values()):
                if isinstance(value, _LazyPattern):
                    found.add((str, value._pattern, int(value._flags)))
    return found


def _log_scanner_patterns() -> set:  # type: ignore[type-arg]
    """The log scanner's prefilter patterns and the signatures' own patterns, for the shipped
    signature database: ``diagnose`` compiles the prefilter of each pivot byte found in its input
    (several ms for one dmesg) and the pattern of each signature that may match a line."""
    try:
        from ascend_doctor.logscan.scanner import default_scanner

        scanner = default_scanner()
        found = {(bytes, pattern, 0) for pattern in scanner.pivot_patterns()}
        return found | {(str, signature.pattern, 0) for signature in scanner.db.signatures}
    except Exception:  # an unusable database in the build: diagnose compiles them as before
        return set()


def _compile(pattern: Any, flags: int) -> Optional[_Entry]:
    """What ``re`` passes to ``_sre.compile`` for ``pattern`` (as re._compiler.compile makes it),
    when that gives the very pattern ``re.compile`` makes; else None (left to ``re``)."""
    _sre = _sre_module()
    if flags & (re.DEBUG | getattr(re, "TEMPLATE", 0)):  # not cached by re / a warning at each compile
        return None
    import importlib

    if sys.version_info >= (3, 11):
        compiler: Any = importlib.import_module("re._compiler")
        parser: Any = importlib.import_module("re._parser")
    else:  # pragma: no cover - 3.9 and 3.10
        compiler = importlib.import_module("sre_compile")
        parser = importlib.import_module("sre_parse")
    try:
        parsed = parser.parse(pattern, flags)
        code: List[int] = compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: List[Optional[str]] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry: _Entry = (flags | parsed.state.flags, memoryview(_array(code)).tobytes(), parsed.state.groups - 1,
                         groupindex, tuple(indexgroup))
        made = _sre.compile(pattern, entry[0], memoryview(entry[1]).cast("I").tolist(), entry[2], entry[3],
                            entry[4])
    except Exception:  # a pattern re itself would reject: re raises its own error at run time
        return None
    return entry if made == re.compile(pattern, flags) and made.groupindex == re.compile(pattern, flags).groupindex \
        else None


def _array(code: List[int]) -> Any:
    from array import array

    return array("I", code)
