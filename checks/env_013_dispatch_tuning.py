"""ASC-ENV-013: operator dispatch tuning, TASK_QUEUE_ENABLE and CPU_AFFINITY_CONF (recommendation)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._recommend import environment, followed, recommend, serving_engines

SOURCES = (
    "vllm-ascend docs developer_guide/performance_and_debug/optimization_and_tuning.md, section 3 "
    "(TASK_QUEUE_ENABLE=2, CPU_AFFINITY_CONF=1)",
    "Ascend/msit ms_performance_prechecker default_config.yaml (TASK_QUEUE_ENABLE 2, CPU_AFFINITY_CONF 2)",
)

CHECK = CheckSpec(
    id="ASC-ENV-013",
    title="TASK_QUEUE_ENABLE and CPU_AFFINITY_CONF set (recommendation)",
    what=("When MindIE or vLLM-Ascend is installed, reads TASK_QUEUE_ENABLE (recommended 2) and "
          "CPU_AFFINITY_CONF (recommended 1 or 2). Never FAILs."),
    why=("DeepSeek decode is often host-bound: the level-2 task queue pipelines operator dispatch and CPU affinity "
         "binds each rank's dispatch threads to cores near its NPU. The queue raises peak NPU memory a little, "
         "so tight-memory deployments may choose otherwise. Sources: " + "; ".join(SOURCES)),
    fix="export TASK_QUEUE_ENABLE=2 CPU_AFFINITY_CONF=1",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    serving_engines(ctx)
    env = environment(ctx)
    queue = env.get("TASK_QUEUE_ENABLE", "")
    if queue.strip() == "2":
        yield followed("TASK_QUEUE_ENABLE", queue, SOURCES)
    else:
        yield recommend("TASK_QUEUE_ENABLE", "2", queue, _("level-2 pipelined operator dispatch"), SOURCES)
    affinity = env.get("CPU_AFFINITY_CONF", "")
    if affinity.strip() in ("1", "2"):
        yield followed("CPU_AFFINITY_CONF", affinity, SOURCES)
    else:
        yield recommend("CPU_AFFINITY_CONF", "1", affinity, _("binds each rank's dispatch threads to nearby cores"),
                        SOURCES)
