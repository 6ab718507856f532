"""A file's stamp: its size and CRC-32, what the package build records of a source it compiles
something from, and compares at run time before using what it compiled.

The content, not the modification time: pip gives an installed file the time of the installation,
not the build's, so a size + mtime stamped by the build could never match an install, while an
installed file edited by hand (a support engineer patching a check) changes its CRC.
"""

from __future__ import annotations

import os
import zlib
from typing import Tuple


def stamp(data: bytes) -> Tuple[int, int]:
    """``(size, CRC-32)`` of a file's bytes."""
    return len(data), zlib.crc32(data)


def file_has(path: str, size: int, crc: int) -> bool:
    """Whether the file at ``path`` has this stamp. Read with os.open/os.read, no file object
    (~40 % cheaper for the 164 files of the check catalogue, 2.0 -> 1.15 ms warm, 3.11), and never
    more than one byte past the expected size; a FIFO put in a source's place is not waited on
    (O_NONBLOCK: it reads as empty, so it does not match)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        data = _read_up_to(fd, size + 1)
    except OSError:
        return False
    finally:
        os.close(fd)
    return len(data) == size and zlib.crc32(data) == crc


def _read_up_to(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes of ``fd`` (fewer only at its end): reads until then, as ``read(n)`` of
    a buffered file does."""
    data = os.read(fd, limit)
    while 0 < len(data) < limit:
        more = os.read(fd, limit - len(data))
        if not more:
            break
        data += more
    return data
