"""What the resolver decides between: a ``Candidate`` version of one component and the ``Need``s it
brings, and how two version strings count as one release. Kept apart from ``provider.py`` (which
imports resolvelib) so that the engine and step modules it calls need not import it back."""

from __future__ import annotations

from typing import Callable, Optional, Tuple

from ascend_doctor.fastdataclass import dataclass, field
from ascend_doctor.matrix.specs import release_rank, try_ascend, try_pypi


@dataclass(frozen=True)
class Need:
    """A requirement on one component: ``test`` says whether a version meets it."""

    name: str
    what: str  # "CANN 8.2.RC1", "torch 2.1.0 or 2.6.0": how a conflict message names it
    test: Callable[[str], bool] = field(compare=False, hash=False, repr=False)
    by: str = ""  # who needs it: "MindIE 2.1.RC1", "CANN 8.5.0", "this machine's chip (A3)"
    sources: Tuple[str, ...] = field(default=(), compare=False, hash=False)
    # a version to try first when the component is not kept (the row's own pairing)
    prefer: Tuple[str, ...] = field(default=(), compare=False, hash=False)
    open: bool = field(default=False, compare=False, hash=False)  # "any release": says nothing of why


@dataclass(frozen=True)
class Candidate:
    name: str
    version: str
    kept: bool = False
    reason: str = field(default="", compare=False, hash=False)
    sources: Tuple[str, ...] = field(default=(), compare=False, hash=False)
    needs: Tuple[Need, ...] = field(default=(), compare=False, hash=False)
    uncertain: bool = field(default=False, compare=False, hash=False)
    # an HDK whose driver and firmware files are both known for this family (False: firmware unknown)
    known: bool = field(default=True, compare=False, hash=False)
    # the release of something the machine runs (the driver release of the running firmware)
    near: bool = field(default=False, compare=False, hash=False)


def same_ascend(a: Optional[str], b: Optional[str]) -> bool:
    va, vb = try_ascend(a), try_ascend(b)
    if va is None or vb is None:
        return bool(a and b and a.lower() == b.lower())
    return release_rank(va, vb) >= 0 or release_rank(vb, va) >= 0


def same_pypi(a: Optional[str], b: Optional[str]) -> bool:
    va, vb = try_pypi((a or "").lstrip("v")), try_pypi((b or "").lstrip("v"))
    if va is None or vb is None:
        return bool(a and b and a.lower() == b.lower())
    return va == vb


def same_public(a: Optional[str], b: Optional[str]) -> bool:
    """torch 2.1.0 and 2.1.0+cpu are one release for pairing purposes."""
    va, vb = try_pypi(a), try_pypi(b)
    return va is not None and vb is not None and va.public.split("+")[0] == vb.public.split("+")[0]
