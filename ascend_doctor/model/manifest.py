"""Manifests: the size and SHA-256 of every file of a model, written once, verified everywhere.

A cluster proves that all nodes hold identical weights by writing a manifest on one node
(``ascend-doctor model manifest DIR -o manifest.json``) and verifying it on the others
(``ascend-doctor check --model DIR --verify manifest.json``). A ``sha256sum``-style file is
accepted too (GNU ``<hash>  <name>`` / ``<hash> *<name>``, escaped names, and BSD ``--tag``).

Hashing runs files in parallel on a thread pool: ``hashlib`` releases the GIL while it digests
large buffers, so N threads use N cores. Each thread reads 4 MiB chunks into one reused buffer.
Files whose size already differs from the manifest are reported without being read.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor import __version__, boundedjson, interrupt
from ascend_doctor.host.base import HostFileError
from ascend_doctor.lazy import lazy_re
from ascend_doctor.model.files import DirListing, FileSource, join, walk_model_dir

MANIFEST_FORMAT = "ascend-doctor-manifest"
MANIFEST_VERSION = 1
CHUNK_BYTES = 4 * 1024 * 1024
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
ByteCallback = Callable[[int], None]

_HEX64 = lazy_re(r"^[0-9a-fA-F]{64}$")
_GNU_LINE = lazy_re(r"^(?P<esc>\\)?(?P<hash>[0-9a-fA-F]{64}) (?P<mode>[ *])(?P<name>.+)$")
_BSD_LINE = lazy_re(r"^(?P<esc>\\)?SHA256 \((?P<name>.+)\) = (?P<hash>[0-9a-fA-F]{64})$")


class ManifestError(ValueError):
    """A manifest that cannot be used at all (unreadable, not a manifest, no entries)."""


class ManifestEntry(Struct, frozen=True):
    path: str  # relative, "/" separated
    sha256: str  # lowercase hex
    size: Optional[int] = None  # None in sha256sum files


class Manifest(Struct):
    entries: List[ManifestEntry]
    kind: str = "json"  # "json" | "sha256sum"
    created: Optional[str] = None
    tool: Optional[str] = None
    warnings: List[str] = field(default_factory=list)  # malformed lines skipped

    @property
    def total_bytes(self) -> int:
        return sum(e.size or 0 for e in self.entries)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "algorithm": "sha256",
            "created": self.created,
            "tool": self.tool,
            "file_count": len(self.entries),
            "total_bytes": self.total_bytes,
            "files": [{"path": e.path, "size": e.size, "sha256": e.sha256} for e in self.entries],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def to_sha256sum(self) -> str:
        return "".join(_sha256sum_line(e) for e in self.entries)


def _sha256sum_line(entry: ManifestEntry) -> str:
    # GNU coreutils escapes names holding a backslash or a newline and flags the line with "\".
    if "\\" in entry.path or "\n" in entry.path:
        name = entry.path.replace("\\", "\\\\").replace("\n", "\\n")
        return f"\\{entry.sha256}  {name}\n"
    return f"{entry.sha256}  {entry.path}\n"


def _clean_rel(name: str) -> Optional[str]:
    """A manifest path made relative and safe; None if it would leave the model directory."""
    rel = name
    while rel.startswith("./"):
        rel = rel[2:]
    if not rel or rel.startswith("/") or any(part == ".." for part in rel.split("/")):
        return None
    return rel


def _unescape(name: str) -> str:
    out, i = [], 0
    while i < len(name):
        if name[i] == "\\" and i + 1 < len(name):
            nxt = name[i + 1]
            out.append({"n": "\n", "\\": "\\", "r": "\r"}.get(nxt, nxt))
            i += 2
        else:
            out.append(name[i])
            i += 1
    return "".join(out)


def parse_sha256sum(text: str) -> Manifest:
    entries: List[ManifestEntry] = []
    warnings: List[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _GNU_LINE.match(line) or _BSD_LINE.match(line)
        if not match:
            warnings.append(f"line {number}: not a sha256sum line: {line[:80]!r}")
            continue
        name = _unescape(match.group("name")) if match.group("esc") else match.group("name")
        rel = _clean_rel(name)
        if rel is None:
            warnings.append(f"line {number}: path {name!r} leaves the model directory; ignored")
            continue
        entries.append(ManifestEntry(rel, match.group("hash").lower()))
    entries = _without_duplicates(entries, warnings)
    if not entries:
        raise ManifestError("no sha256sum lines found" + (f" ({warnings[0]})" if warnings else ""))
    return Manifest(entries, kind="sha256sum", warnings=warnings)


def _without_duplicates(entries: List[ManifestEntry], warnings: List[str]) -> List[ManifestEntry]:
    """Each path once: a repeated identical entry is dropped; a path listed with two different
    hashes (or sizes) keeps its first entry and is reported, since the file cannot match both."""
    first: Dict[str, ManifestEntry] = {}
    out: List[ManifestEntry] = []
    repeated = 0
    for entry in entries:
        seen = first.get(entry.path)
        if seen is None:
            first[entry.path] = entry
            out.append(entry)
        elif seen == entry:
            repeated += 1
        else:
            warnings.append(f"{entry.path}: listed twice with different values; the first entry is used")
    if repeated:
        warnings.append(f"{repeated} duplicate entr{'y' if repeated == 1 else 'ies'} ignored (each file counted once)")
    return out


def parse_manifest(data: bytes) -> Manifest:
    """Parse our JSON manifest or a sha256sum file (detected from the content)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ManifestError(f"not UTF-8 text (byte {exc.start})") from None
    if not text.lstrip().startswith("{"):
        return parse_sha256sum(text)
    try:
        doc = boundedjson.loads(text, what="JSON", max_chars=len(text) + 1)  # size bounded by the reader
    except boundedjson.TooComplex as exc:
        raise ManifestError(str(exc)) from None
    except ValueError as exc:
        raise ManifestError(f"invalid JSON: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
        raise ManifestError(f"JSON but not an {MANIFEST_FORMAT} file (no \"format\": \"{MANIFEST_FORMAT}\")")
    version = doc.get("version", MANIFEST_VERSION)
    if version != MANIFEST_VERSION or isinstance(version, bool):
        raise ManifestError(f"manifest version {str(version)[:20]} is not one this ascend-doctor reads "
                            f"({MANIFEST_VERSION}); write it again with this version, or upgrade ascend-doctor")
    files = doc.get("files")
    if not isinstance(files, list):
        raise ManifestError("\"files\" must be a list")
    entries: List[ManifestEntry] = []
    warnings: List[str] = []
    for i, item in enumerate(files):
        if not isinstance(item, dict):
            warnings.append(f"files[{i}]: not an object")
            continue
        path, digest, size = item.get("path"), item.get("sha256"), item.get("size")
        rel = _clean_rel(path) if isinstance(path, str) else None
        if rel is None or not isinstance(digest, str) or not _HEX64.match(digest):
            warnings.append(f"files[{i}]: needs a relative \"path\" and a 64-hex \"sha256\"")
            continue
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
            warnings.append(f"files[{i}]: \"size\" must be a non-negative integer")
            size = None
        entries.append(ManifestEntry(rel, digest.lower(), size))
    entries = _without_duplicates(entries, warnings)
    if not entries:
        raise ManifestError("the manifest lists no files" + (f" ({warnings[0]})" if warnings else ""))
    return Manifest(entries, kind="json", created=doc.get("created"), tool=doc.get("tool"), warnings=warnings)


def load_manifest(src: FileSource, path: str) -> Manifest:
    try:
        data = src.read_bytes(path, MAX_MANIFEST_BYTES)
    except HostFileError as exc:
        raise ManifestError(f"{path}: {exc.message}") from None
    except OSError as exc:
        raise ManifestError(f"{path}: {exc.strerror or exc}") from None
    return parse_manifest(data)


# -- hashing -------------------------------------------------------------------------------------

def hash_file(src: FileSource, path: str, on_bytes: Optional[ByteCallback] = None,
              chunk: int = CHUNK_BYTES) -> Tuple[str, int]:
    """(sha256 hex, bytes read). Raises HostFileError / OSError for unreadable files."""
    digest = hashlib.sha256()
    buffer = bytearray(chunk)
    view = memoryview(buffer)
    total = 0
    with src.open_binary(path) as fh:
        readinto = getattr(fh, "readinto", None)
        while True:
            if readinto is not None:
                count = readinto(buffer)
                if not count:
                    break
                digest.update(view[:count])
            else:  # a file-like object without readinto (some archive members)
                data = fh.read(chunk)
                if not data:
                    break
                count = len(data)
                digest.update(data)
            total += count
            interrupt.raise_if_requested()  # Ctrl-C: hashing threads stop within one chunk
            if on_bytes is not None:
                on_bytes(count)
    return digest.hexdigest(), total


class HashOutcome(Struct, frozen=True):
    rel: str
    sha256: Optional[str]
    size: int
    error: Optional[str] = None


def default_workers() -> int:
    return max(1, min(16, os.cpu_count() or 1))


def hash_files(src: FileSource, root: str, files: Sequence[Tuple[str, int]], workers: Optional[int] = None,
               on_bytes: Optional[ByteCallback] = None) -> Dict[str, HashOutcome]:
    """Hash files (relative path, expected size) in parallel, largest first for balance."""

    def one(item: Tuple[str, int]) -> HashOutcome:
        rel, size = item
        try:
            sha, read = hash_file(src, join(root, rel), on_bytes)
        except HostFileError as exc:
            return HashOutcome(rel, None, size, exc.message)
        except OSError as exc:
            return HashOutcome(rel, None, size, exc.strerror or str(exc))
        return HashOutcome(rel, sha, read)

    ordered = sorted(files, key=lambda item: -item[1])
    count = max(1, min(workers or default_workers(), len(ordered) or 1))
    if count == 1:
        results = [one(item) for item in ordered]
    else:
        with ThreadPoolExecutor(max_workers=count) as pool:
            results = list(pool.map(one, ordered))
    return {r.rel: r for r in results}


# -- write ---------------------------------------------------------------------------------------

def listing_problems(listing: DirListing) -> List[str]:
    problems = [f"{i.rel}: {i.message}" for i in listing.issues]
    if not listing.exists:
        problems.append(f"{listing.root} does not exist")
    elif not listing.is_dir:
        problems.append(f"{listing.root} is not a directory")
    return problems


def rel_inside(root: str, path: Optional[str]) -> Optional[str]:
    """``path`` relative to the folder ``root`` when it lies inside it (symlinks resolved; the
    file need not exist yet), else None. Used to keep a manifest (or another output) written
    into the model folder out of the manifest and out of "extra files"."""
    if not path or path == "-":
        return None
    folder = os.path.realpath(root)
    real = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    if os.path.islink(real):
        real = os.path.realpath(real)
    if not real.startswith(folder.rstrip("/") + "/"):
        return None
    return os.path.relpath(real, folder).replace(os.sep, "/")


def build_manifest(src: FileSource, root: str, workers: Optional[int] = None,
                   on_bytes: Optional[ByteCallback] = None,
                   listing: Optional[DirListing] = None,
                   exclude: Iterable[str] = ()) -> Tuple[Manifest, List[str]]:
    """Hash every model file under ``root``, at any depth, except ``exclude`` (relative paths:
    the manifest being written). Returns the manifest and problems (unhashed files)."""
    listing = listing or walk_model_dir(src, root, max_depth=None)
    skip = set(exclude)
    problems = [p for p in listing_problems(listing) if p.split(":", 1)[0] not in skip]
    files = [(e.rel, e.size) for e in listing.model_files() if e.rel not in skip]
    outcomes = hash_files(src, root, files, workers, on_bytes)
    entries: List[ManifestEntry] = []
    for rel, _ in files:
        outcome = outcomes[rel]
        if outcome.sha256 is None:
            problems.append(f"{rel}: {outcome.error}")
            continue
        entries.append(ManifestEntry(rel, outcome.sha256, outcome.size))
    created = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return Manifest(entries, created=created, tool=f"ascend-doctor {__version__}"), problems


def listing_total(listing: DirListing) -> int:
    return sum(e.size for e in listing.model_files())


# -- verify --------------------------------------------------------------------------------------

class Mismatch(Struct, frozen=True):
    path: str
    reason: str  # "size" | "sha256"
    expected: str
    actual: str

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "expected": self.expected, "actual": self.actual}


