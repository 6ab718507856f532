"""Safetensors header reading: every way a header can be wrong is a named, bounded finding."""

from __future__ import annotations

import contextlib
import json
import os
import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.model.files import LocalFiles
from ascend_doctor.model.safetensors import (
    MAX_HEADER_BYTES,
    HeaderError,
    header_length,
    parse_header_json,
    read_header,
)

from .model_fixtures import header_bytes, write_safetensors

SRC = LocalFiles()


def _read(path: Path):  # type: ignore[no-untyped-def]
    return read_header(SRC, str(path), path.name, os.path.getsize(path))


def test_valid_file_counts_params_and_size(tmp_path: Path) -> None:
    path = tmp_path / "w.safetensors"
    size = write_safetensors(str(path), {"a.weight": ("BF16", [4, 8]), "a.weight_scale_inv": ("F32", [1, 1]),
                                         "b.weight": ("F8_E4M3", [16, 16])})
    header = _read(path)
    assert header.ok, header.error
    assert header.expected_size == size == os.path.getsize(path)
    assert header.params_by_dtype() == {"BF16": 32, "F32": 1, "F8_E4M3": 256}
    assert header.metadata == {"format": "pt"}


def test_sparse_100_gib_file_is_judged_from_header_and_stat(tmp_path: Path) -> None:
    path = tmp_path / "big.safetensors"
    # one BF16 tensor of ~100 GiB: the file is sparse, nothing but the header is read
    write_safetensors(str(path), {"huge.weight": ("BF16", [50 * 1024, 1024 * 1024])})
    assert os.path.getsize(path) > 100 * 2**30
    assert _read(path).ok


def test_truncated_download_is_named(tmp_path: Path) -> None:
    path = tmp_path / "t.safetensors"
    full = write_safetensors(str(path), {"x": ("F16", [1024])})
    os.truncate(path, full - 100)
    header = _read(path)
    assert header.error_kind == "size-mismatch"
    assert "100 bytes missing" in (header.error or "")


def test_extra_bytes_after_last_tensor(tmp_path: Path) -> None:
    path = tmp_path / "e.safetensors"
    write_safetensors(str(path), {"x": ("F16", [4])})
    with open(path, "ab") as fh:
        fh.write(b"junk")
    assert "4 unexpected bytes" in (_read(path).error or "")


@pytest.mark.parametrize("length", [2**63, 2**64 - 1, 10_000])
def test_header_length_larger_than_file(tmp_path: Path, length: int) -> None:
    path = tmp_path / "h.safetensors"
    path.write_bytes(struct.pack("<Q", length) + b"{}" + b"\0" * 100)
    header = _read(path)
    assert header.error_kind == "length-too-large"
    assert f"header length {length} is larger than the file" in (header.error or "")


def test_header_length_over_bound_is_refused_without_reading() -> None:
    with pytest.raises(HeaderError) as err:
        header_length(struct.pack("<Q", MAX_HEADER_BYTES + 1), 10 * MAX_HEADER_BYTES)
    assert err.value.kind == "length-over-bound"


def test_zero_filled_file(tmp_path: Path) -> None:
    path = tmp_path / "z.safetensors"
    with open(path, "wb") as fh:
        fh.truncate(4096)  # pre-allocated, never written
    assert _read(path).error_kind == "zero-filled"


def test_zero_filled_json_region(tmp_path: Path) -> None:
    path = tmp_path / "z2.safetensors"
    path.write_bytes(struct.pack("<Q", 64) + b"\0" * 64)
    assert _read(path).error_kind == "zero-filled"


def test_short_file(tmp_path: Path) -> None:
    path = tmp_path / "s.safetensors"
    path.write_bytes(b"\x01\x02")
    assert _read(path).error_kind == "truncated"


def test_invalid_json(tmp_path: Path) -> None:
    path = tmp_path / "j.safetensors"
    raw = b'{"x": {"dtype": "F16",'
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)
    header = _read(path)
    assert header.error_kind == "json-invalid"
    assert "not valid JSON" in (header.error or "")


def test_lfs_pointer(tmp_path: Path) -> None:
    path = tmp_path / "model-00001-of-00002.safetensors"
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:" + "a" * 64 + "\nsize 4989000000\n")
    assert _read(path).error_kind == "lfs-pointer"


def test_unreadable_file_is_a_result_not_an_exception(tmp_path: Path) -> None:
    header = read_header(SRC, str(tmp_path / "absent.safetensors"), "absent.safetensors", 100)
    assert header.error_kind == "unreadable"


def _raw(doc: dict) -> bytes:
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    "doc, needle",
    [
        ({"a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]},
          "b": {"dtype": "F16", "shape": [2], "data_offsets": [8, 12]}}, "leaves a hole"),
        ({"a": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]},
          "b": {"dtype": "F16", "shape": [2], "data_offsets": [2, 6]}}, "overlaps"),
        ({"a": {"dtype": "F16", "shape": [3], "data_offsets": [0, 4]}}, "needs 6"),
        ({"a": {"dtype": "F16", "shape": [-1], "data_offsets": [0, 4]}}, "needs dtype, shape"),
        ({"a": {"dtype": "F16", "shape": [2], "data_offsets": [4, 0]}}, "end 0 < begin 4"),
        ({"a": [1, 2]}, "not an object"),
        ({"__metadata__": {"format": 1}}, "__metadata__"),
    ],
)
def test_schema_problems(doc: dict, needle: str) -> None:
    with pytest.raises(HeaderError) as err:
        parse_header_json(_raw(doc))
    assert needle in err.value.message


def test_header_json_may_be_space_padded() -> None:
    head, _ = header_bytes({"a": ("BF16", [3])})
    tensors, _ = parse_header_json(head[8:])
    assert tensors["a"].numel == 3


@settings(max_examples=100, deadline=None)
@given(st.binary(min_size=0, max_size=64), st.integers(min_value=0, max_value=2**40))
def test_header_length_never_misbehaves(first: bytes, size: int) -> None:
    try:
        length = header_length(first[:8], size)
    except HeaderError:
        return
    assert 2 <= length <= min(MAX_HEADER_BYTES, size - 8)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=256))
def test_parse_header_json_only_raises_header_error(raw: bytes) -> None:
    with contextlib.suppress(HeaderError):
        parse_header_json(raw)
