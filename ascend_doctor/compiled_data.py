"""The shipped data files, compiled: ``compat_matrix/compiled.pickle``.

Every start of ``check``, ``plan``, ``matrix lookup`` or ``diagnose`` needs the compatibility matrix,
the error-signature database or the model families, all kept as YAML for the people who edit them.
Parsing and validating that YAML costs about 100 ms; unpickling the validated records costs a few.
So the records are compiled once, when the data changes, by::

    python -m ascend_doctor.compiled_data        # rewrites compat_matrix/compiled.pickle

and the file is committed and shipped. tests/test_compiled_data.py fails while it is stale, and
proves that each part equals what loading the YAML gives.

A part is used only while it still matches: it records the size and CRC-32 of every YAML file it
was built from and the fields of every record class it holds. Any difference (a YAML file edited in a
checkout, a record class that changed, a missing or damaged file) makes the caller read the YAML as
before: slower, never different. Only the shipped files are compiled; ``--matrix FILE``,
``$ASCEND_DOCTOR_MATRIX`` and an updated matrix are always read from their YAML.

File layout: the size of the header as a decimal number and a newline, the header (pickled: the
parts, their sources, classes, offsets; not JSON, so that a lookup needs no json module), then the
pickled parts one after another, so that a command unpickles only the parts it uses.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

COMPILED_FILE = "compiled.pickle"
# The check catalogue, compiled by the package build (setup.py) into the built package only: the check
# modules change with every feature, so a committed copy would be stale at once (see registry.py).
CATALOGUE_FILE = "catalogue.pickle"
FORMAT = 2
MATRIX_FILE = "matrix.yaml"
SIGNATURES_FILE = "signatures.yaml"
# Plain YAML data files whose parsed value (yaml.safe_load) is compiled as it is.
DATA_FILES = ("model_families.yaml", "os_support.yaml")
PICKLE_PROTOCOL = 4  # readable by every Python the tool supports (3.9+)
_PATH_TAG = "shipped-path"
_SET_TAG = "frozenset"

_header_cache: Dict[str, Optional[Tuple[Dict[str, Any], bytes]]] = {}
_parts: Dict[Tuple[str, str], Any] = {}  # (file, part) -> unpickled value: one copy per process


def shipped_dir() -> str:
    """The folder of the shipped data (``compat_matrix/`` in a checkout)."""
    import ascend_doctor.compat_matrix as pkg

    return os.path.dirname(os.path.abspath(str(pkg.__file__)))


# -- loading ----------------------------------------------------------------------------------


def matrix_document(path: str) -> Any:
    """The shipped matrix ``path`` as ``load_document(path, cross_check=False)`` returns it, or None."""
    folder, name = os.path.split(path)
    if name != MATRIX_FILE or not os.path.isabs(path):
        return None
    return _load("matrix", folder)


def matrix_chips(path: str) -> Any:
    """``(chips rows, chip_families rows)`` of the shipped matrix ``path`` as loading it gives them,
    or None: what resolving a chip name needs (``plan --chip``), without the rest of the matrix."""
    folder, name = os.path.split(path)
    if name != MATRIX_FILE or not os.path.isabs(path):
        return None
    return _load("matrix:chips", folder)


def signature_db(path: str) -> Any:
    """The shipped signature database at ``path`` as the YAML loader returns it, or None."""
    folder, name = os.path.split(path)
    if name != SIGNATURES_FILE or not os.path.isabs(path):
        return None
    found = _load("signatures", folder)
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
    folder, name = os.path.split(path)
    if name != SIGNATURES_FILE or not os.path.isabs(path):
        return None
    found = _load("signatures:prefilter", folder)
    return None if found is None else dict(found)


def check_catalogue(path: Optional[str] = None) -> Optional[Tuple[List[Tuple[str, Any]], List[str]]]:
    """``([(module, CheckSpec)...], problems)`` as importing every check module gives them, from the
    catalogue compiled by the build (``path``: that file), while the check modules and the package
    modules they load are the ones it was compiled from; else None."""
    try:
        listing = sorted(n for n in os.listdir(_checks_dir()) if n.endswith(".py"))
    except OSError:
        return None
    found = _load("catalogue", shipped_dir(), path or os.path.join(shipped_dir(), CATALOGUE_FILE))
    if found is None or found[0] != listing:  # a check module added or removed since
        return None
    return list(found[1]), list(found[2])


def yaml_data(name: str) -> Tuple[bool, Any]:
    """``(True, value)`` with ``yaml.safe_load`` of the shipped data file ``name``; ``(False, None)``
    when that must be read from the YAML."""
    if name not in DATA_FILES:
        return False, None
    found = _load("data:" + name, shipped_dir())
    if found is None:
        return False, None
    return True, found[0]


def _read(path: str) -> Optional[Tuple[Dict[str, Any], bytes]]:
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
    return _unpickler_module().loads(data[end + 1:end + 1 + size]), data[end + 1 + size:]


def _unpickler_module() -> Any:
    """Where pickle's Unpickler, loads and UnpicklingError come from: the C module ``_pickle``,
    which ``pickle`` itself re-exports them from. Importing it alone skips pickle.py with its
    pure-Python Pickler and the struct module (~1.5 ms of every run that reads compiled data,
    min of 9 with -X importtime); an interpreter without it uses ``pickle``."""
    try:
        import _pickle

        return _pickle
    except ImportError:
        import pickle

        return pickle


def join(header: Dict[str, Any], body: bytes) -> bytes:
    """The compiled file made of ``header`` and ``body`` (``split``'s inverse)."""
    import pickle

    blob = pickle.dumps(header, protocol=PICKLE_PROTOCOL)
    return str(len(blob)).encode("ascii") + b"\n" + blob + body


def _load(part: str, folder: str, path: Optional[str] = None) -> Any:
    """The part, when the compiled file (``path``, by default the one beside the data in ``folder``)
    has it and it still matches its sources (checked on every call, so that a YAML file edited while a
    process runs is read again); unpickled once."""
    path = path or os.path.join(folder, COMPILED_FILE)
    found = _read(path)
    if found is None:
        return None
    header, body = found
    entry = header["parts"].get(part)
    key = (path, part)
    try:
        if not isinstance(entry, dict) or not _sources_match(folder, entry["sources"]):
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


def _source_path(folder: str, name: str) -> str:
    """A source named in a header: in the data folder, or under a package root (``@checks/``,
    ``@package/``), which sit in different places in a checkout and in an installation."""
    return _source_resolver(folder)(name)


def _source_resolver(folder: str) -> Callable[[str], str]:
    """``_source_path`` for many names: the package roots found once (a catalogue names 164 files)."""
    roots: Dict[str, str] = {}

    def path(name: str) -> str:
        root, _, rest = name.partition("/")
        if root in ("@checks", "@package"):
            if root not in roots:
                roots[root] = _checks_dir() if root == "@checks" else os.path.dirname(os.path.abspath(__file__))
            return os.path.join(roots[root], rest)
        return os.path.join(folder, name)

    return path


def _checks_dir() -> str:
    import ascend_doctor.checks as pkg

    return os.path.abspath(str(next(iter(pkg.__path__))))


def _sources_match(folder: str, sources: Dict[str, List[int]]) -> bool:
    """Whether every source still has the size and CRC-32 it was compiled from (sourcestamp.py)."""
    from ascend_doctor.sourcestamp import file_has

    path = _source_resolver(folder)
    return all(file_has(path(name), size, crc) for name, (size, crc) in sources.items())


def _classes_match(classes: Dict[str, List[str]]) -> bool:
    import dataclasses
    import importlib

    for dotted, names in classes.items():
        module_name, _, qualname = dotted.partition(":")
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        cls: Any = module
        for part in qualname.split("."):
            cls = getattr(cls, part, None)
        if cls is None or not dataclasses.is_dataclass(cls) or [f.name for f in dataclasses.fields(cls)] != names:
            return False
    return True


def _unpickle(blob: bytes, folder: str) -> Any:
    import io

    module = _unpickler_module()
    base: Any = module.Unpickler
    paths: Dict[str, str] = {}  # every row names its file: join each name once (~4,000 rows)

    class _Unpickler(base):  # type: ignore[misc]
        def persistent_load(self, pid: Any) -> Any:
            # Paths inside the shipped folder are stored relative to it (the folder of this install).
            if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == _PATH_TAG:
                path = paths.get(pid[1])
                if path is None:
                    path = paths[pid[1]] = os.path.join(folder, pid[1])
                return path
            if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == _SET_TAG:
                return frozenset(pid[1])
            raise module.UnpicklingError("unknown persistent id")

    return _Unpickler(io.BytesIO(blob)).load()


# -- compiling -------------------------------------------------------------------------------


def build(folder: str) -> bytes:
    """The compiled file for the data in ``folder``. Raises ValueError when the data has problems
    (a file that does not load cleanly is never compiled)."""
    parts: Dict[str, Tuple[Any, List[str]]] = {}
    matrix = _yaml_matrix(os.path.join(folder, MATRIX_FILE))
    parts["matrix"] = (matrix, list(matrix.files))
    chips = (matrix.sections.get("chips", []), matrix.sections.get("chip_families", []))
    parts["matrix:chips"] = (chips, list(matrix.files))
    signatures = _yaml_signatures(os.path.join(folder, SIGNATURES_FILE))
    state = _scanner_state(signatures)
    parts["signatures"] = ((signatures, state), [os.path.join(folder, SIGNATURES_FILE)])
    parts["signatures:prefilter"] = (_scanner_prefilter(state), [os.path.join(folder, SIGNATURES_FILE)])
    for name in DATA_FILES:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            parts["data:" + name] = ((_yaml_data(path),), [path])
    return _assemble(parts, folder, "python -m ascend_doctor.compiled_data")


def build_catalogue() -> bytes:
    """The catalogue file (compiled by the package build; see setup.py)."""
    return _assemble({"catalogue": _catalogue()}, shipped_dir(), "setup.py build_py")


def _assemble(parts: Dict[str, Tuple[Any, List[str]]], folder: str, generated_by: str) -> bytes:
    header: Dict[str, Any] = {"format": FORMAT, "generated_by": generated_by, "parts": {}}
    blobs: List[bytes] = []
    offset = 0
    for name, (value, sources) in parts.items():
        blob = _pickle(value, folder)
        header["parts"][name] = {"offset": offset, "length": len(blob), "sources": _source_stamps(folder, sources),
                                 "classes": _classes_of(value)}
        blobs.append(blob)
        offset += len(blob)
    return join(header, b"".join(blobs))


def _catalogue() -> Tuple[Any, List[str]]:
    """The catalogue as importing every check module gives it, and its sources: every module of
    checks/ and every module of the package imported while they load (a spec's text can use their
    constants), registry/checkapi/requirements/facts (which judge the specs)."""
    from ascend_doctor import checkapi, registry, requirements
    from ascend_doctor.facts import Facts

    before = set(sys.modules)
    checks, problems = registry.import_catalogue()
    loaded = sorted(set(sys.modules) - before)
    judges = (registry, checkapi, requirements, sys.modules[Facts.__module__])
    files = {os.path.abspath(str(m.__file__)) for m in judges}
    for name in loaded:
        module_file = getattr(sys.modules[name], "__file__", None)
        if name.startswith("ascend_doctor.") and module_file:
            files.add(os.path.abspath(module_file))
    folder = _checks_dir()
    listing = sorted(n for n in os.listdir(folder) if n.endswith(".py"))
    files |= {os.path.join(folder, n) for n in listing}
    return (listing, [(c.module, c.spec) for c in checks], problems), sorted(files)


def _yaml_matrix(path: str) -> Any:
    from ascend_doctor.matrix.loader import load_document

    doc = load_document(path, cross_check=True)
    if doc.problems or doc.meta is None:
        raise ValueError(f"{path}: the matrix has problems: {'; '.join(map(str, doc.problems[:5]))}")
    # What a run loads (cross_check=False): the same records, checked above.
    return load_document(path, cross_check=False)


def _yaml_signatures(path: str) -> Any:
    from ascend_doctor.logscan.signatures import SignatureDBError, parse_signatures

    with open(path, encoding="utf-8", errors="replace") as fh:
        db, problems = parse_signatures(fh.read(), path)
    if problems or db is None:
        raise SignatureDBError(problems or [f"{path}: no signatures"])
    return db


def _scanner_state(db: Any) -> Dict[str, Any]:
    """What ``LogScanner(db)`` derives from the database (its needle plan and indexes)."""
    from ascend_doctor.logscan.scanner import LogScanner

    state = dict(vars(LogScanner(db)))
    del state["db"], state["_pivot_regexes"]  # the database is stored beside it; regexes compile on use
    return state


def _scanner_prefilter(state: Dict[str, Any]) -> Dict[str, Any]:
    """The part of the scanner's state a scan needs before a line may hold a signature."""
    from ascend_doctor.logscan.scanner import PREFILTER_STATE

    return {key: value for key, value in state.items() if key in PREFILTER_STATE}


def _yaml_data(path: str) -> Any:
    import yaml

    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh.read())


