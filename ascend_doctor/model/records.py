"""Records produced by model inspection (``ascend-doctor model inspect`` and the ``model`` fact).

``ModelFacts`` is what checks grade: it states what the directory is (provenance, with the
files and tensors that decided it), what it holds (dtypes, parameter counts) and what is wrong
with it (``problems``, each with a stable ``code``). Checks pick problems by code; they never
re-read files.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.model.safetensors import SafetensorsHeader

# Problem codes (stable: checks, docs and tests refer to them).
NOT_FOUND = "not-found"
NOT_A_DIRECTORY = "not-a-directory"
NO_MODEL = "no-model"
UNREADABLE = "unreadable"
SYMLINK_BROKEN = "symlink-broken"
SYMLINK_LOOP = "symlink-loop"
SPECIAL_FILE = "special-file"
LISTING_TRUNCATED = "listing-truncated"
CONFIG_MISSING = "config-missing"
CONFIG_INVALID = "config-invalid"
CONFIG_DUPLICATE_KEY = "config-duplicate-key"
FP8_CONFIG_LEFTOVER = "fp8-config-leftover"
INDEX_INVALID = "index-invalid"
SHARD_MISSING = "shard-missing"
SHARD_EXTRA = "shard-extra"
SHARD_SERIES_GAP = "shard-series-gap"
HEADER_INVALID = "header-invalid"
HEADER_UNREADABLE = "header-unreadable"
SIZE_MISMATCH = "size-mismatch"
LFS_POINTER = "lfs-pointer"
PARTIAL_DOWNLOAD = "partial-download"
TENSOR_MISSING = "tensor-missing"
TENSOR_UNDESCRIBED = "tensor-undescribed"
DESCRIPTION_INVALID = "description-invalid"
DESCRIPTION_MISSING = "description-missing"
TOKENIZER_MISSING = "tokenizer-missing"
TOKENIZER_CONFIG_MISSING = "tokenizer-config-missing"
PICKLE_WEIGHTS = "pickle-weights"

ERROR = "error"
WARNING = "warning"


class Problem(Struct, frozen=True):
    code: str
    severity: str  # ERROR (the model will not load as is) or WARNING
    message: str
    path: Optional[str] = None  # relative to the model directory
    target: Optional[str] = None  # symlink problems: the link's target as stored

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"code": self.code, "severity": self.severity, "message": self.message,
                               "path": self.path}
        if self.target is not None:
            out["target"] = self.target
        return out


class ModelingCode(Struct, frozen=True):
    """The custom modeling code shipped with the weights (``modeling_*.py``)."""

    files: Tuple[str, ...] = ()
    # "absent" | "hf-original" (still imports flash_attn) | "ascend-adapted" (imports torch_npu)
    # | "no-flash-attn" (present, flash_attn imports removed) | "unreadable"
    state: str = "absent"
    flash_attn_imports: Tuple[Tuple[str, int, str], ...] = ()  # (file, line number, line)
    torch_npu_files: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        return {
            "files": list(self.files),
            "state": self.state,
            "flash_attn_imports": [{"file": f, "line": n, "text": t} for f, n, t in self.flash_attn_imports],
            "torch_npu_files": list(self.torch_npu_files),
        }


# Provenance kinds
HF_FP8 = "hf-fp8"
FLOAT_BF16 = "bf16"
FLOAT_FP16 = "fp16"
FLOAT_FP32 = "fp32"
MSMODELSLIM = "msmodelslim"
OTHER_QUANTIZED = "other-quantized"
UNKNOWN = "unknown"
NONE = "none"

# msmodelslim output layouts
LAYOUT_VLLM_ASCEND = "vllm-ascend"
LAYOUT_MINDIE = "mindie"
LAYOUT_BOTH = "both"
LAYOUT_UNKNOWN = "unknown"


# Attention / KV-cache quantization kinds (quant_model_description.json or, in msmodelslim's MindIE
# format, config.json quantization_config): ``fa_quant_type`` FAQuant / FAKQuant is FA3, and
# ``kv_quant_type`` / ``kv_cache_type`` C8 is the int8 KV cache (msmodelslim copy_config_files.py,
# MindIE "FA3量化" and "KV Cache int8" pages).
ATTN_FA3 = "fa3"
ATTN_KV_INT8 = "kv-int8"


class AttentionQuant(Struct, frozen=True):
    """One attention-side quantization a folder declares, and where it says so."""

    kind: str  # ATTN_FA3 | ATTN_KV_INT8
    key: str  # the key as written: fa_quant_type, kv_quant_type, kv_cache_type
    value: str  # its value: FAQuant, FAKQuant, C8...
    source: str  # the file that declares it (quant_model_description.json, config.json quantization_config)

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "value": self.value, "source": self.source}


class Provenance(Struct, frozen=True):
    kind: str
    label: str  # one line for people: "HuggingFace original FP8 (e4m3, block 128x128)"
    evidence: Tuple[str, ...] = ()  # which files and tensors decided it
    quant_type: Optional[str] = None  # W8A8, W8A8_DYNAMIC, W8A16, W4A8... (msmodelslim)
    layout: Optional[str] = None  # msmodelslim only: LAYOUT_*
    converted_from_fp8: Optional[bool] = None
    declared_only: bool = False  # decided by config.json alone (no weights or headers to confirm it)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "evidence": list(self.evidence),
            "quant_type": self.quant_type,
            "layout": self.layout,
            "converted_from_fp8": self.converted_from_fp8,
            "declared_only": self.declared_only,
        }


class ModelFacts(Struct):
    """Everything model checks need to know about one model directory."""

    path: str
    exists: bool = False
    is_dir: bool = False
    file_count: int = 0
    total_bytes: int = 0
    files: List[Tuple[str, int]] = field(default_factory=list)  # (relative path, size), model files only
    config: Optional[Dict[str, Any]] = None
    config_error: Optional[str] = None
    # Keys config.json sets more than once, each with every value in file order (the last one is
    # what Python's json, and so transformers, vLLM and MindIE, read).
    config_duplicates: Dict[str, List[Any]] = field(default_factory=dict)
    index_files: Tuple[str, ...] = ()
    description_files: Tuple[str, ...] = ()
    description_quant_type: Optional[str] = None
    attention_quant: Tuple[AttentionQuant, ...] = ()
    weight_files: Tuple[str, ...] = ()  # *.safetensors
    pickle_weight_files: Tuple[str, ...] = ()  # *.bin / *.pt / *.pth (not inspected)
    headers: Dict[str, SafetensorsHeader] = field(default_factory=dict)
    tensor_count: int = 0
    params_by_dtype: Dict[str, int] = field(default_factory=dict)
    bytes_by_dtype: Dict[str, int] = field(default_factory=dict)
    tokenizer_files: Tuple[str, ...] = ()
    modeling: ModelingCode = field(default_factory=ModelingCode)
    provenance: Provenance = field(default_factory=lambda: Provenance(UNKNOWN, "not inspected"))
    problems: List[Problem] = field(default_factory=list)

    # -- convenience for checks ---------------------------------------------------------------
    def config_value(self, key: str) -> Any:
        return self.config.get(key) if isinstance(self.config, dict) else None

    @property
    def quantization_config(self) -> Optional[Dict[str, Any]]:
        value = self.config_value("quantization_config")
        return value if isinstance(value, dict) else None

    @property
    def total_params(self) -> int:
        return sum(self.params_by_dtype.values())

    @property
    def float_dtype(self) -> Optional[str]:
        """The floating dtype holding most float parameters (BF16/F16/F32), if any."""
        floats = {d: n for d, n in self.params_by_dtype.items() if d in ("BF16", "F16", "F32")}
        return max(floats, key=lambda d: floats[d]) if floats else None

    def problems_with(self, *codes: str) -> List[Problem]:
        return [p for p in self.problems if p.code in codes]

    def add(self, code: str, severity: str, message: str, path: Optional[str] = None,
            target: Optional[str] = None) -> None:
        self.problems.append(Problem(code, severity, message, path, target))

    def walk_problem(self, rel: str) -> Optional[Problem]:
        """The unreadable / broken-link / loop problem of one entry, if the walk found one."""
        for problem in self.problems:
            if problem.path == rel and problem.code in (UNREADABLE, SYMLINK_BROKEN, SYMLINK_LOOP):
                return problem
        return None

    def to_dict(self) -> Dict[str, Any]:
        return {
            "path": self.path,
            "exists": self.exists,
            "is_dir": self.is_dir,
            "file_count": self.file_count,
            "total_bytes": self.total_bytes,
            "provenance": self.provenance.to_dict(),
            "modeling_code": self.modeling.to_dict(),
            "config": {
                "model_type": self.config_value("model_type"),
                "architectures": self.config_value("architectures"),
                "torch_dtype": self.config_value("torch_dtype"),
                "transformers_version": self.config_value("transformers_version"),
                "quantization_config": self.quantization_config,
                "quantize": self.config_value("quantize"),
                "mla_quantize": self.config_value("mla_quantize"),
                "duplicate_keys": {k: list(v) for k, v in self.config_duplicates.items()},
                "error": self.config_error,
            },
            "weights": {
                "safetensors_files": len(self.weight_files),
                "pickle_files": list(self.pickle_weight_files),
                "index_files": list(self.index_files),
                "description_files": list(self.description_files),
                "description_quant_type": self.description_quant_type,
                "attention_quant": [a.to_dict() for a in self.attention_quant],
                "tensor_count": self.tensor_count,
                "total_params": self.total_params,
                "params_by_dtype": dict(sorted(self.params_by_dtype.items())),
                "bytes_by_dtype": dict(sorted(self.bytes_by_dtype.items())),
                "headers_unreadable": sorted(rel for rel, h in self.headers.items() if h.error_kind is not None),
            },
            "tokenizer_files": list(self.tokenizer_files),
            "problems": [p.to_dict() for p in self.problems],
        }
