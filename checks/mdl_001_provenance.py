"""ASC-MDL-001: say what the model directory is, and which files and tensors say so."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import N_, _
from ascend_doctor.i18n_text import localized
from ascend_doctor.shellcmd import argv

from ._context import HostCheckContext

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-001",
    title="Model provenance is identified",
    what="Classifies the weights from the files themselves: HuggingFace original FP8, converted BF16/FP16, "
    "msmodelslim quantized (W8A8, W8A8_DYNAMIC, W8A16, W4A8; MindIE or vLLM-Ascend layout), or unknown.",
    why="What to do next depends on it: FP8 originals must be converted before an Ascend NPU can load them, "
    "msmodelslim weights need the engine's Ascend quantization, and a directory with no model fails late "
    "and obscurely inside the engine.",
    fix="Point --model at the directory that holds config.json and the *.safetensors files; if the "
    "provenance is unknown, check where the weights came from (ModelScope/HuggingFace page, conversion log).",
    requires=("model",),
    tags=("model",),
)

_NO_MODEL_FIX = N_("Pass the directory that holds config.json and the weights, e.g. "
                   "`ascend-doctor check --model /data/models/DeepSeek-R1-W8A8`; list it with `ls -la DIR`.")


def _no_model_fix(facts: ModelFacts) -> str:
    """The generic advice, unless the files are there but unusable (broken links, denied reads)."""
    from ascend_doctor.model import records as R

    from ._model_fixes import hf_cache_copy_fix, is_hf_blob_link

    broken = facts.problems_with(R.SYMLINK_BROKEN, R.SYMLINK_LOOP, R.UNREADABLE)
    if any(p.code == R.SYMLINK_BROKEN and is_hf_blob_link(p.target) for p in broken):
        return hf_cache_copy_fix(facts.path)
    if broken:
        return _("The model's files are there but cannot be read (ASC-MDL-017 names each): replace broken links "
                 "by the files they stood for, or fix permissions (`{command}`).").format(
                     command=argv("chmod", "-R", "a+rX", facts.path))
    return _(_NO_MODEL_FIX)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R

    facts: ModelFacts = ctx.facts.model
    fatal = facts.problems_with(R.NOT_FOUND, R.NOT_A_DIRECTORY, R.NO_MODEL)
    if fatal or facts.provenance.kind == R.NONE:
        message = localized(fatal[0].message) if fatal else f"{facts.path}: {localized(facts.provenance.label)}"
        yield Finding.fail(message, _no_model_fix(facts), provenance=facts.provenance.to_dict())
        return
    prov = facts.provenance
    why = "; ".join(localized(e) for e in prov.evidence)
    if prov.kind == R.UNKNOWN:
        yield Finding.warn(
            _("provenance unknown: {evidence}").format(evidence=why or _("no deciding evidence")),
            _("Check the model's download page or conversion log; re-download as safetensors if the weights are "
              "pickle files."),
            provenance=prov.to_dict(),
        )
        return
    yield Finding.passed(f"{localized(prov.label)}: {why}", provenance=prov.to_dict())
