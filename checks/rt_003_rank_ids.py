"""ASC-RT-003: rank ids are unique and run from 0 without gaps."""

from __future__ import annotations

from collections import Counter
from typing import Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._rank_table import SRC_HCCL, SRC_MINDIE, SRC_VLLM_PD, config_fix, loaded

CHECK = CheckSpec(
    id="ASC-RT-003",
    title="Rank table rank_id unique and contiguous from 0",
    what=("Every rank_id (server_list devices, or rank_list of 2.0) is a whole number, used once, and together "
          "they are 0..N-1. In a vLLM-Ascend prefill/decode table, which has no rank_id, every cluster_id is "
          "used once."),
    why=("A repeated or missing rank id makes HCCL wait forever for a rank nobody plays, or refuse the table; "
         "rank 0 is the master MindIE starts from. Sources: " + SRC_HCCL + "; " + SRC_MINDIE + "; " + SRC_VLLM_PD),
    fix="Number the devices 0..N-1, node after node, device after device (each id once).",
    requires=("input:rank_table", "fact:rank_table"),
    tags=("rank-table",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.rank_table import KIND_PD, as_int

    facts, table = loaded(ctx)
    devices = table.devices()
    if not devices:
        raise NotApplicable("the rank table lists no device")
    fix = config_fix(f"Renumber the ranks of {facts.path}", facts.path)
    field = "cluster_id" if table.kind == KIND_PD else "rank_id"
    values = [(d, d.cluster_id if table.kind == KIND_PD else d.rank_id) for d in devices]
    counts = Counter(v for _, v in values if v is not None)
    bad = 0
    for value, n in sorted(counts.items()):
        if n > 1:
            bad += 1
            paths = [d.path for d, v in values if v == value]
            yield Finding.fail(f"{field} {value} is used {n} times: " + ", ".join(paths),
                               f"Give each device its own {field} in {facts.path}.", paths=paths).with_actions(fix)
    if table.kind != KIND_PD:
        numbers = sorted({n for n in (as_int(v) for _, v in values) if n is not None})
        missing: List[int] = [i for i in range(len(devices)) if i not in set(numbers)]
        beyond = [i for i in numbers if i >= len(devices)]
        if missing or beyond:
            bad += 1
            yield Finding.fail(f"rank_id must run 0..{len(devices) - 1} for {len(devices)} device(s): "
                               + (f"missing {', '.join(map(str, missing[:10]))}" if missing else "")
                               + ("; " if missing and beyond else "")
                               + (f"beyond the range: {', '.join(map(str, beyond[:10]))}" if beyond else ""),
                               f"Number the devices of {facts.path} 0..{len(devices) - 1}, server after server.",
                               missing=missing[:50], beyond=beyond[:50]).with_actions(fix)
    if not bad:
        span = f"0..{len(devices) - 1}" if table.kind != KIND_PD else "all different"
        yield Finding.passed(f"{len(devices)} {field}(s), {span}")
