"""Read safetensors headers directly: 8-byte little-endian length N, then N bytes of JSON.

No third-party loader and no tensor data: a weights file is judged from its first 8 + N bytes
and its size. N is bounded before anything is read, so a hostile or corrupt length (2^63, a
zero-filled pre-allocated file) costs nothing. The validation mirrors what the safetensors
library refuses at load time (offsets must tile the data buffer from 0 with no holes, each
tensor's byte count must equal numel x dtype size, the buffer must end exactly at end of file),
so a file that passes here loads, and one that fails is named with the reason.

The JSON is bounded before it is parsed (``ascend_doctor.boundedjson``): at most
``MAX_HEADER_DEPTH`` levels (a real header has 3) and ``MAX_TENSORS`` tensors per file, so a
nested ``[[[[...]]]]`` header or a 68 MB header of a million one-element tensors is refused in
well under a second instead of crashing every model check (RecursionError) or taking 8 s and
900 MB. ``MAX_TENSORS`` is generous: the whole of DeepSeek-V3/R1 (671B) is about 92,000 tensors,
spread over 163 files.

Format reference: https://github.com/huggingface/safetensors (README, "Format").
"""

from __future__ import annotations

import json
import struct
from typing import Any, BinaryIO, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor import boundedjson
from ascend_doctor.host.base import HostFileError
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.model.files import FileSource

MAX_HEADER_BYTES = 100 * 1024 * 1024  # what the safetensors library itself accepts
MAX_HEADER_DEPTH = 8  # root -> tensor -> shape list is 3 levels
MAX_TENSORS = 100_000  # per file
# Each tensor is one object and two lists (3 containers) holding at most ~12 values (3 keys,
# the dims, 2 offsets); __metadata__ and the root add a few.
_MAX_CONTAINERS = 3 * MAX_TENSORS + 16
_MAX_VALUES = 16 * MAX_TENSORS + 1024
LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"
MAX_LFS_POINTER_BYTES = 1024

# Bits per element of every dtype the safetensors format names (sub-byte types are packed).
DTYPE_BITS: Dict[str, int] = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E5M2": 8,
    "F8_E4M3": 8,
    "F8_E8M0": 8,
    "I16": 16,
    "U16": 16,
    "F16": 16,
    "BF16": 16,
    "I32": 32,
    "U32": 32,
    "F32": 32,
    "F64": 64,
    "I64": 64,
    "U64": 64,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
}
FP8_DTYPES = ("F8_E4M3", "F8_E5M2")
FLOAT_DTYPES = ("BF16", "F16", "F32", "F64")


