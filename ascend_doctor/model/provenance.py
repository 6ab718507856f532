"""Classify where a model directory comes from, from its files alone, and say why.

Rules (sources in docs/model-checks.md):

* **HuggingFace original FP8** (DeepSeek-V3/R1 as published): ``F8_E4M3`` tensors with
  ``*.weight_scale_inv`` companions, ``config.json`` ``quantization_config.quant_method: fp8``
  with ``weight_block_size``.
* **msmodelslim quantized** (W8A8, W8A8_DYNAMIC, W8A16, W4A8...): a
  ``quant_model_description*.json`` and/or ``quant_model_weight_*.safetensors`` (AscendV1:
  ``quant_model_weights*.safetensors``) and int8 tensors with ``weight_scale`` / ``weight_offset`` /
  ``deq_scale`` / ``input_scale`` companions; or, when no tensor says otherwise, the keys
  msmodelslim writes into ``config.json`` for MindIE (``quantize``, ``mla_quantize``,
  ``moe_quantize``, ``mtp_quantize``), ``quantization_config.quant_method: ascend``, or a
  ``quantization_config`` holding ``kv_quant_type`` / ``fa_quant_type``. Tensors outrank config keys.
  Layout: msmodelslim writes ``quant_model_description.json`` by default (what vLLM-Ascend reads; the
  ``quantize`` key is written in both layouts); with ``--mindie_format`` ("compatible with MindIE
  2.1.RC1 and older") it writes ``quant_model_description_<type>.json``, puts the
  ``kv_quant_type`` / ``fa_quant_type`` / ``group_size`` block into ``config.json``
  ``quantization_config`` and, for DeepSeek, sets ``model_type`` to ``deepseekv2`` (msmodelslim
  ``msmodelslim/tools/copy_config_files.py``, ``example/DeepSeek/quant_deepseek_w8a8.py``).
* **Float** (BF16 / FP16 / FP32): float tensors, no quantization. A ``deepseek_v3`` model in
  BF16 was converted from the FP8 original (DeepSeek publishes V3/R1 in FP8 only).
* **Other quantized**: a ``quantization_config`` with another ``quant_method`` (gptq, awq,
  compressed-tensors...).
* **Unknown** when none of these is decided by the evidence.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.lazy import lazy_re
from ascend_doctor.model import records as R
from ascend_doctor.model.safetensors import FP8_DTYPES, SafetensorsHeader

DESCRIPTION_RE = lazy_re(r"^quant_model_description(?:_(?P<suffix>[A-Za-z0-9_]+))?\.json$")
# quant_model_weight_w8a8_dynamic-00001-of-00004.safetensors (V0 saver) or quant_model_weights.safetensors
# (AscendV1 saver, msmodelslim docs/zh/quantization_formats/ascendv1.md).
QUANT_WEIGHT_RE = lazy_re(
    r"^quant_model_weights?(?:_(?P<type>[a-z0-9_]+?))?(?:-\d+-of-\d+)?\.safetensors$")
# Keys msmodelslim adds to config.json for MindIE (quant_deepseek_w8a8.py custom hook, copy_config_files.py).
ASCEND_CONFIG_KEYS = ("quantize", "mla_quantize", "moe_quantize", "mtp_quantize")
# quantization_config keys of msmodelslim's MindIE format (copy_config_files.modify_config_json).
MINDIE_QC_KEYS = ("kv_quant_type", "fa_quant_type", "reduce_quant_type")
# Companion tensors msmodelslim writes next to an int8 weight.
QUANT_AUX_SUFFIXES = ("weight_scale", "weight_offset", "deq_scale", "input_scale", "input_offset", "quant_bias")
# Model types whose only official release is FP8 (so BF16 means "converted").
FP8_ORIGINAL_MODEL_TYPES = ("deepseek_v3", "deepseek_v32")


class TensorStats(Struct):
    """What the tensor names and dtypes say, with one example name per signal."""

    fp8_count: int = 0
    fp8_example: Optional[str] = None
    fp8_dtypes: Dict[str, int] = field(default_factory=dict)
    scale_inv_count: int = 0
    int8_weight_count: int = 0
    int8_example: Optional[str] = None
    aux_counts: Dict[str, int] = field(default_factory=dict)
    params_by_dtype: Dict[str, int] = field(default_factory=dict)
    readable_headers: int = 0

    @property
    def float_params(self) -> Dict[str, int]:
        return {d: n for d, n in self.params_by_dtype.items() if d in ("BF16", "F16", "F32")}


def tensor_stats(headers: Mapping[str, SafetensorsHeader]) -> TensorStats:
    stats = TensorStats()
    for rel in sorted(headers):
        header = headers[rel]
        if not header.tensors:
            continue
        stats.readable_headers += 1
        for name in sorted(header.tensors):
            tensor = header.tensors[name]
            stats.params_by_dtype[tensor.dtype] = stats.params_by_dtype.get(tensor.dtype, 0) + tensor.numel
            if tensor.dtype in FP8_DTYPES:
                stats.fp8_count += 1
                stats.fp8_dtypes[tensor.dtype] = stats.fp8_dtypes.get(tensor.dtype, 0) + 1
                # Prefer an expert weight as the example: it is what people recognise.
                if stats.fp8_example is None or (".experts." in name and ".experts." not in stats.fp8_example):
                    stats.fp8_example = name
            if name.endswith("weight_scale_inv"):
                stats.scale_inv_count += 1
            if tensor.dtype == "I8" and name.endswith(".weight"):
                stats.int8_weight_count += 1
                if stats.int8_example is None:
                    stats.int8_example = name
            last = name.rsplit(".", 1)[-1]
            if last in QUANT_AUX_SUFFIXES:
                stats.aux_counts[last] = stats.aux_counts.get(last, 0) + 1
    return stats


def _quant_type_from_names(description_files: Sequence[str], weight_files: Sequence[str]) -> Optional[str]:
    for name in description_files:
        match = DESCRIPTION_RE.match(name)
        if match and match.group("suffix"):
            return match.group("suffix").upper()
    for name in weight_files:
        match = QUANT_WEIGHT_RE.match(name.rsplit("/", 1)[-1])
        if match and match.group("type"):
            return match.group("type").upper()
    return None


def ascend_config_markers(config: Optional[Mapping[str, Any]]) -> List[str]:
    """What in config.json says "quantized for Ascend", as evidence lines (empty when nothing does)."""
    if not config:
        return []
    found = [f"\"{key}\": {_json_str(config.get(key))}" for key in ASCEND_CONFIG_KEYS
             if isinstance(config.get(key), str) and config.get(key)]
    markers: List[str] = []
    if found:
        markers.append(Text(N_("config.json {keys} (keys msmodelslim writes for MindIE)"), keys=", ".join(found)))
    qc = config.get("quantization_config")
    if isinstance(qc, dict):
        method = str(qc.get("quant_method", "")).lower()
        if method == "ascend":
            markers.append("config.json quantization_config.quant_method=ascend")
        elif not method and any(key in qc for key in MINDIE_QC_KEYS):
            keys = ", ".join(k for k in MINDIE_QC_KEYS if k in qc)
            markers.append(Text(N_("config.json quantization_config has {keys} and no quant_method (msmodelslim's "
                                   "MindIE format)"), keys=keys))
    return markers


def _json_str(value: Any) -> str:
    return f"\"{value}\"" if isinstance(value, str) else str(value)


def _fmt_list(value: Any) -> str:
    return "[" + ",".join(str(v) for v in value) + "]" if isinstance(value, list) else str(value)


def classify(
    config: Optional[Mapping[str, Any]],
    description_files: Sequence[str],
    description_quant_type: Optional[str],
    weight_files: Sequence[str],
    pickle_files: Sequence[str],
    headers: Mapping[str, SafetensorsHeader],
    config_note: Optional[str] = None,
    duplicated_keys: Sequence[str] = (),
) -> Tuple[R.Provenance, List[R.Problem]]:
    """Decide the provenance; also return problems that only the classification can see.

    ``config_note`` says why ``config`` is None (unreadable, missing, a broken link), so the
    evidence never claims an unread config.json lacks a key. ``duplicated_keys``: top-level keys
    config.json sets more than once (``config`` holds the last value of each, as engines read it).
    """
    stats = tensor_stats(headers)
    problems: List[R.Problem] = []
    qc = config.get("quantization_config") if config else None
    qc = qc if isinstance(qc, dict) else None
    quant_method = str(qc.get("quant_method", "")).lower() if qc else ""
    model_type = str(config.get("model_type", "")) if config else ""
    quantize_key = config.get("quantize") if config else None

    # Labels, evidence and problem messages are ``Text``: English data, shown translated by the checks.
    if config is None and not weight_files and not pickle_files:
        return R.Provenance(R.NONE, Text(N_("no model files found"))), problems

    # -- msmodelslim ---------------------------------------------------------------------------
    quant_names = [w for w in weight_files if QUANT_WEIGHT_RE.match(w.rsplit("/", 1)[-1])]
    modelslim_tensors = stats.int8_weight_count > 0 and bool(stats.aux_counts)
    # msmodelslim also writes its per-tensor description into config.json (quantization_config
    # with model_quant_type and the FLOAT/W8A8 tags, as in MindIE-Turbo's documentation).
    qc_quant_type = qc.get("model_quant_type") if qc else None
    # config.json's Ascend keys decide only while no tensor contradicts them: readable headers
    # without a single int8 weight are float or FP8 weights, whatever config.json says.
    markers = ascend_config_markers(config)
    contradicted = stats.readable_headers > 0 and stats.int8_weight_count == 0
    # Another tool's quant_method (compressed-tensors, gptq...) names its own format: a "quantize"
    # key next to it does not make the folder msmodelslim's.
    foreign_method = bool(quant_method) and quant_method not in ("fp8", "ascend")
    by_config = bool(markers) and not contradicted and not foreign_method
    if description_files or quant_names or modelslim_tensors or isinstance(qc_quant_type, str) or by_config:
        evidence: List[str] = []
        if description_files:
            evidence.append(Text(N_("quantization description {files}"), files=", ".join(description_files)))
        if quant_names:
            if len(quant_names) > 1:
                evidence.append(Text(N_("weights named {file} (+{count} more)"), file=quant_names[0],
                                     count=len(quant_names) - 1))
            else:
                evidence.append(Text(N_("weights named {file}"), file=quant_names[0]))
        if modelslim_tensors:
            aux = ", ".join(f"{k} x{v}" for k, v in sorted(stats.aux_counts.items()))
            evidence.append(Text(N_("{count} int8 weights (e.g. {example}) with {companions}"),
                                 count=stats.int8_weight_count, example=stats.int8_example, companions=aux))
        if isinstance(qc_quant_type, str):
            evidence.append(f"config.json quantization_config.model_quant_type={qc_quant_type}")
        evidence.extend(markers)
        declared_only = not (description_files or quant_names or modelslim_tensors) and stats.readable_headers == 0
        if declared_only:
            evidence.append(Text(N_("no readable safetensors header or quantization description to confirm it: "
                                    "declared by config.json only")) if weight_files or pickle_files
                            else Text(N_("no weight files yet: declared by config.json only")))
        quant_type = description_quant_type or _quant_type_from_names(description_files, weight_files)
        if quant_type is None and isinstance(qc_quant_type, str):
            quant_type = qc_quant_type.upper()
        if quant_type is None and isinstance(quantize_key, str) and quantize_key:
            quant_type = quantize_key.upper()
        layout, layout_why = _modelslim_layout(description_files, config)
        evidence.append(layout_why)
        if not description_files and not isinstance(qc_quant_type, str) and (weight_files or pickle_files):
            problems.append(R.Problem(
                R.DESCRIPTION_MISSING, R.ERROR,
                Text(N_("msmodelslim-style weights without quant_model_description.json: neither vLLM-Ascend nor "
                        "MindIE can tell which layers are quantized")),
            ))
        if quant_method == "fp8":
            message = (Text(N_("config.json writes \"quantization_config\" more than once and the last one, which "
                               "engines read, declares quant_method=fp8 (the FP8 original's block) but the weights "
                               "are msmodelslim quantized"))
                       if "quantization_config" in duplicated_keys else
                       Text(N_("config.json still declares quantization_config.quant_method=fp8 but the weights are "
                               "msmodelslim quantized")))
            problems.append(R.Problem(R.FP8_CONFIG_LEFTOVER, R.ERROR, message, "config.json"))
        shown_layout = _layout_label(layout)
        if declared_only:
            shown_layout = Text(N_("{layout}, declared by config.json only"), layout=shown_layout)
        label = (Text(N_("msmodelslim {quant_type} ({layout})"), quant_type=quant_type, layout=shown_layout)
                 if quant_type else Text(N_("msmodelslim quantized ({layout})"), layout=shown_layout))
        if stats.fp8_count:
            evidence.append(Text(N_("also {count} FP8 tensors (e.g. {example}): mixed directory"),
                                 count=stats.fp8_count, example=stats.fp8_example))
        return R.Provenance(R.MSMODELSLIM, label, tuple(evidence), quant_type, layout,
                            declared_only=declared_only), problems

    # -- HuggingFace FP8 original ------------------------------------------------------------
    fp8_config = quant_method == "fp8"
    if stats.fp8_count:
        evidence = []
        dtypes = "/".join(sorted(stats.fp8_dtypes))
        if stats.scale_inv_count:
            evidence.append(Text(N_("{count} {dtypes} tensors (e.g. {example}) with {scales} weight_scale_inv "
                                    "tensors"), count=stats.fp8_count, dtypes=dtypes, example=stats.fp8_example,
                                 scales=stats.scale_inv_count))
        else:
            evidence.append(Text(N_("{count} {dtypes} tensors (e.g. {example})"), count=stats.fp8_count,
                                 dtypes=dtypes, example=stats.fp8_example))
        if fp8_config and qc is not None:
            evidence.append(_fp8_config_evidence(qc))
        evidence.extend(_contradicted(markers))
        label = Text(N_("HuggingFace original FP8"))
        block = qc.get("weight_block_size") if qc else None
        if qc and isinstance(block, list):
            label = Text(N_("HuggingFace original FP8 ({format}, {block} blocks)"), format=qc.get("fmt", "fp8"),
                         block="x".join(str(b) for b in block))
        return R.Provenance(R.HF_FP8, label, tuple(evidence)), problems
    if fp8_config and qc is not None and stats.readable_headers == 0:
        evidence = [_fp8_config_evidence(qc), Text(N_("no readable safetensors header to confirm the tensor dtypes"))]
        label = Text(N_("HuggingFace original FP8 (declared by config.json only)"))
        return R.Provenance(R.HF_FP8, label, tuple(evidence)), problems

    # -- float ---------------------------------------------------------------------------------
    floats = stats.float_params
    if floats:
        dominant = max(floats, key=lambda d: floats[d])
        total = sum(stats.params_by_dtype.values()) or 1
        share = 100.0 * floats[dominant] / total
        kind = {"BF16": R.FLOAT_BF16, "F16": R.FLOAT_FP16, "F32": R.FLOAT_FP32}[dominant]
        evidence = [Text(N_("{share}% of {total} parameters are {dtype} across {files} safetensors file(s)"),
                         share=f"{share:.0f}", total=f"{total:,}", dtype=dominant, files=stats.readable_headers)]
        evidence.extend(_contradicted(markers))
        converted = None
        if model_type in FP8_ORIGINAL_MODEL_TYPES:
            converted = True
            evidence.append(Text(N_("model_type {model_type} is published in FP8 only, so these weights were "
                                    "converted (e.g. with fp8_cast_bf16.py)"), model_type=model_type))
        if fp8_config and qc is not None:
            converted = True
            evidence.append(Text(N_("{declared} although no tensor is FP8"), declared=_fp8_config_evidence(qc)))
            problems.append(R.Problem(
                R.FP8_CONFIG_LEFTOVER, R.ERROR,
                Text(N_("config.json still declares quantization_config.quant_method=fp8 but the weights are "
                        "{dtype}"), dtype=dominant),
                "config.json",
            ))
        if quant_method and quant_method != "fp8":
            evidence.append(f"config.json quantization_config.quant_method={quant_method}")
            return R.Provenance(R.OTHER_QUANTIZED, Text(N_("{method}-quantized (not msmodelslim)"),
                                                        method=quant_method), tuple(evidence)), problems
        if config is None:
            evidence.append(config_note or Text(N_("no readable config.json")))
        elif not qc:
            evidence.append(Text(N_("config.json has no quantization_config")))
        shown = {"BF16": "BF16", "F16": "FP16", "F32": "FP32"}[dominant]
        label = (Text(N_("{dtype} weights converted from the FP8 original"), dtype=shown) if converted
                 else Text(N_("{dtype} weights"), dtype=shown))
        return R.Provenance(kind, label, tuple(evidence), converted_from_fp8=converted), problems

    # -- undecided -------------------------------------------------------------------------------
    evidence = []
    if quant_method:
        evidence.append(f"config.json quantization_config.quant_method={quant_method}")
        if stats.readable_headers:
            return R.Provenance(R.OTHER_QUANTIZED, Text(N_("{method}-quantized (not msmodelslim)"),
                                                        method=quant_method), tuple(evidence)), problems
    if pickle_files:
        evidence.append(Text(N_("weights are PyTorch pickle files ({file}...), whose dtypes cannot be read without "
                                "loading them"), file=pickle_files[0]))
    if weight_files and stats.readable_headers == 0:
        evidence.append(Text(N_("no safetensors header could be read")))
    if not weight_files and not pickle_files:
        evidence.append(Text(N_("config.json but no weight files")))
    torch_dtype = config.get("torch_dtype") if config else None
    if torch_dtype:
        evidence.append(Text(N_("config.json torch_dtype={dtype} (a hint, not proof)"), dtype=torch_dtype))
    return R.Provenance(R.UNKNOWN, Text(N_("unknown: the evidence does not decide")), tuple(evidence)), problems


def _contradicted(markers: Sequence[str]) -> List[str]:
    """config.json's Ascend keys, said to be outranked by tensors that are not int8."""
    return [Text(N_("{marker}, but no tensor is int8: the tensors decide"), marker=marker) for marker in markers]


