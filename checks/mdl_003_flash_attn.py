"""ASC-MDL-003: the HuggingFace modeling_deepseek.py imports flash_attn, which Ascend lacks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-003",
    title="Modeling code is adapted for Ascend (no flash_attn import)",
    what="Looks for `import flash_attn` / `from flash_attn ... import` lines in the modeling_*.py shipped with "
    "the weights.",
    why="flash_attn does not exist on Ascend; msmodelslim quantization and transformers loading with "
    "trust_remote_code stop with 'This modeling file requires ... flash_attn'. Such a file is the HuggingFace "
    "original, which must be adapted before quantization or loading (Huawei ModelArts / msit guides).",
    fix="Replace each flash_attn import line with `pass` (keeps `if` blocks valid), or use the Ascend-adapted "
    "modeling_deepseek.py that comes with the Ascend (ModelScope / Modelers) weights.",
    requires=("model",),
    tags=("model", "fit"),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.shellcmd import quote as shell_quote

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    code = facts.modeling
    if code.state == "absent":
        raise NotApplicable(_("no modeling_*.py in the model directory (vLLM-Ascend and MindIE use built-in code)"))
    if code.state == "unreadable":
        yield Finding.warn(_("could not read {files}").format(files=", ".join(code.files)),
                           _("Check the file permissions (`ls -l`)."))
        return
    if not code.flash_attn_imports:
        how = _("imports torch_npu") if code.torch_npu_files else _("no flash_attn import")
        yield Finding.passed(f"{', '.join(code.files)}: {how}", modeling=code.to_dict())
        return
    files = sorted({f for f, _line, _text in code.flash_attn_imports})
    lines = "; ".join(f"{f}:{n} `{t}`" for f, n, t in code.flash_attn_imports[:6])
    targets = " ".join(shell_quote(f"{facts.path.rstrip('/')}/{f}") for f in files)
    fix = (_("Back up and neutralise the imports (each becomes `pass`, so `if is_flash_attn_2_available():` "
             "blocks stay valid):") + "\n"
           f"  sed -i.orig -E 's/^([[:space:]]*)((from flash_attn|import flash_attn).*)$/\\1pass  # \\2/' {targets}\n"
           + _("or use the Ascend-adapted modeling_deepseek.py shipped with the Ascend weights."))
    yield Finding.warn(_("HuggingFace original modeling code: still imports flash_attn ({imports})").format(
                           imports=lines), fix,
                       modeling=code.to_dict())
