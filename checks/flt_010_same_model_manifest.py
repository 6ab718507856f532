"""ASC-FLT-010: every node verified its weights against the same model manifest."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView
from ascend_doctor.i18n import _

from ._fleet import FleetCheckContext, action, drift_findings, fleet_facts, require_nodes

CHECK = CheckSpec(
    id="ASC-FLT-010",
    title="Every node verified its weights against the same model manifest",
    suite="fleet",
    what=("Compares the digest of the manifest each node verified its weights with (`check --model DIR --verify "
          "MANIFEST`) across the fleet. Nodes whose report has no verification are not compared."),
    why=("Every rank must load the same weights: a node holding another revision of a shard (a re-download, a "
         "re-quantisation) serves different logits for its experts without any error."),
    fix=("Copy the weights of the majority to the odd node and verify them with the majority's manifest: "
         "`ascend-doctor check --model DIR --verify MANIFEST`."),
)


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    text = (_("{nodes} verified against another manifest than the rest of the fleet (digest {digest}…). Distribute "
              "one manifest (`ascend-doctor model manifest DIR -o MANIFEST` on the reference copy), copy the weights "
              "again where they differ, and verify on every node:").format(nodes=", ".join(odd), digest=target[:16])
            + "\n  ascend-doctor check --model DIR --verify MANIFEST --format json -o report.json")
    return text, (action(view, target, odd, _("verify the weights against the fleet's manifest"),
                         ("ascend-doctor check --model DIR --verify MANIFEST",), where="either"),)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = facts.group(drift.MODEL)
    if not views:
        raise NotApplicable(_("no node report verified its weights (run check with --model DIR --verify "
                              "MANIFEST)"))
    yield from drift_findings(ctx, views, lambda _view: Status.FAIL, _fix)
