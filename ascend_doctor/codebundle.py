"""The package's compiled modules in one file, for a short start-up.

A ``check`` run imports some 165 of the package's modules. For each one, Python's path finder
looks the name up in the folder's listing, stats the source, opens, reads and validates its
``.pyc``, all in pure-Python import machinery: about 90 µs a module before its code runs, 15 ms of
a run (3.11, measured by importing the same modules both ways). The package build (setup.py)
compiles every module of the built package into ``compat_matrix/code_bundle.marshal``: an index
(module name -> where its code is, and the size and CRC-32 of the source it was compiled from)
followed by the marshalled code objects. The console script (launcher.py) puts :class:`BundleFinder`
first on ``sys.meta_path``; it answers only the package's own modules, each with one ``pread`` of
its code.

A module is served from the bundle only while its source file still has the size and CRC-32 it
was compiled from (an installed file edited by hand is imported from the file, as always), only
by the Python that wrote the bundle (bytecode magic number) and only when that Python runs without
``-O`` (the bundle holds unoptimised code). Anything else, a damaged file included, is left to
Python's own finders. The modules are real source-file modules: the loader is the standard
``SourceFileLoader`` for the installed file, whose code comes from the bundle instead of the
``.pyc``; ``__file__``, tracebacks, ``inspect``, ``importlib.resources`` and reloading behave as usual.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
from importlib.machinery import ModuleSpec, SourceFileLoader
from importlib.util import MAGIC_NUMBER, spec_from_file_location
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ascend_doctor.sourcestamp import file_has, stamp, take_match

BUNDLE_FILE = os.path.join("compat_matrix", "code_bundle.marshal")
_FORMAT = 1
# Header: b"ascend-doctor code bundle\n", then 4 bytes of index length (big-endian), then the
# marshalled index, then the code objects.
_SIGNATURE = b"ascend-doctor code bundle\n"
_MAX_INDEX = 4 * 1024 * 1024
# name -> (path relative to the package folder, is a package, offset, length, source size, CRC-32)
_Entry = Tuple[str, bool, int, int, int, int]


class _BundledSourceLoader(SourceFileLoader):
    """The standard loader of the installed source file, with the code the bundle holds for it
    (once: a reload reads the file again)."""

    def __init__(self, fullname: str, path: str, code: Any) -> None:
        super().__init__(fullname, path)
        self._bundled: Any = code

    def get_code(self, fullname: str) -> Any:
        code, self._bundled = self._bundled, None
        if code is None:
            return super().get_code(fullname)
        return code


class BundleFinder:
    """Finds the package's modules in the bundle (see the module's docstring)."""

    def __init__(self, package_dir: str, bundle_path: str, fd: int, base: int, index: Dict[str, _Entry]) -> None:
        self._package_dir = package_dir
        self._bundle_path = bundle_path
        self._fd = fd
        self._base = base
        self._index = index

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Any = None) -> Optional[ModuleSpec]:
        entry = self._index.get(fullname)
        if entry is None:
            return None
        try:  # an index the build did not write (a damaged file) must not break an import
            relpath, is_package, offset, length, size, crc = entry
            filename = os.path.join(self._package_dir, relpath)
        except (TypeError, ValueError):
            return None
        if not (take_match(filename, size, crc) or file_has(filename, size, crc)):
            return None
        try:
            blob = os.pread(self._fd, length, self._base + offset)
            code = marshal.loads(blob) if len(blob) == length else None
        except (OSError, ValueError, EOFError, TypeError):
            code = None
        if code is None or not _set_filename(code, filename):
            return None
        return _spec(fullname, filename, is_package, _BundledSourceLoader(fullname, filename, code))

    def invalidate_caches(self) -> None:
        """Nothing cached: the sources are compared on every import (the first import of a check
        module may use the comparison the check catalogue made of it in this run: sourcestamp.take_match)."""


def _spec(fullname: str, filename: str, is_package: bool, loader: SourceFileLoader) -> ModuleSpec:
    """The spec ``spec_from_file_location`` makes for a source file, with its ``.pyc`` path (the
    module's ``__cached__``) joined here rather than by ``cache_from_source``: together ~1 ms of
    the 160 imports of a ``check`` (3.11). ``cache_from_source`` decides only where a prefix
    moves the cache (``sys.pycache_prefix``) or there is none; optimised runs never get here (install)."""
    if sys.pycache_prefix is not None or sys.implementation.cache_tag is None:
        locations = [os.path.dirname(filename)] if is_package else None
        made = spec_from_file_location(fullname, filename, loader=loader, submodule_search_locations=locations)
        if made is not None:  # (never None for a file given its loader)
            return made
    folder, name = os.path.split(filename)
    spec = ModuleSpec(fullname, loader, origin=filename, is_package=is_package)
    spec.has_location = True
    if is_package:
        spec.submodule_search_locations = [folder]
    spec.cached = os.path.join(folder, "__pycache__", f"{name[:-3]}.{sys.implementation.cache_tag}.pyc")
    return spec


def _set_filename(code: Any, filename: str) -> bool:
    """Give the code objects the installed file's name, as importing a ``.pyc`` does (the build
    compiled them under a path relative to the package)."""
    import _imp

    fix = getattr(_imp, "_fix_co_filename", None)
    if fix is None:
        return False
    fix(code, filename)
    return True


def install(package_dir: str, bundle_path: Optional[str] = None) -> Optional[BundleFinder]:
    """Put the bundle's finder first on ``sys.meta_path`` when the bundle beside the package (or
    ``bundle_path``) was written by this Python; the finder, or None when nothing was installed."""
    if sys.flags.optimize or not hasattr(os, "pread"):
        return None
    bundle_path = bundle_path or os.path.join(package_dir, BUNDLE_FILE)
    try:
        # O_NONBLOCK: a FIFO in the bundle's place is not waited on (and is refused below)
        fd = os.open(bundle_path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        index, base = _read_index(fd)
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        os.close(fd)
        return None
    finder = BundleFinder(package_dir, bundle_path, fd, base, index)
    sys.meta_path.insert(0, finder)
    return finder


def _read_index(fd: int) -> Tuple[Dict[str, _Entry], int]:
    head = os.pread(fd, len(_SIGNATURE) + 4, 0)
    if head[:len(_SIGNATURE)] != _SIGNATURE or len(head) != len(_SIGNATURE) + 4:
        raise ValueError("not a code bundle")
    length = int.from_bytes(head[len(_SIGNATURE):], "big")
    if length > _MAX_INDEX:
        raise ValueError("index too large")
    blob = os.pread(fd, length, len(head))
    if len(blob) != length:
        raise ValueError("truncated")
    header = marshal.loads(blob)
    if not isinstance(header, dict) or header.get("format") != _FORMAT or header.get("magic") != MAGIC_NUMBER:
        raise ValueError("written by another Python")
    index = header["modules"]
    if not isinstance(index, dict):
        raise ValueError("no index")
    return index, len(head) + length


def uninstall(finder: BundleFinder) -> None:
    """Take the finder off ``sys.meta_path`` and close its file (tests)."""
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
    os.close(finder._fd)


# -- the package build -------------------------------------------------------------------------


def build(package_dir: str, package: str) -> bytes:
    """The bundle of every module under ``package_dir`` (the folder of ``package``), compiled by
    this Python. A module that does not compile is left out (Python reports it when imported)."""
    index: Dict[str, _Entry] = {}
    blobs: List[bytes] = []
    offset = 0
    for relpath in _sources(package_dir):
        with open(os.path.join(package_dir, relpath), "rb") as fh:
            source = fh.read()
        try:
            code = compile(source, relpath, "exec", dont_inherit=True, optimize=0)
        except (SyntaxError, ValueError):
            continue
        name, is_package = _module_name(package, relpath)
        blob = marshal.dumps(code)
        index[name] = (relpath, is_package, offset, len(blob), *stamp(source))
        blobs.append(blob)
        offset += len(blob)
    header = marshal.dumps({"format": _FORMAT, "magic": MAGIC_NUMBER, "modules": index})
    return _SIGNATURE + len(header).to_bytes(4, "big") + header + b"".join(blobs)


def _sources(package_dir: str) -> List[str]:
    """Every ``.py`` file under the folder, relative to it, in a stable order; folders without an
    ``__init__.py`` are not packages and are skipped."""
    found: List[str] = []
    for folder, subfolders, files in os.walk(package_dir):
        subfolders[:] = sorted(d for d in subfolders if os.path.isfile(os.path.join(folder, d, "__init__.py")))
        rel = os.path.relpath(folder, package_dir)
        found.extend(os.path.normpath(os.path.join(rel, f)) for f in sorted(files)
                     if f.endswith(".py") and f[:-3].isidentifier())
    return found


def _module_name(package: str, relpath: str) -> Tuple[str, bool]:
    parts = relpath[:-3].split(os.sep)
    if parts[-1] == "__init__":
        return ".".join([package, *parts[:-1]]), True
    return ".".join([package, *parts]), False


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m ascend_doctor.codebundle OUT``: write the bundle of the importable package."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m ascend_doctor.codebundle OUT", file=sys.stderr)
        return 2
    import ascend_doctor

    package_dir = os.path.dirname(os.path.abspath(ascend_doctor.__file__))
    data = build(package_dir, "ascend_doctor")
    with open(args[0], "wb") as fh:
        fh.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
