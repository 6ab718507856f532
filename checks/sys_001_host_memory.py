"""ASC-SYS-001: host memory can stage the weights this host's NPUs will hold; swap is not in use."""

from __future__ import annotations

from typing import Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import GIB, gib

SWAP_IN_USE = 1 * GIB

CHECK = CheckSpec(
    id="ASC-SYS-001",
    title="Host memory sized for loading the weights",
    what=("Sums the HBM of the NPUs in scope (npu-smi) -- the most weight data this host can put on its NPUs -- and "
          "compares host RAM with it: WARN when available memory is below that, FAIL when total memory is below a "
          "quarter of it. Also WARNs when more than 1 GiB of swap is in use."),
    why=("Every rank reads its share of the safetensors shards into host memory before copying it to the NPU, and "
         "the ranks of one host load at the same time: a DeepSeek-R1/V3 host fills nearly all of its HBM with "
         "weights (W8A8 ~671 GB over 16 x 64 GB), so RAM well under the HBM total makes loading swap for hours or "
         "get OOM-killed. Swap already in use means the host is short before the engine even starts; the "
         "vLLM-Ascend tuning guide recommends vm.swappiness=0 for inference."),
    fix=("Free or add memory (stop other jobs, close page-cache hogs), load fewer ranks per host, and keep swap "
         "out of the way: sysctl -w vm.swappiness=0"),
)


def _hbm_in_scope(ctx: HostCheckContext) -> Optional[int]:
    smi = ctx.facts.maybe(Facts.npu_smi)
    scope = ctx.facts.maybe(Facts.npu_scope)
    total = 0
    for dev in getattr(smi, "devices", None) or []:
        if scope is not None and not scope.owns(dev.npu_id, dev.chip_id):
            continue
        total += dev.capacity_mb or 0
    return total * 1024 * 1024 if total else None


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    res = ctx.facts.resources
    mem = res.memory
    if mem is None:
        raise NotApplicable(_("host memory figures are not available"))
    need = _hbm_in_scope(ctx)
    swap_used = max(0, mem.swap_total_bytes - mem.swap_free_bytes)
    evidence = {"total_bytes": mem.total_bytes, "available_bytes": mem.available_bytes,
                "swap_used_bytes": swap_used, "hbm_in_scope_bytes": need}
    findings: List[Finding] = []
    if need is None:
        findings.append(Finding.passed(_("host memory {total} ({available} available); no NPU memory figure to "
                                         "size it against").format(total=gib(mem.total_bytes),
                                                                   available=gib(mem.available_bytes)), **evidence))
    else:
        fields = {"total": gib(mem.total_bytes), "available": gib(mem.available_bytes), "need": gib(need)}
        if mem.total_bytes < need // 4:
            findings.append(Finding.fail(
                _("host memory {total} is less than a quarter of {need}: the NPUs in scope hold {need} of HBM, which "
                  "loading stages through host memory (rank shards are read into RAM before the copy to the NPU). "
                  "Loading DeepSeek weights on every NPU at once will swap or be OOM-killed.").format(**fields),
                _("Add memory to this host, or use fewer NPUs per host (export ASCEND_RT_VISIBLE_DEVICES=...) and "
                  "more hosts; stop other memory users first (free -g, ps aux --sort=-rss | head)"), **evidence))
        elif mem.available_bytes < need:
            findings.append(Finding.warn(
                _("{available} of {total} host memory available, below {need}: the NPUs in scope hold {need} of HBM, "
                  "which loading stages through host memory (rank shards are read into RAM before the copy to the "
                  "NPU). Loading will lean on the page cache and may swap.").format(**fields),
                _("Free memory before starting the engine (stop other jobs; sync; echo 1 > /proc/sys/vm/drop_caches) "
                  "and keep swap out of the way: sysctl -w vm.swappiness=0"), **evidence))
        else:
            findings.append(Finding.passed(
                _("{available} of {total} host memory available >= {need} HBM in scope").format(**fields),
                **evidence))
    if swap_used > SWAP_IN_USE:
        findings.append(Finding.warn(
            _("{swap} of swap in use: the host is already short of memory, and swapped engine pages cost seconds of "
              "latency.").format(swap=gib(swap_used)),
            _("Find the memory users (ps aux --sort=-rss | head), stop them, then: {command}").format(
                command="sysctl -w vm.swappiness=0   # " + _("vLLM-Ascend tuning guide, OS optimization 5.2")),
            **evidence))
    yield from findings
