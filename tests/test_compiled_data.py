"""The built data holds exactly what the sources give, and is used only while it does:
compat_matrix/compiled.pickle (read by ascend_doctor/datacache.py) and checks/_catalogue.py (read by
ascend_doctor/registry.py), both written by ascend_doctor/compiled_data.py."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from msgspec import Struct

from ascend_doctor import compiled_data, datacache
from ascend_doctor.logscan.signatures import parse_signatures
from ascend_doctor.matrix.loader import load_document

SHIPPED = Path(datacache.shipped_dir())
STALE = "built data is stale: run `python -m ascend_doctor.compiled_data` and commit compat_matrix/compiled.pickle"
CATALOGUE_STALE = ("checks/_catalogue.py is stale: run `python -m ascend_doctor.compiled_data` and commit it")


def plain(value: Any) -> Any:
    """Everything about a value, including the fields that do not take part in ==, and its types."""
    if isinstance(value, Struct):
        cls = type(value)
        return (cls.__module__, cls.__qualname__,
                tuple((name, plain(getattr(value, name))) for name in value.__struct_fields__))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(plain(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, plain(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return (type(value).__name__, tuple(sorted(repr(v) for v in value)))
    return (type(value).__name__, value)


def test_every_part_is_current() -> None:
    datacache.forget()
    header, _ = datacache.read_header(str(SHIPPED / datacache.COMPILED_FILE)) or ({}, b"")
    assert header, STALE
    expected = ({"matrix", "matrix:chips", "signatures", "signatures:prefilter"}
                | {f"data:{n}" for n in datacache.DATA_FILES if (SHIPPED / n).exists()})
    assert set(header["parts"]) == expected, STALE
    for part in expected:
        assert datacache._load(part, str(SHIPPED)) is not None, f"{part}: {STALE}"


def test_the_matrix_part_equals_the_yaml() -> None:
    path = str(SHIPPED / "matrix.yaml")
    compiled = datacache.matrix_document(path)
    assert compiled is not None, STALE
    assert plain(compiled) == plain(load_document(path, cross_check=False)), STALE
    assert compiled.sections["chips"][0].loc.file == str(SHIPPED / "chips.yaml")  # paths of this install


def test_the_chips_part_equals_the_yamls_chip_tables() -> None:
    path = str(SHIPPED / "matrix.yaml")
    compiled = datacache.matrix_chips(path)
    assert compiled is not None, STALE
    doc = load_document(path, cross_check=False)
    assert plain(compiled) == plain((doc.sections["chips"], doc.sections["chip_families"])), STALE


def test_chip_names_resolve_as_the_whole_matrix_resolves_them(monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    from ascend_doctor.matrix.chips import ChipIndex
    from ascend_doctor.matrix.select import load_chip_index, load_matrix
    from ascend_doctor.model.plan import PlanError, chip_memory

    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    matrix = load_matrix()
    index = load_chip_index()
    names = [e.name for e in matrix.chip_entries] + [a for e in matrix.chip_entries for a in e.aliases]
    names += [f.family for f in matrix.chip_families] + ["Ascend910_9392", "ascend910b3", " 910b4 ", "A5", "nope"]
    for name in names:
        assert plain(index.lookup(name)) == plain(matrix.chip(name)), name
        try:
            expected: Any = chip_memory(name, matrix)
        except PlanError as exc:
            expected = str(exc)
        try:
            got: Any = chip_memory(name)
        except PlanError as exc:
            got = str(exc)
        assert plain(got) == plain(expected), name
    # another matrix in use (here $ASCEND_DOCTOR_MATRIX) is loaded whole, never the compiled tables
    folder = _copy(tmp_path)
    chips = folder / "chips.yaml"
    chips.write_text(chips.read_text(encoding="utf-8").replace("910B3", "910B9"), encoding="utf-8")
    monkeypatch.setenv("ASCEND_DOCTOR_MATRIX", str(folder / "matrix.yaml"))
    other = load_chip_index()
    assert isinstance(other, ChipIndex)
    assert other.lookup("910B9") is not None and other.lookup("910B3") is None


def test_the_signature_part_equals_the_yaml() -> None:
    path = str(SHIPPED / "signatures.yaml")
    compiled = datacache.signature_db(path)
    db, problems = parse_signatures((SHIPPED / "signatures.yaml").read_text(encoding="utf-8"), path)
    assert not problems and compiled is not None, STALE
    assert plain(compiled) == plain(db), STALE
    assert compiled.get(db.signatures[0].id).regex.pattern == db.signatures[0].pattern


@pytest.mark.parametrize("name", datacache.DATA_FILES)
def test_the_data_parts_equal_the_yaml(name: str) -> None:
    import yaml

    if not (SHIPPED / name).exists():
        pytest.skip(f"{name} is not shipped")
    found, value = datacache.yaml_data(name)
    assert found, STALE
    assert plain(value) == plain(yaml.safe_load((SHIPPED / name).read_text(encoding="utf-8")))


def canonical(value: Any, skip: str = "") -> Any:
    """``plain`` without the orders that come from iterating a set (which differ from one process
    to the next): mappings as sorted items, tuples of strings or bytes as sorted tuples."""
    if isinstance(value, dict):
        return tuple(sorted((repr(k), canonical(v)) for k, v in value.items() if k != skip))
    if isinstance(value, Struct):
        return (type(value).__qualname__, tuple((name, canonical(getattr(value, name)))
                                               for name in value.__struct_fields__))
    if isinstance(value, (tuple, list)):
        items = [canonical(v) for v in value]
        return tuple(sorted(items)) if all(isinstance(v, (str, bytes)) for v in value) else tuple(items)
    return plain(value)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "compat_matrix"
    shutil.copytree(SHIPPED, folder, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    datacache.forget()
    return folder


def test_a_copied_folder_loads_with_its_own_paths(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    doc = datacache.matrix_document(str(folder / "matrix.yaml"))
    assert doc is not None and doc.path == str(folder / "matrix.yaml")
    assert all(f.startswith(str(folder)) for f in doc.files)


def test_an_edited_yaml_file_is_read_from_the_yaml(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    chips = folder / "chips.yaml"
    chips.write_text(chips.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    (folder / "signatures.yaml").write_text("changed", encoding="utf-8")
    assert datacache.matrix_document(str(folder / "matrix.yaml")) is None
    assert datacache.signature_db(str(folder / "signatures.yaml")) is None
    assert datacache._load("data:model_families.yaml", str(folder)) is not None  # untouched part


def test_changed_record_classes_or_a_damaged_file_are_never_used(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    target = folder / datacache.COMPILED_FILE
    header, body = datacache.split(target.read_bytes())
    first = next(iter(header["parts"]["matrix"]["classes"]))
    header["parts"]["matrix"]["classes"][first].append("a_field_added_since")
    target.write_bytes(compiled_data.join(header, body))
    datacache.forget()
    assert datacache.matrix_document(str(folder / "matrix.yaml")) is None
    assert datacache.signature_db(str(folder / "signatures.yaml")) is not None
    header["parts"]["matrix"]["classes"][first].pop()
    target.write_bytes(compiled_data.join(header, body[: len(body) // 2]))
    datacache.forget()
    assert datacache.signature_db(str(folder / "signatures.yaml")) is None
    target.write_bytes(b"garbage")
    datacache.forget()
    assert datacache.matrix_document(str(folder / "matrix.yaml")) is None
    for damaged in (b"99999\n" + body[:10], b"12\nnot a pickle", b'{"format": 1}\n' + body):  # cut, broken, old
        target.write_bytes(damaged)
        datacache.forget()
        assert datacache.matrix_document(str(folder / "matrix.yaml")) is None



def test_the_log_scanner_is_the_one_built_from_the_yaml() -> None:
    from ascend_doctor.logscan.scanner import LogScanner, _compiled_scanner

    path = str(SHIPPED / "signatures.yaml")
    db, problems = parse_signatures((SHIPPED / "signatures.yaml").read_text(encoding="utf-8"), path)
    assert not problems and db is not None
    fresh = LogScanner(db)
    compiled = _compiled_scanner(datacache.signature_db(path))  # what default_scanner() uses
    assert compiled is not None, STALE
    assert canonical(vars(compiled), skip="_pivot_regexes") == canonical(vars(fresh), skip="_pivot_regexes"), STALE
    log = (Path(__file__).resolve().parent / "samples" / "dmesg-and-logs").glob("*.txt")
    for path in sorted(log)[:5]:
        data = path.read_bytes()
        assert [h.signature.id for h in compiled.scan_bytes(data).hits] == \
            [h.signature.id for h in fresh.scan_bytes(data).hits], path.name


def test_the_shipped_scanner_loads_the_database_only_when_a_line_may_hold_a_signature() -> None:
    from ascend_doctor.logscan import scanner as scanning

    path = str(SHIPPED / "signatures.yaml")
    db, problems = parse_signatures((SHIPPED / "signatures.yaml").read_text(encoding="utf-8"), path)
    assert not problems and db is not None
    fresh = scanning.LogScanner(db)
    datacache.forget()
    shipped = scanning._shipped_scanner(path)
    assert shipped is not None, STALE
    assert canonical({k: v for k, v in vars(shipped).items() if k in scanning.PREFILTER_STATE}) == \
        canonical({k: v for k, v in vars(fresh).items() if k in scanning.PREFILTER_STATE}), STALE
    clean = b"[    0.000000] Linux version 5.10.0\n[    1.2] systemd[1]: Started Journal Service.\n"
    assert not shipped.scan_bytes(clean).hits
    assert (str(SHIPPED), "signatures") not in datacache._parts  # nothing needed the database
    for sample in sorted((Path(__file__).resolve().parent / "samples" / "dmesg-and-logs").glob("*.txt"))[:8]:
        data = sample.read_bytes()
        assert [(h.signature.id, h.count, h.first_line) for h in shipped.scan_bytes(data).hits] == \
            [(h.signature.id, h.count, h.first_line) for h in fresh.scan_bytes(data).hits], sample.name
    assert vars(shipped)["db"].signatures == db.signatures  # loaded once a sample needed it
    with pytest.raises(AttributeError):
        shipped.no_such_attribute  # noqa: B018


# -- the check catalogue (checks/_catalogue.py) -------------------------------------------------------


CHECKS_DIR = Path(compiled_data.checks_dir())


def _namespace(source: str) -> Any:
    import types

    built = types.SimpleNamespace()
    exec(compile(source, "_catalogue.py", "exec"), vars(built))  # our own generated module
    return built


def test_the_committed_catalogue_is_current() -> None:
    assert (CHECKS_DIR / compiled_data.CATALOGUE_MODULE).read_text(encoding="utf-8") == \
        compiled_data.build_catalogue(), CATALOGUE_STALE


def test_the_committed_data_is_current() -> None:
    assert compiled_data.main(["--check"]) == 0, STALE


def test_the_compiled_catalogue_is_the_imported_one() -> None:
    from ascend_doctor import registry

    compiled = registry._compiled_catalogue()
    checks, problems = registry.import_catalogue()
    assert compiled is not None, CATALOGUE_STALE
    assert plain([(c.module, c.spec) for c in compiled[0]]) == plain([(c.module, c.spec) for c in checks])
    assert compiled[1] == problems


def test_a_run_from_the_compiled_catalogue_grades_as_the_imported_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_doctor import registry
    from ascend_doctor.host.snapshot import SnapshotHost
    from ascend_doctor.matrix.select import load_matrix
    from ascend_doctor.options import RunOptions
    from ascend_doctor.runner import run_checks

    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "healthy-8x910B3"

    def graded() -> Any:
        with SnapshotHost(str(fixture)) as host:
            report = run_checks(host, load_matrix(), RunOptions(), {})
        return [(r.id, r.status, r.message, r.scope) for r in report.results]

    monkeypatch.setattr(registry, "_cache", None)
    monkeypatch.setattr(registry, "_compiled_catalogue", lambda: None)
    imported = graded()
    monkeypatch.undo()
    monkeypatch.setattr(registry, "_cache", None)
    checks, _ = registry.load_catalogue()
    assert checks[0].run.__module__ == registry.__name__  # the modules are imported when their check runs
    assert graded() == imported
    monkeypatch.setattr(registry, "_cache", None)


def test_an_edited_check_module_is_never_served_from_a_stale_catalogue(tmp_path: Path) -> None:
    """The freshness test reads the content: an edit of the same size, or one whose file keeps its old
    modification time (``cp -p``, ``touch -r``, an editor that restores it), still makes the catalogue
    unused, and a file only touched (or re-installed: pip gives files the time of the installation)
    leaves it in use; so does a module added or removed."""
    import os

    from ascend_doctor.registry import catalogue_if_current

    built = _namespace(compiled_data.build_catalogue())
    copied = tmp_path / "checks"
    shutil.copytree(CHECKS_DIR, copied, ignore=shutil.ignore_patterns("__pycache__"))
    assert catalogue_if_current(built, str(copied)) is not None
    module = next(copied.glob("drv_001_*.py"))
    os.utime(module, ns=(1, 1))  # only its time changed: the same content is still current
    assert catalogue_if_current(built, str(copied)) is not None
    original = module.read_bytes()
    stamp = os.stat(module)
    position = original.index(b"ASC-DRV-001") + len(b"ASC-DRV-00")
    edited = original[:position] + b"9" + original[position + 1:]  # same size, another id
    module.write_bytes(edited)
    os.utime(module, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # and the old modification time
    assert len(edited) == len(original) and os.stat(module).st_mtime_ns == stamp.st_mtime_ns
    assert catalogue_if_current(built, str(copied)) is None
    module.write_bytes(original + b"\n")  # longer
    assert catalogue_if_current(built, str(copied)) is None
    module.write_bytes(original)
    assert catalogue_if_current(built, str(copied)) is not None
    (copied / "zzz_999_new.py").write_text("", encoding="utf-8")  # a module added
    assert catalogue_if_current(built, str(copied)) is None
    (copied / "zzz_999_new.py").unlink()
    module.unlink()  # a source gone
    assert catalogue_if_current(built, str(copied)) is None


def test_without_the_c_unpickler_the_compiled_data_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle
    import sys

    path = str(SHIPPED / "matrix.yaml")
    datacache.forget()
    with_c = datacache.matrix_document(path)
    assert datacache.unpickler_module().__name__ == "_pickle"
    monkeypatch.setitem(sys.modules, "_pickle", None)  # as on an interpreter without it
    assert datacache.unpickler_module() is pickle
    datacache.forget()
    assert plain(datacache.matrix_document(path)) == plain(with_c)
    datacache.forget()