class VerifyResult(Struct):
    manifest_kind: str
    checked: int = 0  # files compared (hashed or size-checked)
    matched: int = 0
    mismatched: List[Mismatch] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    extra: List[str] = field(default_factory=list)
    unreadable: List[Tuple[str, str]] = field(default_factory=list)
    warnings: List[str] = field(default_factory=list)
    bytes_hashed: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.mismatched or self.missing or self.extra or self.unreadable)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "ok": self.ok,
            "manifest_kind": self.manifest_kind,
            "checked": self.checked,
            "matched": self.matched,
            "mismatched": [m.to_dict() for m in self.mismatched],
            "missing": list(self.missing),
            "extra": list(self.extra),
            "unreadable": [{"path": p, "error": e} for p, e in self.unreadable],
            "warnings": list(self.warnings),
            "bytes_hashed": self.bytes_hashed,
            "seconds": round(self.seconds, 3),
        }


def verify_plan(manifest: Manifest, listing: DirListing,
                ignore: Iterable[str] = ()) -> Tuple[List[Tuple[str, int]], VerifyResult]:
    """Decide what must be hashed; size mismatches, missing and extra files are settled here.

    ``ignore``: relative paths that are not model files although they sit in the folder (the
    manifest itself, the -o report); they are never "extra"."""
    issues = {i.rel: i.message for i in listing.issues}
    listed = {e.path for e in manifest.entries}
    warnings = [p for p in listing_problems(listing) if p.split(":", 1)[0] not in listed]
    result = VerifyResult(manifest.kind, warnings=list(manifest.warnings) + warnings)
    present = {e.rel: e.size for e in listing.model_files()}
    to_hash: List[Tuple[str, int]] = []
    for entry in manifest.entries:
        size = present.get(entry.path)
        if size is None:
            if entry.path in issues:  # there, but a broken link / unreadable: not "missing"
                result.unreadable.append((entry.path, issues[entry.path]))
            else:
                result.missing.append(entry.path)
            continue
        if entry.size is not None and entry.size != size:
            result.checked += 1
            result.mismatched.append(Mismatch(entry.path, "size", str(entry.size), str(size)))
            continue
        to_hash.append((entry.path, size))
    skip = set(ignore) - listed
    result.extra = sorted(p for p in present if p not in listed and p not in skip)
    result.missing.sort()
    return to_hash, result


