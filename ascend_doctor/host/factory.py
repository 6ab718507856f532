"""Choose the host for a run: this machine, or a snapshot given with ``--from``."""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from ascend_doctor.host.base import DEFAULT_TIMEOUT_S, Host


def make_host(snapshot: Optional[str], timeout_s: float = DEFAULT_TIMEOUT_S,
              python: Optional[str] = None) -> Host:
    """A ``SnapshotHost`` when ``snapshot`` is given, else a ``LiveHost``.

    Raises ``SnapshotError`` (one-line message) when the snapshot cannot be used. ``python``
    only applies to a live host (a snapshot carries its own python.json). Call ``close_host``
    when done, or use ``open_host``.
    """
    if snapshot:
        from ascend_doctor.host.snapshot import SnapshotHost

        return SnapshotHost(snapshot)
    from ascend_doctor.host.live import LiveHost

    return LiveHost(timeout_s=timeout_s, python=python)


def close_host(host: Host) -> None:
    """Release what a host holds (the unpacked copy of a snapshot archive)."""
    host.close()


@contextlib.contextmanager
def open_host(snapshot: Optional[str], timeout_s: float = DEFAULT_TIMEOUT_S,
              python: Optional[str] = None) -> Iterator[Host]:
    """``with open_host(...) as host:`` — ``make_host`` + ``close_host``."""
    host = make_host(snapshot, timeout_s, python)
    try:
        yield host
    finally:
        close_host(host)
