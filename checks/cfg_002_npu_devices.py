"""ASC-CFG-002: the NPUs the serving configuration uses exist on this host and are idle."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext
from ._serving import edit, id_list, usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

CHECK = CheckSpec(
    id="ASC-CFG-002",
    title="Configured NPUs exist on this host and are not busy",
    what="Compares MindIE BackendConfig.npuDeviceIds (logical chip ids, renumbered by ASCEND_RT_VISIBLE_DEVICES) "
    "or the NPUs a vLLM launch needs (TP x PP x DP) with the chips `npu-smi info` lists, and reports chips that "
    "already run a process.",
    why="An id beyond the host's chips makes MindIE fail at start; a chip held by another job leaves no HBM for the "
    "weights ('NPU out of memory', EL0004).",
    fix="List ids below the host's chip count (`npu-smi info -m` maps logical ids to NPU/chip), free busy chips "
    "(`npu-smi info` shows the pids), or lower the parallel sizes.",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    config = usable_config(ctx)
    host = host_npus_from(ctx.facts.maybe(Facts.npu_smi), _visible(ctx))
    if host is None:
        raise NotApplicable(_("npu-smi lists no NPU on this host, so the configured devices cannot be compared"))
    findings = judge(config, host)
    if not findings:
        raise NotApplicable(_("the configuration names no NPUs"))
    yield from findings


def _visible(ctx: HostCheckContext) -> Optional[Tuple[int, ...]]:
    """ASCEND_RT_VISIBLE_DEVICES renumbers the ids MindIE sees (0 = the first listed chip)."""
    devices = ctx.facts.maybe(Facts.visible_devices)
    ids = getattr(devices, "rt_visible", None)
    return tuple(int(i) for i in ids) if ids else None


class HostNpus:
    """What this check needs from npu-smi: chips in logical order, and who uses them.

    A plain class, not a dataclass: every check module is imported at start-up, and a dataclass
    costs a code generation there.
    """

    __slots__ = ("busy", "chips", "visible")

    def __init__(self, chips: Tuple[Tuple[int, int], ...], busy: Optional[Mapping[int, Tuple[str, ...]]] = None,
                 visible: Optional[Tuple[int, ...]] = None) -> None:
        self.chips = chips  # (npu_id, chip_id) in npu-smi order = logical id order
        self.busy: Mapping[int, Tuple[str, ...]] = busy or {}  # logical id -> "pid 12 (name)"
        self.visible = visible  # ASCEND_RT_VISIBLE_DEVICES, when set

    @property
    def logical_count(self) -> int:
        return len(self.visible) if self.visible is not None else len(self.chips)

    def host_logical(self, logical: int) -> Optional[int]:
        """The host-wide logical id behind a process-visible id."""
        if self.visible is not None:
            return self.visible[logical] if logical < len(self.visible) else None
        return logical if logical < len(self.chips) else None


def host_npus_from(npu_smi: Any, visible: Optional[Sequence[int]] = None) -> Optional[HostNpus]:
    """Build ``HostNpus`` from an ``NpuSmiInfo`` (``.devices`` and ``.processes``)."""
    devices = list(getattr(npu_smi, "devices", None) or [])
    if not devices:
        return None
    chips = tuple(sorted((int(d.npu_id), int(getattr(d, "chip_id", 0) or 0)) for d in devices))
    index = {chip: i for i, chip in enumerate(chips)}
    busy: Dict[int, List[str]] = {}
    for proc in getattr(npu_smi, "processes", None) or []:
        npu = getattr(proc, "npu_id", None)
        chip = getattr(proc, "chip_id", None)
        keys = [k for k in index if k[0] == npu and (chip is None or k[1] == chip)]
        name = getattr(proc, "name", "") or ""
        label = f"pid {getattr(proc, 'pid', '?')}" + (f" ({name})" if name else "")
        for key in keys:
            busy.setdefault(index[key], []).append(label)
    return HostNpus(chips, {k: tuple(v) for k, v in busy.items()}, tuple(visible) if visible is not None else None)


def judge(cfg: ServingConfig, host: Optional[HostNpus]) -> List[Finding]:
    """Whether the NPUs the configuration uses exist on this host and are not busy."""
    out: List[Finding] = []
    if host is None:
        return out
    count = host.logical_count
    visible_note = f" (ASCEND_RT_VISIBLE_DEVICES={','.join(map(str, host.visible))})" if host.visible else ""
    if cfg.is_mindie:
        if cfg.multi_node:
            out.append(Finding.skip(_("multiNodesInferEnabled is true: MindIE takes each node's NPUs from the rank "
                                      "table, not npuDeviceIds")))
            return out
        used: List[int] = []
        for group in cfg.device_ids:
            missing = [i for i in group if i >= count]
            if missing:
                out.append(Finding.fail(
                    _("npuDeviceIds {ids} names NPU {missing}, but this host shows {count} chip(s) (logical ids "
                      "0-{last})").format(ids=id_list(group), missing=id_list(missing), count=count, last=count - 1)
                    + visible_note,
                    edit(cfg, _("list logical ids below {count} in BackendConfig.npuDeviceIds "
                                "(`npu-smi info -m` maps them to NPU/chip)").format(count=count)),
                    npu_device_ids=[list(g) for g in cfg.device_ids], chips=count))
            dupes = sorted({i for i in group if group.count(i) > 1 or i in used})
            if dupes:
                out.append(Finding.fail(_("npuDeviceIds lists NPU {ids} more than once").format(ids=id_list(dupes)),
                                        edit(cfg, _("give every model instance its own NPUs in npuDeviceIds"))))
            used.extend(group)
        ids = sorted(set(used))
    else:
        ids = list(range(min(_needed(cfg), count)))
        out.extend(_too_few(cfg, count, visible_note))
    for logical in ids:
        if logical >= count:
            continue
        host_id = host.host_logical(logical)
        who = host.busy.get(host_id if host_id is not None else -1)
        if who:
            npu, chip = host.chips[host_id] if host_id is not None and host_id < len(host.chips) else (logical, 0)
            out.append(Finding.warn(
                _("NPU {npu} chip {chip} (logical id {logical}) is already in use by {processes}").format(
                    npu=npu, chip=chip, logical=logical, processes=", ".join(who)),
                _("If that is not this service, stop it first (`kill <pid>`; check with `npu-smi info`), or use "
                  "other NPUs."), logical_id=logical).scoped(f"NPU {npu} chip {chip}"))
    if not out and ids:
        if cfg.is_mindie:
            out.append(Finding.passed(_("NPU ids {ids} exist on this host and are idle").format(ids=id_list(ids))))
        else:
            out.append(Finding.passed(_("the {count} NPU(s) this launch needs exist on this host ({chips}) and "
                                        "are idle").format(count=len(ids), chips=count)))
    return out


def _needed(cfg: ServingConfig) -> int:
    """The NPUs a vLLM launch (TP x DP x PP) or a seed-style entry (tp_size x ep_size) asks for."""
    model = cfg.models[0] if cfg.models else None
    if model is None:
        return 0
    if cfg.is_vllm:
        return (model.tp or 1) * (model.dp or 1) * (model.pp or 1)
    return (model.tp or 1) * (model.moe_ep or 1)


def _too_few(cfg: ServingConfig, count: int, visible_note: str) -> List[Finding]:
    needed = _needed(cfg)
    if needed <= count:
        return []
    if cfg.multi_node_hint:
        return [Finding.passed(_("needs {needed} NPUs over several nodes; this node has {count}").format(
            needed=needed, count=count))]
    grade = Finding.fail if cfg.is_vllm else Finding.warn
    return [grade(
        _("{config} needs {needed} NPUs (parallel sizes), this host shows {count}").format(
            config=localized(cfg.label), needed=needed, count=count) + visible_note,
        _("Deploy across nodes (vLLM: --data-parallel-size-local / --headless on the other nodes, or "
          "a Ray cluster), or lower the parallel sizes to fit {count} NPUs.").format(count=count),
        needed=needed, chips=count)]
