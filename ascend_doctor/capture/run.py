"""``ascend-doctor snapshot``: record this machine as a snapshot (docs/snapshot-format.md).

What is recorded is derived, never listed by hand: the union of the fact providers' ``Reads``
declarations, expanded with this machine's values (install roots, log folders, the target Python,
every NPU id), plus what the adaptive providers read when the capture runs them here. A read that
no declaration covers fails ``tests/test_declared_reads.py``; so a snapshot grades like ``check``
on the machine it came from (``tests/test_capture_equivalence.py`` proves it on a fake machine).

A snapshot is meant to be sent to someone else, so it is conservative: no content is copied from
outside the declared files, nothing of a model (``snapshot --model`` records its metadata only),
binaries and devices are empty files, sizes are bounded, and secrets are redacted by name and by
value (docs/redaction.md) in the environment, command lines, outputs, files and log tails.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import tarfile
import tempfile
from typing import Any, BinaryIO, Callable, Dict, Iterator, List, Optional

from msgspec import Struct, field

from ascend_doctor import __version__
from ascend_doctor.capture import declared as D
from ascend_doctor.capture.recorder import CapturingHost
from ascend_doctor.capture.records import capture_tails, env_record, host_record, python_record, write_json
from ascend_doctor.capture.tree import SnapshotTree
from ascend_doctor.host.base import DEFAULT_TIMEOUT_S
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.snapshot_layout import SNAPSHOT_FORMAT
from ascend_doctor.i18n import gettext as _
from ascend_doctor.redaction.secrets import redact_snapshot_files
from ascend_doctor.tempdirs import remove_tree

Progress = Callable[[str], None]


class CaptureSummary(Struct):
    output: str
    commands: int = 0
    files: int = 0
    notes: List[str] = field(default_factory=list)


def _quiet(_message: str) -> None:
    pass


def capture_snapshot(output: str, timeout_s: float = DEFAULT_TIMEOUT_S, python: Optional[str] = None,
                     progress: Optional[Progress] = None, host: Optional[LiveHost] = None,
                     fs_root: str = "/", finish: Optional[Callable[[str], object]] = None) -> CaptureSummary:
    """Record this machine into ``output``: a ``.tar.gz`` file, a folder when the name ends with
    ``/``, or standard output (``-``, ``/dev/stdout``) as a ``.tar.gz`` stream.

    Nothing partial is ever left behind: a folder is built next to its final name and renamed
    into place at the end (the final name must not exist or be an empty folder); an archive is
    written to a temporary file in the same folder and renamed over the target, which must be a
    new name or a regular file. On any error or Ctrl-C the partial folder or temporary file is
    removed.

    ``fs_root``: read the machine's files from a tree mounted there (ascend_doctor/host/rooted.py);
    commands still run on this machine. ``finish`` adds to the finished tree before it is archived
    (``--model``). Raises ``OSError`` when the output cannot be written, ``FileExistsError`` when a
    folder output is not empty and ``safeio.OutputRefused`` for a device, FIFO, socket or folder.
    """
    import sys

    from ascend_doctor import safeio

    say = progress or _quiet
    live = host or LiveHost(timeout_s=timeout_s, python=python)
    machine: Any = live
    if os.path.normpath(fs_root) != "/":
        from ascend_doctor.host.rooted import RootedHost

        machine = RootedHost(live, fs_root)
    if safeio.output_stream(output) == "stdout":
        summary = CaptureSummary(output="<stdout>")
        with _staging_tree("ascend-snapshot") as tree:
            _build(tree, machine, timeout_s, say, summary, finish)
            say(_("writing the archive to standard output"))
            stdout = sys.stdout.buffer
            _write_archive(tree, "ascend-snapshot", stdout, "ascend-snapshot.tar.gz")
            stdout.flush()
        return summary
    if output.endswith("/") or output.endswith(os.sep):
        target = check_folder_target(output)
        summary = CaptureSummary(output=target)
        parent = os.path.dirname(target) or "."
        staging = tempfile.mkdtemp(prefix=f".{os.path.basename(target)[:100]}.partial-", dir=parent)
        try:
            _build(staging, machine, timeout_s, say, summary, finish)
            os.chmod(staging, 0o777 & ~_umask())
            os.rename(staging, target)  # over a missing name or an empty folder: all or nothing
        except BaseException:
            remove_tree(staging)
            raise
        return summary
    target = safeio.check_output_target(output)
    summary = CaptureSummary(output=output)
    stem = _archive_stem(target)
    with _staging_tree(stem) as tree:
        _build(tree, machine, timeout_s, say, summary, finish)
        say(_("writing {path}").format(path=output))
        with safeio.atomic_output(output) as fh:
            _write_archive(tree, stem, fh, os.path.basename(target))
    return summary


def _build(tree_dir: str, machine: Any, timeout_s: float, say: Progress, summary: CaptureSummary,
           finish: Optional[Callable[[str], object]] = None) -> None:
    from ascend_doctor.facts import Facts
    from ascend_doctor.facts.variables import read_variables
    from ascend_doctor.options import RunOptions

    say(_("reading what the checks declare they read"))
    variables = D.machine_variables(read_variables(machine, RunOptions()))
    static = D.declarations(adaptive=False)
    adaptive = D.declarations(adaptive=True)
    paths = D.expanded(static, variables)
    adaptive_paths = D.expanded(adaptive, variables)
    content = paths["files"] + paths["tails"] + adaptive_paths["files"] + adaptive_paths["tails"]
    tree = SnapshotTree(tree_dir, machine, D.content_allowed(content, variables))
    capturing = CapturingHost(machine, tree)
    facts = Facts(capturing, RunOptions(timeout_s=timeout_s))

    say(_("running commands (npu-smi, dmesg, ...)"))
    facts.maybe(Facts.npu_smi)
    facts.prefetch_commands([a for a in static.argvs(variables) if a not in tree.commands])  # npu-smi info -m...
    ids = D.expansion(facts)  # what npu-smi info / info -m show: every die of an A3 node, no guessed range
    argvs = [a for a in static.argvs(variables, ids.npu_ids, ids.chips, ids.device_ids) if a not in tree.commands]
    capturing.run_many(argvs, timeout=timeout_s)

    say(_("recording the declared files, folders and devices"))
    glob_notes: List[str] = []
    for kind, record in (("listings", tree.listing), ("files", tree.copy), ("present", tree.present)):
        for pattern in paths[kind]:
            for path in D.glob(machine, pattern, glob_notes):
                record(path)
    for note in glob_notes:
        tree.note(note)

    say(_("running the probes whose reads depend on the answers (hccn_tool, torch, disks)"))
    for fact in D.adaptive_facts():
        facts.maybe(fact)  # a provider that fails has still recorded what it read

    say(_("copying the tails of the newest CANN logs"))
    file_times = capture_tails(machine, tree, paths["tails"])

    say(_("recording the environment, Python packages and system facts"))
    sources = sorted(set(static.host) | set(adaptive.host))
    write_json(os.path.join(tree_dir, "env.json"), env_record(machine.env()))
    write_json(os.path.join(tree_dir, "python.json"), python_record(machine))
    write_json(os.path.join(tree_dir, "host.json"), host_record(machine, sources, capturing.disks))
    summary.commands = len(tree.commands)
    summary.files = tree.files
    summary.notes = list(tree.notes)
    info = machine.info()
    meta: Dict[str, Any] = {
        "format": SNAPSHOT_FORMAT,
        "hostname": info.hostname,
        "arch": info.arch,
        "kernel": info.kernel,
        "os": info.os,
        "captured_at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool_version": __version__,
        "capture": {"timeout_s": timeout_s, "commands": summary.commands, "files": summary.files},
        "capture_notes": summary.notes,
        "file_times": file_times,
        "unreadable": tree.unreadable,
        # The declared reads as expanded on this machine: a path they cover that the snapshot lacks
        # was looked for and is absent (ascend_doctor/facts/origin.py absence_known).
        "captured": {**{kind: sorted(set(paths[kind]) | set(adaptive_paths[kind]))
                        for kind in ("files", "present", "listings", "tails")},
                     "commands": [list(argv) for argv in sorted(tree.commands)],
                     "disks": sorted(capturing.disks)},
    }
    write_json(os.path.join(tree_dir, "snapshot.json"), meta)
    redact_snapshot_files(tree_dir)  # secrets by value in command outputs, copied files and log tails
    if finish is not None:  # e.g. --model: adds to the finished tree before it is archived
        finish(tree_dir)


def check_folder_target(output: str) -> str:
    """The folder a ``snapshot -o DIR/`` will create: it must not exist, or be an empty folder
    (a symbolic link is refused). Raises ``FileExistsError`` / ``NotADirectoryError`` /
    ``FileNotFoundError`` with a one-line message."""
    target = output.rstrip("/").rstrip(os.sep) or "/"
    if os.path.islink(target):  # never written through, as no output is (safeio)
        raise FileExistsError(f"{target} is a symbolic link (to {os.readlink(target)}), which is never written "
                              "through; remove the link or name another folder")
    if os.path.lexists(target):
        if not os.path.isdir(target):
            raise NotADirectoryError(f"{output.rstrip('/')} exists and is not a folder")
        if os.listdir(target):
            raise FileExistsError(f"{target} exists and is not empty")
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        raise FileNotFoundError(f"the folder {parent} does not exist")
    return os.path.abspath(target)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _staging_tree(stem: str) -> Iterator[str]:
    """A private folder in the system temp directory to build an archive's tree in."""

    staging = tempfile.mkdtemp(prefix="ascend-doctor-capture-")
    try:
        tree = os.path.join(staging, stem)
        os.mkdir(tree)
        yield tree
    finally:
        remove_tree(staging)


def _archive_stem(output: str) -> str:
    name = os.path.basename(output)
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return name or "ascend-snapshot"


def _write_archive(tree: str, stem: str, fileobj: BinaryIO, archive_name: str) -> None:
    """Write ``tree`` as a gzip-compressed tar into ``fileobj``; the gzip header records
    ``archive_name`` (the final name, never a temporary one)."""
    def tidy(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(name=archive_name, mode="w:gz", fileobj=fileobj) as tar:
        tar.add(tree, arcname=stem, filter=tidy)  # symlinks are stored as symlinks