def _source_stamps(folder: str, paths: List[str]) -> Dict[str, List[int]]:
    from ascend_doctor.sourcestamp import stamp

    stamps: Dict[str, List[int]] = {}
    for path in paths:
        with open(path, "rb") as fh:
            stamps[_source_name(folder, path)] = list(stamp(fh.read()))
    return stamps


def _source_name(folder: str, path: str) -> str:
    """How ``_source_path`` finds ``path`` again: relative to the data folder or a package root."""
    relative = os.path.relpath(path, folder)
    if not relative.startswith(".."):
        return relative
    for tag, root in (("@checks", _checks_dir()), ("@package", os.path.dirname(os.path.abspath(__file__)))):
        relative = os.path.relpath(path, root)
        if not relative.startswith(".."):
            return f"{tag}/{relative}"
    raise ValueError(f"{path} is outside {folder} and the package")


def _classes_of(value: Any) -> Dict[str, List[str]]:
    """Every record class in ``value``, with its fields (checked again before unpickling)."""
    import dataclasses

    found: Dict[str, List[str]] = {}
    stack = [value]
    seen = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            cls = type(item)
            found[f"{cls.__module__}:{cls.__qualname__}"] = [f.name for f in dataclasses.fields(cls)]
            stack.extend(getattr(item, f.name) for f in dataclasses.fields(cls))
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return dict(sorted(found.items()))


