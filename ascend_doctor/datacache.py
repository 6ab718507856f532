"""The run-time reader of the built data: ``compat_matrix/compiled.pickle``.

Parsing and validating the shipped YAML (matrix, signatures, model families, OS support) costs about
100 ms; unpickling the validated records costs a few. The build step (``python -m
ascend_doctor.compiled_data``, never imported at run time) writes the records; this module only reads
them, and imports nothing of the domain: the callers name the file and the part they want, and the
record classes come back through the unpickler, which imports the module of each class itself.

A part is used only while it still matches: the header records the size and CRC-32 of every YAML file
the part was built from and the fields of every record class it holds. Any difference (a YAML file
edited in a checkout, a record class that changed, a missing or damaged file) makes the caller read
the YAML as before: slower, never different. Pickle protocol 4 is read by every Python the tool
supports (3.9+), so a checkout and any installed wheel read the same file.

File layout: the size of the header as a decimal number and a newline, the header (pickled: the
parts, their sources, classes, offsets; not JSON, so that a lookup needs no json module), then the
pickled parts one after another, so that a command unpickles only the parts it uses.
"""

from __future__ import annotations

import os
import sys
import zlib
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

COMPILED_FILE = "compiled.pickle"
FORMAT = 2
MATRIX_FILE = "matrix.yaml"
SIGNATURES_FILE = "signatures.yaml"
# Plain YAML data files whose parsed value (yaml.safe_load) is compiled as it is.
DATA_FILES = ("model_families.yaml", "os_support.yaml")
PICKLE_PROTOCOL = 4  # readable by every Python the tool supports (3.9+)
PATH_TAG = "shipped-path"
SET_TAG = "frozenset"

_header_cache: Dict[str, Optional[Tuple[Dict[str, Any], bytes]]] = {}
_parts: Dict[Tuple[str, str], Any] = {}  # (file, part) -> unpickled value: one copy per process


def shipped_dir() -> str:
    """The folder of the shipped data (``compat_matrix/`` in a checkout)."""
    import ascend_doctor.compat_matrix as pkg

    return os.path.dirname(os.path.abspath(str(pkg.__file__)))


def matrix_document(path: str) -> Any:
    """The shipped matrix ``path`` as ``load_document(path, cross_check=False)`` returns it, or None."""
    folder = _shipped_folder(path, MATRIX_FILE)
    return None if folder is None else _load("matrix", folder)


def matrix_chips(path: str) -> Any:
    """``(chips rows, chip_families rows)`` of the shipped matrix ``path`` as loading it gives them,
    or None: what resolving a chip name needs (``plan --chip``), without the rest of the matrix."""
    folder = _shipped_folder(path, MATRIX_FILE)
    return None if folder is None else _load("matrix:chips", folder)


def signature_db(path: str) -> Any:
    """The shipped signature database at ``path`` as the YAML loader returns it, or None."""
    folder = _shipped_folder(path, SIGNATURES_FILE)
    found = None if folder is None else _load("signatures", folder)
    return None if found is None else found[0]


def scanner_state(db: Any) -> Optional[Dict[str, Any]]:
    """The prefilter ``LogScanner(db)`` builds, when ``db`` is the compiled database (else None)."""
    for (_folder, part), value in _parts.items():
        if part == "signatures" and value is not None and value[0] is db:
            return dict(value[1])
    return None


def scanner_prefilter(path: str) -> Optional[Dict[str, Any]]:
    """What a scanner of the shipped signature database at ``path`` needs before a line may hold a
    signature (logscan/scanner.py, PREFILTER_STATE), without the database; or None."""
    folder = _shipped_folder(path, SIGNATURES_FILE)
    found = None if folder is None else _load("signatures:prefilter", folder)
    return None if found is None else dict(found)


def yaml_data(name: str) -> Tuple[bool, Any]:
    """``(True, value)`` with ``yaml.safe_load`` of the shipped data file ``name``; ``(False, None)``
    when that must be read from the YAML."""
    if name not in DATA_FILES:
        return False, None
    found = _load("data:" + name, shipped_dir())
    if found is None:
        return False, None
    return True, found[0]


def files_match(folder: str, stamps: Mapping[str, Sequence[int]]) -> bool:
    """Whether every file named in ``stamps`` (relative to ``folder``) still has the recorded
    ``(size, CRC-32)``: the content, not the modification time, which pip sets at installation."""
    return all(_file_has(os.path.join(folder, name), size, crc) for name, (size, crc) in stamps.items())


