"""ASC-RT-003: rank ids are unique and run from 0 without gaps."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Generator, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import one_line

from ._context import HostCheckContext
from ._rank_table import DEVICE_ID_RANGE, SRC_HCCL, SRC_MINDIE, SRC_VLLM_PD, config_fix, loaded

if TYPE_CHECKING:
    from ascend_doctor.parsers.rank_table import RtDevice

CHECK = CheckSpec(
    id="ASC-RT-003",
    title="Rank table rank_id unique and contiguous from 0",
    what=("Every rank_id (server_list devices, or rank_list of 2.0) is a whole number, used once, and together "
          "they are 0..N-1. In a vLLM-Ascend prefill/decode table, which has no rank_id, every cluster_id is "
          "used once. When this node's chip is known, every device_id is within the product's range (A2 "
          "servers 0-7, A3 servers 0-15)."),
    why=("A repeated or missing rank id makes HCCL wait forever for a rank nobody plays, or refuse the table; "
         "rank 0 is the master MindIE starts from. Sources: " + SRC_HCCL + "; " + SRC_MINDIE + "; " + SRC_VLLM_PD),
    fix="Number the devices 0..N-1, node after node, device after device (each id once).",
    requires=("input:rank_table", "fact:rank_table"),
    tags=("rank-table",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.rank_table import KIND_PD, as_int

    facts, table = loaded(ctx)
    shown = one_line(facts.path)  # the path in prose: a newline in it must not start a line of its own
    devices = table.devices()
    if not devices:
        raise NotApplicable(_("the rank table lists no device"))
    fix = config_fix(_("Renumber the ranks of {path}").format(path=shown), facts.path)
    field = "cluster_id" if table.kind == KIND_PD else "rank_id"
    values = [(d, d.cluster_id if table.kind == KIND_PD else d.rank_id) for d in devices]
    counts = Counter(v for _d, v in values if v is not None)
    bad = 0
    for value, n in sorted(counts.items()):
        if n > 1:
            bad += 1
            paths = [d.path for d, v in values if v == value]
            yield Finding.fail(_("{field} {value} is used {count} times: {paths}").format(
                                   field=field, value=value, count=n, paths=", ".join(paths)),
                               _("Give each device its own {field} in {path}.").format(field=field, path=shown),
                               paths=paths).with_actions(fix)
    if table.kind != KIND_PD:
        numbers = sorted({n for n in (as_int(v) for _d, v in values) if n is not None})
        missing: List[int] = [i for i in range(len(devices)) if i not in set(numbers)]
        beyond = [i for i in numbers if i >= len(devices)]
        if missing or beyond:
            bad += 1
            if missing and beyond:
                text = _("rank_id must run 0..{last} for {count} device(s): missing {missing}; beyond the range: "
                         "{beyond}")
            elif missing:
                text = _("rank_id must run 0..{last} for {count} device(s): missing {missing}")
            else:
                text = _("rank_id must run 0..{last} for {count} device(s): beyond the range: {beyond}")
            yield Finding.fail(text.format(last=len(devices) - 1, count=len(devices),
                                           missing=", ".join(map(str, missing[:10])),
                                           beyond=", ".join(map(str, beyond[:10]))),
                               _("Number the devices of {path} 0..{last}, server after server.").format(
                                   path=shown, last=len(devices) - 1),
                               missing=missing[:50], beyond=beyond[:50]).with_actions(fix)
    bad += yield from _device_id_range(ctx, devices, fix)
    if not bad:
        if table.kind != KIND_PD:
            text = _("{count} {field}(s), 0..{last}")
        else:
            text = _("{count} {field}(s), all different")
        yield Finding.passed(text.format(count=len(devices), field=field, last=len(devices) - 1))


def _device_id_range(ctx: HostCheckContext, devices: List[RtDevice], fix: FixAction) -> Generator[Finding, None, int]:
    """device_id counts the NPUs (A2: 0-7) or dies (A3: 0-15) of one server: a larger id is on no server of
    this product, whichever node it belongs to. Returns the number of FAIL findings."""
    from ascend_doctor.parsers.rank_table import as_int

    family = getattr(ctx.facts.maybe(Facts.npu_chip), "family", None)
    limit = DEVICE_ID_RANGE.get(str(family))
    if limit is None:
        return 0
    beyond = [d for d in devices if (as_int(d.device_id) or 0) >= limit]
    if not beyond:
        return 0
    yield Finding.fail(_("device_id beyond the {family} range 0..{last}: {entries}").format(
                           family=family, last=limit - 1,
                           entries=", ".join(f"{d.path} = {d.device_id}" for d in beyond[:10])),
                       _("An {family} server has device ids 0..{last}: write the id npu-smi shows on that server "
                         "(`npu-smi info -m` lists them).").format(family=family, last=limit - 1),
                       paths=[d.path for d in beyond[:50]]).with_actions(fix)
    return 1
