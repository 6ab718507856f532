"""ASC-MDL-010: no Git LFS pointer files and no unfinished downloads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-010",
    title="Downloads are complete (no LFS pointers, no partial files)",
    what="Finds Git LFS pointer files (a `git clone` without git-lfs) and files left by unfinished downloads "
    "(*.incomplete from huggingface_hub, *.part, *.partial, *.aria2).",
    why="A pointer file is ~130 bytes of text where gigabytes of weights should be; a partial download means "
    "a shard is missing or short. Both fail the load late.",
    fix="Run `git lfs install && git lfs pull` in a cloned repository, or resume the download with the same "
    "tool (huggingface-cli / modelscope download resume unfinished files).",
    requires=("model",),
    tags=("model", "integrity"),
)


def _fix(problem: Problem) -> str:
    from ascend_doctor.model import records as R

    if problem.code == R.LFS_POINTER:
        return _("In the cloned repository: `git lfs install && git lfs pull` (or download the file directly).")
    return _("Resume the download with the tool that started it (e.g. run the same `huggingface-cli download` or "
             "`modelscope download` command again), then delete the leftover file.")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    problems = facts.problems_with(R.LFS_POINTER, R.PARTIAL_DOWNLOAD)
    if problems:
        yield from findings_for(problems, _fix)
        return
    yield Finding.passed(_("no LFS pointers or partial downloads among {count} file(s)").format(
        count=facts.file_count))
