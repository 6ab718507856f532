"""ASC-CFG-006: the paged KV cache is enabled (seed 003 §5.3)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

CHECK = CheckSpec(
    id="ASC-CFG-006",
    title="Paged KV cache is enabled",
    what="Warns when a seed-style `models:` entry sets enable_paged_kvcache: false.",
    why="Without the paged KV cache the cache is allocated statically and prompts over ~2048 tokens decode "
    "markedly slower on Ascend (field report, seed 003 §5.3); paging also reduces HBM fragmentation.",
    fix="Set enable_paged_kvcache: true for every model.",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_paged_kv, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    findings = findings_paged_kv(config)
    if not findings:
        raise NotApplicable("the configuration has no enable_paged_kvcache setting")
    yield from findings
