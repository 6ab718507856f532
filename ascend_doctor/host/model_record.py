"""Model metadata in snapshots: what the model checks read, never the weights.

``snapshot --model DIR`` records, under ``model/`` of the snapshot (docs/snapshot-format.md):

* ``model/model.json``: every entry of the model folder (bounded walk: 10 000 entries, 4 levels,
  symlinked folders not followed, as the model checks walk it) with its type, size and, for a
  symlink, its target as stored and what it resolves to; the targets of links (a HuggingFace
  cache's ``blobs/``) are entries too;
* ``model/files/<host path>``: the content the checks read: ``config.json``, the
  ``*.index.json`` and ``quant_model_description*.json`` files, the tokenizer configurations,
  ``modeling_*.py`` / ``configuration_*.py``, Git LFS pointer files, and of every
  ``*.safetensors`` file its header only (the 8-byte length and the header JSON). Bounded per
  file and in total; what is skipped is noted in ``model.json`` ``notes``.

``SnapshotHost`` answers file questions under a recorded model folder from this record
(:class:`RecordedModels`): sizes and links from the listing, contents from ``model/files``; a
file whose content was not recorded (tensor data) raises ``HostFileError`` "not in the
snapshot". So ``check --from snap --model DIR`` grades the customer's model on a laptop.
"""

from __future__ import annotations

import io
import json
import os
import posixpath
import stat as statmod
import struct
from typing import Any, BinaryIO, Callable, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.host.base import SNAPSHOT_MODEL_DIR, FileMissing, FileStat, FileTooLarge, HostFileError
from ascend_doctor.lazy import lazy_re

MODEL_LISTING = f"{SNAPSHOT_MODEL_DIR}/model.json"
MODEL_FILES = f"{SNAPSHOT_MODEL_DIR}/files"
LISTING_FORMAT = 1

MAX_ENTRIES = 10_000
MAX_DEPTH = 4
MAX_LINKS = 40
MAX_JSON_BYTES = 64 * 1024 * 1024  # an index of a 671B model is ~10 MB; the checks allow 64 MiB
MAX_CODE_BYTES = 1024 * 1024
MAX_HEADER_BYTES = 64 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024
LFS_PREFIX = b"version https://git-lfs.github.com/spec/v1"
MAX_LFS_BYTES = 1024

# Files whose content the model checks read (names at any depth; the checks read the top level).
_FULL_NAMES = lazy_re(
    r"^(config\.json|.*\.index\.json|quant_model_description.*\.json|tokenizer_config\.json|"
    r"special_tokens_map\.json|generation_config\.json|configuration\.json)$")
_CODE_NAMES = lazy_re(r"^(modeling|configuration)_[\w.-]*\.py$")
_TOOL_DIRS = (".git",)  # never descended into (as the checks' walk)


# ---------------------------------------------------------------------------------------------
# Recording (on the machine, during `snapshot --model DIR`)


