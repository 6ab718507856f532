"""ASC-FLT-002: each node is in the fleet once (one report per host name)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _

from ._fleet import FleetCheckContext, count, fleet_facts

CHECK = CheckSpec(
    id="ASC-FLT-002",
    title="Each node is in the fleet once",
    suite="fleet",
    what=("Looks for two readable inputs that name the same host: the same node collected twice, or two machines "
          "with one host name. Both are kept (the second is shown with its file name)."),
    why=("A node counted twice weighs double in every majority and its devices look like duplicates of "
         "themselves; two machines sharing a host name confuse HCCL's server ids and every operator's logs."),
    fix=("Remove the stale report from the folder, or give the machines distinct host names (`hostnamectl "
         "set-hostname`)."),
)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    if not facts.duplicates:
        yield Finding.passed(_("{nodes}, each with its own host name").format(nodes=count(len(facts.readable()))))
        return
    for name, first, again in facts.duplicates:
        yield Finding.warn(
            _("host {name} is reported by {first} and again by {again}").format(name=name, first=first, again=again),
            _("If {again} is an older copy of {first}, remove it and re-run fleet; if these are two machines, give "
              "one of them another host name:").format(again=again, first=first)
            + "\n  hostnamectl set-hostname <new name>   # on the second machine",
            host=name, sources=[first, again]).scoped(f"node {name}")
