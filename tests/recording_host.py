"""A Host wrapper that records every read, attributed to the fact provider that made it.

Used by the declared-reads test: grading every fixture through it must make no read that the
providers' ``Reads`` declarations do not cover (see ascend_doctor/facts/reads.py).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, ClassVar, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ascend_doctor.facts import Fact, Facts

# (provider, kind, what): kind is "command", "file" (its content is read), "present" (only whether it
# exists, its type, mode or link target), "listing" or "host"; what is an argv tuple, a path, or a host
# source name ("env", "memory"...).
Read = Tuple[str, str, Any]

_active = threading.local()


def current_provider() -> str:
    stack: List[str] = getattr(_active, "stack", [])
    return stack[-1] if stack else "<outside a provider>"


@contextlib.contextmanager
def attributing_reads() -> Iterator[None]:
    """Wrap every provider so that reads made while it runs are attributed to it."""
    original = Fact.provider

    def wrapped(self: Fact[Any]) -> Callable[[Facts], Any]:
        func = original(self)

        def call(facts: Facts) -> Any:
            stack = getattr(_active, "stack", None)
            if stack is None:
                stack = _active.stack = []
            stack.append(self.name)
            try:
                return func(facts)
            finally:
                stack.pop()

        return call

    Fact.provider = wrapped  # type: ignore[method-assign]
    try:
        yield
    finally:
        Fact.provider = original  # type: ignore[method-assign]


class RecordingHost:
    """Delegates to a real Host and records each read."""

    CONTENT_METHODS = ("read_bytes", "read_text", "open_binary")
    PRESENCE_METHODS = ("exists", "is_dir", "stat", "readlink", "realpath")
    HOST_METHODS: ClassVar[Dict[str, str]] = {
        "env": "env", "python_env": "python", "memory": "memory", "cpu_count": "cpu", "disk_usage": "disks",
        "processes": "processes", "listening_sockets": "listening", "info": "info"}

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.reads: Set[Read] = set()

    def _note(self, kind: str, what: Any) -> None:
        self.reads.add((current_provider(), kind, what))

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> Any:
        self._note("command", tuple(argv))
        return self._inner.run(argv, timeout)

    def run_many(self, commands: Sequence[Sequence[str]], timeout: Optional[float] = None) -> Any:
        for argv in commands:
            self._note("command", tuple(argv))
        return self._inner.run_many(commands, timeout)

    def listdir(self, path: str) -> List[str]:
        self._note("listing", path)
        names: List[str] = self._inner.listdir(path)
        return names

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name in self.CONTENT_METHODS or name in self.PRESENCE_METHODS:
            kind = "file" if name in self.CONTENT_METHODS else "present"

            def file_call(path: str, *args: Any, **kwargs: Any) -> Any:
                self._note(kind, path)
                return attr(path, *args, **kwargs)
            return file_call
        if name in self.HOST_METHODS:
            source = self.HOST_METHODS[name]

            def host_call(*args: Any, **kwargs: Any) -> Any:
                if current_provider() != "<outside a provider>":
                    self._note("host", source)
                return attr(*args, **kwargs)
            return host_call
        return attr


def reads_by_provider(reads: Set[Read]) -> Dict[str, Dict[str, Set[Any]]]:
    out: Dict[str, Dict[str, Set[Any]]] = {}
    for provider, kind, what in reads:
        out.setdefault(provider, {}).setdefault(kind, set()).add(what)
    return out
