"""ASC-MDL-016: the weight path contains '.', which Huawei's deployment guide says breaks service start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _, ngettext

from ._context import HostCheckContext
from ._model import require_model

if TYPE_CHECKING:
    from ascend_doctor.model.records import ModelFacts

CHECK = CheckSpec(
    id="ASC-MDL-016",
    title="Weight path has no '.' in it",
    what="Warns when a directory name in the weight path contains '.' (e.g. DeepSeek-V3.1-W8A8).",
    why="Huawei Cloud's DeepSeek deployment guide: a weight path containing '.' (such as "
    "/data/model/DeepSeek-V3.1-W8A8) makes the service fail to start; use letters, digits, '-' and '_' only.",
    fix="Rename the directory without dots (e.g. DeepSeek-V3_1-W8A8) and point the service at the new path.",
    requires=("model",),
    tags=("model", "serving"),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no model.
    from ascend_doctor.shellcmd import one_line
    from ascend_doctor.shellcmd import quote as shell_quote

    from ._model_fixes import rename_action, sibling

    facts: ModelFacts = ctx.facts.model
    require_model(facts)
    parts = [p for p in facts.path.split("/") if p not in ("", ".", "..")]
    dotted = [p for p in parts if "." in p]
    if not dotted:
        yield Finding.passed(_("{path}: no '.' in the path").format(path=one_line(facts.path)))
        return
    last = facts.path.rstrip("/").rsplit("/", 1)[-1]
    if "." in last:
        # The comment after the command is read, not run: it is part of the translated sentence.
        fix = _("{command}   # then use the new path in the service configuration").format(
            command=f"mv {shell_quote(facts.path.rstrip('/'))} {shell_quote(sibling(facts.path, ''))}")
    else:
        fix = _("Move the weights to a path without '.' (the parts {parts} contain one), "
                "e.g. /data/models/NAME, and use that path in the service configuration.").format(
                    parts=one_line(", ".join(dotted)))
    names = ", ".join(repr(p) for p in dotted)
    message = ngettext("{path}: {names} contains '.'", "{path}: {names} contain '.'", len(dotted)).format(
        path=one_line(facts.path), names=names)
    finding = Finding.warn(message, fix, dotted=dotted)
    if "." in last:
        finding = finding.with_actions(rename_action(facts.path.rstrip("/"), sibling(facts.path, "")))
    yield finding
