"""``model inspect|manifest|verify``: what a model folder holds, its manifest, and a verification.

JSON contracts: docs/model-inspect-schema.json, docs/model-manifest-schema.json and
docs/model-verify-schema.json; the JSON is the records' ``to_dict()``. The manifest is also a file
the tool reads back (``model verify``, ``check --verify``): its two forms, JSON and ``sha256sum``
lines, are written by ascend_doctor/model/manifest.py beside the parser that reads them, and
chosen here.
"""

from __future__ import annotations

from typing import List

from ascend_doctor.i18n import N_
from ascend_doctor.i18n import gettext as _
from ascend_doctor.model import records as R
from ascend_doctor.model.manifest import Manifest, VerifyResult
from ascend_doctor.model.records import ModelFacts
from ascend_doctor.model.units import human_bytes
from ascend_doctor.render import JSON, TEXT, unknown_format

MANIFEST_FORMATS = (JSON, "sha256sum")

_MODELING = {
    "hf-original": N_("HuggingFace original (still imports flash_attn)"),
    "ascend-adapted": N_("Ascend-adapted (imports torch_npu)"),
    "no-flash-attn": N_("no flash_attn import"),
    "unreadable": N_("unreadable"),
}


def render_model_inspect(facts: ModelFacts, fmt: str) -> str:
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document(facts.to_dict())
    if fmt == TEXT:
        return model_facts_to_text(facts)
    raise unknown_format(fmt)


def render_model_manifest(manifest: Manifest, fmt: str) -> str:
    """The manifest as ``model manifest`` writes it: JSON, or ``sha256sum`` lines (``--sha256sum``)."""
    if fmt == JSON:
        return manifest.to_json()
    if fmt == "sha256sum":
        return manifest.to_sha256sum()
    raise unknown_format(fmt, MANIFEST_FORMATS)


def render_model_verify(result: VerifyResult, fmt: str, manifest_path: str) -> str:
    """``model verify``: every difference, then a verdict line naming the manifest checked against."""
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document(result.to_dict())
    if fmt == TEXT:
        return verify_to_text(result, manifest_path)
    raise unknown_format(fmt)


def model_facts_to_text(facts: ModelFacts) -> str:
    """``model inspect``'s text. Provenance labels, evidence and problem messages are made in
    English by ascend_doctor/model (they are also the JSON's and the MDL checks' data, ``Text``)
    and shown here in the chosen language."""
    from ascend_doctor.i18n import translate
    from ascend_doctor.i18n_text import Text, localized
    from ascend_doctor.widewrap import cell_width

    def shown(value: str) -> str:  # a Text by its own template, other English through the catalogue's
        return localized(value) if isinstance(value, Text) else translate(value)

    none = _("none")
    lines: List[str] = [_("Model: {path}").format(path=facts.path)]
    prov = facts.provenance
    lines.append("  " + _("provenance: {label}").format(label=shown(prov.label)))
    why = _("why: ")
    for i, item in enumerate(prov.evidence):
        lines.append("    " + (why if i == 0 else " " * cell_width(why)) + shown(item))
    if facts.exists and facts.is_dir:
        if facts.config is not None:
            cfg = facts.config
            lines.append(f"  config.json: model_type {cfg.get('model_type')}, "
                         f"architectures {cfg.get('architectures')}, torch_dtype {cfg.get('torch_dtype')}, "
                         f"transformers {cfg.get('transformers_version')}")
        if facts.modeling.files:
            state = _MODELING.get(facts.modeling.state)
            lines.append("  " + _("modeling code: {files}: {state}").format(
                files=", ".join(facts.modeling.files), state=_(state) if state else facts.modeling.state))
            for name, number, text in facts.modeling.flash_attn_imports[:5]:
                lines.append(f"    {name}:{number}: {text}")
        files = _("files: {count} ({size}); safetensors: {weights}; index: {index}").format(
            count=facts.file_count, size=human_bytes(facts.total_bytes), weights=len(facts.weight_files),
            index=", ".join(facts.index_files) or none)
        if facts.description_files:
            files += "; " + _("description: {files}").format(files=", ".join(facts.description_files))
        lines.append("  " + files)
        if facts.attention_quant:  # FA3 / int8 KV cache: what the engine must support (ASC-MDL-019)
            lines.append("  " + _("attention quantization: {declared}").format(declared="; ".join(
                f"{a.key}={a.value} ({a.source})" for a in facts.attention_quant)))
        if facts.params_by_dtype:
            lines.append("  " + _("tensors: {tensors}; parameters: {params}").format(
                tensors=facts.tensor_count, params=f"{facts.total_params:,}"))
            params = _("params")
            for dtype, count in sorted(facts.params_by_dtype.items(), key=lambda kv: -kv[1]):
                size = human_bytes(facts.bytes_by_dtype.get(dtype, 0))
                lines.append(f"    {dtype:<8} {count:>20,} {params}  {size:>10}")
        lines.append("  " + _("tokenizer: {files}").format(files=", ".join(facts.tokenizer_files) or none))
    if facts.problems:
        lines.append(_("Problems ({count}):").format(count=len(facts.problems)))
        for problem in facts.problems:
            tag = "ERROR" if problem.severity == R.ERROR else "WARN "
            lines.append(f"  {tag} [{problem.code}] {shown(problem.message)}")
    else:
        lines.append(_("No problems found."))
    return "\n".join(lines)


def verify_to_text(result: VerifyResult, manifest_path: str) -> str:
    lines: List[str] = []
    for mismatch in result.mismatched:
        if mismatch.reason == "size":
            lines.append(f"MISMATCH {mismatch.path}: size {mismatch.actual}, manifest says {mismatch.expected}")
        else:
            lines.append(f"MISMATCH {mismatch.path}: sha256 {mismatch.actual}, manifest says {mismatch.expected}")
    lines += [f"MISSING  {p}" for p in result.missing]
    lines += [f"EXTRA    {p}" for p in result.extra]
    lines += [f"UNREADABLE {p}: {e}" for p, e in result.unreadable]
    lines += [f"warning: {w}" for w in result.warnings[:20]]
    speed = result.bytes_hashed / result.seconds / 1e6 if result.seconds > 0 else 0.0
    verdict = "OK" if result.ok else "DIFFERENT"
    lines.append(f"{verdict}: {result.matched} matched, {len(result.mismatched)} mismatched, {len(result.missing)} "
                 f"missing, {len(result.extra)} extra, {len(result.unreadable)} unreadable against {manifest_path} "
                 f"({human_bytes(result.bytes_hashed)} hashed in {result.seconds:.1f} s, {speed:.0f} MB/s)")
    return "\n".join(lines)
