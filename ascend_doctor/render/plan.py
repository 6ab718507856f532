"""``plan``: will a model fit, and on how many cards? The per-card table for people, JSON for scripts.

JSON contract: docs/plan-schema.json (English data: the notes and the model's facts are English in
JSON, shown in the run's language in the text). The arithmetic is ascend_doctor/model/plan.py's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.i18n import N_, ngettext
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n_text import localized
from ascend_doctor.render import JSON, TEXT, unknown_format

if TYPE_CHECKING:
    from ascend_doctor.model.arch import ModelArch
    from ascend_doctor.model.plan import MemoryPlan

# Where a plan's weight sizes come from (model/plan.py WeightPlan.source), as shown.
_WEIGHT_SOURCES = {"architecture": N_("architecture"), "safetensors headers": N_("safetensors headers")}


class PlanOutcome(Struct, frozen=True):
    """What ``plan`` worked out for one model on one kind of card."""

    model_ref: str  # as given: a directory, a config.json or a built-in name
    model_name: str
    model_kind: Optional[str]  # directory, config or builtin (None: unresolved)
    checkpoint_precision: Optional[str]
    model_sources: Tuple[str, ...]  # where the built-in model's facts come from
    arch: ModelArch
    card_name: str
    card_source: str  # where the card's memory came from (--chip, --mem-gb, npu-smi)
    hbm_bytes: int
    plan: Optional[MemoryPlan]  # the plan asked for, or the smallest that fits; None: nothing fits
    weights_fit: Optional[MemoryPlan]  # when nothing fits: the smallest count that holds the weights
    smallest_cards: Dict[str, Optional[int]]  # per precision (None: over 128 cards)
    requested_cards: Optional[int]  # None: the smallest count was searched for
    unsupported: Tuple[str, ...]  # dtypes this chip cannot load
    notes: Tuple[str, ...]
    loadable: bool = True  # False: the chip cannot load the planned precision (verdict not-loadable)
    routes: Tuple[Any, ...] = ()  # model.plan.Route: how to serve a precision the chip cannot load
    undocumented: Tuple[str, ...] = ()  # precisions with no documented route on this chip (w4a8 on 310P)
    smallest_layouts: Optional[Dict[str, Any]] = None  # per precision: the smallest Layout that fits (None)

    @property
    def fits(self) -> bool:
        return bool(self.plan and self.plan.fits)

    @property
    def advice(self) -> Tuple[str, ...]:
        """What to change when the KV cache holds fewer sequences than asked, as stable ids: for MLA
        models (KV replicated on every TP rank) DP replicas and an 8-bit KV cache, never more TP."""
        plan = self.plan or self.weights_fit
        if plan is None or self.fits or not self.loadable:
            return ()
        from ascend_doctor.model.plan import VERDICT_FEWER

        kv_bound = plan.card.verdict == VERDICT_FEWER or self.plan is None
        if not kv_bound:
            return ("add-cards",)
        if self.arch.is_mla:
            return ("attention-dp", "int8-kv-cache")
        return ("lower-batch-or-seq-len", "int8-kv-cache", "add-cards")


def render_plan(outcome: PlanOutcome, fmt: str) -> str:
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document(_as_json(outcome))
    if fmt == TEXT:
        return plan_to_text(outcome)
    raise unknown_format(fmt)


def _as_json(outcome: PlanOutcome) -> Dict[str, Any]:
    from ascend_doctor.model.plan import PRECISIONS

    return {
        "model": {"ref": outcome.model_ref, "name": outcome.model_name, "kind": outcome.model_kind,
                  "checkpoint_precision": outcome.checkpoint_precision, "sources": list(outcome.model_sources)},
        "card": {"name": outcome.card_name, "hbm_bytes": outcome.hbm_bytes, "source": outcome.card_source},
        "plan": outcome.plan.as_dict() if outcome.plan else None,
        "weights_fit": outcome.weights_fit.as_dict() if outcome.weights_fit else None,
        "smallest_cards": outcome.smallest_cards,
        "smallest_layouts": {name: (layout.as_dict() if layout else None)
                             for name, layout in (outcome.smallest_layouts or {}).items()},
        "not_loadable": sorted({n for n in PRECISIONS if not PRECISIONS[n].ascend_loadable} | set(outcome.unsupported)),
        "no_documented_route": sorted(outcome.undocumented),
        "loadable": outcome.loadable,
        "routes": [dict(route.as_dict(), cards=outcome.smallest_cards.get(route.precision))
                   for route in outcome.routes],
        "advice": list(outcome.advice),
        "fits": outcome.fits,
        "notes": list(outcome.notes),
    }


def _gib(value: int) -> str:
    return f"{value / (1024 ** 3):,.1f}"


def _layout_line(layout: Any, moe: bool) -> str:
    line = ngettext("{count} card: TP {tp} x DP {dp}", "{count} cards: TP {tp} x DP {dp}", layout.cards).format(
        count=layout.cards, tp=layout.tp, dp=layout.dp)
    if moe:
        line += _(", routed experts over EP {ep} x MoE-TP {moe_tp}").format(ep=layout.ep, moe_tp=layout.moe_tp)
    return line


def _row(label: str, value: str = "", detail: str = "") -> str:
    """One line of the per-card table: the label padded to 21 terminal cells (a Chinese label is
    two cells a character), the value right-aligned in 10."""
    from ascend_doctor.widewrap import cell_width

    line = "  " + label + " " * max(1, 21 - cell_width(label)) + f"{value:>10}"
    return line + (f"   {detail}" if detail else "")


def plan_to_text(outcome: PlanOutcome) -> str:
    from ascend_doctor.model.arch import describe
    from ascend_doctor.model.plan import PRECISIONS, VERDICT_FEWER, VERDICT_FITS, VERDICT_NOT_LOADABLE

    plan, smallest, hbm = outcome.plan, outcome.smallest_cards, outcome.hbm_bytes
    chip_label, chip_source, weights_fit = outcome.card_name, outcome.card_source, outcome.weights_fit
    requested_cards, notes, unsupported = outcome.requested_cards, outcome.notes, outcome.unsupported
    arch = outcome.arch
    params = plan.params if plan else None
    lines: List[str] = []
    head = f"{outcome.model_name}: " + "; ".join(localized(line) for line in describe(arch))
    lines.append(head)
    if plan is not None and params is not None:
        lines.append("  " + _("{count}B parameters ({source})").format(count=f"{params.total / 1e9:,.2f}",
                                                                        source=_(_WEIGHT_SOURCES.get(
                                                                            plan.weights.source, plan.weights.source))))
    lines.append(_("Card: {chip}, {gib} GiB ({source})").format(chip=chip_label, gib=_gib(hbm), source=chip_source))
    if plan is not None:
        card = plan.card
        kv_token = card.kv_per_sequence_bytes / plan.max_seq_len if plan.max_seq_len else 0
        heading = (_("Plan (requested): {precision} weights, {kv} KV cache, max_seq_len {seq}, batch {batch}; {layout}")
                   if requested_cards else
                   _("Plan (smallest that fits): {precision} weights, {kv} KV cache, max_seq_len {seq}, batch {batch}; "
                     "{layout}"))
        lines.append(heading.format(precision=plan.precision.name, kv=plan.kv_dtype, seq=plan.max_seq_len,
                                    batch=plan.batch, layout=_layout_line(plan.layout, arch.is_moe)))
        lines.append("")
        lines.append(_row(_("per card"), "GiB"))
        if plan.weights.expert_bytes:
            weights = _("(model {total} GiB: {dense} / TP {tp} + experts {experts} / {shards})").format(
                total=_gib(plan.weights.total_bytes), dense=_gib(plan.weights.non_expert_bytes), tp=plan.layout.tp,
                experts=_gib(plan.weights.expert_bytes), shards=plan.layout.expert_shards)
        else:
            weights = _("(model {total} GiB: {dense} / TP {tp})").format(
                total=_gib(plan.weights.total_bytes), dense=_gib(plan.weights.non_expert_bytes), tp=plan.layout.tp)
        lines.append(_row(_("weights"), _gib(card.weights_bytes), weights))
        if plan.kv_budget_bytes is not None:
            lines.append(_row(_("KV cache"), _gib(card.kv_bytes), _("(fixed pool, npuMemSize)")))
        else:
            lines.append(_row(_("KV cache"), _gib(card.kv_bytes), _(
                "({sequences} sequence(s) x {tokens} tokens x {kib} KiB/token)").format(
                    sequences=card.sequences_requested, tokens=plan.max_seq_len, kib=f"{kv_token / 1024:,.1f}")))
        lines.append(_row(_("runtime reserve"), _gib(card.reserve_bytes), _(
            "({fixed} GiB fixed + {fraction} of the card)").format(
                fixed=_gib(plan.reserve.fixed_bytes), fraction=f"{plan.reserve.fraction:.0%}")))
        lines.append(_row(_("free"), _gib(card.free_bytes)))
        lines.append("")
        if card.verdict == VERDICT_FITS:
            lines.append(_("Verdict: fits, margin {gib} GiB ({fraction} of the card); room for {sequences} sequence(s) "
                           "of {tokens} tokens per replica").format(
                gib=_gib(card.free_bytes), fraction=f"{card.margin_fraction:.0%}", sequences=card.sequences_fit,
                tokens=plan.max_seq_len))
        elif card.verdict == VERDICT_NOT_LOADABLE:
            lines.append(_("Verdict: not loadable: {chip} cannot load {precision} weights (the memory figures above "
                           "are for comparison only)").format(chip=chip_label, precision=plan.precision.name))
        elif card.verdict == VERDICT_FEWER and arch.is_mla:
            lines.append(_("Verdict: does not fit as asked: the weights fit, but the KV cache holds only {fit} of the "
                           "{requested} sequence(s) of {tokens} tokens per replica. The MLA KV cache is replicated on "
                           "every TP rank, so more TP does not help: add DP replicas (attention DP, experts over every "
                           "card) or use an 8-bit KV cache").format(
                fit=card.sequences_fit, requested=card.sequences_requested, tokens=plan.max_seq_len))
        elif card.verdict == VERDICT_FEWER:
            lines.append(_("Verdict: does not fit as asked: the weights fit, but the KV cache holds only {fit} of the "
                           "{requested} sequence(s) of {tokens} tokens per replica; lower --batch/--max-seq-len, use "
                           "an 8-bit KV cache, or add cards").format(
                fit=card.sequences_fit, requested=card.sequences_requested, tokens=plan.max_seq_len))
        else:
            lines.append(_("Verdict: does not fit: short by {gib} GiB per card").format(gib=_gib(-card.free_bytes)))
    elif weights_fit is not None:
        card = weights_fit.card
        lines.append(_("Verdict: does not fit as asked on up to 128 cards: the weights need {cards} card(s) "
                       "({layout}); there the KV cache holds {fit} of the {requested} sequence(s) of {tokens} tokens "
                       "per replica. Engines queue the rest (MindIE and vLLM size their KV pool from the memory "
                       "left); lower --batch/--max-seq-len or use an 8-bit KV cache").format(
            cards=weights_fit.layout.cards, layout=_layout_line(weights_fit.layout, arch.is_moe),
            fit=card.sequences_fit, requested=card.sequences_requested, tokens=weights_fit.max_seq_len))
    else:
        lines.append(_("Verdict: does not fit on up to 128 cards of this size (not even the weights)"))
    if outcome.routes:
        lines.append("")
        lines.append(_("Ascend routes for these weights:"))
        for route in outcome.routes:
            count = smallest.get(route.precision)
            where = (ngettext("{count} card", "{count} cards", count).format(count=count) if count
                     else _("over 128 cards"))
            lines.append("  - " + _("{precision}: {how} ({cards} of this size)").format(
                precision=route.precision, how=localized(route.how), cards=where))
    lines.append("")
    lines.append(_("Smallest card count that fits ({gib} GiB cards; TP, and EP for MoE, over every card):").format(
        gib=_gib(hbm)))
    from ascend_doctor.widewrap import cell_width

    layouts = outcome.smallest_layouts or {}
    for name, count in smallest.items():
        extra = "" if PRECISIONS[name].ascend_loadable else "   " + _("(not loadable on Ascend)")
        if name in unsupported and PRECISIONS[name].ascend_loadable:
            extra = "   " + _("(not loadable on {chip}: no {dtype})").format(chip=chip_label, dtype=name.upper())
        elif name in outcome.undocumented:
            extra = "   " + _("(no documented route on {chip})").format(chip=chip_label)
        if not count:
            label = _("over 128 cards")
        else:
            label = ngettext("{count} card", "{count} cards", count).format(count=count)
        layout = layouts.get(name)
        if layout is not None and layout.dp > 1:
            extra = "   " + _("TP {tp} x DP {dp}").format(tp=layout.tp, dp=layout.dp) + extra
        lines.append(f"  {name:<6} " + " " * max(0, 10 - cell_width(label)) + label + extra)
    if notes:
        lines.append("")
        lines.append(_("Notes:"))
        lines.extend(f"  - {localized(note)}" for note in notes)
    return "\n".join(lines)
