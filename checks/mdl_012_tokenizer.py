"""ASC-MDL-012: tokenizer files are present."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-012",
    title="Tokenizer files are present",
    what="The directory holds a tokenizer (tokenizer.json, tokenizer.model, vocab.json, vocab.txt or "
    "*.tiktoken) and tokenizer_config.json.",
    why="Quantization tools write only weights and config; the tokenizer must be copied over by hand, and "
    "the engine fails at startup without it (or serves without the chat template).",
    fix="Copy tokenizer*.json / tokenizer.model / vocab files from the original model directory, or pass "
    "`--tokenizer ORIGINAL_DIR` to vLLM.",
    requires=("model",),
    tags=("model", "integrity"),
)


def _fix(problem: Problem) -> str:
    from ascend_doctor.model import records as R

    if problem.code == R.TOKENIZER_CONFIG_MISSING:
        return _("Copy tokenizer_config.json from the original model directory.")
    return _("Copy the tokenizer files from the original model: `cp ORIGINAL/tokenizer* ORIGINAL/*.tiktoken "
             "DIR/ 2>/dev/null`, or give vLLM `--tokenizer ORIGINAL`.")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.parsers.engine_args import parse_engine_args

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    problems = facts.problems_with(R.TOKENIZER_MISSING, R.TOKENIZER_CONFIG_MISSING)
    tokenizer_arg = parse_engine_args(ctx.options.vllm_args).tokenizer
    if problems and tokenizer_arg:
        yield Finding.passed(_("no tokenizer in the model directory, but vLLM is given --tokenizer {tokenizer}").format(
            tokenizer=tokenizer_arg))
        return
    if problems:
        yield from findings_for(problems, _fix)
        return
    yield Finding.passed(_("tokenizer: {files}").format(files=", ".join(facts.tokenizer_files)))
