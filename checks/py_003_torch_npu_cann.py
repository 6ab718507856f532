"""ASC-PY-003: torch_npu was built for the installed CANN."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._support import pip_pair_action, pip_pair_hint, verdict_finding

CHECK = CheckSpec(
    id="ASC-PY-003",
    title="torch_npu matches CANN",
    what="Looks up the installed torch_npu against the active CANN toolkit in the compatibility matrix.",
    why=("torch_npu calls CANN's runtime and operator APIs of one release; with another CANN it fails at "
         "init (ERR00100, 500001) or on the first operator."),
    fix="Install the torch_npu release built for your CANN, or the CANN that torch_npu was built for.",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    py = ctx.facts.python_env
    torch_npu = py.package("torch-npu")
    stack = ctx.facts.stack
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {})
    if not torch_npu or toolkit is None or not toolkit.version:
        raise NotApplicable(_("needs torch_npu and a CANN toolkit (see ASC-PY-001, ASC-CANN-001)"))
    verdict = ctx.matrix.torch_npu_vs_cann(torch_npu, toolkit.version)
    subject = _("torch_npu {torch_npu} with CANN {cann}").format(torch_npu=torch_npu, cann=toolkit.version)
    yield _with_pair(ctx, verdict_finding(verdict, subject, pip_pair_hint(ctx)))


def _with_pair(ctx: CheckContext, finding: Finding) -> Finding:
    action = pip_pair_action(ctx) if finding.status.value in ("FAIL", "WARN") else None
    return finding.with_actions(action) if action is not None else finding
