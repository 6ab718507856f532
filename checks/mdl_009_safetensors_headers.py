"""ASC-MDL-009: each safetensors header parses and its file has the size the header declares."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import Placeholder, one_line

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-009",
    title="Safetensors headers are valid and files complete",
    what="Reads each *.safetensors header directly (8-byte length + JSON, bounded) and checks the file size "
    "equals 8 + header length + the end of the last tensor, as the safetensors loader requires.",
    why="A truncated or zero-filled shard (interrupted copy, full disk, pre-allocated download) is otherwise "
    "found only when the engine reaches it, with an unhelpful error.",
    fix="Download or copy the named files again and compare against a manifest "
    "(`ascend-doctor model verify DIR manifest.json`).",
    requires=("model",),
    tags=("model", "integrity"),
)


def _fix(problem: Problem) -> str:
    from ascend_doctor.model import records as R

    path = problem.path or Placeholder("file")  # a file name from the model folder, quoted in commands

    if problem.code == R.HEADER_UNREADABLE:
        return _("Make {file} readable by this user (`ls -l`, `chmod a+r`), or copy it again.").format(
            file=one_line(path))
    return _("Copy or download {file} again (same revision), then check it with "
             "`ascend-doctor model verify DIR manifest.json` against a manifest from a good copy.").format(
                 file=one_line(path))


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.model.units import human_bytes, human_params

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    problems = facts.problems_with(R.HEADER_INVALID, R.SIZE_MISMATCH, R.HEADER_UNREADABLE)
    if problems:
        yield from findings_for(problems, _fix)
        return
    if not facts.headers:
        yield Finding.passed(_("no safetensors files to check"))
        return
    dtypes = ", ".join(f"{d} {human_params(n)}" for d, n in sorted(facts.params_by_dtype.items()))
    yield Finding.passed(
        _("{count} safetensors header(s) valid, sizes match ({size}; {tensors} tensors: {dtypes})").format(
            count=len(facts.headers), size=human_bytes(facts.total_bytes), tensors=facts.tensor_count,
            dtypes=dtypes or _("none")),
        params_by_dtype=dict(facts.params_by_dtype),
    )
