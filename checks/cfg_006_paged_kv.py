"""ASC-CFG-006: the paged KV cache is enabled (seed 003 §5.3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._serving import edit, usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

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
    findings = judge(usable_config(ctx))
    if not findings:
        raise NotApplicable("the configuration has no enable_paged_kvcache setting")
    yield from findings


def judge(cfg: ServingConfig) -> List[Finding]:
    """The seed-style config keeps the paged KV cache on (seed 003 §5.3)."""
    if not cfg.is_simple:
        return []
    out: List[Finding] = []
    for model in cfg.models:
        if model.paged_kv is False:
            out.append(Finding.warn(
                f"{model.where}: enable_paged_kvcache is false: the KV cache is allocated statically and long "
                "prompts (> 2048 tokens) slow down sharply (seed 003 §5.3)",
                edit(cfg, f"set enable_paged_kvcache: true in {model.where}")).scoped(model.where))
        elif model.paged_kv:
            out.append(Finding.passed(f"{model.where}: paged KV cache enabled"))
    return out
