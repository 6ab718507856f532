"""ASC-MDL-002: FP8 weights cannot be loaded by 910B / A3 (or older) NPUs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.facts.records import ChipSummary
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-002",
    title="Weights are in a format this NPU can load (not FP8)",
    what="Fails when the weights are the HuggingFace FP8 originals (F8_E4M3 tensors, quant_method fp8) and the "
    "host's NPUs are 910B (A2), A3 or older.",
    why="Ascend devices do not load FP8 weights (hiascend 'DeepSeek 应用最佳实践之量化', vLLM-Ascend quantization "
    "guide); the engine fails while loading, after minutes of startup.",
    fix="Convert on an NPU host: msmodelslim `quant_deepseek_w8a8.py --from_fp8` straight to W8A8, or "
    "`fp8_cast_bf16.py` (NPU port) to BF16 and then W8A8. Both need host RAM for the model in BF16 "
    "(about 1.4 TB for DeepSeek-V3/R1).",
    requires=("model",),
    tags=("model", "fit"),
)

_NO_FP8 = ("A2", "A3", "310P", "310B", "910")


def _chip(ctx: HostCheckContext) -> Optional[ChipSummary]:
    try:
        return ctx.facts.maybe(Facts.npu_chip)
    except KeyError:  # provider not available in this build
        return None


def _architecture_params(ctx: HostCheckContext) -> int:
    """Parameters config.json describes: the size when the headers are partial or absent (a
    directory with config.json and no weights yet must not be told it needs 0 B to convert)."""
    from ascend_doctor.model.arch import count_params

    try:
        model = ctx.facts.maybe(Facts.plan_model)
    except KeyError:  # provider not available in this build
        return 0
    arch = getattr(model, "arch", None)
    if arch is None or arch.approximate:
        return 0
    return int(count_params(arch).total)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.model.units import human_bytes, human_params

    from ._model_fixes import fp8_conversion_commands

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    if facts.provenance.kind != R.HF_FP8:
        yield Finding.passed(_("weights are not FP8 ({provenance})").format(
            provenance=localized(facts.provenance.label)))
        return
    chip = _chip(ctx)
    family: Optional[str] = getattr(chip, "family", None)
    name = getattr(chip, "name", None)
    params = max(facts.total_params, _architecture_params(ctx))
    fix = fp8_conversion_commands(facts.path, params)
    evidence = {"provenance": facts.provenance.to_dict(), "params": params, "bf16_bytes": 2 * params,
                "chip": name, "family": family}
    size = (_("{params} parameters, {bytes} in BF16").format(params=human_params(params), bytes=human_bytes(2 * params))
            if params else _("size unknown"))
    if family in _NO_FP8:
        yield Finding.fail(_("FP8 weights ({size}) on {npu} ({family}): Ascend NPUs do not load FP8").format(
                               size=size, npu=name or family, family=family),
                           fix, **evidence)
    elif family == "950":
        yield Finding.warn(_("FP8 weights ({size}) on {npu}: FP8 loading on the 950 series is not verified by this "
                             "tool").format(size=size, npu=name or family),
                           _("Check the engine's release notes for 950 FP8 support; otherwise convert:") + "\n" + fix,
                           **evidence)
    else:
        yield Finding.warn(_("FP8 weights ({size}); the NPU type is unknown, and 910B/A3 NPUs do not load FP8").format(
                               size=size),
                           fix, **evidence)
