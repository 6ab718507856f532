"""ASC-FLT-014: the rank table names each device IP once, and every one is a device of the fleet."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet.network import TableEntry
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, shaped

from ._fleet import FleetCheckContext, count, fleet_facts, names

CHECK = CheckSpec(
    id="ASC-FLT-014",
    title="The rank table names each device IP once, each a device of the fleet",
    suite="fleet",
    what=("For each rank table the nodes hold: no device_ip appears twice, and every device_ip is the address "
          "`hccn_tool -i N -ip -g` reports for that device_id on the node that owns it (found through the "
          "addresses the node reports). Entries whose address belongs to no node of the merge are listed."),
    why=("HCCL refuses a table with an address used twice ('The IP is used repeatedly', EI0014) and sends a rank's "
         "traffic to whatever device holds the address it names: a stale or mistyped device_ip is a rank nobody "
         "answers for, and the job hangs until the connect timeout."),
    fix=("Write each device's own address (`hccn_tool -i N -ip -g` on its node) into its entry, once, and copy the "
         "corrected table to every node."),
)

Owner = Tuple[str, str]  # node, device id


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    if not facts.tables:
        raise NotApplicable(_("no node report carries a rank table"))
    owners: Dict[str, Owner] = {}
    for node in facts.readable():
        for address in node.net.addresses if node.net is not None else ():
            owners.setdefault(address.address, (node.name, address.device_id))
    for digest, entries in facts.tables.items():
        yield from _one_table(digest, entries, owners, multiple=len(facts.tables) > 1)


def _one_table(digest: str, entries: Tuple[TableEntry, ...], owners: Dict[str, Owner],
               multiple: bool) -> Iterator[Finding]:
    label = _("rank table {digest}…").format(digest=digest[:12]) if multiple else _("rank table")
    if not entries:
        raise NotApplicable(_("the rank table lists no device (see the nodes' own rank table results)"))
    by_ip: Dict[str, List[TableEntry]] = {}
    for entry in entries:
        if entry.device_ip:
            by_ip.setdefault(entry.device_ip, []).append(entry)
    problems = 0
    for ip, uses in sorted(by_ip.items()):
        if len(uses) < 2:
            continue
        problems += 1
        owner = owners.get(ip)
        where = ", ".join(u.path for u in uses)
        held = (_("{address} is device {device} of {node}").format(address=ip, device=owner[1], node=owner[0])
                if owner else _("no node of the fleet reports {address}").format(address=ip))
        wrong = [u for u in uses if owner is None or (u.device_id != owner[1])] or uses[1:]
        fixes = [_("{json_path}: the address device {device} of server {server} reports (`{command}` on that "
                   "node)").format(json_path=u.path, device=u.device_id, server=u.server_id,
                                   command=argv("hccn_tool", "-i", shaped(str(u.device_id), "device_id", "N"),
                                                "-ip", "-g")) for u in wrong]
        yield Finding(Status.FAIL, _("{table}: device_ip {address} appears {count} times ({paths}); {held}").format(
                          table=label, address=ip, count=len(uses), paths=where, held=held),
                      _("Put each device's own address in its entry and copy the table to every node:") + "\n  "
                      + "\n  ".join(fixes), {"device_ip": ip, "paths": [u.path for u in uses],
                                             "owner": list(owner or ())},
                      ip, (FixAction("config", _("Correct the rank table's device_ip {address} ({entries})").format(
                          address=ip, entries=count(len(uses), 'entry')), (), where="host", subject="rank table"),))
    unknown: List[TableEntry] = []
    for ip, uses in sorted(by_ip.items()):
        if len(uses) > 1:
            continue
        entry = uses[0]
        owner = owners.get(ip)
        if owner is None:
            unknown.append(entry)
            continue
        if entry.device_id is not None and entry.device_id != owner[1]:
            problems += 1
            yield Finding(Status.FAIL, _("{table}: {json_path} is {address} for device_id {device}, but {address} is "
                                         "device {owner_device} of {owner_node}").format(
                              table=label, json_path=entry.path, address=ip, device=entry.device_id,
                              owner_device=owner[1], owner_node=owner[0]),
                          _("Write the address of device {device} into {json_path} (`{command}` on {node}), then copy "
                            "the table to every node.").format(device=entry.device_id, json_path=entry.path,
                                                               command=argv("hccn_tool", "-i",
                                                                            shaped(str(entry.device_id), "device_id",
                                                                                   "N"), "-ip", "-g"),
                                                               node=owner[0]),
                          {"path": entry.path, "device_ip": ip, "owner": list(owner)}, entry.path)
    if unknown and owners:
        servers = sorted({e.server_id or "?" for e in unknown})
        addresses = names([e.device_ip or "?" for e in unknown])
        yield Finding(Status.WARN, _("{table}: {device_ips} of {servers} ({names}) belong to no node of this merge: "
                                     "{addresses}").format(table=label, device_ips=count(len(unknown), 'device_ip'),
                                                           servers=count(len(servers), 'server'),
                                                           names=names(servers), addresses=addresses),
                      _("Merge the reports of every node the table names, or correct the addresses of those entries "
                        "(`hccn_tool -i N -ip -g` on their nodes)."),
                      {"paths": [e.path for e in unknown[:50]]}, "servers outside the merge")
    elif not problems and not owners:
        yield Finding.passed(_("{table}: {device_ips}, each once (no node reports its devices' addresses, so they "
                               "were not compared with the devices)").format(
                                 table=label, device_ips=count(len(by_ip), 'device_ip')), devices=len(by_ip))
    elif not problems:
        nodes = sorted({owners[ip][0] for ip in by_ip if ip in owners})
        yield Finding.passed(_("{table}: {device_ips}, each once and each the address its device reports "
                               "({nodes})").format(table=label, device_ips=count(len(by_ip), 'device_ip'),
                                                   nodes=count(len(nodes))), devices=len(by_ip), nodes=len(nodes))
