"""ASC-PY-003: torch_npu was built for the installed CANN."""

from __future__ import annotations

from typing import Any, Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._support import pip_pair_action, pip_pair_hint, verdict_finding

CHECK = CheckSpec(
    id="ASC-PY-003",
    title="torch_npu matches CANN",
    what="Looks up the installed torch_npu against the active CANN toolkit in the compatibility matrix.",
    why=("torch_npu calls CANN's runtime and operator APIs of one release; with another CANN it fails at "
         "init (ERR00100, 500001) or on the first operator."),
    fix="Install the torch_npu release built for your CANN, or the CANN that torch_npu was built for.",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    py = ctx.facts.python_env
    torch_npu = py.package("torch-npu")
    stack = ctx.facts.stack
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {})
    if not torch_npu or toolkit is None or not toolkit.version:
        raise NotApplicable(_("needs torch_npu and a CANN toolkit (see ASC-PY-001, ASC-CANN-001)"))
    subject = _("torch_npu {torch_npu} with CANN {cann}").format(torch_npu=torch_npu, cann=toolkit.version)
    row = _engine_row_naming(ctx, torch_npu, toolkit.version)
    if row is not None:
        # the installed engine's own release row pins exactly this pair: that row is the source, not the
        # torch_npu table (which may not list a dev build at all)
        yield Finding.passed(_("{subject}: the pair of vLLM-Ascend {version}'s release row ({source})").format(
            subject=subject, version=row.version, source="; ".join(row.source)), torch_npu=torch_npu,
            cann=toolkit.version, engine_row=row.version)
        return
    verdict = ctx.matrix.torch_npu_vs_cann(torch_npu, toolkit.version)
    yield _with_pair(ctx, verdict_finding(verdict, subject, pip_pair_hint(ctx)))


def _engine_row_naming(ctx: HostCheckContext, torch_npu: str, cann: str) -> Optional[Any]:
    """The installed vLLM-Ascend's release row when it names this torch_npu and this CANN."""
    engines = ctx.facts.maybe(Facts.engines)
    version = (engines.installed.get("vLLM-Ascend") or {}).get("vllm-ascend") if engines is not None else None
    if not version:
        return None
    from ascend_doctor.matrix.engines import find_vllm_row  # only when vLLM-Ascend is installed
    from ascend_doctor.resolve.provider import same_ascend, same_pypi

    row = find_vllm_row(ctx.matrix, version)
    if row is not None and same_pypi(row.torch_npu, torch_npu) and same_ascend(row.cann, cann):
        return row
    return None


def _with_pair(ctx: HostCheckContext, finding: Finding) -> Finding:
    action = pip_pair_action(ctx) if finding.status.value in ("FAIL", "WARN") else None
    return finding.with_actions(action) if action is not None else finding
