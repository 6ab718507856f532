"""Turn pasted text into a *partial* snapshot (docs/snapshot-format.md) that ``SnapshotHost`` grades.

``check --from-text FILE`` recognises the parts of a ticket's text
(:mod:`ascend_doctor.parsers.pasted`), then this module writes what they say into a temporary
snapshot folder, each fact where a capture would have put it:

==============================  ==================================================================
pasted part                     becomes
==============================  ==================================================================
``npu-smi info`` table          ``commands/npu-smi_info.out`` (also the ``NPU:`` block of collect_env)
other graded npu-smi outputs    ``commands/npu-smi_info_-l.out``, ``..._-m.out``, ``..._-t_board_-i_N.out``,
                                ``..._-t_ecc|health|common|memory|temp|power_-i_N[_-c_C].out``
``hccn_tool -i N -<query> -g``  ``commands/hccn_tool_-i_N_-<query>_-g.out``
/etc/hccn.conf lines            ``files/etc/hccn.conf`` (pieces an author cut with ``...`` joined)
driver / firmware version.info  ``files/<driver root>/driver|firmware/version.info``
CANN install.info               ``files/<its path=>/ascend_<kind>_install.info`` (else under
                                ``/usr/local/Ascend/ascend-toolkit/<version>/<arch>-linux/``)
``CANN version:`` alone         the same file with only ``package_name``/``version``/``arch``
/etc/ascend_install.info        ``files/etc/ascend_install.info``
Python / packages               ``python.json`` (no interpreter path: none was pasted)
environment variables           ``env.json`` (secret-looking values redacted)
OS / kernel / arch              ``snapshot.json`` (``os``, ``kernel``, ``arch``)
``CPU(s):``                     ``host.json`` ``cpu_count``
CANN component version.info     at the path its prompt named (else ``<toolkit>/<version_dir>/opp/``)
``pip list`` rows               ``python.json`` packages
a ``/.dockerenv`` line          ``files/.dockerenv`` (container hints in ``env.json`` count too)
``ATB_HOME_PATH``               the folder it names, empty (NNAL is there, its version unknown)
==============================  ==================================================================

``snapshot.json`` says ``"origin_kind": "pasted-text"`` and lists what was recognised
(``pasted.recognised``) and what was not (``pasted.unrecognised``), so the report can say both and
checks can tell "not in the pasted text" from "not installed" (``ascend_doctor.facts.origin``).
Nothing is invented: a fact the text does not state has no file, and the checks that need it
are skipped.
"""

from __future__ import annotations

import atexit
import datetime as _dt
import json
import os
import posixpath
import shutil
from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor import __version__
from ascend_doctor.host.base import command_file_name
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n import translate
from ascend_doctor.parsers import pasted as P

ORIGIN_KIND = "pasted-text"
DEFAULT_ROOT = "/usr/local/Ascend"
MAX_PATH_CHARS = 512
_CANN_FILES = {"toolkit": "ascend_toolkit_install.info", "nnae": "ascend_nnae_install.info"}


class PastedSnapshot(Struct):
    """What was written, for the report's notes."""

    root: str
    recognised: List[str] = field(default_factory=list)  # "collect_env (layout vllm-ascend), lines 1-149"
    unrecognised: List[str] = field(default_factory=list)  # "lines 1-14: 'root@host:/# python ...'"
    ignored: List[str] = field(default_factory=list)  # recognised but not graded / duplicates
    facts: Optional[P.PastedFacts] = None

    def notes(self) -> List[str]:
        """One line per recognised part, then the unrecognised ones: for ``report.notes``."""
        out = [_("pasted text: recognised {part}").format(part=r) for r in self.recognised]
        out += [_("pasted text: recognised but not graded: {part}").format(part=r) for r in self.ignored]
        out += [_("pasted text: not recognised, {part}").format(part=r) for r in self.unrecognised]
        return out


def _safe_host_path(path: Optional[str]) -> Optional[str]:
    """An absolute, normalised host path from pasted text, or None when it cannot be one."""
    if not path or not path.startswith("/") or "\x00" in path or len(path) > MAX_PATH_CHARS:
        return None
    if ".." in path.split("/"):
        return None  # not a path an installer writes: the fact goes to its usual place instead
    norm = posixpath.normpath(path)
    return None if norm == "/" else norm


