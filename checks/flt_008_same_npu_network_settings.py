"""ASC-FLT-008: the NPU network's TLS switch and FEC mode are the same on every node."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView
from ascend_doctor.i18n import _

from ._fleet import (
    FEC_SOURCE,
    TLS_SOURCE,
    FleetCheckContext,
    action,
    drift_findings,
    fleet_facts,
    majority_value,
    require_nodes,
)

CHECK = CheckSpec(
    id="ASC-FLT-008",
    title="The NPU network's TLS switch and FEC mode are the same on every node",
    suite="fleet",
    what=("Compares what `hccn_tool -i N -tls -g` (the TLS switch) and `hccn_tool -i N -fec -g` (the FEC mode) "
          "report on the devices of every node with the fleet's majority."),
    why=("A device with TLS on cannot set up an HCCL link with a device that has it off: the job dies with a "
         f"connect timeout (EI0006) that names neither ({TLS_SOURCE}). A FEC mode that differs from the switch "
         f"port's keeps the link down or flapping ({FEC_SOURCE})."),
    fix=("On the odd node set every device like the others: `for i in {0..7}; do hccn_tool -i $i -tls -s enable "
         "0; done` (0 off, 1 on); for FEC, `hccn_tool -i $i -fec -s encoding rs` when the fleet runs RS FEC."),
)


def _switch(value: str) -> Optional[str]:
    """The 0/1 of a TLS value as the node reported it ("0", "1", "disable", "enable", "tls switch[0]")."""
    text = value.strip().lower()
    match = re.search(r"\[([01])\]", text)
    if match:
        return match.group(1)
    if text in ("0", "1"):
        return text
    if text in ("disable", "disabled", "off"):
        return "0"
    if text in ("enable", "enabled", "on"):
        return "1"
    return None


def _loop(ctx: FleetCheckContext) -> str:
    count = majority_value(ctx, "chip_count")
    last = int(count) - 1 if count and count.isdigit() and int(count) > 0 else 7
    return "{0.." + str(last) + "}"


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    loop = _loop(ctx)
    if view.spec.key == "hccn_tls":
        switch = _switch(target)
        if switch is None:
            text = _("The other nodes report TLS '{target}'. On {nodes} compare `{command}` with a node of the "
                     "majority and set the same switch on every device ({source}).").format(
                         target=target, nodes=", ".join(odd),
                         command=f"for i in {loop}; do hccn_tool -i $i -tls -g; done | grep switch", source=TLS_SOURCE)
            return text, (action(view, target, odd, _("set the NPU TLS switch like the rest of the fleet"), ()),)
        lines = [f"for i in {loop}; do hccn_tool -i $i -tls -s enable {switch}; done",
                 f"for i in {loop}; do hccn_tool -i $i -tls -g; done | grep switch   # every device: switch[{switch}]"]
        word = "off" if switch == "0" else "on"
        text = "\n".join([f"# on {', '.join(odd)} (as root; the other nodes have TLS {word}):", *lines,
                          f"# source: {TLS_SOURCE}"])
        summary = (_("turn the NPU TLS switch off like the rest of the fleet") if switch == "0" else
                   _("turn the NPU TLS switch on like the rest of the fleet"))
        return text, (action(view, target, odd, summary, lines[:1]),)
    if "rs" in target.lower().split():
        lines = [f"for i in {loop}; do hccn_tool -i $i -fec -s encoding rs; done",
                 f"for i in {loop}; do hccn_tool -i $i -fec -g; done"]
        text = "\n".join([f"# on {', '.join(odd)} (as root; the other nodes run '{target}'):", *lines,
                          f"# source: {FEC_SOURCE}"])
        return text, (action(view, target, odd, _("set RS FEC like the rest of the fleet"), lines[:1]),)
    text = _("The other nodes run FEC '{target}'. On {nodes} compare `hccn_tool -i $i -fec -g` with the switch "
             "port's FEC setting and set the same mode as the other nodes.").format(target=target, nodes=", ".join(odd))
    return text, (action(view, target, odd, _("set the FEC mode like the rest of the fleet"), ()),)


def _severity(view: DriftView) -> Status:
    return Status.FAIL if view.spec.key == "hccn_tls" else Status.WARN


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = facts.group(drift.NETWORK)
    if not views:
        raise NotApplicable(_("no node report carries hccn_tool's TLS or FEC settings"))
    yield from drift_findings(ctx, views, _severity, _fix)
