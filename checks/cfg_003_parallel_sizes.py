"""ASC-CFG-003: worldSize matches the NPUs listed, and the parallel sizes multiply to it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._serving import MINDIE_DOC, edit, id_list, usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

CHECK = CheckSpec(
    id="ASC-CFG-003",
    title="worldSize and parallel sizes are consistent",
    what="MindIE: ModelConfig worldSize equals the number of ids in npuDeviceIds; tp x dp and moe_ep x moe_tp "
    "equal the world size (across nodes when multiNodesInferEnabled); each size divides it; one npuDeviceIds "
    "group per model instance.",
    why="MindIE documents that worldSize must equal the NPUs used; mismatched parallel sizes stop the engine at "
    "start-up or leave NPUs idle.",
    fix="Set worldSize to the number of NPU ids listed and choose tp, dp, moe_ep, moe_tp whose products equal it, "
    "e.g. worldSize 16 with tp 8, dp 2, moe_ep 16, moe_tp 1.",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    findings = judge(usable_config(ctx))
    if not findings:
        raise NotApplicable("no parallel sizes to compare")
    yield from findings


def judge(cfg: ServingConfig) -> List[Finding]:
    """worldSize matches the NPUs listed; the parallel sizes multiply to the world size."""
    out: List[Finding] = []
    if cfg.is_mindie:
        out.extend(_mindie(cfg))
    elif cfg.is_simple:
        for model in cfg.models:
            if model.tp and model.moe_ep:
                out.append(Finding.passed(f"{model.where}: tp_size x ep_size = {model.tp} x {model.moe_ep} = "
                                          f"{model.tp * model.moe_ep} NPUs"))
    if not out and cfg.models:
        sizes = []
        for model in cfg.models:
            parts = [f"{k}={v}" for k, v in (("worldSize", model.world_size), ("tp", model.tp), ("dp", model.dp),
                                             ("pp", model.pp), ("moe_ep", model.moe_ep), ("moe_tp", model.moe_tp))
                     if v]
            sizes.append(f"{model.where}: " + (", ".join(parts) or "defaults"))
        out.append(Finding.passed("parallel sizes are consistent (" + "; ".join(sizes) + ")"))
    return out


def _mindie(cfg: ServingConfig) -> List[Finding]:
    out: List[Finding] = []
    groups = cfg.device_ids
    if cfg.model_instances is not None and groups and cfg.model_instances != len(groups) and not cfg.multi_node:
        out.append(Finding.warn(
            f"modelInstanceNumber is {cfg.model_instances} but npuDeviceIds has {len(groups)} group(s)",
            edit(cfg, f"give one npuDeviceIds list per instance, or set modelInstanceNumber to {len(groups)}"),
            doc=MINDIE_DOC))
    for model in cfg.models:
        world: Optional[int] = model.world_size
        label = model.where
        if not cfg.multi_node and groups:
            listed = len(groups[0])
            if world is not None and world != listed:
                out.append(Finding.fail(
                    f"{label}.worldSize is {world} but npuDeviceIds {id_list(groups[0])} lists {listed} NPU(s); "
                    "MindIE requires them to be equal",
                    edit(cfg, f"set {label}.worldSize to {listed}, or list {world} NPU ids in npuDeviceIds"),
                    doc=MINDIE_DOC))
            world = world or listed
        if cfg.multi_node:
            world = None  # worldSize is taken from the rank table across nodes
        dense_world = model.tp * model.dp if model.tp and model.dp else None
        moe_world = model.moe_ep * model.moe_tp if model.moe_ep and model.moe_tp else None
        if world and dense_world and dense_world != world:
            out.append(Finding.fail(
                f"{label}: tp x dp = {model.tp} x {model.dp} = {dense_world}, but the world size is {world}",
                edit(cfg, f"make tp x dp equal {world} in {label}")))
        if world and moe_world and moe_world != world:
            out.append(Finding.fail(
                f"{label}: moe_ep x moe_tp = {model.moe_ep} x {model.moe_tp} = {moe_world}, but the world size "
                f"is {world}",
                edit(cfg, f"make moe_ep x moe_tp equal {world} in {label}")))
        if dense_world and moe_world and dense_world != moe_world and not world:
            out.append(Finding.fail(
                f"{label}: tp x dp = {dense_world} but moe_ep x moe_tp = {moe_world}; both must equal the "
                "number of NPUs across the nodes",
                edit(cfg, f"make tp x dp and moe_ep x moe_tp multiply to the same card count in {label}")))
        for size_name, size in (("tp", model.tp), ("moe_ep", model.moe_ep), ("dp", model.dp)):
            if world and size and world % size:
                out.append(Finding.fail(f"{label}.{size_name} = {size} does not divide the world size {world}",
                                        edit(cfg, f"choose {size_name} dividing {world}")))
    return out
