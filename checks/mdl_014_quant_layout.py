"""ASC-MDL-014: the msmodelslim output layout is the one the engine reads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import N_, _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-014",
    title="Quantized weights use the layout the engine reads",
    what="For msmodelslim weights: vLLM-Ascend reads only quant_model_description.json; MindIE 2.1.RC1 and "
    "older read the --mindie_format layout (quant_model_description_<type>.json plus \"quantize\" in "
    "config.json). With --vllm-args, also warns when config.json keeps MindIE's model_type \"deepseekv2\".",
    why="With the other layout's description name vLLM-Ascend cannot find the quantization description and "
    "refuses to start (vllm_ascend quantization config: MODELSLIM_CONFIG_FILENAME).",
    fix="For vLLM-Ascend copy the suffixed description to quant_model_description.json; for MindIE <= "
    "2.1.RC1 quantize with msmodelslim --mindie_format.",
    requires=("model",),
    tags=("model", "fit", "serving"),
)


def _mindie_model_type(facts: ModelFacts) -> Iterator[Finding]:
    """msmodelslim --mindie_format renames a DeepSeek model_type to MindIE's ``deepseekv2``
    (example/DeepSeek/quant_deepseek_w8a8.py); vLLM knows the HuggingFace names."""
    from ._model_fixes import HF_MODEL_TYPES, set_model_type_command

    if facts.config_value("model_type") != "deepseekv2":
        return
    architectures = facts.config_value("architectures")
    wanted = next((HF_MODEL_TYPES[a] for a in architectures if a in HF_MODEL_TYPES), None) \
        if isinstance(architectures, list) else None
    message = _("config.json model_type is \"deepseekv2\", MindIE's name that msmodelslim --mindie_format writes; "
                "vLLM-Ascend expects the HuggingFace model_type of {architectures} (vllm-project/vllm-ascend#881 "
                "reports the mismatch on such weights)").format(architectures=architectures)
    if wanted is None:
        yield Finding.warn(message, _("Set model_type in config.json back to the one of the original model."),
                           model_type="deepseekv2")
        return
    config_path = f"{facts.path.rstrip('/')}/config.json"
    yield Finding.warn(message, set_model_type_command(config_path, wanted), model_type="deepseekv2",
                       expected=wanted)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.parsers.engine_args import parse_engine_args
    from ascend_doctor.shellcmd import argv

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    prov = facts.provenance
    if prov.kind != R.MSMODELSLIM:
        raise NotApplicable(_("weights are not msmodelslim quantized"))
    args = parse_engine_args(ctx.options.vllm_args)
    plain = "quant_model_description.json" in facts.description_files
    if args.given:
        yield from _mindie_model_type(facts)
        if plain:
            yield Finding.passed(_("quant_model_description.json present: vLLM-Ascend can read the quantization"))
            return
        if not facts.description_files:
            yield Finding.fail(_("no quant_model_description*.json: vLLM-Ascend cannot load these weights"),
                               _("Copy quant_model_description.json from the msmodelslim output directory."))
            return
        source = f"{facts.path.rstrip('/')}/{facts.description_files[0]}"
        target = f"{facts.path.rstrip('/')}/quant_model_description.json"
        yield Finding.fail(
            _("{file} is MindIE naming; vLLM-Ascend reads only quant_model_description.json").format(
                file=facts.description_files[0]),
            # The comment after the command is read, not run: it is part of the translated sentence.
            _("{command}   # a copy keeps the MindIE name working too").format(command=argv("cp", source, target)),
            description_files=list(facts.description_files),
        )
        return
    readable_by = {
        R.LAYOUT_VLLM_ASCEND: N_("readable by vLLM-Ascend and MindIE newer than 2.1.RC1"),
        R.LAYOUT_MINDIE: N_("readable by MindIE; vLLM-Ascend needs quant_model_description.json"),
        R.LAYOUT_BOTH: N_("readable by vLLM-Ascend and MindIE"),
    }.get(prov.layout or "", N_("layout undecided; give --vllm-args to check it against vLLM-Ascend"))
    yield Finding.passed(f"{localized(prov.label)}: " + _(readable_by))
