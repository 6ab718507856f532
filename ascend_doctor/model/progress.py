"""A byte-count progress bar on stderr for hashing (never on stdout, off unless asked or a TTY)."""

from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator, Optional

ByteCallback = Callable[[int], None]


def progress_wanted(flag: Optional[bool]) -> bool:
    """--progress / --no-progress win; otherwise only when stderr is a terminal."""
    if flag is not None:
        return flag
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced stderr
        return False


def _ignore(_count: int) -> None:
    return None


@contextlib.contextmanager
def byte_progress(total: int, description: str, enabled: bool) -> Iterator[ByteCallback]:
    """Yield a thread-safe ``advance(n_bytes)`` callback, drawing a rich bar when enabled."""
    if not enabled or total <= 0:
        yield _ignore
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    console = Console(stderr=True, highlight=False)
    columns = (TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(description, total=total)

        def advance(count: int) -> None:
            progress.update(task, advance=count)  # Progress serialises updates with its own lock

        yield advance
