"""Build small model directories with real safetensors headers (for tests and the fixture builders).

Tensors are tiny and zero-filled; a "large" file is made by declaring a big tensor and
truncating the file to the declared size, which creates a sparse file that costs no disk.
The ``config.json`` content is passed in by the caller (tests use the real files kept in
``tests/samples/model-dirs/``), never invented here.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from ascend_doctor.model.safetensors import DTYPE_BITS

TensorSpec = Tuple[str, Sequence[int]]  # (dtype, shape)


def _nbytes(dtype: str, shape: Sequence[int]) -> int:
    count = 1
    for dim in shape:
        count *= dim
    return (count * DTYPE_BITS[dtype] + 7) // 8


def header_bytes(tensors: Mapping[str, TensorSpec], metadata: Optional[Mapping[str, str]] = None) -> Tuple[bytes, int]:
    """The 8-byte length + JSON header for ``tensors`` (laid out in order), and the data size."""
    doc: Dict[str, Any] = {}
    if metadata is not None:
        doc["__metadata__"] = dict(metadata)
    offset = 0
    for name, (dtype, shape) in tensors.items():
        size = _nbytes(dtype, shape)
        doc[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # the format pads headers to 8 bytes with spaces
    return struct.pack("<Q", len(raw)) + raw, offset


def write_safetensors(path: str, tensors: Mapping[str, TensorSpec],
                      metadata: Optional[Mapping[str, str]] = None, truncate_to: Optional[int] = None) -> int:
    """Write a safetensors file (zero data, sparse when large). Returns the file size."""
    head, data_size = header_bytes(tensors, metadata if metadata is not None else {"format": "pt"})
    total = len(head) + data_size
    with open(path, "wb") as fh:
        fh.write(head)
        if data_size <= 1024 * 1024:
            fh.write(b"\0" * data_size)
        else:
            fh.truncate(total)  # sparse: no blocks allocated
        if truncate_to is not None:
            fh.truncate(truncate_to)
            total = truncate_to
    return total


def write_json(path: str, doc: Any) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)


def write_index(directory: str, name: str, shards: Mapping[str, Mapping[str, TensorSpec]]) -> None:
    weight_map = {tensor: shard for shard, tensors in shards.items() for tensor in tensors}
    total = sum(_nbytes(d, s) for tensors in shards.values() for d, s in tensors.values())
    write_json(os.path.join(directory, name), {"metadata": {"total_size": total}, "weight_map": weight_map})


def write_tokenizer(directory: str) -> None:
    write_json(os.path.join(directory, "tokenizer.json"), {"version": "1.0", "model": {"type": "BPE"}})
    write_json(os.path.join(directory, "tokenizer_config.json"), {"model_max_length": 4096})


# -- tensor sets in the shapes each provenance uses --------------------------------------------

def fp8_layer(layer: int, hidden: int = 256, block: int = 128) -> Dict[str, TensorSpec]:
    """A DeepSeek-style FP8 block-quantized layer: F8_E4M3 weights + F32 weight_scale_inv."""
    blocks = max(1, hidden // block)
    prefix = f"model.layers.{layer}"
    out: Dict[str, TensorSpec] = {f"{prefix}.input_layernorm.weight": ("BF16", [hidden])}
    for proj in ("gate_proj", "up_proj", "down_proj"):
        out[f"{prefix}.mlp.experts.0.{proj}.weight"] = ("F8_E4M3", [hidden, hidden])
        out[f"{prefix}.mlp.experts.0.{proj}.weight_scale_inv"] = ("F32", [blocks, blocks])
    return out


def float_layer(layer: int, dtype: str = "BF16", hidden: int = 256) -> Dict[str, TensorSpec]:
    prefix = f"model.layers.{layer}"
    out: Dict[str, TensorSpec] = {f"{prefix}.input_layernorm.weight": (dtype, [hidden])}
    for proj in ("gate_proj", "up_proj", "down_proj"):
        out[f"{prefix}.mlp.experts.0.{proj}.weight"] = (dtype, [hidden, hidden])
    return out


def w8a8_dynamic_layer(layer: int, hidden: int = 256) -> Dict[str, TensorSpec]:
    """msmodelslim W8A8_DYNAMIC: int8 weight + weight_scale / weight_offset per output channel."""
    prefix = f"model.layers.{layer}"
    out: Dict[str, TensorSpec] = {f"{prefix}.input_layernorm.weight": ("BF16", [hidden])}
    for proj in ("gate_proj", "up_proj", "down_proj"):
        base = f"{prefix}.mlp.experts.0.{proj}"
        out[f"{base}.weight"] = ("I8", [hidden, hidden])
        out[f"{base}.weight_scale"] = ("BF16", [hidden, 1])
        out[f"{base}.weight_offset"] = ("BF16", [hidden, 1])
    return out


def w8a8_static_layer(layer: int, hidden: int = 256) -> Dict[str, TensorSpec]:
    """msmodelslim W8A8 (static): int8 weight + input_scale/offset, quant_bias, deq_scale."""
    prefix = f"model.layers.{layer}"
    out: Dict[str, TensorSpec] = {f"{prefix}.input_layernorm.weight": ("F16", [hidden])}
    base = f"{prefix}.self_attn.q_proj"
    out[f"{base}.weight"] = ("I8", [hidden, hidden])
    out[f"{base}.input_scale"] = ("F16", [1])
    out[f"{base}.input_offset"] = ("F16", [1])
    out[f"{base}.quant_bias"] = ("I32", [hidden])
    out[f"{base}.deq_scale"] = ("I64", [hidden])
    return out


def description_for(tensors: Mapping[str, TensorSpec], quant_type: str) -> Dict[str, str]:
    """A msmodelslim description: model_quant_type + a tag per tensor (FLOAT for float ones)."""
    desc = {"model_quant_type": quant_type}
    for name, (dtype, _) in tensors.items():
        quantized = dtype == "I8" or name.rsplit(".", 1)[-1] in (
            "weight_scale", "weight_offset", "input_scale", "input_offset", "quant_bias", "deq_scale")
        desc[name] = quant_type if quantized else "FLOAT"
    return desc
