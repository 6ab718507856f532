"""ASC-MDL-004: a BF16 model on a 310P card is served in float16 (the 310P has no BF16)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import N_, _
from ascend_doctor.shellcmd import quote as shell_quote

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.facts.records import ChipSummary
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-004",
    title="A BF16 model on 310P is served in float16",
    what="On 310P hosts, when the floating-point weights are mostly BF16 (or config.json asks for bfloat16), checks "
    "that float16 is chosen: vLLM `--dtype float16` (--vllm-args / --config), the model's config.json torch_dtype "
    "float16 (what MindIE and vLLM's `--dtype auto` use), or a `models:` config with fp16 precision.",
    why="The 310P has no BF16 (torch_npu IsBF16Supported needs Ascend910B1 or later; the matrix's chips table), so "
    "a model served in BF16 fails to load or run its operators there; the 300I Duo deployments that work serve "
    "16-bit models in float16 (vllm-ascend #2725, #6676). MindIE's model support matrix lists BF16 as unsupported "
    "on 300I DUO.",
    fix="Serve in FP16: vLLM `--dtype float16`; MindIE reads the dtype from the weights' config.json, so set "
    '"torch_dtype": "float16" there (keep a copy of the original); or quantize from FP16 weights (W8A8).',
    requires=("model",),
    tags=("model", "fit"),
)

_FP16 = ("float16", "fp16", "half")
_BF16 = ("bfloat16", "bf16")


def _chip(ctx: HostCheckContext) -> Optional[ChipSummary]:
    try:
        return ctx.facts.maybe(Facts.npu_chip)
    except KeyError:
        return None


def fp16_choice(config: Any, torch_dtype: Optional[str]) -> Tuple[Optional[bool], str, str]:
    """(True: float16 is chosen / False: BF16 is chosen / None: nothing chooses, how it was seen in
    English for the evidence, the same for people in the run's language)."""
    config_fp16 = (torch_dtype or "").lower() in _FP16
    if config is not None and getattr(config, "ok", False):
        kind = getattr(config, "kind", "")
        for model in getattr(config, "models", ()):
            dtype = (getattr(model, "dtype", None) or "").lower()
            precision = (getattr(model, "precision", None) or "").lower()
            if kind == "vllm":
                if dtype in _FP16:
                    return True, f"--dtype {dtype}", f"--dtype {dtype}"
                if dtype in _BF16:
                    return False, f"--dtype {dtype}", f"--dtype {dtype}"
            elif kind == "simple" and precision in ("fp16", "float16"):
                return (True, f"precision {precision} in {config.source}",
                        _("precision {precision} in {source}").format(precision=precision, source=config.source))
    if config_fp16:
        english = N_('config.json torch_dtype "float16" (used by MindIE and by vLLM\'s --dtype auto)')
        return True, english, _(english)
    return None, "", ""


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model.units import human_params

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    chip = _chip(ctx)
    if chip is None or getattr(chip, "family", None) != "310P":
        raise NotApplicable(_("not a 310P host"))
    bf16 = facts.params_by_dtype.get("BF16", 0)
    config_dtype = facts.config_value("torch_dtype")
    if not (facts.float_dtype == "BF16" or (not facts.params_by_dtype and config_dtype == "bfloat16")):
        yield Finding.passed(_("floating-point weights are {dtype} on {chip}").format(
            dtype=facts.float_dtype or _("not BF16"), chip=chip.name))
        return
    what = (_("{count} BF16 parameters").format(count=human_params(bf16)) if bf16
            else "config.json torch_dtype=bfloat16")
    config = ctx.facts.maybe(Facts.serving_config)
    chosen, how, shown = fp16_choice(config, config_dtype if isinstance(config_dtype, str) else None)
    if chosen:
        yield Finding.passed(_("{what} on {chip}, served in float16 ({how})").format(what=what, chip=chip.name,
                                                                                     how=shown),
                             torch_dtype=config_dtype, chosen=how)
        return
    path = facts.path
    vllm_fix = f"vllm serve {shell_quote(path)} --dtype float16"
    mindie_fix = (f"sed -i.bak 's/\"torch_dtype\": *\"bfloat16\"/\"torch_dtype\": \"float16\"/' "
                  f"{shell_quote(path.rstrip('/') + '/config.json')}")
    kind = getattr(config, "kind", "") if config is not None and getattr(config, "ok", False) else ""
    if chosen is False:
        message = _("{what} on {chip} ({how}): the 310P has no BF16, so this model must be served in float16 and "
                    "nothing here chooses it.").format(what=what, chip=chip.name, how=shown)
    else:
        message = _("{what} on {chip}: the 310P has no BF16, so this model must be served in float16 and nothing "
                    "here chooses it.").format(what=what, chip=chip.name)
    serve_fp16 = _("Serve the model in float16 (310P has no BF16)")
    if kind == "vllm":
        fix = _("Add `--dtype float16` to the vLLM launch:") + f"\n  {vllm_fix}"
        action = FixAction("config", serve_fp16, (vllm_fix,), where="either", direction="set", subject="dtype")
    elif kind == "mindie":
        fix = _("MindIE takes the dtype from the weights' config.json: set torch_dtype to float16 (the original is "
                "kept as config.json.bak):") + f"\n  {mindie_fix}"
        action = FixAction("model", _("Set torch_dtype float16 in the weights' config.json (310P has no BF16)"),
                           (mindie_fix,), where="either", direction="set", subject="torch_dtype")
    else:
        fix = (_("vLLM-Ascend: serve with `--dtype float16`:") + f"\n  {vllm_fix}\n"
               + _("MindIE (reads the dtype from the weights' config.json; the original is kept as "
                   "config.json.bak):") + f"\n  {mindie_fix}\n"
               + _("or quantize from FP16 weights with msmodelslim (W8A8)."))
        action = FixAction("config", serve_fp16, (vllm_fix,), where="either", direction="set", subject="dtype",
                           alternative=f"MindIE: {mindie_fix}")
    yield Finding(Status.FAIL, message, fix, {"params_by_dtype": dict(facts.params_by_dtype),
                                              "torch_dtype": config_dtype, "engine_config": kind or None},
                  None, (action,))
