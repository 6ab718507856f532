"""Untrusted JSON and YAML are bounded before anything is built (docs/hostile-inputs.md).

Tests named ``test_row<N>_...`` reproduce the finding of that row of the field review
(shared research notes, "hostile_inputs.md"); the inputs are made as its section 5 describes.
"""

from __future__ import annotations

import importlib
import json
import shutil
import struct
import time
from pathlib import Path
from typing import Any, List

import pytest
import yaml

from ascend_doctor import boundedjson, boundedyaml
from ascend_doctor.boundedjson import TooComplex
from ascend_doctor.cli import main
from ascend_doctor.model.safetensors import MAX_TENSORS, HeaderError, parse_header_json
from ascend_doctor.parsers import serving_config

from .clirunner import make_runner

REPO = Path(__file__).resolve().parent.parent
W8A8_MODEL = REPO / "fixtures/w8a8-weights-ready/files/data/models/DeepSeek-R1-W8A8"
SHARD = "quant_model_weight_w8a8_dynamic-00001-of-00004.safetensors"
MINDIE_FIXTURE = REPO / "fixtures/mindie-default-config-ok"


def invoke(*args: str) -> Any:
    return make_runner().invoke(main, list(args), catch_exceptions=False)


# -- the JSON bound ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, depth, containers", [
    ('{"a": [1, {"b": "[[[["}], "c": {}}', 3, 4),
    ('["\\"[", 1]', 1, 1),
    ('"\\\\"[[', 2, 2),  # an escaped backslash ends the string: the brackets after it count
    ('"[" "]"', 0, 0),
    ("[[[]]]", 3, 3),
    ("]][[", 2, 2),
    ("", 0, 0),
])
def test_measure_counts_brackets_outside_strings(text: str, depth: int, containers: int) -> None:
    got_depth, got_containers, _values = boundedjson.measure(text)
    assert (got_depth, got_containers) == (depth, containers)


@pytest.mark.parametrize("text", ["[" * 200_000 + "]" * 200_000, '{"a":' * 100_000 + "}" * 100_000,
                                  "[" * 2_000_000, '[{"a": ' * 50_000])
def test_deep_json_is_refused_quickly_without_recursion(text: str) -> None:
    started = time.monotonic()
    with pytest.raises(TooComplex, match="nested too deeply"):
        boundedjson.loads(text)
    assert time.monotonic() - started < 1.0


def test_json_bounds_size_containers_and_values() -> None:
    with pytest.raises(TooComplex, match="more than the 10 allowed"):
        boundedjson.loads("[" + "1," * 10 + "1]", max_chars=10)
    with pytest.raises(TooComplex, match="arrays/objects"):
        boundedjson.loads("[" + "[]," * 10 + "[]]", max_containers=5)
    with pytest.raises(TooComplex, match="values"):
        boundedjson.loads("[" + "1," * 10 + "1]", max_items=5)
    assert boundedjson.loads('{"a": [1, 2, {"b": null}]}', max_depth=3) == {"a": [1, 2, {"b": None}]}


def test_escapes_cannot_hide_brackets_from_the_bound() -> None:
    # The quote after \\ closes the string, so these brackets are structure for json.loads too.
    text = '["\\\\", ' + "[" * 100 + "]" * 100 + "]"
    with pytest.raises(TooComplex):
        boundedjson.loads(text)


# -- safetensors headers (rows 71, 72, 73, 235) ------------------------------------------------


def _hostile_model(tmp_path: Path, header: bytes) -> Path:
    model = tmp_path / "model"
    shutil.copytree(W8A8_MODEL, model)
    (model / SHARD).write_bytes(struct.pack("<Q", len(header)) + header)
    return model


def test_row71_nested_array_header_is_a_graded_problem(tmp_path: Path) -> None:
    model = _hostile_model(tmp_path, b"[" * 200_000 + b"]" * 200_000)
    result = invoke("model", "inspect", str(model))
    assert result.exit_code == 1, result.output
    assert "RecursionError" not in result.output and "internal error" not in result.output
    assert f"{SHARD}: header is nested too deeply" in result.output


def test_row72_nested_object_header_is_a_graded_problem(tmp_path: Path) -> None:
    model = _hostile_model(tmp_path, b'{"a":' * 100_000 + b"}" * 100_000)
    result = invoke("model", "inspect", str(model))
    assert result.exit_code == 1 and "header is nested too deeply" in result.output


def _many_tensors(count: int) -> bytes:
    return ("{" + ", ".join(f'"t{i}": {{"dtype": "BF16", "shape": [1], "data_offsets": [{2 * i}, {2 * i + 2}]}}'
                            for i in range(count)) + "}").encode()