def hash_total(to_hash: Iterable[Tuple[str, int]]) -> int:
    return sum(size for _, size in to_hash)


def verify_manifest(src: FileSource, root: str, manifest: Manifest, workers: Optional[int] = None,
                    on_bytes: Optional[ByteCallback] = None, listing: Optional[DirListing] = None,
                    plan: Optional[Tuple[List[Tuple[str, int]], VerifyResult]] = None) -> VerifyResult:
    """Compare the directory with the manifest: each mismatched, missing or extra file."""
    started = time.monotonic()
    listing = listing or walk_model_dir(src, root, max_depth=None)
    to_hash, result = plan or verify_plan(manifest, listing)
    expected = {e.path: e.sha256 for e in manifest.entries}
    outcomes = hash_files(src, root, to_hash, workers, on_bytes)
    for rel, _ in sorted(to_hash):
        outcome = outcomes[rel]
        if outcome.sha256 is None:
            result.unreadable.append((rel, outcome.error or "unreadable"))
            continue
        result.checked += 1
        result.bytes_hashed += outcome.size
        if outcome.sha256 == expected[rel]:
            result.matched += 1
        else:
            result.mismatched.append(Mismatch(rel, "sha256", expected[rel], outcome.sha256))
    result.mismatched.sort(key=lambda m: m.path)
    result.seconds = time.monotonic() - started
    return result
