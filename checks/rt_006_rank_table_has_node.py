"""ASC-RT-006: the rank table's servers are named once each, and this node is one of them."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, one_line, shaped

from ._context import HostCheckContext
from ._rank_table import SRC_HCCL, SRC_MINDIE, config_fix, loaded, local_addresses, local_networks, this_node

if TYPE_CHECKING:
    from ascend_doctor.parsers.rank_table import RankTable

CHECK = CheckSpec(
    id="ASC-RT-006",
    title="Rank table servers unique, and this node one of them",
    what=("Every server_id is used once; each server_id / host_ip / container_ip that is written as an address is "
          "a valid IPv4 address; and this node is found in the table: by MIES_CONTAINER_IP, HOST_IP, HCCL_IF_IP or "
          "the host name equal to a server_id / host_ip / container_ip, or by its device addresses."),
    why=("A rank table that does not contain the node it is started on, or names one server twice, is the table of "
         "another job: HCCL on this node waits for peers that expect someone else. MindIE takes server_id as the "
         "node's IP. Sources: " + SRC_HCCL + "; " + SRC_MINDIE),
    fix=("Give every node the same table, listing each node once (server_id = its IP); set MIES_CONTAINER_IP "
         "(container) or HOST_IP (bare metal) to this node's server_id."),
    requires=("input:rank_table", "fact:rank_table"),
    tags=("rank-table",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.facts.ranktable import NODE_VARIABLES
    from ascend_doctor.parsers.hccn import is_ipv4
    from ascend_doctor.parsers.rank_table import KIND_PD

    facts, table = loaded(ctx)
    shown = one_line(facts.path)  # the path in prose: a newline in it must not start a line of its own
    if not table.servers:
        raise NotApplicable(_("a {label} table names no server").format(label=table.label))
    fix = config_fix(_("Correct the servers of {path}").format(path=shown), facts.path)
    bad = 0
    if table.kind != KIND_PD:
        for server_id, n in sorted(Counter(s.server_id for s in table.servers if s.server_id).items()):
            if n > 1:
                bad += 1
                paths = [s.path for s in table.servers if s.server_id == server_id]
                yield Finding.fail(_("server_id {server} is used by {count} servers: {paths}").format(
                                       server=server_id, count=n, paths=", ".join(paths)),
                                   _("List each node once, with all its devices."), paths=paths).with_actions(fix)
    for server in table.servers:
        for name, value in (("server_id", server.server_id), ("host_ip", server.host_ip),
                            ("container_ip", server.container_ip)):
            if value and any(c.isdigit() for c in value) and "." in value and not is_ipv4(value):
                bad += 1
                yield Finding.fail(_("{json_path}.{key} is {value}, not an IPv4 address").format(
                                       json_path=server.path, key=name, value=repr(value)),
                                   _("Write the node's address into {key}.").format(key=name),
                                   path=server.path).with_actions(fix)
    match = this_node(ctx, table)
    if match.servers:
        if not bad:
            yield Finding.passed(_("{count} server(s), each named once; this node: {how}").format(
                count=len(table.servers), how="; ".join(match.how)))
        return
    subnet = _other_subnet(ctx, table, fix)
    if subnet is not None:
        yield subnet
        return
    status = Status.FAIL if match.evidence else Status.WARN
    known = ", ".join(str(s.server_id) for s in table.servers[:8])
    if match.evidence:
        message = _("this node is not in the rank table: none of its device addresses, {variables} or its host name "
                    "appears among the servers ({servers})")
    else:
        message = _("cannot tell which server of the rank table is this node ({servers}): no device address, "
                    "{variables} or host name to compare")
    yield Finding(status, message.format(variables=", ".join(NODE_VARIABLES), servers=known),
                  _("Use the rank table of this job (the same file on every node), with this node listed; set "
                    "MIES_CONTAINER_IP (container) or HOST_IP (bare metal) to its server_id."),
                  {"servers": [s.server_id for s in table.servers]}).with_actions(fix)


def _other_subnet(ctx: HostCheckContext, table: RankTable, fix: FixAction) -> Optional[Finding]:
    """When no server matched: every device_ip of the table outside this node's NPU subnets (from
    `hccn_tool -ip -g`) says the addresses were written for another subnet, not that the node is
    missing (the same table on another node, or this node's entries, with e.g. 192.170.101.x where
    hccn.conf sets 192.170.100.x)."""
    from ipaddress import IPv4Address

    from ascend_doctor.parsers.hccn import is_ipv4
    from ascend_doctor.parsers.rank_table import as_int

    networks = local_networks(ctx)
    addresses = [d for d in table.devices() if is_ipv4(d.device_ip)]
    if not networks or not addresses:
        return None
    if any(IPv4Address(d.device_ip or "") in net for d in addresses for net in networks.values()):
        return None
    subnets = sorted({str(net) for net in networks.values()})
    local = local_addresses(ctx)
    same_ids = [d for d in addresses if as_int(d.device_id) in local]
    example = same_ids[0] if same_ids else addresses[0]
    device_id = as_int(example.device_id)
    show = argv("hccn_tool", "-i", shaped(example.device_id, "device_id", "N"), "-ip", "-g")
    return Finding.fail(
        _("every device_ip of the rank table is outside this node's NPU subnets ({subnets}, from `hccn_tool -i N "
          "-ip -g` and /etc/hccn.conf): the table's addresses were written for another subnet, e.g. {json_path} "
          "device {device} = {table_ip}").format(subnets=", ".join(subnets[:4]), json_path=example.path,
                                                  device=example.device_id, table_ip=example.device_ip),
        (_("Set each device_ip of this node's entries to the address `{command}` reports for that device "
           "({actual} for device {device} here).") if device_id in local else
         _("Set each device_ip of this node's entries to the address `{command}` reports for that device.")).format(
            command=show, actual=local.get(device_id or 0, ""), device=example.device_id),
        subnets=subnets, path=example.path, table_ip=example.device_ip).with_actions(fix)
