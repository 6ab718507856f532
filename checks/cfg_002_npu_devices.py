"""ASC-CFG-002: the NPUs the serving configuration uses exist on this host and are idle."""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

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


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_devices, host_npus_from, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    host = host_npus_from(ctx.facts.try_get("npu_smi"), _visible(ctx))
    if host is None:
        raise NotApplicable("npu-smi lists no NPU on this host, so the configured devices cannot be compared")
    findings = findings_devices(config, host)
    if not findings:
        raise NotApplicable("the configuration names no NPUs")
    yield from findings


def _visible(ctx: CheckContext) -> Optional[Tuple[int, ...]]:
    """ASCEND_RT_VISIBLE_DEVICES renumbers the ids MindIE sees (0 = the first listed chip)."""
    devices = ctx.facts.try_get("visible_devices")
    ids = getattr(devices, "rt_visible", None)
    return tuple(int(i) for i in ids) if ids else None
