"""ASC-MDL-011: tensors named by the index or the quantization description are in the weights."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-011",
    title="Tensors named by the index and description are present",
    what="Every tensor the index places in a shard is in that shard's header; every tensor tagged in "
    "quant_model_description*.json is in some shard; every weight has a description entry.",
    why="A tensor missing from a shard fails the load; a weight without a description entry makes "
    "vLLM-Ascend stop with KeyError in is_layer_skipped_ascend (vllm-project/vllm-ascend#1713), typically "
    "the MTP layer that msmodelslim did not describe.",
    fix="Re-run the conversion or download the shard again; for undescribed MTP weights add their entries to "
    "quant_model_description.json with the value \"FLOAT\" (vLLM-Ascend modelslim_config note), or "
    "re-quantize with `--quant_mtp`.",
    requires=("model",),
    tags=("model", "integrity"),
)


def _fix(problem: Problem) -> str:
    from ascend_doctor.model import records as R

    if problem.code == R.TENSOR_UNDESCRIBED:
        return _("Add the missing names to {file} as \"FLOAT\" (unquantized), e.g. "
                 "`\"model.layers.61.mlp.experts.0.up_proj.weight\": \"FLOAT\"`, or re-quantize with msmodelslim "
                 "`--quant_mtp`.").format(file=problem.path)
    if problem.code in (R.DESCRIPTION_MISSING, R.DESCRIPTION_INVALID):
        return _("Copy quant_model_description.json from the same msmodelslim output, or re-run the quantization.")
    return _("Download or convert {file} again; the index and the shards come from different runs.").format(
        file=problem.path)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    problems = facts.problems_with(R.TENSOR_MISSING, R.TENSOR_UNDESCRIBED, R.DESCRIPTION_MISSING,
                                   R.DESCRIPTION_INVALID)
    if problems:
        yield from findings_for(problems, _fix)
        return
    sources = list(facts.index_files) + list(facts.description_files)
    if not sources:
        yield Finding.passed(_("no index or description names tensors (single-file model)"))
        return
    yield Finding.passed(_("all {count} tensors consistent with {sources}").format(
        count=facts.tensor_count, sources=", ".join(sources)))
