"""What HCCL's own reference says about the exec timeout and the expansion mode, per product.

Shared by ASC-ENV-011 (timeouts) and ASC-ENV-012 (HCCL_OP_EXPANSION_MODE), so that the two never
recommend settings that cancel each other out: in AIV mode HCCL_EXEC_TIMEOUT is capped at 1091 s,
so a longer timeout recommended next to AIV does nothing (advice review 2, P6).
"""

from __future__ import annotations

from typing import Dict, Optional

from ascend_doctor.facts import Facts

from ._context import HostCheckContext

# HCCL_EXEC_TIMEOUT: 1836 s by default on Atlas A2, Atlas A3, the Atlas training series and the
# Atlas 300I Duo; in AIV mode the range is [0, 1091] and 0 or anything larger is treated as 1091.
EXEC_TIMEOUT_SOURCE = ("https://www.hiascend.com/document/detail/zh/canncommercial/850/commlib/hcclug/"
                       "hcclug_000074.html (HCCL_EXEC_TIMEOUT)")
EXEC_DEFAULT_S = 1836
AIV_EXEC_TIMEOUT_CAP_S = 1091
# HCCL_OP_EXPANSION_MODE: Atlas 300I Duo supports AI_CPU and HOST only; AIV is listed for Atlas A2
# (and, in the exec-timeout reference above, for Atlas A3); an unsupported value falls back to the default.
EXPANSION_SOURCE = ("https://www.hiascend.com/document/detail/zh/canncommercial/82RC1/maintenref/envvar/"
                    "envref_07_0096.html (HCCL_OP_EXPANSION_MODE)")
AIV_FAMILIES = ("A2", "A3")
# Product names for the messages, by chip family (npu-smi's chip -> the matrix's family).
PRODUCT_NAMES: Dict[str, str] = {"310P": "Atlas 300I Duo / 300I Pro (310P)", "910": "Atlas training series (910)",
                                 "950": "Ascend 950"}

# MindIE versions for which the msit prechecker template says NOT to set AIV ("使能 AIV 会有崩溃风险").
MINDIE_AIV_CRASH = ("2.0.T3", "2.0.T3.1", "2.0.T6")


def chip_family(ctx: HostCheckContext) -> Optional[str]:
    chip = ctx.facts.maybe(Facts.npu_chip)
    return getattr(chip, "family", None)


def aiv_supported(family: Optional[str]) -> Optional[bool]:
    """True on A2/A3, False on another known family, None when the chip is not known."""
    if not family:
        return None
    return family in AIV_FAMILIES


def mindie_aiv_crash(mindie: str) -> bool:
    return bool(mindie) and any(mindie == v or mindie.startswith(v + ".B") for v in MINDIE_AIV_CRASH)


def aiv_mode(ctx: HostCheckContext, env: Dict[str, str]) -> str:
    """"set" when HCCL_OP_EXPANSION_MODE=AIV is in the environment, "recommended" when ASC-ENV-012
    recommends it here (A2/A3, no MindIE release that crashes with it), "" otherwise."""
    current = env.get("HCCL_OP_EXPANSION_MODE", "").strip().upper()
    if current == "AIV":
        return "set"
    if current:
        return ""
    # An unknown NPU model gets the AIV advice with its condition (ASC-ENV-012), so it counts here too.
    if aiv_supported(chip_family(ctx)) is not False and not mindie_aiv_crash(ctx.facts.engines.mindie_on_disk or ""):
        return "recommended"
    return ""