class HeaderError(ValueError):
    """A safetensors header that cannot be used; ``kind`` is a stable code."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class TensorInfo(Struct, frozen=True):
    name: str
    dtype: str
    shape: Tuple[int, ...]
    begin: int
    end: int

    @property
    def numel(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count


class SafetensorsHeader(Struct):
    """What one ``.safetensors`` file declares, or why it could not be read."""

    rel: str
    file_size: int
    header_len: Optional[int] = None
    expected_size: Optional[int] = None
    metadata: Dict[str, str] = field(default_factory=dict)
    tensors: Dict[str, TensorInfo] = field(default_factory=dict)
    error_kind: Optional[str] = None
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def params_by_dtype(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for tensor in self.tensors.values():
            out[tensor.dtype] = out.get(tensor.dtype, 0) + tensor.numel
        return out

    def bytes_by_dtype(self) -> Dict[str, int]:
        out: Dict[str, int] = {}
        for tensor in self.tensors.values():
            out[tensor.dtype] = out.get(tensor.dtype, 0) + (tensor.end - tensor.begin)
        return out


def header_length(first8: bytes, file_size: int) -> int:
    """N from the first 8 bytes, refusing values that cannot be a real header."""
    if len(first8) < 8:
        raise HeaderError("truncated", Text(N_("file is only {size} bytes: too short for a safetensors header"),
                                            size=file_size))
    if first8 == b"\x00" * 8:
        raise HeaderError("zero-filled", Text(N_("zero-filled header (pre-allocated file that was never written?)")))
    (length,) = struct.unpack("<Q", first8)
    if length > file_size - 8:
        raise HeaderError(
            "length-too-large",
            Text(N_("header length {length} is larger than the file ({size} bytes; truncated download?)"),
                 length=length, size=file_size),
        )
    if length > MAX_HEADER_BYTES:
        raise HeaderError(
            "length-over-bound",
            Text(N_("header length {length} exceeds the {bound} MiB bound (corrupt file or not safetensors)"),
                 length=length, bound=MAX_HEADER_BYTES // (1024 * 1024)),
        )
    if length < 2:
        raise HeaderError("json-invalid", Text(N_("header length {length} is too small to hold JSON"), length=length))
    return int(length)


def _int_list(value: Any) -> Optional[List[int]]:
    if not isinstance(value, list):
        return None
    # type() is int (not isinstance): bool is an int subclass and is refused.
    if value and (set(map(type, value)) != {int} or min(value) < 0):
        return None
    return list(value)


def _too_many_tensors(_count: int) -> str:
    return Text(N_("header describes more than {count} tensors: refused as corrupt or hostile"), count=MAX_TENSORS)


def parse_header_json(raw: bytes) -> Tuple[Dict[str, TensorInfo], Dict[str, str]]:
    """Parse and validate the JSON part of a header (the bytes after the length)."""
    if not raw.strip(b"\x00 "):
        raise HeaderError("zero-filled", Text(N_("header bytes are all zero (pre-allocated file that was never "
                                                 "written?)")))
    raw = raw.rstrip(b" \x00")
    try:
        # Measured on the bytes, before a str copy is made: a refused header costs no more memory.
        boundedjson.check(raw, what="header", max_chars=MAX_HEADER_BYTES, max_depth=MAX_HEADER_DEPTH,
                          max_containers=_MAX_CONTAINERS, max_items=_MAX_VALUES, count_message=_too_many_tensors)
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise HeaderError("json-invalid", Text(N_("header is not UTF-8 text (byte {byte})"), byte=exc.start)) from None
    except boundedjson.TooComplex as exc:
        # The count bound's message is _too_many_tensors' Text: keep it (str() would drop the template).
        raise HeaderError("too-complex", exc.args[0] if exc.args and isinstance(exc.args[0], Text)
                          else str(exc)) from None
    except ValueError as exc:
        raise HeaderError("json-invalid", Text(N_("header is not valid JSON: {error}"), error=str(exc))) from None
    if not isinstance(doc, dict):
        raise HeaderError("schema-invalid", Text(N_("header JSON is not an object")))
    if len(doc) > MAX_TENSORS + 1:
        raise HeaderError("too-complex", _too_many_tensors(len(doc)))
    metadata: Dict[str, str] = {}
    tensors: Dict[str, TensorInfo] = {}
    for name, info in doc.items():
        if name == "__metadata__":
            if not isinstance(info, dict) or not all(isinstance(v, str) for v in info.values()):
                raise HeaderError("schema-invalid", Text(N_("__metadata__ must map strings to strings")))
            metadata = dict(info)
            continue
        if not isinstance(info, dict):
            raise HeaderError("schema-invalid", Text(N_("tensor {name}: entry is not an object"), name=repr(name)))
        dtype = info.get("dtype")
        shape = _int_list(info.get("shape"))
        offsets = _int_list(info.get("data_offsets"))
        if not isinstance(dtype, str) or shape is None or offsets is None or len(offsets) != 2:
            raise HeaderError("schema-invalid", Text(N_("tensor {name}: needs dtype, shape and data_offsets [begin, "
                                                        "end]"), name=repr(name)))
        begin, end = offsets
        if end < begin:
            raise HeaderError("schema-invalid", Text(N_("tensor {name}: data_offsets end {end} < begin {begin}"),
                                                     name=repr(name), end=end, begin=begin))
        tensors[name] = TensorInfo(name, dtype, tuple(shape), begin, end)
    _validate_layout(tensors)
    return tensors, metadata


def _validate_layout(tensors: Dict[str, TensorInfo]) -> None:
    """Offsets tile [0, max end) without holes or overlaps; byte counts match the shapes."""
    position = 0
    for tensor in sorted(tensors.values(), key=lambda t: (t.begin, t.end)):
        if tensor.begin != position:
            template = (N_("tensor {name}: data_offsets overlaps the previous tensor at byte {position}")
                        if tensor.begin < position
                        else N_("tensor {name}: data_offsets leaves a hole at byte {position}"))
            raise HeaderError("schema-invalid", Text(template, name=repr(tensor.name), position=position))
        bits = DTYPE_BITS.get(tensor.dtype)
        if bits is not None:
            want = (tensor.numel * bits + 7) // 8
            if want != tensor.end - tensor.begin:
                raise HeaderError(
                    "schema-invalid",
                    Text(N_("tensor {name}: {declared} bytes declared but {dtype} needs {want}"),
                         name=repr(tensor.name), declared=tensor.end - tensor.begin,
                         dtype=f"{tensor.dtype}{list(tensor.shape)}", want=want),
                )
        position = tensor.end


def expected_file_size(header_len: int, tensors: Dict[str, TensorInfo]) -> int:
    data_end = max((t.end for t in tensors.values()), default=0)
    return 8 + header_len + data_end


def _read_exact(fh: BinaryIO, count: int) -> bytes:
    chunks: List[bytes] = []
    remaining = count
    while remaining > 0:
        chunk = fh.read(min(remaining, 16 * 1024 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_header(src: FileSource, path: str, rel: str, file_size: int) -> SafetensorsHeader:
    """Read and judge one file's header; never raises for bad files, records why instead."""
    result = SafetensorsHeader(rel=rel, file_size=file_size)
    try:
        with src.open_binary(path) as fh:
            first8 = _read_exact(fh, 8)
            if first8.startswith(LFS_POINTER_PREFIX[:8]):
                first8 += _read_exact(fh, len(LFS_POINTER_PREFIX) - 8)
                if first8.startswith(LFS_POINTER_PREFIX):
                    raise HeaderError("lfs-pointer", Text(N_("Git LFS pointer file, not the weights (run `git lfs "
                                                             "pull`)")))
            first8 = first8[:8]
            length = header_length(first8, file_size)
            raw = _read_exact(fh, length)
            if len(raw) < length:  # the file shrank under us, or the host lied about its size
                raise HeaderError("truncated", Text(N_("header declares {length} bytes but only {read} could be read"),
                                                    length=length, read=len(raw)))
            tensors, metadata = parse_header_json(raw)
    except HeaderError as exc:
        result.error_kind, result.error = exc.kind, exc.message
        return result
    except HostFileError as exc:
        result.error_kind, result.error = "unreadable", exc.message
        return result
    except OSError as exc:
        result.error_kind, result.error = "unreadable", exc.strerror or str(exc)
        return result
    result.header_len = length
    result.tensors, result.metadata = tensors, metadata
    result.expected_size = expected_file_size(length, tensors)
    if result.expected_size != file_size:
        diff = file_size - result.expected_size
        if diff < 0:
            result.error_kind = "size-mismatch"
            result.error = Text(N_("file is {size} bytes but its header declares {expected}: {missing} bytes missing "
                                   "(truncated download?)"), size=file_size, expected=result.expected_size,
                                missing=-diff)
        else:
            result.error_kind = "size-mismatch"
            result.error = Text(N_("file is {size} bytes but its header declares {expected}: {extra} unexpected bytes "
                                   "after the last tensor"), size=file_size, expected=result.expected_size, extra=diff)
    return result


def is_lfs_pointer(data: bytes) -> bool:
    return data.startswith(LFS_POINTER_PREFIX)
