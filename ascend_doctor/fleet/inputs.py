"""What ``fleet`` was given, as a list of node inputs: JSON reports and snapshots.

An argument is a JSON report (``check --format json``), a snapshot (a folder holding
``snapshot.json``, or a ``.tar.gz``), or a folder of those (``srun ... -o reports/%N.json`` then
``fleet reports/``; ``pdsh ... | dshbak -d reports/``, whose files are named after the node alone):
a folder is read one level deep, plus one more level for sub-folders, in name order, so that a run
is reproducible. Hidden entries and files that are neither are left out and counted (the report
says how many).

Nothing is read here but folder listings, file types and the first bytes of files without a known
suffix: reading and grading each input happens one node at a time in :mod:`ascend_doctor.fleet.merge`.
"""

from __future__ import annotations

import os
import stat
from typing import List, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import _

REPORT = "report"
SNAPSHOT = "snapshot"
UNUSABLE = "unusable"  # given by name but neither a report nor a snapshot: its own ERROR line

# More nodes than any Ascend cluster has (a 4,096-server SuperPod tops the HCCL templates).
MAX_NODES = 20_000
MAX_FOLDER_ENTRIES = 200_000  # entries listed in one folder before the rest is refused
REPORT_SUFFIXES = (".json",)
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")
SNAPSHOT_MARKER = "snapshot.json"
SNIFF_BYTES = 64  # read from a file without a known suffix to see whether it is JSON


class FleetInputError(ValueError):
    """The inputs as a whole cannot be used (nothing found, too many); one line."""


class NodeInput(Struct, frozen=True):
    path: str
    kind: str  # REPORT | SNAPSHOT | UNUSABLE
    problem: str = ""  # for UNUSABLE: why, one line naming the path


class Inputs(Struct):
    nodes: List[NodeInput] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)  # files in folders that are no node input

    @property
    def count(self) -> int:
        return len(self.nodes)


def is_snapshot_folder(path: str) -> bool:
    return os.path.isfile(os.path.join(path, SNAPSHOT_MARKER))


def _kind_of_file(name: str) -> str:
    lowered = name.lower()
    if lowered.endswith(ARCHIVE_SUFFIXES):
        return SNAPSHOT
    if lowered.endswith(REPORT_SUFFIXES):
        return REPORT
    return ""


def collect_inputs(paths: Sequence[str]) -> Inputs:
    """The node inputs named by ``paths`` (files and folders), in the order given, folders sorted."""
    found = Inputs()
    for path in paths:
        _add_path(found, path, explicit=True, depth=0)
        if found.count > MAX_NODES:
            raise FleetInputError(_("more than {count} node inputs: refused (merge the fleet in parts)").format(
                count=MAX_NODES))
    if not found.nodes:
        where = ", ".join(paths[:3]) + (" ..." if len(paths) > 3 else "")
        raise FleetInputError(_("no node report (*.json) or snapshot (folder with snapshot.json, *.tar.gz) found "
                                "in {where}").format(where=where))
    return found


def _add_path(found: Inputs, path: str, explicit: bool, depth: int) -> None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        found.nodes.append(NodeInput(path, UNUSABLE, _("{path} does not exist").format(path=path)))
        return
    except OSError as exc:
        found.nodes.append(NodeInput(path, UNUSABLE, _("{path} cannot be read: {error}").format(
            path=path, error=exc.strerror or exc)))
        return
    if stat.S_ISDIR(st.st_mode):
        if is_snapshot_folder(path):
            found.nodes.append(NodeInput(path, SNAPSHOT))
        elif depth < 2:
            _add_folder(found, path, depth)
        else:
            found.skipped.append(path)
        return
    kind = _kind_of_file(os.path.basename(path))
    if not stat.S_ISREG(st.st_mode):
        if explicit or kind:
            found.nodes.append(NodeInput(path, UNUSABLE, _("{path} is not a regular file (a device, FIFO or "
                                                           "socket)").format(path=path)))
        return
    if kind:
        found.nodes.append(NodeInput(path, kind))
    elif explicit or _looks_like_json(path):
        # Named on the command line (the reader says what it is), or a JSON file without .json in a
        # folder: `pdsh ... | dshbak -d reports/` names each node's output after the node alone.
        found.nodes.append(NodeInput(path, REPORT))
    else:
        found.skipped.append(path)


def _looks_like_json(path: str) -> bool:
    """Whether a regular file starts like a JSON object (its first bytes only)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, SNIFF_BYTES)
    except OSError:
        return False
    finally:
        os.close(fd)
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")


def _add_folder(found: Inputs, folder: str, depth: int) -> None:
    entries: List[Tuple[str, str]] = []
    try:
        with os.scandir(folder) as scan:
            for count, entry in enumerate(scan):
                if count >= MAX_FOLDER_ENTRIES:
                    raise FleetInputError(_("{folder} holds more than {count} entries: refused").format(
                        folder=folder, count=MAX_FOLDER_ENTRIES))
                if not entry.name.startswith("."):
                    entries.append((entry.name, entry.path))
    except OSError as exc:
        found.nodes.append(NodeInput(folder, UNUSABLE, _("{path} cannot be listed: {error}").format(
            path=folder, error=exc.strerror or exc)))
        return
    for _name, path in sorted(entries):
        _add_path(found, path, explicit=False, depth=depth + 1)
        if found.count > MAX_NODES:
            return