class _Writer:
    def __init__(self, root: str) -> None:
        self.root = root
        self.written: Dict[str, str] = {}  # snapshot-relative path -> what it came from

    def _target(self, rel: str) -> str:
        full = os.path.normpath(os.path.join(self.root, rel))
        if not full.startswith(os.path.normpath(self.root) + os.sep):
            raise ValueError(f"{rel!r} leads outside the snapshot")
        return full

    def text(self, rel: str, content: str, origin: str) -> bool:
        """Write once: the first statement of a fact wins (later ones are noted by the caller)."""
        if rel in self.written:
            return False
        target = self._target(rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "x", encoding="utf-8") as fh:
            fh.write(content if content.endswith("\n") else content + "\n")
        self.written[rel] = origin
        return True

    def json(self, rel: str, data: Any) -> None:
        self.text(rel, json.dumps(data, indent=2, ensure_ascii=False), "summary")

    def host_file(self, host_path: str, content: str, origin: str) -> bool:
        return self.text("files" + host_path, content, origin)

    def command(self, argv: Tuple[str, ...], output: str, origin: str) -> bool:
        return self.text(f"commands/{command_file_name(argv)}.out", output, origin)


def write_pasted_snapshot(pasted: P.PastedText, root: str, origin: str) -> PastedSnapshot:
    """Write the partial snapshot into the empty folder ``root``; ``origin`` names the input
    (a file name, or ``-`` for standard input)."""
    facts = P.summarise(pasted)
    out = PastedSnapshot(root=root, facts=facts)
    writer = _Writer(root)
    install_root = _install_root(pasted)
    conf = [s.text for s in pasted.of_kind(P.KIND_HCCN_CONF)]
    if conf:  # one file, even when the author elided lines ("...") between its pieces
        writer.host_file("/etc/hccn.conf", "".join(conf), P.KIND_HCCN_CONF)
    for segment in pasted.segments:
        if not segment.graded:
            out.ignored.append(segment.describe())
            continue
        used = _write_segment(writer, segment, install_root, facts)
        (out.recognised if used else out.ignored).append(
            segment.describe() if used else f"{segment.describe()} (the same fact came earlier in the text)")
    if facts.cann_version and not _has_cann_file(writer):
        arch = facts.arch or "aarch64"
        content = (f"# written by ascend-doctor from the pasted text (\"CANN version: {facts.cann_version}\")\n"
                   f"package_name=Ascend-cann-toolkit\nversion={facts.cann_version}\n"
                   + (f"arch={facts.arch}\n" if facts.arch else ""))
        writer.host_file(f"{DEFAULT_ROOT}/ascend-toolkit/{_path_word(facts.cann_version)}/{arch}-linux/"
                         "ascend_toolkit_install.info", content, "CANN version")
    _write_atb_home(writer, facts)
    if facts.env:
        from ascend_doctor.redaction.secrets import redact_env

        writer.json("env.json", redact_env(facts.env))
    if facts.python_version or facts.packages:
        writer.json("python.json", {"executable": None, "version": facts.python_version,
                                    "packages": dict(sorted(facts.packages.items()))})
    if facts.cpu_count is not None:
        writer.json("host.json", {"cpu_count": facts.cpu_count})
    out.unrecognised = [r.describe() for r in pasted.unrecognised]
    meta: Dict[str, Any] = {
        "format": 1,
        "origin_kind": ORIGIN_KIND,
        "origin": origin,
        "hostname": None,
        "arch": facts.arch,
        "kernel": facts.kernel,
        "os": facts.os,
        "captured_at": None,
        "imported_at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool_version": __version__,
        "pasted": {
            "recognised": [s.to_dict() for s in pasted.segments],
            "unrecognised": [r.to_dict() for r in pasted.unrecognised],
            "facts": facts.to_dict(),
            "truncated": pasted.truncated,
            "warnings": list(pasted.warnings) + list(facts.notes),
        },
    }
    writer.json("snapshot.json", meta)
    return out