def test_row73_a_million_tensors_are_refused_in_well_under_a_second() -> None:
    block = _many_tensors(1000)[1:-1]
    raw = b"{" + b", ".join([block] * 1000) + b"}"  # 1,000,000 entries, 68 MB, as in the review
    started = time.monotonic()
    with pytest.raises(HeaderError, match=f"more than {MAX_TENSORS} tensors") as info:
        parse_header_json(raw)
    assert time.monotonic() - started < 1.5
    assert info.value.kind == "too-complex"


def test_row73_the_bound_still_reads_a_large_real_header() -> None:
    tensors, _ = parse_header_json(_many_tensors(20_000))
    assert len(tensors) == 20_000


def test_row235_check_model_with_a_nested_header_still_grades_the_other_checks(tmp_path: Path) -> None:
    model = _hostile_model(tmp_path, b"[" * 200_000 + b"]" * 200_000)
    out = tmp_path / "report.json"
    result = invoke("check", "--model", str(model), "--select", "ASC-MDL", "--format", "json", "-o", str(out))
    assert result.exit_code in (0, 1), result.output
    report = json.loads(out.read_text())
    errors = [r for r in report["results"] if r["status"] == "ERROR"]
    assert not errors, errors
    assert "RecursionError" not in out.read_text()


@pytest.mark.parametrize("header", [b"[" * 1000 + b"]" * 1000, b'{"a": 1' + b"0" * 5000 + b"}"])
def test_other_hostile_headers_are_header_errors(header: bytes) -> None:
    with pytest.raises(HeaderError):
        parse_header_json(header)


# -- config.json, manifests, serving configs (rows 81, 105, 119, 120) --------------------------