class _Recorder(Struct):
    tree: str  # the snapshot folder being written
    fs_root: str  # "/" on a real machine; a fake tree in tests
    entries: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    total: int = 0

    def disk(self, host_path: str) -> str:
        return host_path if self.fs_root == "/" else os.path.join(self.fs_root, host_path.lstrip("/"))

    def lstat(self, host_path: str) -> Optional[os.stat_result]:
        try:
            return os.lstat(self.disk(host_path))
        except OSError:
            return None

    def resolve(self, host_path: str) -> Tuple[str, str]:
        """(real path, outcome) with outcome "ok", "missing" or "loop"; links resolved inside fs_root."""
        pending = [p for p in host_path.split("/") if p not in ("", ".")]
        current: List[str] = []
        links = 0
        while pending:
            name = pending.pop(0)
            if name == "..":
                if current:
                    current.pop()
                continue
            here = "/" + "/".join([*current, name])
            st = self.lstat(here)
            if st is None:
                return "/" + "/".join([*current, name, *pending]), "missing"
            if statmod.S_ISLNK(st.st_mode):
                links += 1
                if links > MAX_LINKS:
                    return here, "loop"
                try:
                    target = os.readlink(self.disk(here))
                except OSError:
                    return here, "missing"
                if target.startswith("/"):
                    current = []
                pending = [p for p in target.split("/") if p not in ("", ".")] + pending
                continue
            current.append(name)
        return "/" + "/".join(current), "ok"

    def describe(self, host_path: str, st: os.stat_result) -> Dict[str, Any]:
        if statmod.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(self.disk(host_path))
            except OSError:
                target = ""
            real, outcome = self.resolve(host_path)
            entry: Dict[str, Any] = {"type": "link", "target": target, "real": real}
            if outcome == "ok":
                real_st = self.lstat(real)
                if real_st is not None and real not in self.entries:
                    self.entries[real] = self.describe(real, real_st)
                    self.content(real, self.entries[real])
            elif outcome == "loop":
                entry["loop"] = True
            return entry
        # Permission bits and owner too: MindIE refuses weights wider than 640/750 or owned by
        # another user than the one running it (ASC-CFG-011 grades them from this record).
        if statmod.S_ISDIR(st.st_mode):
            return {"type": "dir", "mode": statmod.S_IMODE(st.st_mode), "uid": st.st_uid}
        if statmod.S_ISREG(st.st_mode):
            return {"type": "file", "size": st.st_size, "mode": statmod.S_IMODE(st.st_mode), "uid": st.st_uid}
        return {"type": "other"}

    def content(self, host_path: str, entry: Dict[str, Any]) -> None:
        """Copy what the checks read of one regular file (bounded), marking ``stored``."""
        if entry.get("type") != "file":
            return
        name = posixpath.basename(host_path)
        size = int(entry.get("size") or 0)
        want: Optional[int] = None
        if _FULL_NAMES.match(name):
            want = size if size <= MAX_JSON_BYTES else None
        elif _CODE_NAMES.match(name):
            want = size if size <= MAX_CODE_BYTES else None
        elif name.endswith(".safetensors"):
            want = self.header_length(host_path, size)
        elif size <= MAX_LFS_BYTES:
            head = self.read(host_path, len(LFS_PREFIX))
            want = size if head is not None and head.startswith(LFS_PREFIX) else None
        if want is None:
            if _FULL_NAMES.match(name) or _CODE_NAMES.match(name):
                self.notes.append(f"{host_path}: {size} bytes, too large to record")
            return
        if self.total + want > MAX_TOTAL_BYTES:
            self.notes.append(f"{host_path}: model record size limit reached, content not recorded")
            return
        data = self.read(host_path, want)
        if data is None:
            entry["error"] = "permission denied or unreadable"
            return
        data = _without_secrets(name, data, entry)
        self.total += len(data)
        target = os.path.join(self.tree, MODEL_FILES, host_path.lstrip("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "xb") as fh:
            fh.write(data)
        entry["stored"] = len(data)

    def header_length(self, host_path: str, size: int) -> int:
        """How much of a safetensors file to keep: 8 + N when N is sane, else what shows why not."""
        first = self.read(host_path, max(8, len(LFS_PREFIX)))
        if first is None:
            return 0
        if first.startswith(LFS_PREFIX):
            return min(size, MAX_LFS_BYTES)  # a pointer, not weights: keep it whole
        if len(first) < 8:
            return len(first)
        (length,) = struct.unpack("<Q", first[:8])
        if length > size - 8 or length > MAX_HEADER_BYTES:
            if length <= size - 8:
                self.notes.append(f"{host_path}: header of {length} bytes, larger than the "
                                  f"{MAX_HEADER_BYTES // (1024 * 1024)} MiB recorded")
            return 8  # the length alone tells the checks what is wrong (or that it is too large)
        return 8 + int(length)

    def read(self, host_path: str, count: int) -> Optional[bytes]:
        try:
            flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
            fd = os.open(self.disk(host_path), flags)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as fh:
            try:
                return fh.read(count)
            except OSError:
                return None


def _without_secrets(name: str, data: bytes, entry: Dict[str, Any]) -> bytes:
    """The recorded copy with secrets redacted by name and by value (redaction/secrets.py), whatever
    --redact says, as env.json's are: a config.json may carry ``"hf_token"`` or a URL with a password.

    JSON and code are redacted as text, so the layout stays and the JSON stays JSON. A safetensors
    header keeps its length (padded with spaces, which JSON allows) so the tensor offsets and the
    recorded file size stay true; a full copy that changed length records its new size, so the checks
    read it whole. ``entry["redacted"]`` marks a copy that changed."""
    from ascend_doctor.redaction.secrets import redact_text

    if name.endswith(".safetensors"):
        if len(data) <= 8 or data.startswith(LFS_PREFIX):
            return data
        (length,) = struct.unpack("<Q", data[:8])
        header = data[8:8 + length]
        if b"\0" in header:
            return data
        text = header.decode("utf-8", "surrogateescape")
        new = redact_text(text).encode("utf-8", "surrogateescape")
        if new == header:
            return data
        entry["redacted"] = True
        if len(new) <= len(header):
            return data[:8] + new + b" " * (len(header) - len(new)) + data[8 + length:]
        entry["size"] = int(entry.get("size") or 0) + len(new) - len(header)
        return struct.pack("<Q", len(new)) + new + data[8 + length:]
    if b"\0" in data:
        return data
    text = data.decode("utf-8", "surrogateescape")
    redacted = redact_text(text)
    if redacted == text:
        return data
    out = redacted.encode("utf-8", "surrogateescape")
    entry["redacted"] = True
    if int(entry.get("size") or 0) == len(data):
        entry["size"] = len(out)  # a whole file: the copy is the file the checks read
    return out


def record_models(tree: str, model_dirs: List[str], fs_root: str = "/") -> List[str]:
    """Record each model folder into the snapshot folder ``tree``; returns notes for the user."""
    rec = _Recorder(tree, fs_root)
    roots: List[Dict[str, Any]] = []
    for given in model_dirs:
        root = posixpath.normpath(given if given.startswith("/") else os.path.abspath(given))
        st = rec.lstat(root)
        if st is None:
            rec.notes.append(f"--model {given}: no such folder; not recorded")
            continue
        rec.entries[root] = rec.describe(root, st)
        truncated = _walk(rec, root)
        roots.append({"path": root, "truncated": truncated})
    os.makedirs(os.path.join(tree, "model"), exist_ok=True)
    listing = {"format": LISTING_FORMAT, "models": roots, "entries": rec.entries, "notes": rec.notes}
    with open(os.path.join(tree, MODEL_LISTING), "x", encoding="utf-8") as fh:
        json.dump(listing, fh, indent=1, ensure_ascii=False)
    return rec.notes


def _walk(rec: _Recorder, root: str) -> bool:
    """Record every entry under ``root`` (bounded); True when the bound was reached."""
    real, outcome = rec.resolve(root)
    if outcome != "ok":
        return False
    start = real if rec.entries.get(root, {}).get("type") == "link" else root
    stack: List[Tuple[str, int]] = [(start, 0)]
    seen = 0
    while stack:
        folder, depth = stack.pop()
        try:
            names = sorted(os.listdir(rec.disk(folder)))
        except OSError:
            rec.entries.setdefault(folder, {"type": "dir"})["error"] = "cannot be listed"
            continue
        for name in names:
            seen += 1
            if seen > MAX_ENTRIES:
                rec.notes.append(f"{root}: more than {MAX_ENTRIES} entries; the rest was not recorded")
                return True
            path = f"{folder.rstrip('/')}/{name}"
            st = rec.lstat(path)
            if st is None:
                continue
            entry = rec.describe(path, st)
            rec.entries[path] = entry
            rec.content(path, entry)
            if entry["type"] == "dir" and depth + 1 <= MAX_DEPTH and name not in _TOOL_DIRS:
                stack.append((path, depth + 1))
    return False


# ---------------------------------------------------------------------------------------------
# Replaying (SnapshotHost answers from the record)


class _HeadOnly(io.BytesIO):
    """The recorded start of a file; reading past it means reading data the snapshot lacks."""

    def __init__(self, data: bytes, size: int, path: str) -> None:
        super().__init__(data)
        self._size = size
        self._path = path

    def read(self, n: Optional[int] = -1) -> bytes:
        start = self.tell()
        chunk = super().read(n)
        wanted = self._size - start if n is None or n < 0 else min(n, self._size - start)
        if len(chunk) < wanted:
            raise HostFileError(self._path, f"only the first {len(self.getvalue())} bytes of this file (its header) "
                                            "are in the snapshot; the rest stays on the machine")
        return chunk


class RecordedModels:
    """The ``model/`` record of a snapshot, answering like a host for paths under its models."""

    def __init__(self, listing: Dict[str, Any], read_stored: Callable[[str], Optional[bytes]]) -> None:
        entries = listing.get("entries")
        self.entries: Dict[str, Dict[str, Any]] = {
            str(k): v for k, v in (entries.items() if isinstance(entries, dict) else ()) if isinstance(v, dict)}
        models = listing.get("models")
        self.roots = [posixpath.normpath(str(m.get("path"))) for m in (models if isinstance(models, list) else ())
                      if isinstance(m, dict) and isinstance(m.get("path"), str) and m["path"].startswith("/")]
        self._read_stored = read_stored

    def covers(self, path: str) -> bool:
        norm = posixpath.normpath(path) if path.startswith("/") else path
        return norm in self.entries or any(norm == r or norm.startswith(r.rstrip("/") + "/") for r in self.roots)

    def is_recorded_model(self, path: str) -> bool:
        return bool(path.startswith("/") and posixpath.normpath(path) in self.roots)

    def _entry(self, path: str) -> Optional[Dict[str, Any]]:
        return self.entries.get(posixpath.normpath(path))

    def _final(self, path: str) -> Tuple[str, Optional[Dict[str, Any]]]:
        norm = posixpath.normpath(path)
        entry = self.entries.get(norm)
        hops = 0
        while entry is not None and entry.get("type") == "link" and hops < MAX_LINKS:
            if entry.get("loop"):
                return norm, entry
            norm = posixpath.normpath(str(entry.get("real") or ""))
            entry = self.entries.get(norm)
            hops += 1
        return norm, entry

    def stat(self, path: str) -> Optional[FileStat]:
        entry = self._entry(path)
        if entry is None:
            return None
        kind = entry.get("type")
        if kind == "link":
            _, final = self._final(path)
            final_kind = final.get("type") if final else None
            return FileStat(path=path, size=0, is_dir=final_kind == "dir", is_file=final_kind == "file",
                            is_symlink=True, mode=statmod.S_IFLNK | 0o777)
        size = int(entry.get("size") or 0)
        kind_bits = statmod.S_IFDIR if kind == "dir" else statmod.S_IFREG if kind == "file" else 0
        recorded_mode, uid = entry.get("mode"), entry.get("uid")
        if isinstance(recorded_mode, int) and not isinstance(recorded_mode, bool) and 0 <= recorded_mode <= 0o7777:
            mode = kind_bits | recorded_mode
        else:  # a record made before modes were kept: conventional bits, and no owner (uid None)
            mode = kind_bits | (0o755 if kind == "dir" else 0o644) if kind_bits else 0
            uid = None
        owner = uid if isinstance(uid, int) and not isinstance(uid, bool) and uid >= 0 else None
        return FileStat(path=path, size=size, is_dir=kind == "dir", is_file=kind == "file", is_symlink=False,
                        mode=mode, uid=owner)

    def realpath(self, path: str) -> str:
        norm = posixpath.normpath(path)
        entry = self.entries.get(norm)
        if entry is not None and entry.get("type") == "link":
            return str(entry.get("real") or norm)
        return norm

    def readlink(self, path: str) -> Optional[str]:
        entry = self._entry(path)
        return str(entry.get("target")) if entry is not None and entry.get("type") == "link" else None

    def exists(self, path: str) -> bool:
        return self._final(path)[1] is not None

    def is_dir(self, path: str) -> bool:
        final = self._final(path)[1]
        return final is not None and final.get("type") == "dir"

    def listdir(self, path: str) -> List[str]:
        folder, final = self._final(path)
        if final is None or final.get("type") != "dir":
            return []
        prefix = folder.rstrip("/") + "/"
        return sorted({p[len(prefix):] for p in self.entries if p.startswith(prefix) and "/" not in p[len(prefix):]})

    def open_binary(self, path: str, max_bytes: Optional[int] = None) -> BinaryIO:
        real, final = self._final(path)
        if final is None:
            raise FileMissing(path, "not in the snapshot")
        if final.get("type") == "dir":
            raise HostFileError(path, "is a directory")
        if final.get("type") != "file":
            raise FileMissing(path, "not a regular file")
        size = int(final.get("size") or 0)
        if max_bytes is not None and size > max_bytes:
            raise FileTooLarge(path, f"{size} bytes, more than the {max_bytes} allowed")
        stored = final.get("stored")
        data = self._read_stored(real) if stored is not None else None
        if data is None:
            raise HostFileError(path, "its content is not in the snapshot (only its size was recorded)")
        if len(data) >= size:
            return io.BytesIO(data)
        return _HeadOnly(data, size, path)

    def read_bytes(self, path: str, max_bytes: int) -> bytes:
        with self.open_binary(path, max_bytes) as fh:
            return fh.read()


__all__ = ["MODEL_FILES", "MODEL_LISTING", "RecordedModels", "record_models"]
