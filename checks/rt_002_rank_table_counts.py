"""ASC-RT-002: the rank table's declared counts match its entries."""

from __future__ import annotations

from collections import Counter
from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import one_line

from ._context import HostCheckContext
from ._rank_table import SRC_HCCL, SRC_MINDIE, config_fix, loaded

CHECK = CheckSpec(
    id="ASC-RT-002",
    title="Rank table server_count and device counts match its entries",
    what=("server_count equals the number of servers (server_list, or the distinct server_id of a prefill/decode "
          "table), rank_count the length of rank_list (2.0); every server of super_pod_list is in server_list; "
          "no server names a device_id twice; servers with different numbers of devices WARN."),
    why=("HCCL sizes the communicator from these counts: a server_count that disagrees with server_list, or a "
         "device listed twice, makes every node wait for ranks that never come (or refuse the table). Sources: "
         + SRC_HCCL + "; " + SRC_MINDIE),
    fix="Make server_count (rank_count) equal the number of entries, and list each device of a server once.",
    requires=("input:rank_table", "fact:rank_table"),
    tags=("rank-table",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.rank_table import KIND_HCCL_2, as_int

    facts, table = loaded(ctx)
    shown = one_line(facts.path)  # the path in prose: a newline in it must not start a line of its own
    fix = config_fix(_("Correct the counts of {path}").format(path=shown), facts.path)
    bad = 0
    if table.kind == KIND_HCCL_2:
        declared = as_int(table.rank_count)
        if declared is not None and declared != len(table.ranks):
            bad += 1
            yield Finding.fail(_("rank_count is {declared} but rank_list has {count} entries").format(
                                   declared=declared, count=len(table.ranks)),
                               _("Set rank_count to {count} in {path} (or complete rank_list).").format(
                                   count=len(table.ranks), path=shown),
                               declared=declared, entries=len(table.ranks)).with_actions(fix)
    else:
        declared = as_int(table.server_count)
        if declared is not None and declared != len(table.servers):
            bad += 1
            yield Finding.fail(_("server_count is {declared} but the table lists {count} server(s)").format(
                                   declared=declared, count=len(table.servers)),
                               _("Set server_count to \"{count}\" in {path} (or add the missing servers).").format(
                                   count=len(table.servers), path=shown),
                               declared=declared, servers=len(table.servers)).with_actions(fix)
        known = {s.server_id for s in table.servers if s.server_id}
        for pod, member in table.super_pod_servers:
            if member not in known:
                bad += 1
                yield Finding.fail(_("super_pod_list (super_pod_id {pod}) names server {server}, which server_list "
                                     "does not have").format(pod=pod, server=member),
                                   _("List {server} in server_list or drop it from super_pod_list.").format(
                                       server=member),
                                   server_id=member).with_actions(fix)
        for server in table.servers:
            repeated = [d for d, n in Counter(x.device_id for x in server.devices if x.device_id).items() if n > 1]
            for device_id in repeated:
                bad += 1
                paths = [d.path for d in server.devices if d.device_id == device_id]
                yield Finding.fail(_("server {server} names device_id {device} {count} times: {paths}").format(
                                       server=server.server_id, device=device_id, count=len(paths),
                                       paths=", ".join(paths)),
                                   _("Keep one entry per device of {server}.").format(server=server.server_id),
                                   paths=paths).with_actions(fix)
        sizes = Counter(len(s.devices) for s in table.servers)
        if len(sizes) > 1 and table.kind != "vllm-pd":
            bad += 1
            common = sizes.most_common(1)[0][0]
            odd = [f"{s.server_id} ({len(s.devices)})" for s in table.servers if len(s.devices) != common]
            yield Finding.warn(_("servers list different numbers of devices: most have {common}, but {odd}").format(
                                   common=common, odd=", ".join(odd)),
                               _("Check that every node's devices are listed (a node with fewer devices limits the "
                                 "parallel sizes of the whole job)."), sizes=dict(sizes))
    if not bad:
        if table.kind == KIND_HCCL_2:
            text = _("counts match: {count} rank(s), {devices} device(s)")
            count = len(table.ranks)
        else:
            text = _("counts match: {count} server(s), {devices} device(s)")
            count = len(table.servers)
        yield Finding.passed(text.format(count=count, devices=len(table.devices())))