def _pickle(value: Any, folder: str) -> bytes:
    import io
    import pickle

    prefix = folder.rstrip(os.sep) + os.sep

    class _Pickler(pickle.Pickler):
        def persistent_id(self, obj: Any) -> Any:
            if type(obj) is str and obj.startswith(prefix):
                return (_PATH_TAG, obj[len(prefix):])
            if type(obj) is frozenset:  # in a fixed order, so that the same data gives the same file
                return (_SET_TAG, tuple(sorted(obj, key=repr)))
            return None

    out = io.BytesIO()
    _Pickler(out, protocol=PICKLE_PROTOCOL).dump(value)
    return out.getvalue()


def main(argv: Optional[List[str]] = None) -> int:
    """Rewrite compat_matrix/compiled.pickle from the YAML beside it (``--check``: only compare;
    ``--catalogue FILE``: write the check catalogue of the importable package to FILE instead)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m ascend_doctor.compiled_data", description=main.__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 when the compiled file is stale")
    parser.add_argument("--catalogue", metavar="FILE", help="write the check catalogue to FILE (package build)")
    args = parser.parse_args(argv)
    if os.environ.get("PYTHONHASHSEED") != "0":
        # The scanner's indexes are built by iterating sets: a fixed hash seed makes the file the same
        # for the same data (reproducible builds, no spurious diffs).
        import subprocess

        command = [sys.executable, "-m", "ascend_doctor.compiled_data", *(argv if argv is not None else sys.argv[1:])]
        return subprocess.run(command, env={**os.environ, "PYTHONHASHSEED": "0"}, check=False).returncode
    if args.catalogue:
        _write(args.catalogue, build_catalogue())
        print(f"{args.catalogue}: check catalogue written")
        return 0
    folder = shipped_dir()
    target = os.path.join(folder, COMPILED_FILE)
    data = build(folder)
    try:
        with open(target, "rb") as fh:
            current = fh.read()
    except OSError:
        current = b""
    if args.check:
        print(f"{target}: {'current' if current == data else 'stale'}")
        return 0 if current == data else 1
    if current != data:
        _write(target, data)
    print(f"{target}: {len(data)} bytes, {'unchanged' if current == data else 'written'}")
    return 0


def _write(target: str, data: bytes) -> None:
    with open(target + ".tmp", "wb") as fh:
        fh.write(data)
    os.replace(target + ".tmp", target)


if __name__ == "__main__":
    sys.exit(main())
