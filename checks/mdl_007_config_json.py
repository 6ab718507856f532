"""ASC-MDL-007: config.json is present and parseable."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-007",
    title="config.json is present and valid",
    what="config.json exists, is a JSON object, and sets each key once.",
    why="Every engine reads the architecture from config.json first; a missing or broken file stops loading, "
    "and a key written twice (as in vllm-project/vllm-ascend#1713) silently keeps only the last value.",
    fix="Copy config.json from the model's original repository (same revision), or fix the JSON error it names.",
    requires=("model",),
    tags=("model", "integrity"),
)


def _fix(problem: Problem, broken_link: bool = False, fp8_leftover: bool = False) -> str:
    """``broken_link``: config.json is a symlink whose target is gone (the walk found it).
    ``fp8_leftover``: the duplicated key is a quantization_config whose last copy is the FP8 block of
    an original, in a folder whose weights are not FP8 (ASC-MDL-015 removes the key)."""
    from ascend_doctor.model import records as R

    if problem.code == R.CONFIG_DUPLICATE_KEY and fp8_leftover:
        return _("The last quantization_config is the FP8 original's block and these weights are not FP8: remove "
                 "the key altogether with the command of ASC-MDL-015 (it keeps a backup).")
    if problem.code == R.CONFIG_DUPLICATE_KEY:
        return _("Edit config.json so the key appears once, keeping the value you mean "
                 "(`python3 -m json.tool config.json` shows what loaders will see).")
    if problem.code == R.CONFIG_MISSING and broken_link:
        return _("The link's target is gone: remove the link and copy the real config.json from the original model "
                 "(same revision) in its place, `rm DIR/config.json && cp ORIGINAL/config.json DIR/`; for a copied "
                 "HuggingFace cache, ASC-MDL-017 gives the fix for every link at once.")
    if problem.code == R.CONFIG_MISSING:
        return _("Copy config.json from the original model repository (same revision) into the directory.")
    return _("Fix the JSON at the position named (`python3 -m json.tool config.json`), or copy config.json again "
             "from the original repository.")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    problems = facts.problems_with(R.CONFIG_MISSING, R.CONFIG_INVALID, R.CONFIG_DUPLICATE_KEY)
    if problems:
        walked = facts.walk_problem("config.json")
        broken_link = walked is not None and walked.code == R.SYMLINK_BROKEN
        fp8_leftover = "quantization_config" in facts.config_duplicates and bool(facts.problems_with(
            R.FP8_CONFIG_LEFTOVER))
        yield from findings_for(problems, lambda problem: _fix(
            problem, broken_link, fp8_leftover and getattr(problem.message, "fields", {}).get("key")
            == "quantization_config"))
        return
    yield Finding.passed(_("config.json parsed (model_type {model_type}, architectures {architectures})").format(
        model_type=facts.config_value("model_type"), architectures=facts.config_value("architectures")))
