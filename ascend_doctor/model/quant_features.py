"""Attention-side quantization a model folder declares (FA3, int8 KV cache), and what each engine
needs to serve it.

Declarations: msmodelslim writes ``fa_quant_type`` (``FAQuant``; ``FAKQuant`` in the AscendV1
format), ``kv_quant_type`` (``C8``) and ``group_size`` into ``quant_model_description.json``, or,
with ``--mindie_format``, into ``config.json`` ``quantization_config`` (msmodelslim
``msmodelslim/tools/copy_config_files.py``); MindIE's documentation names the KV key
``kv_cache_type`` (MindIE LLM "KV Cache int8"). A value of ``null`` means the feature is off.

Requirements: the ``attention_quantization`` list of ``compat_matrix/model_families.yaml``, every
entry with its source; an engine with no entry is "unknown", never "unsupported".
"""

from __future__ import annotations

import functools
from typing import Any, List, Mapping, Optional, Tuple

from msgspec import Struct

from ascend_doctor.model import records as R

# Description / quantization_config key -> kind.
_KEYS = (("fa_quant_type", R.ATTN_FA3), ("kv_quant_type", R.ATTN_KV_INT8), ("kv_cache_type", R.ATTN_KV_INT8))
DATA_FILE = "model_families.yaml"
SECTION = "attention_quantization"


def declared_attention_quant(doc: Mapping[str, Any], source: str) -> Tuple[R.AttentionQuant, ...]:
    """The FA3 / int8-KV declarations of one description (or quantization_config) object."""
    found: List[R.AttentionQuant] = []
    for key, kind in _KEYS:
        value = doc.get(key)
        if isinstance(value, str) and value.strip() and kind not in {a.kind for a in found}:
            found.append(R.AttentionQuant(kind, key, value.strip(), source))
    return tuple(found)


class QuantFeatureDataError(ValueError):
    """The shipped YAML section is malformed (a packaging or editing mistake)."""


class EngineRequirement(Struct, frozen=True):
    """What one engine release documents for one attention quantization."""

    kind: str  # R.ATTN_FA3 | R.ATTN_KV_INT8
    engine: str  # "mindie" | "vllm-ascend"
    status: str  # "supported" (documented, with the conditions below) | "unknown"
    documented_in: str  # the release whose documentation states it ("" when unknown)
    chip_families: Tuple[str, ...]  # families the documentation lists (empty: not stated)
    weights: str  # the weight quantization it must go with ("" when not stated)
    models: Tuple[str, ...]  # models the documentation lists (empty: not stated)
    dtype: str  # the only inference dtype ("" when not stated)
    needs: Tuple[str, ...]  # other settings it needs, as the documentation words them
    source: str
    note: str = ""


def _strings(value: Any, where: str, field: str) -> Tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise QuantFeatureDataError(f"{where}: {field} must be a list of strings")
    return tuple(value)


def parse_requirements(data: Any) -> Tuple[EngineRequirement, ...]:
    """Validate the ``attention_quantization`` section (raises ``QuantFeatureDataError``)."""
    entries = data.get(SECTION) if isinstance(data, Mapping) else None
    if not isinstance(entries, list) or not entries:
        raise QuantFeatureDataError(f"{DATA_FILE}: '{SECTION}' must be a non-empty list")
    out: List[EngineRequirement] = []
    for index, entry in enumerate(entries):
        where = f"{DATA_FILE}: {SECTION}[{index}]"
        if not isinstance(entry, Mapping):
            raise QuantFeatureDataError(f"{where} must be a mapping")
        kind, engine, status = entry.get("kind"), entry.get("engine"), entry.get("status")
        if kind not in (R.ATTN_FA3, R.ATTN_KV_INT8):
            raise QuantFeatureDataError(f"{where}: kind must be {R.ATTN_FA3} or {R.ATTN_KV_INT8}")
        if engine not in ("mindie", "vllm-ascend"):
            raise QuantFeatureDataError(f"{where}: engine must be mindie or vllm-ascend")
        if status not in ("supported", "unknown"):
            raise QuantFeatureDataError(f"{where}: status must be supported or unknown")
        source = entry.get("source")
        if not isinstance(source, str) or not source.strip():
            raise QuantFeatureDataError(f"{where} must name its source")
        out.append(EngineRequirement(
            kind=kind, engine=engine, status=status, documented_in=str(entry.get("documented_in") or ""),
            chip_families=_strings(entry.get("chip_families"), where, "chip_families"),
            weights=str(entry.get("weights") or ""), models=_strings(entry.get("models"), where, "models"),
            dtype=str(entry.get("dtype") or ""), needs=_strings(entry.get("needs"), where, "needs"),
            source=source.strip(), note=str(entry.get("note") or "").strip(),
        ))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def load_requirements() -> Tuple[EngineRequirement, ...]:
    """The shipped requirements (cached). Raises ``QuantFeatureDataError`` if the data is broken."""
    from ascend_doctor.datacache import yaml_data

    compiled, data = yaml_data(DATA_FILE)
    if not compiled:
        import importlib.resources

        import yaml

        from ascend_doctor.model.families import DATA_PACKAGE

        try:
            text = importlib.resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text(encoding="utf-8")
            data = yaml.safe_load(text)
        except (OSError, ModuleNotFoundError, yaml.YAMLError) as exc:
            raise QuantFeatureDataError(f"cannot read {DATA_FILE}: {exc}") from exc
    return parse_requirements(data)


def requirement(kind: str, engine: str) -> Optional[EngineRequirement]:
    """The recorded requirement of ``engine`` for ``kind``, or None (unknown)."""
    for entry in load_requirements():
        if entry.kind == kind and entry.engine == engine:
            return entry
    return None
