"""What a serving configuration implies for the memory plan: the card count, parallel sizes,
sequence length, batch and memory reserve, with each engine's documented defaults filled in.

Arithmetic over a parsed ``ServingConfig`` (``ascend_doctor.parsers.serving_config``); the plan
itself is ``ascend_doctor.model.plan`` and ASC-MDL-020 judges it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig


class PlanInputs(Struct, frozen=True):
    """What a serving configuration implies for the memory plan (None: not set, use defaults)."""

    cards: Optional[int] = None
    tp: Optional[int] = None
    dp: Optional[int] = None
    ep: Optional[int] = None
    moe_tp: Optional[int] = None
    precision: Optional[str] = None
    max_seq_len: int = 4096
    batch: int = 1
    kv_dtype: Optional[str] = None
    kv_budget_gib: Optional[int] = None
    reserve_fraction: Optional[float] = None
    include_mtp: bool = False
    ascend_quantization: bool = False  # vLLM --quantization ascend: msmodelslim weights, type from the weights
    notes: Tuple[str, ...] = ()


# MindIE's NPU_MEMORY_FRACTION defaults to 0.8 (service_parameter_configuration.md, npuMemSize).
MINDIE_DEFAULT_MEMORY_FRACTION = 0.8
MINDIE_DEFAULT_MAX_SEQ_LEN = 2560
MINDIE_DEFAULT_MAX_BATCH = 200  # ScheduleConfig.maxBatchSize when absent


def plan_inputs(config: Optional[ServingConfig], max_position_embeddings: Optional[int] = None) -> PlanInputs:
    """Read the parallel sizes, lengths, batch and memory settings a memory plan needs."""
    if config is None or config.error or not config.models:
        return PlanInputs(notes=(Text(N_("no serving configuration: planned for one 4096-token sequence over every "
                                         "NPU of this host")),))
    model = config.models[0]
    notes: List[str] = []  # Text: English in the JSON, translated where shown
    if len(config.models) > 1:
        notes.append(Text(N_("{count} models configured: planned for the first ({model})"),
                          count=len(config.models), model=model.where))
    if config.is_mindie:
        world = model.world_size if not config.multi_node else None
        if config.multi_node:
            world = model.parallel_world
        if world is None and config.device_ids:
            world = len(config.device_ids[0])
        seq = config.max_seq_len or MINDIE_DEFAULT_MAX_SEQ_LEN
        batch = config.max_batch_size or MINDIE_DEFAULT_MAX_BATCH
        return PlanInputs(
            cards=world, tp=model.tp, dp=model.dp, ep=model.moe_ep, moe_tp=model.moe_tp,
            precision=model.precision, max_seq_len=seq, batch=batch, kv_budget_gib=model.npu_mem_size_gb,
            reserve_fraction=1 - MINDIE_DEFAULT_MEMORY_FRACTION, include_mtp=model.mtp, notes=tuple(notes),
        )
    if config.is_simple:
        tp = model.tp or 1
        cards = tp * (model.moe_ep or 1)  # the seed reads tp_size x ep_size as the card count
        return PlanInputs(
            cards=cards, tp=tp, ep=model.moe_ep, precision=model.precision,
            max_seq_len=model.max_seq_len or 4096, batch=model.max_batch_size or 1, kv_dtype=model.kv_dtype,
            notes=tuple(notes),
        )
    tp, dp, pp = model.tp or 1, model.dp or 1, model.pp or 1
    if pp > 1:
        notes.append(Text(N_("pipeline parallel {pp} is counted as extra tensor parallelism (same weights per card; "
                             "the KV estimate is rough)"), pp=pp))
    cards = tp * dp * pp
    seq = config.max_seq_len or max_position_embeddings or 4096
    if not config.max_seq_len:
        notes.append(Text(N_("no --max-model-len: vLLM uses the model's maximum ({tokens} tokens)"), tokens=seq))
    if not config.max_batch_size:
        notes.append(Text(N_("no --max-num-seqs: planned for one full-length sequence")))
    util = config.gpu_memory_utilization
    return PlanInputs(
        cards=cards, tp=tp * pp, dp=dp, ep=cards if model.enable_expert_parallel else None,
        precision=model.precision, max_seq_len=seq, batch=config.max_batch_size or 1, kv_dtype=model.kv_dtype,
        reserve_fraction=(1 - util) if util else None, include_mtp=model.mtp,
        ascend_quantization=model.quantization == "ascend", notes=tuple(notes),
    )
