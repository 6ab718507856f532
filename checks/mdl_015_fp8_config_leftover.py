"""ASC-MDL-015: a converted or quantized model still declares FP8 in config.json."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-015",
    title="config.json does not declare FP8 for non-FP8 weights",
    what="Fails when config.json keeps quantization_config.quant_method=fp8 but the tensors are BF16/FP16 "
    "or msmodelslim int8.",
    why="Huawei's guides say to delete that block for Ascend (transformers: 'Unknown quantization type, got "
    "fp8'); vLLM would pick its FP8 method and reject the weights or clash with --quantization ascend.",
    fix="Delete quantization_config from config.json (keep a backup).",
    requires=("model",),
    tags=("model", "fit"),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R

    from ._model_fixes import drop_quantization_config_command

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    if facts.provenance.kind == R.HF_FP8:
        raise NotApplicable(_("the weights are FP8: the block is correct for them (see ASC-MDL-002)"),
                            see=("ASC-MDL-002",))
    if facts.config is None:
        raise NotApplicable(_("config.json could not be read (see ASC-MDL-007)"), see=("ASC-MDL-007",))
    qc = facts.quantization_config
    if not qc or str(qc.get("quant_method", "")).lower() != "fp8":
        yield Finding.passed(_("config.json declares no FP8 quantization"))
        return
    config_path = f"{facts.path.rstrip('/')}/config.json"
    copies = facts.config_duplicates.get("quantization_config")
    if copies:
        # Written more than once (vllm-project/vllm-ascend#1713): engines read the last copy, and
        # dropping the key removes every copy, which is what an Ascend-quantized folder needs.
        message = _("config.json writes quantization_config {count} times and the last one, which engines read, "
                    "declares quant_method=fp8, but the weights are {provenance}").format(
            count=len(copies), provenance=localized(facts.provenance.label))
    else:
        message = _("config.json declares quantization_config.quant_method=fp8 but the weights are "
                    "{provenance}").format(provenance=localized(facts.provenance.label))
    yield Finding.fail(message, drop_quantization_config_command(config_path), quantization_config=qc,
                       copies=len(copies) if copies else 1)
