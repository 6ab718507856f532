"""What differs between the engines that serve DeepSeek on Ascend, as sourced data: how to tell
them apart from ``/v1/models``, their health endpoints, and the knobs and logs a remediation
points at. Checks read this; they never probe anything themselves.
"""

from __future__ import annotations

from typing import Dict, Iterable, Optional, Tuple

from msgspec import Struct

from ascend_doctor.i18n import N_

VLLM = "vllm"
MINDIE = "mindie"


class HealthEndpoint(Struct, frozen=True):
    path: str
    engine: str
    meaning: str
    source: str


# vLLM's OpenAI server: GET /health answers 200 when the engine is alive and 503 when it is dead
# (vllm-project/vllm, vllm/entrypoints/serve/instrumentator/health.py; older releases have the
# same route in vllm/entrypoints/openai/api_server.py).
VLLM_HEALTH = HealthEndpoint(
    "/health", VLLM, N_("200 engine alive, 503 engine dead or draining"),
    "vllm-project/vllm vllm/entrypoints/serve/instrumentator/health.py")

# MindIE Server: the health routes live on the management port ("managementPort", default 1026,
# on managementIpAddress, default 127.0.0.2), not on the inference port ("port", default 1025):
# hiascend MindIE docs "配置参数说明（服务化）" (mindie_service0285). /v2/health/ready and /health
# answer 200 with an empty body when healthy, another status otherwise (mindie_llm0030,
# mindie_service0064; /health is marked for removal). Some deployments expose both on one port.
MINDIE_HEALTH: Tuple[HealthEndpoint, ...] = (
    HealthEndpoint("/v2/health/ready", MINDIE, N_("200 ready, anything else not ready"),
                   "hiascend.com MindIE LLM mindie_llm0030 (健康检查, /v2/health/ready)"),
    HealthEndpoint("/health", MINDIE, N_("200 healthy, anything else abnormal"),
                   "hiascend.com MindIE Service mindie_service0064 (健康检查, /health)"),
)
MINDIE_MANAGEMENT_PORT = 1026


def guess_engine(owned_by: Iterable[Optional[str]]) -> Optional[str]:
    """vLLM's model cards say owned_by "vllm" (vllm/entrypoints/openai/protocol.py ModelCard);
    MindIE's say "MindIE Server" (hiascend MindIE "列举当前模型列表", mindie_service0074)."""
    for value in owned_by:
        text = (value or "").strip().lower()
        if text == "vllm":
            return VLLM
        if "mindie" in text:
            return MINDIE
    return None


def health_candidates(engine: Optional[str]) -> Tuple[HealthEndpoint, ...]:
    """The health routes to try on the endpoint, most specific first."""
    if engine == VLLM:
        return (VLLM_HEALTH,)
    if engine == MINDIE:
        return MINDIE_HEALTH
    return (VLLM_HEALTH,) + MINDIE_HEALTH[:1]


class EngineHints(Struct, frozen=True):
    """Where to look and what to change, per engine, for the probe's remediations (``N_``-marked:
    checks/_probe.py hints() gives them in the current language)."""

    name: str
    logs: str
    context_limit: str
    concurrency_limit: str
    reasoning_parser: str


HINTS: Dict[str, EngineHints] = {
    VLLM: EngineHints(
        name="vLLM-Ascend",
        logs=N_("the vLLM server's own output (its terminal, `journalctl -u <unit>` or `docker logs <container>`)"),
        context_limit=N_("--max-model-len on the `vllm serve` line"),
        concurrency_limit=N_("--max-num-seqs (requests batched together) on the `vllm serve` line"),
        reasoning_parser=N_("start vLLM with `--reasoning-parser deepseek_r1` (vLLM < 0.10 also needs "
                            "`--enable-reasoning`; docs.vllm.ai Reasoning Outputs)"),
    ),
    MINDIE: EngineHints(
        name="MindIE",
        logs=N_("LogConfig.logPath of MindIE's config.json (default logs/mindservice.log under the "
                "mindie-service directory, e.g. /usr/local/Ascend/mindie/latest/mindie-service/)"),
        context_limit=N_("BackendConfig.ModelDeployConfig.maxSeqLen and maxInputTokenLen in "
                         "mindie-service/conf/config.json"),
        concurrency_limit=N_("BackendConfig.ScheduleConfig.maxBatchSize and ServerConfig.maxLinkNum "
                             "(concurrent requests accepted) in mindie-service/conf/config.json"),
        reasoning_parser=N_("parse the <think>...</think> part of `content` on the client side (seed 003 §3.3: "
                            "\"把 reasoning_content 和 content 分开解析\")"),
    ),
}
GENERIC = EngineHints(
    name=N_("the serving engine"),
    logs=N_("the engine's log (vLLM: its stdout; MindIE: logs/mindservice.log under mindie-service)"),
    context_limit=N_("the engine's context limit (vLLM --max-model-len; MindIE ModelDeployConfig.maxSeqLen)"),
    concurrency_limit=N_("the engine's batch limit (vLLM --max-num-seqs; MindIE ScheduleConfig.maxBatchSize "
                         "and ServerConfig.maxLinkNum)"),
    reasoning_parser=N_("enable the engine's reasoning parser (vLLM: --reasoning-parser deepseek_r1) or split "
                        "the <think> part on the client side"),
)


def hints(engine: Optional[str]) -> EngineHints:
    return HINTS.get(engine or "", GENERIC)
