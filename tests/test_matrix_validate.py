"""Loading and validating matrix files: the shipped matrix is clean, each defect is reported as
``file:line key.path: message``."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path
from typing import List

import pytest

from ascend_doctor.matrix import schema
from ascend_doctor.matrix.loader import MAX_MATRIX_BYTES, Document, load_document
from ascend_doctor.matrix.meta import shipped_matrix_path

MINIMAL = """\
schema_version: 1
version: "2026.1.1"
date: "2026-01-01"
hdk_releases:
  - {version: "24.1.RC2", source: "https://example.invalid/hdk"}
cann_releases:
  - {version: "8.0.RC3", source: "https://example.invalid/cann"}
hdk_cann:
  - {cann: "8.0.RC3", hdk: ["24.1.RC2"], verdict: recommended, origin: quick_install, source: "https://example.invalid/qi"}
torch_npu:
  - {version: "2.1.0.post8", torch: "2.1.0", cann: "8.0.RC3", status: historical, origin: table, source: "https://example.invalid/x"}
torch_python:
  - {torch: "2.1.0", python: ">=3.8,<3.12", source: "https://example.invalid/x"}
vllm_ascend: []
mindie: []
chip_families: []
chips: []
"""


def write(tmp_path: Path, text: str, name: str = "m.yaml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


def problems(path: str) -> List[str]:
    return [str(p) for p in load_document(path).problems]


@pytest.fixture(scope="module")
def shipped() -> Document:
    return load_document(shipped_matrix_path())


def test_shipped_matrix_is_clean(shipped: Document) -> None:
    doc = shipped
    assert doc.problems == [], "\n".join(str(p) for p in doc.problems)
    assert doc.meta is not None and doc.meta.schema_version == 1
    assert len(doc.files) == 1 + len(doc.meta.include)


def test_every_shipped_entry_has_a_source(shipped: Document) -> None:
    doc = shipped
    for section, rows in doc.sections.items():
        assert rows, f"section {section} is empty"
        for row in rows:
            assert row.source and all(s.strip() for s in row.source), f"{row.path} has no source"  # type: ignore[attr-defined]


def test_shipped_rows_carry_locations(shipped: Document) -> None:
    doc = shipped
    row = doc.sections["torch_npu"][0]
    assert row.loc.file.endswith("torch_npu.yaml") and row.loc.line > 1
    assert row.path == "torch_npu[0]"


def test_minimal_matrix_is_valid(tmp_path: Path) -> None:
    assert problems(write(tmp_path, MINIMAL)) == []


def test_missing_source(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('{version: "8.0.RC3", source: "https://example.invalid/cann"}',
                                           '{version: "8.0.RC3"}'))
    assert f"{path}:7 cann_releases[0].source: missing required key (every entry needs a source)" in problems(path)


def test_empty_source_list(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('source: "https://example.invalid/hdk"', "source: []"))
    assert any(p.startswith(f"{path}:5 hdk_releases[0].source: source list is empty") for p in problems(path))


def test_duplicate_mapping_key(tmp_path: Path) -> None:
    text = MINIMAL.replace('{version: "24.1.RC2", source: "https://example.invalid/hdk"}',
                           '{version: "24.1.RC2", version: "24.1.RC3", source: "https://example.invalid/x"}')
    path = write(tmp_path, text)
    assert f"{path}:5 hdk_releases[0].version: duplicate key (first defined on line 5)" in problems(path)


def test_duplicate_top_level_key(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL + "mindie: []\n")
    assert any(p.startswith(f"{path}:18 mindie: duplicate key") for p in problems(path))


def test_duplicate_entry(tmp_path: Path) -> None:
    text = MINIMAL.replace('hdk_releases:\n', 'hdk_releases:\n  - {version: "24.1.rc2", source: "https://example.invalid/y"}\n')
    path = write(tmp_path, text)
    found = problems(path)
    assert any(p.startswith(f"{path}:6 hdk_releases[1]: duplicate entry (version='24.1.RC2')") for p in found), found


def test_unknown_version_reference(tmp_path: Path) -> None:
    text = MINIMAL.replace('cann: "8.0.RC3", hdk: ["24.1.RC2"]', 'cann: "8.0.RC9", hdk: ["24.1.RC7"]')
    path = write(tmp_path, text)
    found = problems(path)
    assert f"{path}:9 hdk_cann[0].cann: '8.0.RC9' is not listed in cann_releases" in found
    assert f"{path}:9 hdk_cann[0].hdk: '24.1.RC7' is not listed in hdk_releases" in found


def test_unknown_torch_reference(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('torch: "2.1.0", cann', 'torch: "2.2.0", cann'))
    assert f"{path}:11 torch_npu[0].torch: '2.2.0' is not listed in torch_python" in problems(path)


def test_ranges_need_not_name_a_release(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('hdk: ["24.1.RC2"], verdict: recommended',
                                           'hdk: ["<25.0", "26.5.X"], verdict: incompatible'))
    assert problems(path) == []


@pytest.mark.parametrize("version", ["2", "0", '"1"'])
def test_bad_schema_version(tmp_path: Path, version: str) -> None:
    path = write(tmp_path, MINIMAL.replace("schema_version: 1", f"schema_version: {version}"))
    found = problems(path)
    assert any(p.startswith(f"{path}:1 schema_version:") for p in found), found


def test_missing_schema_version(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace("schema_version: 1\n", ""))
    assert any("schema_version: missing required key" in p for p in problems(path))


def test_wrong_types(tmp_path: Path) -> None:
    text = (MINIMAL.replace('{version: "8.0.RC3", source: "https://example.invalid/cann"}',
                            '{version: 8.0, source: "https://example.invalid/x"}')
            .replace("verdict: recommended", "verdict: maybe")
            .replace('date: "2026-01-01"', "date: 2026-01-01")
            .replace("chips: []", "chips: 3"))
    path = write(tmp_path, text)
    found = problems(path)
    assert f"{path}:3 date: expected text, got a date ('2026-01-01'); quote it" in found
    assert any(p.startswith(f"{path}:7 cann_releases[0].version: expected an Ascend version") and "quote it" in p
               for p in found), found
    assert any(p.startswith(f"{path}:9 hdk_cann[0].verdict: 'maybe' is not one of recommended") for p in found)
    assert f"{path}:17 chips: expected a list of entries, got a number ('3')" in found


def test_unparseable_version_and_spec(tmp_path: Path) -> None:
    text = (MINIMAL.replace('hdk: ["24.1.RC2"]', 'hdk: ["~=24"]')
            .replace('python: ">=3.8,<3.12"', 'python: "3.8 to 3.11"'))
    path = write(tmp_path, text)
    found = problems(path)
    assert any(p.startswith(f"{path}:9 hdk_cann[0].hdk[0]: '~=24' is not an Ascend version spec") for p in found)
    assert any(p.startswith(f"{path}:13 torch_python[0].python: '3.8 to 3.11' is not a version specifier")
               for p in found), found


def test_unknown_key_and_section(tmp_path: Path) -> None:
    text = MINIMAL.replace(
        'source: "https://example.invalid/hdk"}', 'source: "https://example.invalid/x", colour: red}') + "extras: []\n"
    path = write(tmp_path, text)
    found = problems(path)
    assert any(p.startswith(f"{path}:5 hdk_releases[0].colour: unknown key") for p in found)
    assert any(p.startswith(f"{path}:18 extras: unknown section") for p in found)


def test_yaml_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('hdk: ["24.1.RC2"]', 'hdk: ["24.1.RC2"'))
    found = problems(path)
    assert len(found) == 1 and found[0].startswith(f"{path}:9: YAML syntax error:"), found


def test_missing_required_section(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace("mindie: []\n", ""))
    assert f"{path} mindie: missing required section" in problems(path)


def test_top_level_must_be_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "- a\n- b\n")
    assert any("the top level must be a mapping" in p for p in problems(path))


@pytest.mark.parametrize("content, message", [
    (b"", "empty file"),
    (b"\xff\xfe\x00bad", "not UTF-8 text"),
])
def test_unreadable_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "m.yaml"
    path.write_bytes(content)
    assert any(message in p for p in problems(str(path)))


def test_directory_and_missing_file(tmp_path: Path) -> None:
    assert problems(str(tmp_path)) == [f"{tmp_path}: is a directory, not a matrix file"]
    assert problems(str(tmp_path / "nope.yaml")) == [f"{tmp_path / 'nope.yaml'}: no such file"]


def test_oversize_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * (MAX_MATRIX_BYTES + 10))
    assert any("larger than" in p for p in problems(str(path)))


def test_alias_bomb_is_harmless(tmp_path: Path) -> None:
    lines = ['bomb0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 9):
        lines.append(f"bomb{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    text = MINIMAL.replace('source: "https://example.invalid/hdk"', "source: *a8") + "\n".join(lines) + "\n"
    path = write(tmp_path, text.replace('hdk_releases:', "\n".join(lines) + "\nhdk_releases:", 1)
                 .rsplit("\n".join(lines), 1)[0])
    started = time.monotonic()
    found = problems(path)
    assert time.monotonic() - started < 2
    # Refused before conversion by the bounded composer (ascend_doctor.boundedyaml).
    assert any("expansion bomb" in p for p in found), found[:5]
    assert len(found) <= schema.MAX_PROBLEMS + 20


def test_node_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema, "MAX_NODES", 50)
    found = [str(p) for p in load_document(shipped_matrix_path()).problems]
    assert any("too many nodes" in p for p in found), found[:3]


def test_include_problems_name_the_included_file(tmp_path: Path) -> None:
    write(tmp_path, "cann_releases:\n  - {version: \"8.0.RC3\"}\n", "part.yaml")
    meta = MINIMAL.replace('cann_releases:\n  - {version: "8.0.RC3", source: "https://example.invalid/cann"}\n', "")
    meta = meta.replace('date: "2026-01-01"\n', 'date: "2026-01-01"\ninclude: [part.yaml, gone.yaml]\n')
    path = write(tmp_path, meta)
    found = problems(path)
    part = os.path.join(str(tmp_path), "part.yaml")
    assert f"{part}:2 cann_releases[0].source: missing required key (every entry needs a source)" in found
    assert f"{os.path.join(str(tmp_path), 'gone.yaml')}: no such file" in found


def test_include_is_refused_in_a_bundle(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL.replace('date: "2026-01-01"\n', 'date: "2026-01-01"\ninclude: [x.yaml]\n'))
    doc = load_document(path, allow_include=False)
    assert any("include: a bundle must be self-contained" in str(p) for p in doc.problems)


def test_section_defined_twice_across_files(tmp_path: Path) -> None:
    write(tmp_path, "mindie: []\n", "part.yaml")
    path = write(tmp_path, MINIMAL.replace('date: "2026-01-01"\n', 'date: "2026-01-01"\ninclude: [part.yaml]\n'))
    assert any("mindie: section already defined in" in p for p in problems(path))


def test_records_are_frozen(shipped: Document) -> None:
    doc = shipped
    row = doc.sections["hdk_releases"][0]
    with pytest.raises(AttributeError):
        row.path = "x"  # type: ignore[misc]


def test_source_must_be_followable(tmp_path: Path) -> None:
    """issue 21 item 4: a source is a URL, a repository path or an observed:/unconfirmed: marker,
    never a project-internal note (research files, section signs, seed numbers, test samples)."""
    cases = {
        '"compat_facts.md §4 (no primary source found)"': "project-internal",
        '"field report (project seed 003)"': "project-internal",
        '"tests/samples/dmesg-and-logs/x.txt"': "project-internal",
        '"public GitHub file"': "must be a URL",
        '"observed:"': "must say what was seen",
    }
    for value, expected in cases.items():
        path = write(tmp_path, MINIMAL.replace('source: "https://example.invalid/hdk"', f"source: {value}"))
        found = [p for p in problems(path) if p.startswith(f"{path}:5 hdk_releases[0].source")]
        assert found and expected in found[0], (value, found)
    for value in ('"github.com/Ascend/pytorch COMPATIBILITY.en.md@9e73e70"',
                  '"observed: /usr/local/Ascend/driver/version.info reads Version=24.1.rc2"',
                  '"unconfirmed: no release note found"'):
        path = write(tmp_path, MINIMAL.replace('source: "https://example.invalid/hdk"', f"source: {value}"))
        assert problems(path) == [], value
