"""ASC-FLT-007: every node has the same serving engine release (vLLM / vLLM-Ascend / MindIE)."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, comment, fits, shaped

from ._fleet import (
    FleetCheckContext,
    action,
    direction_to,
    drift_findings,
    fleet_facts,
    label_of,
    majority_value,
    pip_pin,
    require_nodes,
    values_of,
)

CHECK = CheckSpec(
    id="ASC-FLT-007",
    title="Every node has the same serving engine release",
    suite="fleet",
    what=("Compares vLLM, vLLM-Ascend, the MindIE Python packages and the MindIE release on disk "
          "(mindie/latest/version.info) of every node with the fleet's majority; engines no node has are not "
          "compared."),
    why=("The engine's ranks on every node exchange its own messages (KV transfer, scheduling, expert "
         "placement): two releases in one deployment fail at start-up or, worse, serve wrong results from one "
         "node."),
    fix=("On the odd node install the majority's engine release (pip for vLLM / vLLM-Ascend; the same MindIE image "
         "or package for MindIE)."),
)


def _fix(ctx: FleetCheckContext, view: DriftView, target: str, odd: List[str]) -> Tuple[str, Tuple[FixAction, ...]]:
    from ascend_doctor.matrix.pip import vllm_ascend

    facts = ctx.facts
    key = view.spec.key
    direction = direction_to(target, values_of(view, odd))
    if target == drift.NOT_INSTALLED:
        lines = ([argv("pip", "uninstall", "-y", shaped(view.spec.subject, "package", "package"))]
                 if key.startswith("package:") else [])
        if lines:
            text = _("No other node has {fact}: remove it from {nodes}:").format(
                fact=label_of(view), nodes=", ".join(odd)) + f"\n  {lines[0]}"
        else:
            text = _("No other node has {fact}: remove it from {nodes} (uninstall the MindIE package the node was "
                     "given)").format(fact=label_of(view), nodes=", ".join(odd))
        return text, (action(view, target, odd, _("remove {fact}").format(fact=label_of(view)), lines,
                             where="either"),)
    if key in ("package:vllm", "package:vllm-ascend"):
        vllm = majority_value(ctx, "package:vllm")
        plugin = majority_value(ctx, "package:vllm-ascend")
        # Versions are the fleet's majority, read from node reports: only versions reach the pip lines.
        vllm_ok = vllm is None or vllm == drift.NOT_INSTALLED or fits(vllm, "version")
        if plugin and fits(plugin, "version") and vllm_ok:
            advice = vllm_ascend(ctx.matrix, vllm if vllm != drift.NOT_INSTALLED else None, plugin,
                                 facts.majority_of("arch"))
            lines = advice.lines
        else:
            lines = [pip_pin(view.spec.subject, target)]
        text = "\n".join([comment(f"on {', '.join(odd)}, in the serving environment:"), *lines])
        return text, (action(view, target, odd, _("install {fact} {target} like the rest of the fleet").format(
                                 fact=label_of(view), target=target), lines, where="either", direction=direction),)
    if key.startswith("package:"):
        lines = [pip_pin(view.spec.subject, target)]
        text = "\n".join([comment(f"on {', '.join(odd)}, in the serving environment:"), *lines])
        return text, (action(view, target, odd, _("install {fact} {target} like the rest of the fleet").format(
                                 fact=label_of(view), target=target), lines, where="either", direction=direction),)
    text = _("The other nodes run MindIE {target}: start {nodes} from the same MindIE image (or install the same "
             "MindIE {target} package); compare `cat /usr/local/Ascend/mindie/latest/version.info` with a node of "
             "the majority.").format(target=target, nodes=", ".join(odd))
    return text, (action(view, target, odd, _("run MindIE {target} like the rest of the fleet").format(target=target),
                         (), where="either", direction=direction),)


def run(ctx: FleetCheckContext) -> Iterator[Finding]:
    facts = fleet_facts(ctx)
    require_nodes(facts)
    views = [v for v in facts.group(drift.ENGINE) if set(v.groups) != {drift.NOT_INSTALLED}]
    if not views:
        raise NotApplicable(_("no node has vLLM, vLLM-Ascend or MindIE installed"))
    yield from drift_findings(ctx, views, lambda _view: Status.FAIL, _fix)