def stamp(data: bytes) -> Tuple[int, int]:
    """``(size, CRC-32)`` of a file's bytes: what ``files_match`` compares."""
    return len(data), zlib.crc32(data)


def _file_has(path: str, size: int, crc: int) -> bool:
    # os.open/os.read, no file object: ~40 % cheaper for the 140 modules of the check catalogue;
    # never more than one byte past the expected size, and a FIFO in a source's place is not waited on.
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        data = os.read(fd, size + 1)
        while 0 < len(data) <= size:
            more = os.read(fd, size + 1 - len(data))
            if not more:
                break
            data += more
    except OSError:
        return False
    finally:
        os.close(fd)
    return len(data) == size and zlib.crc32(data) == crc


def _shipped_folder(path: str, name: str) -> Optional[str]:
    folder, base = os.path.split(path)
    return folder if base == name and os.path.isabs(path) else None


def read_header(path: str) -> Optional[Tuple[Dict[str, Any], bytes]]:
    """``(header, body)`` of the compiled file at ``path`` (read once), or None when it is missing,
    damaged or of another layout."""
    if path in _header_cache:
        return _header_cache[path]
    result: Optional[Tuple[Dict[str, Any], bytes]] = None
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        header, body = split(data)
        if isinstance(header, dict) and header.get("format") == FORMAT and isinstance(header.get("parts"), dict):
            result = (header, body)
    except Exception:  # unreadable, an older layout, a damaged header: the YAML is the truth
        result = None
    _header_cache[path] = result
    return result


def split(data: bytes) -> Tuple[Any, bytes]:
    """(header, body) of a compiled file's bytes; raises ValueError (or an unpickling error)."""
    end = data.index(b"\n")
    size = int(data[:end].decode("ascii"))  # an older file's JSON header line is no number
    if size < 0 or end + 1 + size > len(data):
        raise ValueError("truncated header")
    return unpickler_module().loads(data[end + 1:end + 1 + size]), data[end + 1 + size:]


def unpickler_module() -> Any:
    """Where Unpickler, loads and UnpicklingError come from: the C module ``_pickle``, which
    ``pickle`` itself re-exports them from. Importing it alone skips pickle.py with its pure-Python
    Pickler and the struct module (~1.5 ms of every run that reads compiled data); an interpreter
    without it uses ``pickle``."""
    try:
        import _pickle

        return _pickle
    except ImportError:
        import pickle

        return pickle


def _load(part: str, folder: str) -> Any:
    """The part, when the compiled file beside the data in ``folder`` has it and it still matches
    its sources (checked on every call, so that a YAML file edited while a process runs is read
    again); unpickled once."""
    path = os.path.join(folder, COMPILED_FILE)
    found = read_header(path)
    if found is None:
        return None
    header, body = found
    entry = header["parts"].get(part)
    key = (path, part)
    try:
        if not isinstance(entry, dict) or not files_match(folder, entry["sources"]):
            return None
        if key not in _parts:
            current = _classes_match(entry["classes"])
            start, length = entry["offset"], entry["length"]
            _parts[key] = _unpickle(body[start:start + length], folder) if current else None
        return _parts[key]
    except Exception:  # a damaged or foreign file: the YAML is the truth
        return None


def forget() -> None:
    """Drop what this process read (tests that rewrite the files)."""
    _header_cache.clear()
    _parts.clear()


def _classes_match(classes: Dict[str, List[str]]) -> bool:
    """Whether every record class a part holds still has the fields it was pickled with. The classes
    are named in the header; their modules are imported by name (as the unpickler would)."""
    import importlib

    for dotted, names in classes.items():
        module_name, _, qualname = dotted.partition(":")
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        cls: Any = module
        for part in qualname.split("."):
            cls = getattr(cls, part, None)
        if cls is None or list(getattr(cls, "__struct_fields__", None) or ()) != names:
            return False
    return True


def _unpickle(blob: bytes, folder: str) -> Any:
    import io

    module = unpickler_module()
    base: Any = module.Unpickler
    paths: Dict[str, str] = {}  # every row names its file: join each name once (~4,000 rows)

    class _Unpickler(base):  # type: ignore[misc]
        def persistent_load(self, pid: Any) -> Any:
            # Paths inside the shipped folder are stored relative to it (the folder of this install).
            if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == PATH_TAG:
                path = paths.get(pid[1])
                if path is None:
                    path = paths[pid[1]] = os.path.join(folder, pid[1])
                return path
            if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == SET_TAG:
                return frozenset(pid[1])
            raise module.UnpicklingError("unknown persistent id")

    return _Unpickler(io.BytesIO(blob)).load()
