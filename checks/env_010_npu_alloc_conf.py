"""ASC-ENV-010: PYTORCH_NPU_ALLOC_CONF enables expandable segments (recommendation)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._recommend import environment, followed, recommend, serving_engines

SOURCES = (
    "vllm-ascend docs/source/faqs.md Q12 (NPU out of memory: PYTORCH_NPU_ALLOC_CONF=expandable_segments:True)",
    "vllm-ascend docs developer_guide/performance_and_debug/optimization_and_tuning.md, section 3",
    "Ascend/msit ms_performance_prechecker default_config.yaml (MindIE DeepSeek template)",
)

CHECK = CheckSpec(
    id="ASC-ENV-010",
    title="PYTORCH_NPU_ALLOC_CONF=expandable_segments:True (recommendation)",
    what=("When MindIE or vLLM-Ascend is installed, reads PYTORCH_NPU_ALLOC_CONF; recommends "
          "expandable_segments:True. Never FAILs."),
    why=("torch_npu's caching allocator fragments HBM over a long DeepSeek run; expandable segments (virtual "
         "memory) let blocks grow instead, the documented first answer to 'NPU out of memory' with memory still "
         "free. Sources: " + "; ".join(SOURCES)),
    fix="export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True (in the engine's environment).",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    serving_engines(ctx)
    current = environment(ctx).get("PYTORCH_NPU_ALLOC_CONF", "")
    if "expandable_segments:true" in current.replace(" ", "").lower():
        yield followed("PYTORCH_NPU_ALLOC_CONF", current, SOURCES[:1])
        return
    if "max_split_size_mb" in current:
        yield Finding.passed(_("PYTORCH_NPU_ALLOC_CONF={value}: a documented alternative (max_split_size_mb, "
                               "optimization_and_tuning.md section 3); expandable_segments:True is the FAQ's answer to "
                               "fragmentation OOMs").format(value=current), variable="PYTORCH_NPU_ALLOC_CONF")
        return
    yield recommend("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True", current,
                    _("limits HBM fragmentation, the common cause of 'NPU out of memory' with memory still free"),
                    SOURCES)
