"""ASC-ENV-012: HCCL_OP_EXPANSION_MODE=AIV for DeepSeek serving (recommendation, engine-aware)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding
from ascend_doctor.i18n import _

from ._recommend import environment, followed, recommend, serving_engines

# MindIE versions for which the msit prechecker template says NOT to set AIV ("使能 AIV 会有崩溃风险").
MINDIE_AIV_CRASH = ("2.0.T3", "2.0.T3.1", "2.0.T6")
SOURCES = (
    "vllm-ascend docs developer_guide/performance_and_debug/optimization_and_tuning.md, section 4.1 "
    "(export HCCL_OP_EXPANSION_MODE=\"AIV\")",
    "Ascend/msit msprechecker presets (mindie.cmate: deepseek -> HCCL_OP_EXPANSION_MODE == 'AIV')",
    "Ascend/msit ms_performance_prechecker default_config.yaml (not for MindIE 2.0.T3, 2.0.T3.1, 2.0.T6: crash risk)",
)

CHECK = CheckSpec(
    id="ASC-ENV-012",
    title="HCCL_OP_EXPANSION_MODE=AIV (recommendation)",
    what=("When MindIE or vLLM-Ascend is installed, reads HCCL_OP_EXPANSION_MODE and recommends AIV -- except "
          "with MindIE 2.0.T3 / 2.0.T3.1 / 2.0.T6, where the msit template warns it crashes. Never FAILs."),
    why=("In AIV mode collective communication is scheduled by the AI Vector cores instead of the AI CPU, which "
         "the DeepSeek MoE all-to-all traffic benefits from. Sources: " + "; ".join(SOURCES)),
    fix="export HCCL_OP_EXPANSION_MODE=AIV (but unset it for MindIE 2.0.T3, 2.0.T3.1 and 2.0.T6).",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    serving_engines(ctx)
    current = environment(ctx).get("HCCL_OP_EXPANSION_MODE", "")
    engines = ctx.facts.engines
    mindie = engines.mindie_on_disk or ""
    if mindie and any(mindie == v or mindie.startswith(v + ".B") for v in MINDIE_AIV_CRASH):
        if current.upper() == "AIV":
            yield Finding.warn(
                _("recommendation: HCCL_OP_EXPANSION_MODE=AIV with MindIE {mindie}, for which the msit prechecker "
                  "template says not to set it ('使能 AIV 会有崩溃风险', crash risk) (source: {source})").format(
                      mindie=mindie, source=SOURCES[2]),
                "unset HCCL_OP_EXPANSION_MODE   # " + _("or upgrade MindIE"), variable="HCCL_OP_EXPANSION_MODE",
                mindie=mindie)
        else:
            yield Finding.passed(_("HCCL_OP_EXPANSION_MODE not AIV, as advised for MindIE {mindie} ({source})").format(
                mindie=mindie, source=SOURCES[2]))
        return
    if current.upper() == "AIV":
        yield followed("HCCL_OP_EXPANSION_MODE", current, SOURCES[:2])
        return
    yield recommend("HCCL_OP_EXPANSION_MODE", "AIV", current,
                    _("communication scheduled on the AI Vector cores rather than the AI CPU"), SOURCES)
