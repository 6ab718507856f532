"""ASC-SRV-014: the engine is alive, not just healthy (vLLM /metrics: requests and token counters)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._probe import ProbeCheckContext, hints, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-014",
    title="The engine is alive, not just healthy",
    suite="probe",
    what="Reads vLLM's Prometheus /metrics before and after the first completion: requests running and waiting, "
         "KV-cache usage, and whether vllm:generation_tokens_total moved. A completion that gets no token within "
         "--timeout while /health answers 200 and the token counter stands still with requests running is a hung "
         "engine.",
    why="Engines hung in a collective operation keep answering /health: \"HCCL collective communication "
        "operations can hang indefinitely without crashing the process ... a hung-but-alive EngineCore ... keeps "
        "returning HTTP 200 on /health\" (https://github.com/vllm-project/vllm-ascend/pull/14240).",
    fix="Restart the engine (it does not recover by itself), then look for the hang: the engine's log around the "
        "last generated token, HCCL timeouts (HCCL_EXEC_TIMEOUT), `npu-smi info` for a chip stuck at 100 % AICore.",
)

KV_FULL = 0.95  # ours: the cache is (nearly) full and requests queue behind it


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    metrics = facts.engine_metrics
    if metrics is None:
        raise NotApplicable(facts.not_measured(_("the engine's /metrics")))
    if metrics.status != 200:
        raise NotApplicable(_("{path} answered {status}: the engine exposes no Prometheus metrics there (vLLM does); "
                              "ASC-SRV-004 still needs a real answer within --timeout").format(
                                  path=metrics.path,
                                  status=metrics.status if metrics.status is not None else "nothing"))
    evidence = {"metrics": metrics.to_dict(),
                "health_status": facts.health.answered.status if facts.health and facts.health.answered else None}
    served = bool(facts.deterministic and facts.deterministic.reply.ok)
    healthy = bool(facts.health and facts.health.healthy)
    state = _("running {running}, waiting {waiting}, KV cache {kv}").format(
        running=_n(metrics.running), waiting=_n(metrics.waiting),
        kv="?" if metrics.kv_cache_usage is None else f"{metrics.kv_cache_usage:.0%}")
    moved = metrics.tokens_moved
    if not served and moved is False:
        yield Finding.fail(
            _("hung: no token within --timeout while {health}; /metrics: {state}, generation token counter stood "
              "still over {seconds} s").format(health=_("/health answers 200") if healthy else _("health unknown"),
                                              state=state, seconds=f"{metrics.interval_s:.1f}"),
            _("Restart the engine; before that, keep its log ({logs}) and `npu-smi info` (a chip at 100 % AICore with "
              "no progress is stuck in a collective).").format(logs=hints(facts).logs), **evidence)
        return
    if metrics.kv_cache_usage is not None and metrics.kv_cache_usage >= KV_FULL and (metrics.waiting or 0) > 0:
        yield Finding.warn(_("alive, but the KV cache is full and requests wait: {state}").format(state=state),
                           _("Lower the load or give the cache more room ({limit}; vLLM --gpu-memory-utilization or "
                             "--max-model-len).").format(limit=hints(facts).concurrency_limit), **evidence)
        return
    if moved:
        yield Finding.passed(_("alive: the generation token counter moved while we asked; {state}").format(
            state=state), **evidence)
        return
    yield Finding.info(_("/metrics answered but the token counter did not move ({state})").format(state=state),
                       _("Nothing to do if ASC-SRV-004 passed; otherwise read the engine's log."), **evidence)


def _n(value: object) -> str:
    return "?" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
