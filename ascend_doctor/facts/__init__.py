"""Facts: what is true of the host, probed once per run and shared by all checks.

A fact is produced by a *provider*: a function registered with ``@provider("name")`` in a
module of this package. Providers probe through ``facts.host`` (never directly), hand the text
to a pure parser from ``ascend_doctor.parsers`` and return a typed record. Results are memoised,
so ten checks asking for ``npu_smi`` run ``npu-smi info`` once. A provider that raises has its
exception memoised too, and every check that asks for it gets the same exception (the runner
turns it into an ERROR result for that check only).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import threading
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ascend_doctor.host.base import CommandResult, Host
from ascend_doctor.options import RunOptions

ProviderFunc = Callable[["Facts"], Any]
_PROVIDERS: Dict[str, ProviderFunc] = {}
_loaded = False


def provider(name: str) -> Callable[[ProviderFunc], ProviderFunc]:
    """Register a fact provider under ``name``."""

    def register(func: ProviderFunc) -> ProviderFunc:
        if name in _PROVIDERS and _PROVIDERS[name] is not func:
            raise RuntimeError(f"fact {name!r} registered twice")
        _PROVIDERS[name] = func
        return func

    return register


# Which module registers which fact, found by reading the sources (not importing them): a run
# imports only the provider modules it actually asks for, which keeps `check` start-up fast.
_PROVIDER_RE = re.compile(r"""^@provider\(\s*["']([A-Za-z0-9_]+)["']\s*\)""", re.MULTILINE)
_module_of: Optional[Dict[str, str]] = None


def _provider_modules() -> Dict[str, str]:
    global _module_of
    if _module_of is None:
        found: Dict[str, str] = {}
        for mod in pkgutil.iter_modules(__path__):
            if mod.name.startswith("_"):
                continue
            path = os.path.join(os.path.dirname(__file__), f"{mod.name}.py")
            try:
                with open(path, encoding="utf-8") as fh:
                    names = _PROVIDER_RE.findall(fh.read())
            except OSError:  # no source shipped (e.g. a .pyc-only install): import it to find out
                names = []
                importlib.import_module(f"{__name__}.{mod.name}")
            for name in names:
                found.setdefault(name, f"{__name__}.{mod.name}")
        _module_of = found
    return _module_of


def _ensure_provider(name: str) -> None:
    if name in _PROVIDERS:
        return
    module = _provider_modules().get(name)
    if module is not None:
        importlib.import_module(module)


def _load_providers() -> None:
    global _loaded
    if _loaded:
        return
    for module in sorted(set(_provider_modules().values())):
        importlib.import_module(module)
    _loaded = True


def provider_names() -> List[str]:
    _load_providers()
    return sorted(_PROVIDERS)


class UnknownFact(KeyError):
    pass


class FactUnavailable(Exception):
    """A fact that cannot be established on this host (not a bug): e.g. npu-smi is absent.

    The runner turns it into SKIP for a check that did not catch it.
    """

    def __init__(self, reason: str, detail: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class Facts:
    """Memoised access to facts about one host for one run."""

    def __init__(self, host: Host, options: Optional[RunOptions] = None) -> None:
        self.host = host
        self.options = options or RunOptions()
        # The matrix is used by providers only to *name* things (chip family), never to judge.
        self.matrix: Any = None
        self._values: Dict[str, Tuple[bool, Any]] = {}
        self._commands: Dict[Tuple[str, ...], CommandResult] = {}
        self._lock = threading.RLock()

    # -- commands ----------------------------------------------------------------------
    def command(self, argv: Sequence[str]) -> CommandResult:
        """Run a command once per run (through the host) and remember its result."""
        key = tuple(argv)
        with self._lock:
            cached = self._commands.get(key)
        if cached is not None:
            return cached
        result = self.host.run(key, timeout=self.options.timeout_s)
        with self._lock:
            self._commands.setdefault(key, result)
            return self._commands[key]

    def prefetch_commands(self, commands: Sequence[Sequence[str]]) -> None:
        """Run independent commands concurrently so a slow one does not serialise the rest."""
        todo = [tuple(c) for c in commands if tuple(c) not in self._commands]
        if not todo:
            return
        results = self.host.run_many(todo, timeout=self.options.timeout_s)
        with self._lock:
            for argv, result in zip(todo, results):
                self._commands.setdefault(argv, result)

    def commands_run(self) -> List[CommandResult]:
        with self._lock:
            return list(self._commands.values())

    # -- facts ---------------------------------------------------------------------------
    def get(self, name: str) -> Any:
        """The value of a fact; re-raises the provider's exception if it failed."""
        with self._lock:
            if name in self._values:
                ok, value = self._values[name]
                if ok:
                    return value
                raise value
        _ensure_provider(name)
        func = _PROVIDERS.get(name)
        if func is None:
            raise UnknownFact(name)
        try:
            value = func(self)
        except Exception as exc:  # memoise the failure: the same error for every asker
            with self._lock:
                self._values.setdefault(name, (False, exc))
            raise
        with self._lock:
            self._values.setdefault(name, (True, value))
            return self._values[name][1]

    def try_get(self, name: str) -> Any:
        """The value of a fact, or None if its provider failed."""
        try:
            return self.get(name)
        except UnknownFact:
            raise
        except Exception:
            return None

    def known(self) -> Dict[str, Any]:
        """Facts computed so far (successful ones only)."""
        with self._lock:
            return {k: v for k, (ok, v) in self._values.items() if ok}
