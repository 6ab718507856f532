"""ASC-CFG-003: worldSize matches the NPUs listed, and the parallel sizes multiply to it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    findings = judge(usable_config(ctx))
    if not findings:
        raise NotApplicable(_("no parallel sizes to compare"))
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
            sizes.append(f"{model.where}: " + (", ".join(parts) or _("defaults")))
        out.append(Finding.passed(_("parallel sizes are consistent ({sizes})").format(sizes="; ".join(sizes))))
    return out


def _mindie(cfg: ServingConfig) -> List[Finding]:
    out: List[Finding] = []
    groups = cfg.device_ids
    if cfg.model_instances is not None and groups and cfg.model_instances != len(groups) and not cfg.multi_node:
        out.append(Finding.warn(
            _("modelInstanceNumber is {instances} but npuDeviceIds has {groups} group(s)").format(
                instances=cfg.model_instances, groups=len(groups)),
            edit(cfg, _("give one npuDeviceIds list per instance, or set modelInstanceNumber to {groups}").format(
                groups=len(groups))),
            doc=MINDIE_DOC))
    for model in cfg.models:
        world: Optional[int] = model.world_size
        label = model.where
        if not cfg.multi_node and groups:
            listed = len(groups[0])
            if world is not None and world != listed:
                out.append(Finding.fail(
                    _("{model}.worldSize is {world} but npuDeviceIds {ids} lists {listed} NPU(s); "
                      "MindIE requires them to be equal").format(model=label, world=world, ids=id_list(groups[0]),
                                                                 listed=listed),
                    edit(cfg, _("set {model}.worldSize to {listed}, or list {world} NPU ids in npuDeviceIds").format(
                        model=label, listed=listed, world=world)),
                    doc=MINDIE_DOC))
            world = world or listed
        if cfg.multi_node:
            world = None  # worldSize is taken from the rank table across nodes
        dense_world = model.tp * model.dp if model.tp and model.dp else None
        moe_world = model.moe_ep * model.moe_tp if model.moe_ep and model.moe_tp else None
        if world and dense_world and dense_world != world:
            out.append(Finding.fail(
                _("{model}: tp x dp = {tp} x {dp} = {product}, but the world size is {world}").format(
                    model=label, tp=model.tp, dp=model.dp, product=dense_world, world=world),
                edit(cfg, _("make tp x dp equal {world} in {model}").format(world=world, model=label))))
        if world and moe_world and moe_world != world:
            out.append(Finding.fail(
                _("{model}: moe_ep x moe_tp = {ep} x {moe_tp} = {product}, but the world size is {world}").format(
                    model=label, ep=model.moe_ep, moe_tp=model.moe_tp, product=moe_world, world=world),
                edit(cfg, _("make moe_ep x moe_tp equal {world} in {model}").format(world=world, model=label))))
        if dense_world and moe_world and dense_world != moe_world and not world:
            out.append(Finding.fail(
                _("{model}: tp x dp = {dense} but moe_ep x moe_tp = {moe}; both must equal the number of NPUs across "
                  "the nodes").format(model=label, dense=dense_world, moe=moe_world),
                edit(cfg, _("make tp x dp and moe_ep x moe_tp multiply to the same card count in {model}").format(
                    model=label))))
        for size_name, size in (("tp", model.tp), ("moe_ep", model.moe_ep), ("dp", model.dp)):
            if world and size and world % size:
                out.append(Finding.fail(_("{model}.{setting} = {size} does not divide the world size {world}").format(
                                            model=label, setting=size_name, size=size, world=world),
                                        edit(cfg, _("choose {setting} dividing {world}").format(
                                            setting=size_name, world=world))))
    return out
