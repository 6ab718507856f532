"""ASC-MDL-017: every file of the model directory can be read (no denied files, broken links, loops)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import Placeholder, argv, one_line

from ._context import HostCheckContext
from ._model import findings_for, require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts, Problem

CHECK = CheckSpec(
    id="ASC-MDL-017",
    title="Model directory is fully readable",
    what="Walks the directory (bounded: 10 000 entries, 4 levels, symlinked directories not followed) and "
    "reports unreadable files, broken symlinks, symlink loops and special files, also when nothing readable is "
    "left; links into a HuggingFace cache's blobs/ are named together, with the copy that fixes them.",
    why="The engine runs as a service user; a file it cannot read, or a link into a cache that was cleaned, "
    "fails the load after startup has already taken minutes.",
    fix="Fix permissions (`chmod -R a+rX DIR`) and re-create broken links (or copy the files they pointed to).",
    requires=("model",),
    tags=("model", "integrity"),
)


def _fix(problem: Problem) -> str:
    from ascend_doctor.model import records as R

    path = problem.path or Placeholder("file")  # a file name from the model folder, quoted in commands

    if problem.code == R.UNREADABLE:
        return _("Give the service user read access: `{command}` (and its parent directories).").format(
            command=argv("chmod", "a+rX", "--", path))
    if problem.code in (R.SYMLINK_BROKEN, R.SYMLINK_LOOP):
        return _("Replace the link `{path}` by the real file (`ls -l` shows where it points; a HuggingFace "
                 "cache link breaks when the blob was deleted: download again).").format(path=one_line(path))
    if problem.code == R.LISTING_TRUNCATED:
        return _("Point --model at the model directory itself, not at a parent holding many models.")
    return _("Remove it from the model directory, or replace it with the regular file it stands for.")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.model import records as R
    from ascend_doctor.model.integrity import examples

    from ._model_fixes import hf_cache_copy_fix, is_hf_blob_link

    facts: ModelFacts = ctx.facts.model
    problems = facts.problems_with(R.UNREADABLE, R.SYMLINK_BROKEN, R.SYMLINK_LOOP, R.SPECIAL_FILE,
                                   R.LISTING_TRUNCATED)
    if not problems:
        require_model(facts)  # a folder of nothing but broken links is this check's subject, not a SKIP
        yield Finding.passed(_("{count} file(s) readable").format(count=facts.file_count))
        return
    # Links into a hub cache's blobs/ all have one cause and one fix: say it once, naming them.
    hub = [p for p in problems if p.code == R.SYMLINK_BROKEN and is_hf_blob_link(p.target)]
    if hub:
        first = hub[0]
        yield Finding.fail(
            _("{count} file(s) are broken links into a HuggingFace cache's blobs/ that is not here: "
              "{files} (e.g. {link} -> {target}); the folder was copied from a cache snapshot without following "
              "its links").format(count=len(hub), files=examples(p.path or "" for p in hub), link=first.path,
                                  target=first.target),
            hf_cache_copy_fix(facts.path),
            code=R.SYMLINK_BROKEN, links={p.path: p.target for p in hub})
    rest = [p for p in problems if p not in hub]
    if rest:
        yield from findings_for(rest, _fix)
