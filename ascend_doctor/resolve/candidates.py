"""What the resolver decides between: a ``Candidate`` version of one component and the ``Need``s it
brings, and how two version strings count as one release. Kept apart from ``provider.py`` (which
imports resolvelib) so that the engine and step modules it calls need not import it back."""

from __future__ import annotations

import functools
from typing import Callable, Optional, Tuple

from msgspec import Struct

from ascend_doctor.matrix.specs import release_rank, try_ascend, try_pypi


class Need(Struct, frozen=True):
    """A requirement on one component: ``test`` says whether a version meets it.

    Two needs are the same need when they name the same component, say the same thing and come
    from the same requirer (``name``, ``what``, ``by``): the resolver compares and hashes them, and
    the test function, sources and preferences are how it is met, not which need it is."""

    name: str
    what: str  # "CANN 8.2.RC1", "torch 2.1.0 or 2.6.0": how a conflict message names it
    test: Callable[[str], bool]
    by: str = ""  # who needs it: "MindIE 2.1.RC1", "CANN 8.5.0", "this machine's chip (A3)"
    sources: Tuple[str, ...] = ()
    # a version to try first when the component is not kept (the row's own pairing)
    prefer: Tuple[str, ...] = ()
    open: bool = False  # "any release": says nothing of why

    def _key(self) -> Tuple[str, str, str]:
        return (self.name, self.what, self.by)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Need) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Need(name={self.name!r}, what={self.what!r}, by={self.by!r}, sources={self.sources!r}, " \
               f"prefer={self.prefer!r}, open={self.open!r})"


class Candidate(Struct, frozen=True):
    """One version of one component. Its identity is ``name``, ``version`` and ``kept`` (what the
    resolver compares and hashes); the rest explains it."""

    name: str
    version: str
    kept: bool = False
    reason: str = ""
    sources: Tuple[str, ...] = ()
    needs: Tuple[Need, ...] = ()
    uncertain: bool = False
    # an HDK whose driver and firmware files are both known for this family (False: firmware unknown)
    known: bool = True
    # the release of something the machine runs (the driver release of the running firmware)
    near: bool = False

    def _key(self) -> Tuple[str, str, bool]:
        return (self.name, self.version, self.kept)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Candidate) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())


# Called for every candidate against every need while the resolver backtracks (481,000 same_pypi
# calls over the 85 fixtures), on a few hundred distinct version strings: cached.
@functools.lru_cache(maxsize=8192)
def same_ascend(a: Optional[str], b: Optional[str]) -> bool:
    va, vb = try_ascend(a), try_ascend(b)
    if va is None or vb is None:
        return bool(a and b and a.lower() == b.lower())
    return release_rank(va, vb) >= 0 or release_rank(vb, va) >= 0


@functools.lru_cache(maxsize=8192)
def same_pypi(a: Optional[str], b: Optional[str]) -> bool:
    va, vb = try_pypi((a or "").lstrip("v")), try_pypi((b or "").lstrip("v"))
    if va is None or vb is None:
        return bool(a and b and a.lower() == b.lower())
    return va == vb


def same_public(a: Optional[str], b: Optional[str]) -> bool:
    """torch 2.1.0 and 2.1.0+cpu are one release for pairing purposes."""
    va, vb = try_pypi(a), try_pypi(b)
    return va is not None and vb is not None and va.public.split("+")[0] == vb.public.split("+")[0]