def _path_word(text: str) -> str:
    """A version string as one safe path component."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in text)[:64] or "unknown"


def _install_root(pasted: P.PastedText) -> Tuple[str, str]:
    """(driver root, firmware root) from a pasted /etc/ascend_install.info, else the default."""
    for segment in pasted.of_kind(P.KIND_ASCEND_INSTALL_INFO):
        driver = _safe_host_path(getattr(segment.record, "driver_install_path", None))
        firmware = _safe_host_path(getattr(segment.record, "firmware_install_path", None))
        return driver or DEFAULT_ROOT, firmware or driver or DEFAULT_ROOT
    return DEFAULT_ROOT, DEFAULT_ROOT


def _has_cann_file(writer: _Writer) -> bool:
    return any((rel.endswith("_install.info") and rel != "files/etc/ascend_install.info")
               or origin.startswith(P.KIND_CANN_COMPONENT) for rel, origin in writer.written.items())


def _write_atb_home(writer: _Writer, facts: P.PastedFacts) -> None:
    """``ATB_HOME_PATH=<root>/nnal/atb/<v>/atb/cxx_abi_<n>`` is exported by NNAL's own set_env.sh:
    the folder it names exists (its version file was not pasted, so the version stays unknown)."""
    path = _safe_host_path(facts.env.get("ATB_HOME_PATH"))
    if path is None or "/nnal/atb/" not in path or "..." in path:
        return
    folder = writer._target("files" + path)
    os.makedirs(folder, exist_ok=True)
    writer.written.setdefault("files" + path + "/", "ATB_HOME_PATH")


def _cann_file(record: Any, arch_hint: Optional[str]) -> str:
    """Where a capture would have found this CANN install.info."""
    kind = (getattr(record, "package_kind", None) or "toolkit").lower()
    name = _CANN_FILES.get(kind, "ascend_toolkit_install.info" if "toolkit" in kind else f"ascend_{kind}_install.info")
    name = name if all(c.isalnum() or c in "._-" for c in name) else "ascend_toolkit_install.info"
    where = _safe_host_path(getattr(record, "path", None))
    if where is None:
        arch = getattr(record, "arch", None) or arch_hint or "aarch64"
        product = "nnae" if kind == "nnae" else "ascend-toolkit"
        where = f"{DEFAULT_ROOT}/{product}/{_path_word(getattr(record, 'version', None) or 'unknown')}/" \
                f"{_path_word(arch)}-linux"
    return f"{where}/{name}"


def _write_segment(writer: _Writer, segment: P.Segment, roots: Tuple[str, str], facts: P.PastedFacts) -> bool:
    """Write one recognised part; False when an earlier part already stated the same fact."""
    kind = segment.kind
    if kind in (P.KIND_COLLECT_ENV, P.KIND_LLAMAFACTORY):
        record = segment.record
        if record.npu_smi_text:
            writer.command(("npu-smi", "info"), record.npu_smi_text, segment.describe())
        if record.cann is not None:
            text = _cann_text(segment.text) or "".join(f"{k}={v}\n" for k, v in record.cann.raw.items())
            writer.host_file(_cann_file(record.cann, facts.arch), text, segment.describe())
        return True  # its Python, packages, env and OS facts are merged in the summary
    if kind in (P.KIND_NPU_SMI_INFO, P.KIND_NPU_SMI_LIST, P.KIND_NPU_SMI_BOARD, P.KIND_NPU_SMI_USAGES,
                P.KIND_NPU_SMI_TOPO, P.KIND_NPU_SMI_MAPPING, P.KIND_NPU_SMI_QUERY, P.KIND_HCCN):
        if not segment.command:
            return False
        return writer.command(segment.command, segment.text, segment.describe())
    if kind == P.KIND_DRIVER_INFO:
        return writer.host_file(f"{roots[0]}/driver/version.info", segment.text, segment.describe())
    if kind == P.KIND_FIRMWARE_INFO:
        return writer.host_file(f"{roots[1]}/firmware/version.info", segment.text, segment.describe())
    if kind == P.KIND_ASCEND_INSTALL_INFO:
        return writer.host_file("/etc/ascend_install.info", segment.text, segment.describe())
    if kind == P.KIND_CANN_INFO:
        stated = _safe_host_path(segment.command[1]) if len(segment.command) == 2 else None
        where = _cann_file(segment.record, facts.arch)
        if stated is not None and stated.endswith("_install.info") and getattr(segment.record, "path", None) is None:
            where = stated  # no path= in the file: the folder its prompt printed it from
        return writer.host_file(where, segment.text, segment.describe())
    if kind == P.KIND_HCCN_CONF:
        return True  # written once above, all pieces together
    if kind == P.KIND_CONTAINER_MARKER:
        return writer.host_file("/.dockerenv", "", segment.describe())
    if kind == P.KIND_CANN_COMPONENT:
        return writer.host_file(_component_file(segment), segment.text, segment.describe())
    return kind in (P.KIND_ENV_VARS, P.KIND_PIP_LIST)  # merged into env.json / python.json by the summary


def _component_file(segment: P.Segment) -> str:
    """Where a pasted component version.info goes: the path its prompt named, else the toolkit's
    ``opp/version.info`` of the release it names (where a capture looks for a bare ``opp``)."""
    stated = _safe_host_path(segment.command[1]) if len(segment.command) == 2 else None
    if stated is not None and stated.endswith("/version.info"):
        return stated
    release = getattr(segment.record, "cann_release", None) or getattr(segment.record, "version_dir", None)
    return f"{DEFAULT_ROOT}/ascend-toolkit/{_path_word(release or 'unknown')}/opp/version.info"


def _cann_text(dump: str) -> str:
    """The ``CANN:`` block of a collect_env dump: its ``key=value`` lines after the header."""
    lines = dump.splitlines()
    for index, line in enumerate(lines):
        if line.strip() == "CANN:":
            block = []
            for item in lines[index + 1:]:
                if "=" not in item or not item.strip() or item.strip()[0] in "+|":
                    break
                block.append(item.strip())
            return "\n".join(block) + "\n"
    return ""


# ---------------------------------------------------------------------------------------------
# `check --from-text FILE|-`


def read_paste(source: str) -> bytes:
    """The bytes of FILE, or of standard input for ``-``, bounded (a paste is kilobytes)."""
    import sys

    limit = P.MAX_PASTE_BYTES + 1  # one byte more tells "larger than the bound"
    if source == "-":
        return sys.stdin.buffer.read(limit)
    import stat

    st = os.stat(source)
    if not stat.S_ISREG(st.st_mode):
        raise P.PastedTextError("not a regular file (give a text file, or - for standard input)")
    with open(source, "rb") as fh:
        return fh.read(limit)


def open_pasted_text(source: str) -> Tuple[PastedTextHost, List[str]]:
    """A ``SnapshotHost`` over a partial snapshot built from the text in ``source`` (FILE or ``-``),
    and the notes for the report. Raises ``PastedTextError`` (nothing recognisable, binary) and
    ``OSError`` (unreadable file); the temporary snapshot is deleted when the host is closed."""
    import tempfile

    text, truncated = P.decode_paste(read_paste(source))
    pasted = P.parse_pasted_text(text, truncated)
    if not any(s.graded for s in pasted.segments):
        raise P.PastedTextError(_nothing_recognised(pasted))
    tmp = tempfile.mkdtemp(prefix="ascend-doctor-pasted-")
    try:
        origin = "standard input" if source == "-" else source
        written = write_pasted_snapshot(pasted, tmp, origin)
        host = PastedTextHost(tmp, origin)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    # The parser's warnings and notes are English data (N_-marked templates), shown translated.
    parsed = list(pasted.warnings) + list(written.facts.notes if written.facts else [])
    notes = written.notes() + [_("pasted text: {note}").format(note=translate(w)) for w in parsed]
    return host, notes


def _nothing_recognised(pasted: P.PastedText) -> str:
    known = ("a vLLM-Ascend collect_env or llamafactory-cli env dump, npu-smi info (or its -m, -l, -t board|ecc|"
             "health|common|usages|memory views), hccn_tool -i N ... -g outputs, a driver/firmware version.info, "
             "ascend_toolkit_install.info or /etc/ascend_install.info")
    if pasted.segments:
        found = ", ".join(sorted({s.kind + (f" {s.detail}" if s.detail else "") for s in pasted.segments}))
        return f"only {found} recognised, which no check reads (expected {known})"
    first = pasted.unrecognised[0].preview if pasted.unrecognised else ""
    start = f"; it starts with {first!r}" if first else "; it is empty"
    return f"nothing in it was recognised (expected {known}){start}"


class PastedTextHost(SnapshotHost):
    """The partial snapshot of a pasted text; ``close`` deletes it (so does exit)."""

    def __init__(self, root: str, origin: str) -> None:
        super().__init__(root)
        self.origin = origin  # the report names the pasted file, not the temporary folder
        self._paste_root = root
        atexit.register(shutil.rmtree, root, True)

    def close(self) -> None:
        super().close()
        shutil.rmtree(self._paste_root, ignore_errors=True)
