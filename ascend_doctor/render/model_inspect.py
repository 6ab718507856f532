"""Plain-text views of ``ModelFacts`` and ``VerifyResult`` for the ``model inspect`` and ``model verify``
commands (their JSON is the records' ``to_dict()``)."""

from __future__ import annotations

from typing import List

from ascend_doctor.model import records as R
from ascend_doctor.model.manifest import VerifyResult
from ascend_doctor.model.records import ModelFacts
from ascend_doctor.model.units import human_bytes

_MODELING = {
    "hf-original": "HuggingFace original (still imports flash_attn)",
    "ascend-adapted": "Ascend-adapted (imports torch_npu)",
    "no-flash-attn": "no flash_attn import",
    "unreadable": "unreadable",
}


def render_model_facts(facts: ModelFacts) -> str:
    lines: List[str] = [f"Model: {facts.path}"]
    prov = facts.provenance
    lines.append(f"  provenance: {prov.label}")
    for i, item in enumerate(prov.evidence):
        lines.append(f"    {'why: ' if i == 0 else '     '}{item}")
    if facts.exists and facts.is_dir:
        if facts.config is not None:
            cfg = facts.config
            lines.append(f"  config.json: model_type {cfg.get('model_type')}, "
                         f"architectures {cfg.get('architectures')}, torch_dtype {cfg.get('torch_dtype')}, "
                         f"transformers {cfg.get('transformers_version')}")
        if facts.modeling.files:
            state = _MODELING.get(facts.modeling.state, facts.modeling.state)
            lines.append(f"  modeling code: {', '.join(facts.modeling.files)}: {state}")
            for name, number, text in facts.modeling.flash_attn_imports[:5]:
                lines.append(f"    {name}:{number}: {text}")
        lines.append(f"  files: {facts.file_count} ({human_bytes(facts.total_bytes)}); safetensors: "
                     f"{len(facts.weight_files)}; index: {', '.join(facts.index_files) or 'none'}"
                     + (f"; description: {', '.join(facts.description_files)}" if facts.description_files else ""))
        if facts.params_by_dtype:
            lines.append(f"  tensors: {facts.tensor_count}; parameters: {facts.total_params:,}")
            for dtype, count in sorted(facts.params_by_dtype.items(), key=lambda kv: -kv[1]):
                size = human_bytes(facts.bytes_by_dtype.get(dtype, 0))
                lines.append(f"    {dtype:<8} {count:>20,} params  {size:>10}")
        lines.append(f"  tokenizer: {', '.join(facts.tokenizer_files) or 'none'}")
    if facts.problems:
        lines.append(f"Problems ({len(facts.problems)}):")
        for problem in facts.problems:
            tag = "ERROR" if problem.severity == R.ERROR else "WARN "
            lines.append(f"  {tag} [{problem.code}] {problem.message}")
    else:
        lines.append("No problems found.")
    return "\n".join(lines)


def render_verify(result: VerifyResult, manifest_path: str) -> str:
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
