"""ASC-MDL-008: every shard the index names is present, and no stray shard is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import Placeholder, argv, chain, one_line

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-008",
    title="All weight shards are present",
    what="Each shard named in *.safetensors.index.json exists; numbered shard series (x-00003-of-00056) are "
    "complete; no *.safetensors file is left that no index names.",
    why="A missing shard fails the load after the engine has spent minutes on the others; a stray shard "
    "usually means two downloads or conversions were mixed in one directory.",
    fix="Download the missing shards again (same revision), e.g. `huggingface-cli download REPO FILE "
    "--local-dir DIR` or `modelscope download --model REPO FILE --local_dir DIR`; move stray shards out.",
    requires=("model",),
    tags=("model", "integrity"),
)


def _fix(problem: Problem) -> str:
    from ascend_doctor.model import records as R

    path = problem.path or Placeholder("file")  # a file name from the model folder, quoted in commands

    if problem.code == R.SHARD_EXTRA:
        return _("Move it out of the model directory: `{command}`").format(
            command=chain(argv("mkdir", "-p", "stray"), argv("mv", "--", path, "stray/")))
    if problem.code == R.INDEX_INVALID:
        return _("Download the index file again from the model repository (same revision).")
    return _("Download {file} again from the same revision, e.g. `{hf_command}` or `{ms_command}`.").format(
        file=one_line(path),
        hf_command=argv("huggingface-cli", "download", "REPO", path, "--local-dir", "DIR"),
        ms_command=argv("modelscope", "download", "--model", "REPO", path, "--local_dir", "DIR"))


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    problems = facts.problems_with(R.SHARD_MISSING, R.SHARD_SERIES_GAP, R.INDEX_INVALID, R.SHARD_EXTRA)
    if problems:
        yield from findings_for(problems, _fix)
        return
    if not facts.weight_files:
        yield Finding.passed(_("no safetensors shards to check (PyTorch .bin weights)") if facts.pickle_weight_files
                             else _("no safetensors shards to check"))
        return
    if facts.index_files:
        yield Finding.passed(_("{count} safetensors file(s) present, all named by {index}").format(
            count=len(facts.weight_files), index=", ".join(facts.index_files)))
        return
    yield Finding.passed(_("{count} safetensors file(s) present").format(count=len(facts.weight_files)))
