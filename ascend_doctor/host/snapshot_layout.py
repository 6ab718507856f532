"""The layout of a snapshot and the limits for unpacking one: what ``snapshot.py`` (reading a
folder) and ``snapshot_archive.py`` (unpacking a ``.tar.gz``, with tarfile) both need, kept apart
so that neither imports the other back."""

from __future__ import annotations

import os
from typing import BinaryIO, List

SNAPSHOT_FORMAT = 1
META_FILES = ("snapshot.json", "env.json", "python.json", "host.json")
MARKERS = (*META_FILES, "commands", "files")
MAX_SYMLINKS = 40  # as the Linux kernel: more than this in one lookup is a loop
MAX_JSON_BYTES = 16 * 1024 * 1024

# Limits for unpacking an archive (a snapshot is a few MB; these leave plenty of room).
MAX_MEMBERS = 10_000  # a real capture holds a few hundred entries (the fixtures at most 83)
MAX_MEMBER_BYTES = 128 * 1024 * 1024
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_MEMBER_DEPTH = 64  # folders in a member name; a real snapshot goes about 16 deep
# Extension headers (GNU long names, pax records) are read whole by tarfile: bound them first.
MAX_EXTENSION_BYTES = 64 * 1024  # one header: a path is at most 4 KiB on Linux
MAX_CHAINED_EXTENSIONS = 8  # in a row before a member (tarfile recurses once per header)
MAX_EXTENSION_TOTAL = 16 * 1024 * 1024  # in the whole archive


def _split(path: str) -> List[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _open_nofollow(disk: str) -> BinaryIO:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    return os.fdopen(os.open(disk, flags), "rb")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]
