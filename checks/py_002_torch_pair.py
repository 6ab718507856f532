"""ASC-PY-002: torch_npu was built for the installed torch."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._support import pip_pair_action, pip_pair_hint, verdict_finding

CHECK = CheckSpec(
    id="ASC-PY-002",
    title="torch_npu matches torch",
    what="Looks up the installed torch_npu / torch pair in the compatibility matrix (Ascend/pytorch table).",
    why=("Each torch_npu release is built against one torch release; another torch fails at import with "
         "undefined symbols or a version assertion."),
    fix="Install the torch release your torch_npu was built for (pip install torch==<x> torch-npu==<y>).",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    py = ctx.facts.python_env
    torch, torch_npu = py.package("torch"), py.package("torch-npu")
    if not torch or not torch_npu:
        raise NotApplicable(_("needs both torch and torch_npu (see ASC-PY-001)"))
    verdict = ctx.matrix.torch_npu_vs_torch(torch_npu, torch)
    subject = _("torch_npu {torch_npu} with torch {torch}").format(torch_npu=torch_npu, torch=torch)
    keep = _("or, to keep torch_npu {torch_npu}:").format(torch_npu=torch_npu) + "\n"
    yield _with_pair(ctx, verdict_finding(verdict, subject, pip_pair_hint(ctx), suggestion_prefix=keep))


def _with_pair(ctx: HostCheckContext, finding: Finding) -> Finding:
    action = pip_pair_action(ctx) if finding.status.value in ("FAIL", "WARN") else None
    return finding.with_actions(action) if action is not None else finding
