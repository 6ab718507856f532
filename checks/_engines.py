"""What the installed serving engines require of the stack (not a check: the registry skips ``_``).

The engines pin their CANN release (MindIE "must be used with" its CANN; a vLLM-Ascend release is
built against one); when a component disagrees with the toolkit, the engine's CANN decides which
side the fix moves, so NNAL-001 and ENG-002 never pull the stack two ways (advice review row 13).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

from ascend_doctor.checkapi import FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import package_command


def engine_canns(ctx: HostCheckContext) -> List[Tuple[str, str]]:
    """(engine label, the CANN release it pins) for every installed engine the matrix knows."""
    from ascend_doctor.matrix.engines import find_mindie_row, find_vllm_row

    out: List[Tuple[str, str]] = []
    if not hasattr(ctx.matrix, "mindie_rows"):  # no matrix (unit tests) or an old one: no engine pins known
        return out
    py = ctx.facts.maybe(Facts.python_env)
    vllm_ascend = py.package("vllm-ascend") if py is not None else None
    if vllm_ascend:
        row = find_vllm_row(ctx.matrix, vllm_ascend)
        if row is not None and row.cann:
            out.append((f"vLLM-Ascend {vllm_ascend}", row.cann))
    mindie = ctx.facts.maybe(Facts.mindie)
    version: Optional[str] = getattr(mindie, "version", None)
    if version:
        mrow = find_mindie_row(ctx.matrix, version)
        if mrow is not None and mrow.cann:
            out.append((f"MindIE {version}", mrow.cann))
    return out


def cann_upgrade_action(ctx: HostCheckContext, cann: str, engine: str) -> FixAction:
    """Toolkit, then kernels/ops, then NNAL of one CANN release, in install order (on the host or in the image),
    for ``engine`` (its label and version: "MindIE 2.1.RC1")."""
    commands: List[str] = []
    for kind in ("toolkit", "kernels", "nnal"):
        line = package_command(ctx, kind, cann)
        commands.extend(x for x in line.split("\n") if x)
    commands.append("source /usr/local/Ascend/ascend-toolkit/set_env.sh")
    return FixAction("cann", _("Install CANN {cann} (toolkit, kernels/ops, NNAL) for {engine}").format(
        cann=cann, engine=engine), tuple(commands), where="either", target=cann, direction="upgrade",
        subject="toolkit", accepts=(cann,))
