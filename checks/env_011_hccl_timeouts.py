"""ASC-ENV-011: HCCL timeouts long enough for a DeepSeek start-up (recommendation)."""

from __future__ import annotations

from typing import Iterator, Optional

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding
from ascend_doctor.i18n import _

from ._recommend import environment, followed, recommend, serving_engines

CONNECT_DEFAULT_S = 120  # EI0006 message: "greater than the connect timeout interval (120s by default)"
EXEC_DEFAULT_S = 1800  # EI0002 message: "(default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)"
# On Atlas A2 the default is 1836 s (advice review row 26, after the msit prechecker's HCCL template).
EXEC_DEFAULT_A2_S = 1836
CONNECT_RECOMMENDED = 1800
EXEC_RECOMMENDED = 3600
SOURCES = (
    "gitcode Ascend/MindSpeed-RL configs/envs/runtime_env.yaml (HCCL_CONNECT_TIMEOUT 1800, HCCL_EXEC_TIMEOUT 3600)",
    "HCCL EI0006 'Getting socket times out' message: connect timeout 120 s by default "
    "(https://github.com/vllm-project/vllm-ascend/issues/486)",
    "HCCL_EXEC_TIMEOUT: https://www.hiascend.com/document/detail/zh/canncommercial/850/commlib/hcclug/hcclug_000074.html",
)

CHECK = CheckSpec(
    id="ASC-ENV-011",
    title="HCCL connect/exec timeouts (recommendation)",
    what=("When MindIE or vLLM-Ascend is installed, reads HCCL_CONNECT_TIMEOUT and HCCL_EXEC_TIMEOUT; recommends "
          f"at least {CONNECT_RECOMMENDED} s and {EXEC_RECOMMENDED} s. Never FAILs."),
    why=(f"HCCL gives ranks {CONNECT_DEFAULT_S} s to connect. A multi-node DeepSeek deployment starts ranks that "
         "reach the first collective minutes apart (weights of hundreds of GB load at different speeds), and "
         "then fails with EI0006 'Getting socket times out'; a long first graph compilation can exceed the "
         f"{EXEC_DEFAULT_S} s execution timeout (EI0002 / 507048). Sources: " + "; ".join(SOURCES)),
    fix=f"export HCCL_CONNECT_TIMEOUT={CONNECT_RECOMMENDED} HCCL_EXEC_TIMEOUT={EXEC_RECOMMENDED} (on every node).",
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


def run(ctx: CheckContext) -> Iterator[Finding]:
    serving_engines(ctx)
    env = environment(ctx)
    from ascend_doctor.facts import Facts

    chip = ctx.facts.maybe(Facts.npu_chip)
    exec_default = EXEC_DEFAULT_A2_S if chip is not None and chip.family == "A2" else EXEC_DEFAULT_S
    for variable, default, wanted in (("HCCL_CONNECT_TIMEOUT", CONNECT_DEFAULT_S, CONNECT_RECOMMENDED),
                                      ("HCCL_EXEC_TIMEOUT", exec_default, EXEC_RECOMMENDED)):
        current = env.get(variable, "")
        value = _seconds(current) if current else default
        if value is not None and value >= wanted:
            yield followed(variable, current, SOURCES[:1])
            continue
        why = _why(variable, value if value is not None else current, default=not current)
        yield recommend(variable, str(wanted), current, why, SOURCES)
