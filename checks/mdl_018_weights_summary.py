"""ASC-MDL-018: what the weights hold: dtypes and parameter counts, from the headers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-018",
    title="Weight dtypes and parameter counts are known",
    what="Sums parameters and bytes per dtype over all safetensors headers.",
    why="The parameter count and dtype decide memory needs and whether the NPU can run them; pickle (.bin) "
    "weights cannot be inspected without loading them.",
    fix="Prefer safetensors weights (most repositories publish both); convert .bin once with transformers "
    "`save_pretrained(..., safe_serialization=True)`.",
    requires=("model",),
    tags=("model",),
)


def _fix(problem: Problem) -> str:
    return _("Download the safetensors version of the model, or convert once with "
             "save_pretrained(safe_serialization=True).")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.model.units import human_bytes, human_params

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    pickles = facts.problems_with(R.PICKLE_WEIGHTS)
    if pickles:
        yield from findings_for(pickles, _fix)
        return
    if not facts.params_by_dtype:
        yield Finding.passed(_("no tensors to count"))
        return
    parts = ", ".join(_("{dtype}: {params} params / {size}").format(
                          dtype=d, params=human_params(n), size=human_bytes(facts.bytes_by_dtype.get(d, 0)))
                      for d, n in sorted(facts.params_by_dtype.items(), key=lambda kv: -kv[1]))
    yield Finding.passed(_("{params} parameters in {count} tensors ({parts})").format(
                             params=human_params(facts.total_params), count=facts.tensor_count, parts=parts),
                         params_by_dtype=dict(facts.params_by_dtype), bytes_by_dtype=dict(facts.bytes_by_dtype))
