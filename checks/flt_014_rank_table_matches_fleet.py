"""ASC-FLT-014: the rank table names each device IP once, and every one is a device of the fleet."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet.network import TableEntry

from ._fleet import count, fleet_facts, names

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


def run(ctx: CheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    if not facts.tables:
        raise NotApplicable("no node report carries a rank table")
    owners: Dict[str, Owner] = {}
    for node in facts.readable():
        for address in node.net.addresses if node.net is not None else ():
            owners.setdefault(address.address, (node.name, address.device_id))
    for digest, entries in facts.tables.items():
        yield from _one_table(digest, entries, owners, multiple=len(facts.tables) > 1)


def _one_table(digest: str, entries: Tuple[TableEntry, ...], owners: Dict[str, Owner],
               multiple: bool) -> Iterator[Finding]:
    label = f"rank table {digest[:12]}…" if multiple else "rank table"
    if not entries:
        raise NotApplicable("the rank table lists no device (see the nodes' own rank table results)")
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
        held = f"{ip} is device {owner[1]} of {owner[0]}" if owner else f"no node of the fleet reports {ip}"
        wrong = [u for u in uses if owner is None or (u.device_id != owner[1])] or uses[1:]
        fixes = [f"{u.path}: the address device {u.device_id} of server {u.server_id} reports "
                 f"(`hccn_tool -i {u.device_id} -ip -g` on that node)" for u in wrong]
        yield Finding(Status.FAIL, f"{label}: device_ip {ip} appears {len(uses)} times ({where}); {held}", (
            "Put each device's own address in its entry and copy the table to every node:\n  "
            + "\n  ".join(fixes)), {"device_ip": ip, "paths": [u.path for u in uses], "owner": list(owner or ())},
            ip, (FixAction("config", f"Correct the rank table's device_ip {ip} ({count(len(uses), 'entry')})",
                           (), where="host", subject="rank table"),))
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
            yield Finding(Status.FAIL, f"{label}: {entry.path} is {ip} for device_id {entry.device_id}, but {ip} is "
                          f"device {owner[1]} of {owner[0]}", (
                              f"Write the address of device {entry.device_id} into {entry.path} "
                              f"(`hccn_tool -i {entry.device_id} -ip -g` on {owner[0]}), then copy the table to "
                              "every node."), {"path": entry.path, "device_ip": ip, "owner": list(owner)}, entry.path)
    if unknown and owners:
        servers = sorted({e.server_id or "?" for e in unknown})
        addresses = names([e.device_ip or "?" for e in unknown])
        yield Finding(Status.WARN, f"{label}: {count(len(unknown), 'device_ip')} of {count(len(servers), 'server')} "
                      f"({names(servers)}) belong to no node of this merge: {addresses}",
                      ("Merge the reports of every node the table names, or correct the addresses of those entries "
                       "(`hccn_tool -i N -ip -g` on their nodes)."),
                      {"paths": [e.path for e in unknown[:50]]}, "servers outside the merge")
    elif not problems and not owners:
        yield Finding.passed(f"{label}: {count(len(by_ip), 'device_ip')}, each once (no node reports its devices' "
                             "addresses, so they were not compared with the devices)", devices=len(by_ip))
    elif not problems:
        nodes = sorted({owners[ip][0] for ip in by_ip if ip in owners})
        yield Finding.passed(f"{label}: {count(len(by_ip), 'device_ip')}, each once and each the address its device "
                             f"reports ({count(len(nodes))})", devices=len(by_ip), nodes=len(nodes))
