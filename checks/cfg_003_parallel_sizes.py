"""ASC-CFG-003: worldSize matches the NPUs listed, and the parallel sizes multiply to it."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

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
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_parallel, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    findings = findings_parallel(config)
    if not findings:
        raise NotApplicable("no parallel sizes to compare")
    yield from findings
