"""The code bundle (ascend_doctor/codebundle.py): the package's modules compiled into one file by
the build and imported from it by the console script, only while each matches its source."""

from __future__ import annotations

import importlib
import importlib.resources
import inspect
import os
import subprocess
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Iterator

import pytest

from ascend_doctor import codebundle

PACKAGE = "bundled_pkg_for_tests"


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    """A small package (a subpackage, a data file, a folder that is not a package) on sys.path."""
    root = tmp_path / PACKAGE
    (root / "sub").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "__init__.py").write_text("WHERE = 'init'\n")
    (root / "plain.py").write_text("VALUE = 1\n\n\ndef fails():\n    raise ValueError('from plain')\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "deep.py").write_text("from .. import plain\n\nVALUE = plain.VALUE + 1\n")
    (root / "data" / "not_a_module.py").write_text("raise SystemExit('never imported')\n")
    (root / "notes.txt").write_text("a data file\n")
    (root / "broken.py").write_text("def (:\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield root
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()


def _loader(module: ModuleType) -> str:
    """The class name of the loader that imported the module."""
    spec = module.__spec__
    assert spec is not None
    return type(spec.loader).__name__


def _bundle(root: Path) -> Path:
    path = root.parent / "bundle.marshal"
    path.write_bytes(codebundle.build(str(root), PACKAGE))
    return path


def _installed(root: Path, bundle: Path) -> codebundle.BundleFinder:
    finder = codebundle.install(str(root), str(bundle))
    assert finder is not None
    return finder


def test_modules_come_from_the_bundle_and_look_like_source_modules(package: Path) -> None:
    finder = _installed(package, _bundle(package))
    try:
        plain = importlib.import_module(f"{PACKAGE}.plain")
        deep = importlib.import_module(f"{PACKAGE}.sub.deep")
        top = sys.modules[PACKAGE]
    finally:
        codebundle.uninstall(finder)
    for module in (plain, deep, top):
        assert _loader(module) == "_BundledSourceLoader"
    assert deep.VALUE == 2 and top.WHERE == "init"
    assert plain.__file__ == str(package / "plain.py")
    assert list(sys.modules[f"{PACKAGE}.sub"].__path__) == [str(package / "sub")]
    assert plain.fails.__code__.co_filename == str(package / "plain.py")
    with pytest.raises(ValueError) as raised:
        plain.fails()
    shown = "".join(traceback.format_exception(raised.type, raised.value, raised.tb))
    assert "raise ValueError('from plain')" in shown and str(package / "plain.py") in shown
    assert "def fails():" in inspect.getsource(plain)
    assert importlib.resources.files(PACKAGE).joinpath("notes.txt").read_text() == "a data file\n"


def test_the_index_holds_the_package_modules_only(package: Path) -> None:
    finder = _installed(package, _bundle(package))
    codebundle.uninstall(finder)
    # data/ has no __init__.py: not a package; broken.py does not compile: Python reports it on import
    assert sorted(finder._index) == [PACKAGE, f"{PACKAGE}.plain", f"{PACKAGE}.sub", f"{PACKAGE}.sub.deep"]


def test_an_edited_source_is_imported_from_the_file(package: Path) -> None:
    bundle = _bundle(package)
    (package / "plain.py").write_text("VALUE = 41\n")
    finder = _installed(package, bundle)
    try:
        plain = importlib.import_module(f"{PACKAGE}.plain")
        deep = importlib.import_module(f"{PACKAGE}.sub.deep")
    finally:
        codebundle.uninstall(finder)
    assert plain.VALUE == 41 and deep.VALUE == 42
    assert _loader(plain) == "SourceFileLoader"
    assert _loader(deep) == "_BundledSourceLoader"


def test_a_reload_reads_the_file(package: Path) -> None:
    finder = _installed(package, _bundle(package))
    try:
        plain = importlib.import_module(f"{PACKAGE}.plain")
        (package / "plain.py").write_text("VALUE = 7\n")
        importlib.invalidate_caches()
        assert importlib.reload(plain).VALUE == 7
    finally:
        codebundle.uninstall(finder)


def test_a_match_lent_by_the_catalogue_is_used_for_one_import(package: Path) -> None:
    """The check catalogue lends its source comparisons to the bundle (sourcestamp.take_match): the
    import that follows uses it instead of reading the file again; a reload reads the file."""
    from ascend_doctor.sourcestamp import file_has, stamp

    bundle = _bundle(package)
    source = package / "plain.py"
    size, crc = stamp(source.read_bytes())
    assert file_has(str(source), size, crc, lend=True)
    # Changed after the comparison (same size): the import trusts the comparison of this run...
    source.write_text(source.read_text().replace("VALUE = 1", "VALUE = 3"))
    finder = _installed(package, bundle)
    try:
        plain = importlib.import_module(f"{PACKAGE}.plain")
        assert plain.VALUE == 1 and _loader(plain) == "_BundledSourceLoader"
        importlib.invalidate_caches()
        assert importlib.reload(plain).VALUE == 3  # ...which served once: the file is read again
        assert _loader(plain) == "SourceFileLoader"
    finally:
        codebundle.uninstall(finder)


@pytest.mark.parametrize("damage", ["another_python", "truncated_index", "truncated_code", "not_a_bundle", "empty"])
def test_a_foreign_or_damaged_bundle_is_never_used(package: Path, damage: str) -> None:
    bundle = _bundle(package)
    data = bundle.read_bytes()
    if damage == "another_python":
        data = data.replace(importlib.util.MAGIC_NUMBER, b"\x00\x00\r\n", 1)
    elif damage == "truncated_index":
        data = data[:40]
    elif damage == "truncated_code":
        data = data[:-10]
    elif damage == "not_a_bundle":
        data = b"PK\x03\x04" + data[4:]
    else:
        data = b""
    bundle.write_bytes(data)
    finder = codebundle.install(str(package), str(bundle))
    try:
        deep = importlib.import_module(f"{PACKAGE}.sub.deep")  # the last code of the bundle
        assert deep.VALUE == 2
        assert _loader(deep) == "SourceFileLoader"
    finally:
        if finder is not None:
            codebundle.uninstall(finder)
    assert (finder is None) == (damage != "truncated_code")


def test_no_bundle_under_python_dash_O(package: Path) -> None:
    bundle = _bundle(package)
    probe = ("import sys; from ascend_doctor import codebundle; "
             f"print(codebundle.install({str(package)!r}, {str(bundle)!r}) is None)")
    done = subprocess.run([sys.executable, "-O", "-c", probe], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.stdout.strip() == "True"


def test_the_build_command_writes_the_bundle_of_the_importable_package(tmp_path: Path) -> None:
    out = tmp_path / "bundle.marshal"
    assert codebundle.main([str(out)]) == 0
    finder = codebundle.install(os.path.dirname(os.path.abspath(codebundle.__file__)), str(out))
    assert finder is not None
    codebundle.uninstall(finder)
    assert "ascend_doctor.launcher" in finder._index and "ascend_doctor.cli.check_cmd" in finder._index
    assert codebundle.main([]) == 2


def test_a_fifo_or_a_bad_index_entry_is_never_used(package: Path) -> None:
    fifo = package.parent / "fifo.marshal"
    os.mkfifo(fifo)
    assert codebundle.install(str(package), str(fifo)) is None  # returns at once, no writer needed
    finder = _installed(package, _bundle(package))
    finder._index[f"{PACKAGE}.plain"] = ("plain.py",)  # type: ignore[assignment]
    try:
        plain = importlib.import_module(f"{PACKAGE}.plain")
    finally:
        codebundle.uninstall(finder)
    assert plain.VALUE == 1 and _loader(plain) == "SourceFileLoader"


@pytest.mark.parametrize("module_name,is_package", [("ascend_doctor.report", False), ("ascend_doctor.facts", True)])
def test_the_bundles_specs_are_those_of_spec_from_file_location(module_name: str, is_package: bool) -> None:
    import importlib.util

    module = importlib.import_module(module_name)
    filename = str(module.__file__)
    locations = [os.path.dirname(filename)] if is_package else None
    standard = importlib.util.spec_from_file_location(module_name, filename, submodule_search_locations=locations)
    assert standard is not None and standard.loader is not None
    ours = codebundle._spec(module_name, filename, is_package, standard.loader)  # type: ignore[arg-type]
    for attribute in ("name", "origin", "cached", "has_location", "parent", "submodule_search_locations"):
        assert getattr(ours, attribute) == getattr(standard, attribute), attribute