def _fp8_config_evidence(qc: Mapping[str, Any]) -> str:
    parts = ["config.json quantization_config.quant_method=fp8"]
    if "fmt" in qc:
        parts.append(f"fmt={qc.get('fmt')}")
    if "weight_block_size" in qc:
        parts.append(f"weight_block_size={_fmt_list(qc.get('weight_block_size'))}")
    return ", ".join(parts)


def mindie_format_markers(config: Optional[Mapping[str, Any]]) -> List[str]:
    """config.json traits only msmodelslim's ``--mindie_format`` writes (copy_config_files.py
    modify_config_json puts the kv/fa block in config.json; quant_deepseek_w8a8.py renames the
    DeepSeek model_type to MindIE's ``deepseekv2``)."""
    if not config:
        return []
    found: List[str] = []
    qc = config.get("quantization_config")
    if isinstance(qc, dict) and not qc.get("quant_method") and "kv_quant_type" in qc:
        found.append("quantization_config.kv_quant_type")
    if config.get("model_type") == "deepseekv2":
        found.append("model_type=deepseekv2")
    return found


def _modelslim_layout(description_files: Sequence[str], config: Optional[Mapping[str, Any]]) -> Tuple[str, str]:
    plain = "quant_model_description.json" in description_files
    suffixed = [d for d in description_files if d != "quant_model_description.json"]
    quantize_key = config.get("quantize") if config else None
    has_key = isinstance(quantize_key, str) and bool(quantize_key)
    mindie = mindie_format_markers(config)
    if plain and suffixed:
        return R.LAYOUT_BOTH, Text(N_("both quant_model_description.json (vLLM-Ascend) and {file} (MindIE naming) "
                                      "are present"), file=suffixed[0])
    if suffixed and (has_key or mindie):
        return R.LAYOUT_MINDIE, Text(N_("{file} and config.json {keys}: msmodelslim --mindie_format output (MindIE "
                                        "2.1.RC1 and older)"), file=suffixed[0],
                                     keys=", ".join(([f"\"quantize\": \"{quantize_key}\""] if has_key else [])
                                                    + mindie))
    if suffixed:
        return R.LAYOUT_MINDIE, Text(N_("{file} (suffixed name, older msmodelslim / MindIE naming); vLLM-Ascend "
                                        "reads only quant_model_description.json"), file=suffixed[0])
    if plain and mindie:
        return R.LAYOUT_UNKNOWN, Text(N_("quant_model_description.json (vLLM-Ascend) but config.json also has {keys} "
                                         "(msmodelslim --mindie_format): layout undecided"), keys=", ".join(mindie))
    if plain and has_key:
        return R.LAYOUT_VLLM_ASCEND, Text(N_("quant_model_description.json: msmodelslim's default layout, read by "
                                             "vLLM-Ascend and by MindIE after 2.1.RC1 (the \"quantize\": "
                                             "\"{quantize}\" key in config.json is written in both layouts, for "
                                             "MindIE)"), quantize=quantize_key)
    if plain:
        return R.LAYOUT_VLLM_ASCEND, Text(N_("quant_model_description.json and no \"quantize\" key in config.json: "
                                             "msmodelslim default layout, read by vLLM-Ascend and by MindIE after "
                                             "2.1.RC1"))
    if mindie:
        return R.LAYOUT_MINDIE, Text(N_("no quantization description file, but config.json has {keys}: msmodelslim "
                                        "--mindie_format output (MindIE 2.1.RC1 and older)"), keys=", ".join(mindie))
    return R.LAYOUT_UNKNOWN, Text(N_("no quantization description file: layout undecided"))


def _layout_label(layout: str) -> str:
    return Text({
        R.LAYOUT_VLLM_ASCEND: N_("default layout: vLLM-Ascend, MindIE after 2.1.RC1"),
        R.LAYOUT_MINDIE: N_("MindIE format"),
        R.LAYOUT_BOTH: N_("vLLM-Ascend and MindIE layouts"),
    }.get(layout, N_("layout unknown")))
