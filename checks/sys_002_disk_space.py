"""ASC-SYS-002: free disk where the weights, the operator/graph caches and the logs are written."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import N_, _

from ._context import HostCheckContext
from ._stack_help import GIB, gib

CACHE_WARN = 20 * GIB
CACHE_FAIL = 2 * GIB
# What a disk holds, as ascend_doctor/facts/resources.py names it (cache_dirs and the model folder):
# marked here for the catalogue, translated where the finding shows them.
HOLDS = (N_("operator compile cache"), N_("CANN work files (kernel_meta)"), N_("CANN logs (plog)"),
         N_("torch compile cache"), N_("ModelScope download cache"), N_("Hugging Face download cache"),
         N_("temporary files"), N_("model weights"))

CHECK = CheckSpec(
    id="ASC-SYS-002",
    title="Free disk for caches, logs and weights",
    what=("Reports free space on every filesystem holding the model directory (--model), the CANN operator "
          "compile cache (ASCEND_CACHE_PATH, default ~/atc_data), kernel_meta work files (ASCEND_WORK_PATH), the "
          "CANN logs (ASCEND_PROCESS_LOG_PATH, default ~/ascend/log), torch compile and download caches and /tmp; "
          f"WARN below {CACHE_WARN // GIB} GiB, FAIL below {CACHE_FAIL // GIB} GiB."),
    why=("A DeepSeek start compiles graphs and operators for a 61-layer MoE on every rank and writes plog files "
         "for 8-16 ranks; a full disk turns that into opaque compile errors or a silent hang rather than a "
         f"'disk full' message. {CACHE_WARN // GIB} GiB leaves room for the caches of several starts and their "
         f"logs; under {CACHE_FAIL // GIB} GiB a single compilation can fill it. (Heuristic thresholds: CANN "
         "publishes no cache size.)"),
    fix=("Free space (old logs: rm -rf ~/ascend/log/debug/plog/*; stale caches: rm -rf ~/atc_data), or move the "
         "caches to a larger disk: export ASCEND_CACHE_PATH=/data/atc_cache ASCEND_WORK_PATH=/data/ascend_work "
         "ASCEND_PROCESS_LOG_PATH=/data/ascend_log"),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    res = ctx.facts.resources
    if not res.disks:
        raise NotApplicable(_("no disk usage figures for the cache, log or model paths"))
    for disk in res.disks:
        holds = ", ".join(_(h) if h in HOLDS else h for h in disk.holds)
        paths = ", ".join(disk.paths)
        evidence = {"mount": disk.mount, "free_bytes": disk.free_bytes, "total_bytes": disk.total_bytes,
                    "paths": list(disk.paths)}
        fields = {"free": gib(disk.free_bytes), "total": gib(disk.total_bytes), "mount": disk.mount, "holds": holds,
                  "paths": paths}
        movable = [h for h in disk.holds if h != "model weights"]
        fix = _("Free space there (rm -rf ~/ascend/log/debug/plog/* ~/atc_data), or move the caches to a larger disk: "
                "export ASCEND_CACHE_PATH=/data/atc_cache ASCEND_WORK_PATH=/data/ascend_work "
                "ASCEND_PROCESS_LOG_PATH=/data/ascend_log")
        if not movable:
            yield Finding.passed(_("{free} free of {total} on {mount} ({holds}: {paths}) (weights already in "
                                   "place)").format(**fields), **evidence).scoped(disk.mount)
        elif disk.free_bytes < CACHE_FAIL:
            yield Finding.fail(_("{free} free of {total} on {mount} ({holds}: {paths}): under {limit} GiB, graph and "
                                 "operator compilation for DeepSeek will fill it.").format(
                                   limit=CACHE_FAIL // GIB, **fields), fix, **evidence).scoped(disk.mount)
        elif disk.free_bytes < CACHE_WARN:
            yield Finding.warn(_("{free} free of {total} on {mount} ({holds}: {paths}): under {limit} GiB recommended "
                                 "for DeepSeek compile caches and rank logs.").format(
                                   limit=CACHE_WARN // GIB, **fields), fix, **evidence).scoped(disk.mount)
        else:
            yield Finding.passed(_("{free} free of {total} on {mount} ({holds}: {paths})").format(**fields),
                                 **evidence).scoped(disk.mount)
