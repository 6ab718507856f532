"""ASC-ENV-012: HCCL_OP_EXPANSION_MODE=AIV for DeepSeek serving (recommendation, engine-aware)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import unset

from ._context import HostCheckContext
from ._hccl_modes import (
    AIV_EXEC_TIMEOUT_CAP_S,
    AIV_FAMILIES,
    EXEC_TIMEOUT_SOURCE,
    EXPANSION_SOURCE,
    PRODUCT_NAMES,
    aiv_supported,
    chip_family,
    mindie_aiv_crash,
)
from ._recommend import environment, followed, recommend, serving_engines

SOURCES = (
    "vllm-ascend docs developer_guide/performance_and_debug/optimization_and_tuning.md, section 4.1 "
    "(export HCCL_OP_EXPANSION_MODE=\"AIV\")",
    "Ascend/msit msprechecker presets (mindie.cmate: deepseek -> HCCL_OP_EXPANSION_MODE == 'AIV')",
    "Ascend/msit ms_performance_prechecker default_config.yaml (not for MindIE 2.0.T3, 2.0.T3.1, 2.0.T6: crash risk)",
    EXPANSION_SOURCE + ": AIV on Atlas A2/A3; AI_CPU or HOST only on Atlas 300I Duo",
    EXEC_TIMEOUT_SOURCE + f": HCCL_EXEC_TIMEOUT at most {AIV_EXEC_TIMEOUT_CAP_S} s in AIV mode",
)

CHECK = CheckSpec(
    id="ASC-ENV-012",
    title="HCCL_OP_EXPANSION_MODE=AIV (recommendation)",
    what=("When MindIE or vLLM-Ascend is installed on Atlas A2/A3, reads HCCL_OP_EXPANSION_MODE and recommends AIV "
          "-- except with MindIE 2.0.T3 / 2.0.T3.1 / 2.0.T6, where the msit template warns it crashes. Other products "
          "(Atlas 300I Duo: AI_CPU/HOST only) get no AIV advice. Never FAILs."),
    why=("In AIV mode collective communication is scheduled by the AI Vector cores instead of the AI CPU, which "
         "the DeepSeek MoE all-to-all traffic benefits from; HCCL_EXEC_TIMEOUT is then capped at "
         f"{AIV_EXEC_TIMEOUT_CAP_S} s. An unsupported mode falls back to the default. Sources: " + "; ".join(SOURCES)),
    fix=("export HCCL_OP_EXPANSION_MODE=AIV on Atlas A2/A3 (but unset it for MindIE 2.0.T3, 2.0.T3.1 and 2.0.T6, and "
         "on other products)."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    serving_engines(ctx)
    current = environment(ctx).get("HCCL_OP_EXPANSION_MODE", "")
    engines = ctx.facts.engines
    mindie = engines.mindie_on_disk or ""
    if mindie_aiv_crash(mindie):
        if current.upper() == "AIV":
            yield Finding.warn(
                _("recommendation: HCCL_OP_EXPANSION_MODE=AIV with MindIE {mindie}, for which the msit prechecker "
                  "template says not to set it ('使能 AIV 会有崩溃风险', crash risk) (source: {source})").format(
                      mindie=mindie, source=SOURCES[2]),
                unset("HCCL_OP_EXPANSION_MODE") + "   # " + _("or upgrade MindIE"), variable="HCCL_OP_EXPANSION_MODE",
                mindie=mindie)
        else:
            yield Finding.passed(_("HCCL_OP_EXPANSION_MODE not AIV, as advised for MindIE {mindie} ({source})").format(
                mindie=mindie, source=SOURCES[2]))
        return
    family = chip_family(ctx)
    supported = aiv_supported(family)
    if supported is False:
        product = PRODUCT_NAMES.get(family or "", family or "")
        if current.strip().upper() == "AIV":
            yield Finding.info(
                _("HCCL_OP_EXPANSION_MODE=AIV is not supported on {product}: HCCL falls back to its default mode, so "
                  "the setting does nothing (AIV is for Atlas A2/A3; source: {source})").format(
                      product=product, source=EXPANSION_SOURCE),
                unset("HCCL_OP_EXPANSION_MODE") + "   # " + _("AIV applies to Atlas A2/A3 only"),
                variable="HCCL_OP_EXPANSION_MODE", current=current, family=family, aiv_families=list(AIV_FAMILIES))
        else:
            yield Finding.passed(
                _("no AIV advice on {product}: HCCL_OP_EXPANSION_MODE=AIV is for Atlas A2/A3 (source: {source})"
                  ).format(product=product, source=EXPANSION_SOURCE),
                variable="HCCL_OP_EXPANSION_MODE", family=family, aiv_families=list(AIV_FAMILIES))
        return
    if current.upper() == "AIV":
        yield followed("HCCL_OP_EXPANSION_MODE", current, SOURCES[:2])
        return
    why = _("communication scheduled on the AI Vector cores rather than the AI CPU; in AIV mode HCCL_EXEC_TIMEOUT "
            "is capped at {cap} s").format(cap=AIV_EXEC_TIMEOUT_CAP_S)
    if supported is None:  # the NPU model is not known here: say where the advice applies
        why += " " + _("(Atlas A2/A3 only: the NPU model is not known here)")
    finding = recommend("HCCL_OP_EXPANSION_MODE", "AIV", current, why, SOURCES)
    yield Finding(finding.status, finding.message, finding.remediation,
                  dict(finding.evidence, exec_timeout_cap_s=AIV_EXEC_TIMEOUT_CAP_S), finding.scope, finding.actions)