def test_row81_nested_config_json_is_a_clear_problem(tmp_path: Path) -> None:
    model = tmp_path / "model"
    shutil.copytree(W8A8_MODEL, model)
    (model / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    result = invoke("model", "inspect", str(model))
    assert "internal error" not in result.output
    assert "config.json: the JSON is nested too deeply" in result.output


def test_row105_nested_manifest_is_unusable(tmp_path: Path) -> None:
    manifest = tmp_path / "man_nested.json"
    manifest.write_text("[" * 100_000 + "]" * 100_000)
    result = invoke("model", "verify", str(W8A8_MODEL), str(manifest))
    assert result.exit_code == 3 and "internal error" not in result.output


@pytest.mark.parametrize("row, text", [
    (119, '{"ServerConfig":' * 50_000 + "}" * 50_000),
    (120, "[" * 100_000 + "]" * 100_000),
])
def test_row119_row120_deep_json_configs_fail_cfg001(row: int, text: str) -> None:
    cfg = serving_config.parse_serving_text(text, "deep.json")
    assert cfg.error and "nested too deeply" in cfg.error


# -- YAML: nesting (row 121) and alias bombs (rows 117, 118) ------------------------------------


def _billion_laughs() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.fixture(params=["libyaml", "libyaml-without-nesting-limit", "pure"])
def loader_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a YAML test with libyaml as installed, with a libyaml that does not stop deep nesting
    itself (older builds, e.g. some PyYAML wheels) and with the pure-Python loader."""
    fast, _limited = boundedyaml._libyaml()
    if request.param == "pure":
        monkeypatch.setattr(boundedyaml, "_libyaml", lambda: (None, False))
    elif fast is None:
        pytest.skip("PyYAML without libyaml here")
    elif request.param == "libyaml-without-nesting-limit":
        monkeypatch.setattr(boundedyaml, "_libyaml", lambda: (fast, False))
    return str(request.param)


def test_row117_alias_bomb_as_a_value_is_not_graded_pass(loader_kind: str) -> None:
    text = _billion_laughs() + "models: [{name: x, model: /data/m, tensor_parallel_size: *a11}]\n"
    cfg = serving_config.parse_serving_text(text, "bomb.yaml")
    assert cfg.error and "expansion bomb" in cfg.error
    readable = importlib.import_module("ascend_doctor.checks.cfg_001_config_readable")
    statuses = {f.status.value for f in readable.judge(cfg)}
    assert statuses == {"FAIL"}


def test_row118_alias_bomb_as_the_model_list_is_refused(loader_kind: str) -> None:
    cfg = serving_config.parse_serving_text(_billion_laughs() + "models: *a11\n", "bomb2.yaml")
    assert cfg.error and "expansion bomb" in cfg.error


@pytest.mark.parametrize("depth", [1000, 4000, 20_000])
def test_row121_deep_yaml_fails_fast(loader_kind: str, depth: int) -> None:
    text = "models: " + "[" * depth + "]" * depth  # 40 KB at 20,000: 67 s before
    started = time.monotonic()
    cfg = serving_config.parse_serving_text(text, "deep.yaml")
    assert time.monotonic() - started < 1.0
    assert cfg.error and "nested too deeply" in cfg.error


def test_row121_cli_reports_cfg001_fail_quickly(tmp_path: Path) -> None:
    config = tmp_path / "deep.yaml"
    config.write_text("models: " + "[" * 20_000 + "]" * 20_000)
    started = time.monotonic()
    result = invoke("check", "--from", str(MINDIE_FIXTURE), "--config", str(config), "--select", "ASC-CFG-001")
    assert time.monotonic() - started < 5
    assert "FAIL" in result.output and "nested too deeply" in result.output


def test_yaml_parses_once(loader_kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if loader_kind == "libyaml-without-nesting-limit":
        pytest.skip("that libyaml streams its events once first (in C) to bound the nesting")
    calls: List[str] = []
    real = boundedyaml._make_loader

    def counting(text: str, what: str, max_depth: int) -> Any:
        calls.append(text)
        return real(text, what, max_depth)

    monkeypatch.setattr(boundedyaml, "_make_loader", counting)
    monkeypatch.setattr(yaml, "parse", lambda *a, **k: pytest.fail("parsed a second time"))
    cfg = serving_config.parse_serving_text("models:\n  - name: x\n    model: /data/m\n", "c.yaml")
    assert cfg.error is None and len(calls) == 1


@pytest.mark.parametrize("text, message", [
    ("a: &a [*a]\n", "recursive alias"),
    ("a:\n" + "".join("  " * i + "- \n" for i in range(200)), "nested too deeply"),
    ("k0:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 200)), "nested too deeply"),
])
def test_yaml_other_shapes_are_refused(loader_kind: str, text: str, message: str) -> None:
    with pytest.raises(TooComplex, match=message):
        boundedyaml.safe_load(text)


def test_yaml_anchors_of_real_files_are_fine(loader_kind: str) -> None:
    for path in sorted((REPO / "compat_matrix").glob("*.yaml")):
        node = boundedyaml.compose(path.read_text(encoding="utf-8"), what=path.name)
        assert node is not None
        depth, _aliases, expanded = boundedyaml.measure(node)
        assert depth < 10 and expanded < 10_000


@pytest.mark.parametrize("row, name, text", [
    (139, "bomb", "version: 2099.01.01\n" + _billion_laughs() + "hdk_cann: *a11\n"),
    (172, "deep", "hdk_cann: " + "[" * 20_000 + "]" * 20_000),
])
def test_matrix_files_are_bounded(tmp_path: Path, row: int, name: str, text: str) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    started = time.monotonic()
    result = invoke("matrix", "validate", str(path))
    assert time.monotonic() - started < 5
    assert result.exit_code != 0 and "internal error" not in result.output


def test_signature_files_are_bounded(tmp_path: Path) -> None:
    from ascend_doctor.logscan.signatures import parse_signatures

    db, problems = parse_signatures("signatures: " + "[" * 20_000 + "]" * 20_000, "sig.yaml")
    assert db is None and any("nested too deeply" in p for p in problems)
    db, problems = parse_signatures(_billion_laughs() + "signatures: *a11\n", "bomb.yaml")
    assert db is None and problems


def test_row224_a_megabyte_version_in_the_npu_smi_banner_is_not_a_version(tmp_path: Path) -> None:
    """A 1 MB `Version: 9.9.9...` line before the real table was taken as the running driver and
    echoed by three checks into a 4 MB report; the real banner's driver version is used instead."""
    from ascend_doctor.parsers.npu_smi import parse_npu_smi_info

    healthy = Path(__file__).resolve().parent.parent / "fixtures" / "healthy-8x910B3"
    real = (healthy / "commands" / "npu-smi_info.out").read_text()
    hostile = "| npu-smi 24.1.rc2 Version: " + "9." * 500_000 + "9\n" + real
    info = parse_npu_smi_info(hostile)
    assert info.driver_version == "23.0.7"  # the real banner's, not the megabyte
    snapshot = tmp_path / "snap"
    shutil.copytree(healthy, snapshot)
    (snapshot / "commands" / "npu-smi_info.out").write_text(hostile)
    result = invoke("check", "--from", str(snapshot))
    assert "9.9.9.9" not in result.output and len(result.output) < 100_000
