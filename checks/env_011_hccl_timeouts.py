"""ASC-ENV-011: HCCL timeouts long enough for a DeepSeek start-up (recommendation)."""

from __future__ import annotations

from typing import Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._hccl_modes import AIV_EXEC_TIMEOUT_CAP_S, EXEC_DEFAULT_S, EXEC_TIMEOUT_SOURCE, EXPANSION_SOURCE, aiv_mode
from ._recommend import environment, followed, recommend, serving_engines

CONNECT_DEFAULT_S = 120  # HCCL_CONNECT_TIMEOUT reference: range [120, 7200], 120 s by default
CONNECT_RECOMMENDED = 1800
EXEC_RECOMMENDED = 3600
SOURCES = (
    "gitcode Ascend/MindSpeed-RL configs/envs/runtime_env.yaml (HCCL_CONNECT_TIMEOUT 1800, HCCL_EXEC_TIMEOUT 3600)",
    "HCCL EI0006 'Getting socket times out' message: connect timeout 120 s by default "
    "(https://github.com/vllm-project/vllm-ascend/issues/486)",
    EXEC_TIMEOUT_SOURCE + ": 1836 s by default on Atlas A2, A3 and 300I Duo; at most 1091 s in AIV mode",
)

CHECK = CheckSpec(
    id="ASC-ENV-011",
    title="HCCL connect/exec timeouts (recommendation)",
    what=("When MindIE or vLLM-Ascend is installed, reads HCCL_CONNECT_TIMEOUT and HCCL_EXEC_TIMEOUT; recommends "
          f"at least {CONNECT_RECOMMENDED} s and {EXEC_RECOMMENDED} s -- but no longer exec timeout where "
          f"HCCL_OP_EXPANSION_MODE=AIV is set or recommended (ASC-ENV-012): AIV caps it at {AIV_EXEC_TIMEOUT_CAP_S} s. "
          "Never FAILs."),
    why=(f"HCCL gives ranks {CONNECT_DEFAULT_S} s to connect. A multi-node DeepSeek deployment starts ranks that "
         "reach the first collective minutes apart (weights of hundreds of GB load at different speeds), and "
         "then fails with EI0006 'Getting socket times out'; a long first graph compilation can exceed the "
         f"{EXEC_DEFAULT_S} s execution timeout (EI0002 / 507048). In AIV mode the execution timeout is at most "
         f"{AIV_EXEC_TIMEOUT_CAP_S} s whatever HCCL_EXEC_TIMEOUT says. Sources: " + "; ".join(SOURCES)),
    fix=(f"export HCCL_CONNECT_TIMEOUT={CONNECT_RECOMMENDED} (on every node); export HCCL_EXEC_TIMEOUT="
         f"{EXEC_RECOMMENDED} only where AIV mode is not used."),
)


def _seconds(text: str) -> Optional[int]:
    text = text.strip()
    return int(text) if text.isdigit() and len(text) < 10 else None


def _why(variable: str, seconds: object, default: bool) -> str:
    """Why the value is short, one sentence per variable and per "the default" or a set value."""
    if variable == "HCCL_CONNECT_TIMEOUT":
        text = (_("the default {seconds} s is short for ranks that load hundreds of GB of weights and reach their "
                  "first collective minutes apart (EI0006 'Getting socket times out')") if default else
                _("{seconds} s is short for ranks that load hundreds of GB of weights and reach their first "
                  "collective minutes apart (EI0006 'Getting socket times out')"))
    else:
        text = (_("the default {seconds} s is short for a first step that waits on graph compilation on the slowest "
                  "rank (EI0002 / 507048)") if default else
                _("{seconds} s is short for a first step that waits on graph compilation on the slowest rank "
                  "(EI0002 / 507048)"))
    return text.format(seconds=seconds)


def _exec_under_aiv(mode: str, current: str) -> Finding:
    """HCCL_EXEC_TIMEOUT where AIV mode is set or recommended: no longer value is recommended."""
    value = _seconds(current) if current else None
    evidence = {"variable": "HCCL_EXEC_TIMEOUT", "current": current or None, "aiv_mode": mode,
                "cap_s": AIV_EXEC_TIMEOUT_CAP_S, "sources": [EXEC_TIMEOUT_SOURCE, EXPANSION_SOURCE]}
    if current and (value is None or value == 0 or value > AIV_EXEC_TIMEOUT_CAP_S):
        # Nothing to change: the value is harmless, only its effect is not what it says.
        return Finding.passed(
            _("HCCL_EXEC_TIMEOUT={current}, but with HCCL_OP_EXPANSION_MODE=AIV ({mode}) 0 and any value above {cap} s "
              "are treated as {cap} s: the effective exec timeout is {cap} s (source: {source})").format(
                  current=current, mode=mode, cap=AIV_EXEC_TIMEOUT_CAP_S, source=EXEC_TIMEOUT_SOURCE),
            effective_s=AIV_EXEC_TIMEOUT_CAP_S, **evidence)
    return Finding.passed(
        _("HCCL_EXEC_TIMEOUT: with HCCL_OP_EXPANSION_MODE=AIV ({mode}) the exec timeout is capped at {cap} s, so no "
          "longer value is recommended (source: {source})").format(
              mode=mode, cap=AIV_EXEC_TIMEOUT_CAP_S, source=EXEC_TIMEOUT_SOURCE), **evidence)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    serving_engines(ctx)
    env = environment(ctx)
    aiv = aiv_mode(ctx, env)
    for variable, default, wanted in (("HCCL_CONNECT_TIMEOUT", CONNECT_DEFAULT_S, CONNECT_RECOMMENDED),
                                      ("HCCL_EXEC_TIMEOUT", EXEC_DEFAULT_S, EXEC_RECOMMENDED)):
        current = env.get(variable, "")
        if variable == "HCCL_EXEC_TIMEOUT" and aiv:
            yield _exec_under_aiv(aiv, current)
            continue
        value = _seconds(current) if current else default
        if value is not None and value >= wanted:
            yield followed(variable, current or str(default), SOURCES[:1])
            continue
        why = _why(variable, value if value is not None else current, default=not current)
        finding = recommend(variable, str(wanted), current, why, SOURCES)
        yield Finding(finding.status, finding.message, finding.remediation,
                      dict(finding.evidence, default_s=default), finding.scope, finding.actions)
