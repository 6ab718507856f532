"""``ascend-doctor plan``: will a model fit, and on how many cards?"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import click

from ascend_doctor.cli._common import dump_json, fail, guard_output, handle_errors, output_options, write_output
from ascend_doctor.exitcodes import ExitCode

KV_CHOICES = ("bf16", "fp16", "int8", "fp8")
PRECISION_CHOICES = ("bf16", "fp16", "w8a8", "w8a16", "w4a8", "fp8")


def _host_chip() -> Tuple[Optional[int], Optional[str]]:
    """(memory per chip in bytes, chip name) as this host's npu-smi reports it."""
    try:
        from ascend_doctor.facts import Facts
        from ascend_doctor.host.factory import make_host

        host = make_host(None)
        chip = Facts(host).try_get("npu_chip")
    except Exception:  # no usable npu-smi is an answer here, not a crash
        return None, None
    hbm_mb = getattr(chip, "hbm_mb", None)
    if not hbm_mb:
        return None, getattr(chip, "name", None)
    return int(hbm_mb) * 1024 * 1024, str(getattr(chip, "name", "npu"))


def _resolve_memory(chip: Optional[str], mem_gb: Optional[float]) -> Tuple[int, str, str, Tuple[str, ...]]:
    """(bytes per card, label, where it came from, dtypes the chip does not have)."""
    from ascend_doctor.model.plan import GIB, PlanError, chip_memory

    if mem_gb is not None:
        return int(mem_gb * GIB), "custom", "--mem-gb", ()
    if chip:
        try:
            info = chip_memory(chip)
        except PlanError as exc:
            fail(str(exc), ExitCode.USAGE)
        return (info.hbm_bytes, info.name, "--chip" + (f" ({info.note})" if info.note else ""),
                info.unsupported_dtypes)
    hbm, name = _host_chip()
    if hbm is None:
        seen = f" (npu-smi names a {name} but not its memory)" if name else ""
        fail("no --chip or --mem-gb given and this host's npu-smi reports no NPU memory" + seen
             + "; pass e.g. --chip 910B3 or --mem-gb 64", ExitCode.USAGE)
    unsupported: Tuple[str, ...] = ()
    try:  # the same resolver as --chip: what this host's chip cannot load
        unsupported = chip_memory(str(name)).unsupported_dtypes
    except Exception:  # an unknown npu-smi name still plans by its memory
        unsupported = ()
    return hbm, str(name), "npu-smi on this host", unsupported


def _gib(value: int) -> str:
    return f"{value / (1024 ** 3):,.1f}"


def _layout_line(layout: Any, moe: bool) -> str:
    line = f"{layout.cards} card{'s' if layout.cards != 1 else ''}: TP {layout.tp} x DP {layout.dp}"
    if moe:
        line += f", routed experts over EP {layout.ep} x MoE-TP {layout.moe_tp}"
    return line


def _render_text(model: Any, chip_label: str, chip_source: str, plan: Any, smallest: Dict[str, Optional[int]],
                 requested_cards: Optional[int], hbm: int, notes: List[str], weights_fit: Any = None,
                 unsupported: Tuple[str, ...] = ()) -> str:
    from ascend_doctor.model.arch import describe
    from ascend_doctor.model.plan import PRECISIONS, VERDICT_FEWER, VERDICT_FITS

    arch = model.arch
    params = plan.params if plan else None
    lines: List[str] = []
    head = f"{model.name}: " + "; ".join(describe(arch))
    lines.append(head)
    if params is not None:
        lines.append(f"  {params.total / 1e9:,.2f}B parameters ({plan.weights.source})")
    lines.append(f"Card: {chip_label}, {_gib(hbm)} GiB ({chip_source})")
    if plan is not None:
        card = plan.card
        kv_token = card.kv_per_sequence_bytes / plan.max_seq_len if plan.max_seq_len else 0
        where = "requested" if requested_cards else "smallest that fits"
        lines.append(f"Plan ({where}): {plan.precision.name} weights, {plan.kv_dtype} KV cache, max_seq_len "
                     f"{plan.max_seq_len}, batch {plan.batch}; {_layout_line(plan.layout, arch.is_moe)}")
        lines.append("")
        lines.append("  per card                    GiB")
        lines.append(f"  weights              {_gib(card.weights_bytes):>10}   (model {_gib(plan.weights.total_bytes)} "
                     f"GiB: {_gib(plan.weights.non_expert_bytes)} / TP {plan.layout.tp}"
                     + (f" + experts {_gib(plan.weights.expert_bytes)} / {plan.layout.expert_shards}"
                        if plan.weights.expert_bytes else "") + ")")
        if plan.kv_budget_bytes is not None:
            lines.append(f"  KV cache             {_gib(card.kv_bytes):>10}   (fixed pool, npuMemSize)")
        else:
            lines.append(f"  KV cache             {_gib(card.kv_bytes):>10}   ({card.sequences_requested} sequence(s) "
                         f"x {plan.max_seq_len} tokens x {kv_token / 1024:,.1f} KiB/token)")
        lines.append(f"  runtime reserve      {_gib(card.reserve_bytes):>10}   "
                     f"({_gib(plan.reserve.fixed_bytes)} GiB fixed + {plan.reserve.fraction:.0%} of the card)")
        lines.append(f"  free                 {_gib(card.free_bytes):>10}")
        lines.append("")
        if card.verdict == VERDICT_FITS:
            lines.append(f"Verdict: fits, margin {_gib(card.free_bytes)} GiB ({card.margin_fraction:.0%} of the card); "
                         f"room for {card.sequences_fit} sequence(s) of {plan.max_seq_len} tokens per replica")
        elif card.verdict == VERDICT_FEWER:
            lines.append(f"Verdict: does not fit as asked: the weights fit, but the KV cache holds only "
                         f"{card.sequences_fit} of the {card.sequences_requested} sequence(s) of {plan.max_seq_len} "
                         "tokens per replica; lower --batch/--max-seq-len, use an 8-bit KV cache, or add cards")
        else:
            lines.append(f"Verdict: does not fit: short by {_gib(-card.free_bytes)} GiB per card")
    elif weights_fit is not None:
        card = weights_fit.card
        lines.append(f"Verdict: does not fit as asked on up to 128 cards: the weights need {weights_fit.layout.cards} "
                     f"card(s) ({_layout_line(weights_fit.layout, arch.is_moe)}); there the KV cache holds "
                     f"{card.sequences_fit} of the {card.sequences_requested} sequence(s) of "
                     f"{weights_fit.max_seq_len} tokens per replica. Engines queue the rest (MindIE and vLLM size "
                     "their KV pool from the memory left); lower --batch/--max-seq-len or use an 8-bit KV cache")
    else:
        lines.append("Verdict: does not fit on up to 128 cards of this size (not even the weights)")
    lines.append("")
    lines.append(f"Smallest card count that fits ({_gib(hbm)} GiB cards; TP, and EP for MoE, over every card):")
    for name, count in smallest.items():
        extra = "" if PRECISIONS[name].ascend_loadable else "   (not loadable on Ascend)"
        if name in unsupported and PRECISIONS[name].ascend_loadable:
            extra = f"   (not loadable on {chip_label}: no {name.upper()})"
        label = "over 128 cards" if not count else f"{count} card{'s' if count > 1 else ''}"
        lines.append(f"  {name:<6} {label:>10}{extra}")
    if notes:
        lines.append("")
        lines.append("Notes:")
        lines.extend(f"  - {note}" for note in notes)
    return "\n".join(lines)


@click.command("plan")
@click.option("--model", "model_ref", required=True, metavar="NAME|DIR|config.json",
              help="A built-in name (DeepSeek-R1, DeepSeek-V3, DeepSeek-R1-Distill-Qwen-7B, ...), a model directory "
                   "(weights counted from the safetensors headers) or a config.json.")
@click.option("--precision", type=click.Choice(PRECISION_CHOICES, case_sensitive=False), default=None,
              help="Weight precision. Default: the checkpoint's own, else bf16.")
@click.option("--chip", default=None, metavar="NAME",
              help="Chip or family as `matrix show chips` prints it, e.g. 910B3, 910B4, A3, Ascend910_9392, 310P3 "
                   "(default: npu-smi). On a chip without BF16 (310P) the default precision is fp16.")
@click.option("--mem-gb", type=click.FloatRange(min=0.5, max=4096), default=None,
              help="Memory per card in GiB (npu-smi's 65536 MB = 64), instead of --chip.")
@click.option("--cards", type=click.IntRange(min=1, max=4096), default=None,
              help="Number of cards. Without it (and without --tp/--dp) the smallest count that fits is shown.")
@click.option("--tp", type=click.IntRange(min=1), default=None, help="Tensor-parallel size.")
@click.option("--dp", type=click.IntRange(min=1), default=None, help="Data-parallel size (replicas).")
@click.option("--ep", type=click.IntRange(min=1), default=None, help="Expert-parallel size (MoE models).")
@click.option("--max-seq-len", type=click.IntRange(min=1), default=4096, show_default=True,
              help="Tokens per sequence (prompt + output) the KV cache must hold.")
@click.option("--batch", type=click.IntRange(min=1), default=1, show_default=True,
              help="Concurrent sequences of --max-seq-len tokens.")
@click.option("--kv-dtype", type=click.Choice(KV_CHOICES, case_sensitive=False), default=None,
              help="KV-cache dtype (default: 16-bit).")
@click.option("--mtp", is_flag=True, help="Also count DeepSeek's MTP layer (MTP speculative decoding).")
@click.option("--reserve-gb", type=click.FloatRange(min=0), default=3.0, show_default=True,
              help="Fixed runtime reserve per card in GiB (driver, runtime, HCCL, workspace).")
@click.option("--reserve-fraction", type=click.FloatRange(min=0, max=0.9), default=0.10, show_default=True,
              help="Extra head-room per card as a fraction of its memory (1 - gpu-memory-utilization).")
@output_options
@handle_errors
def plan(model_ref: str, precision: Optional[str], chip: Optional[str], mem_gb: Optional[float],
         cards: Optional[int], tp: Optional[int], dp: Optional[int], ep: Optional[int], max_seq_len: int,
         batch: int, kv_dtype: Optional[str], mtp: bool, reserve_gb: float, reserve_fraction: float,
         fmt: str, output: Optional[str]) -> None:
    """Will this model fit, and on how many cards?

    Prints, per card, the weights, the KV cache, the runtime reserve and what is left, with a
    verdict and margin, and the smallest card count that fits for every precision. The
    arithmetic and the reserve are documented in docs/plan.md.

    \b
    Examples:
      ascend-doctor plan --model DeepSeek-R1 --precision w8a8 --chip 910B3 --cards 16
      ascend-doctor plan --model DeepSeek-R1-Distill-Qwen-32B --mem-gb 64
      ascend-doctor plan --model /data/DeepSeek-R1-W8A8 --tp 8 --dp 2 --ep 16 --max-seq-len 8192 --batch 64
      ascend-doctor plan --model DeepSeek-V3 --chip A3 --format json

    Exit codes: 0 fits, 1 does not fit, 2 usage error, 130 Ctrl-C.
    """
    from ascend_doctor.facts.serving import load_plan_model
    from ascend_doctor.host.factory import make_host
    from ascend_doctor.model.plan import (
        GIB,
        PRECISIONS,
        MemoryPlan,
        PlanError,
        Reserve,
        make_layout,
        parse_precision,
        plan_memory,
        smallest_cards,
        smallest_cards_by_precision,
        smallest_cards_for_weights,
    )

    if chip and mem_gb is not None:
        fail("give --chip or --mem-gb, not both", ExitCode.USAGE)
    guard_output(output, files=[model_ref], folders=[model_ref])
    try:
        host = make_host(None)
    except Exception as exc:
        fail(f"cannot open this host: {exc}", ExitCode.INCOMPLETE)
    model = load_plan_model(host, model_ref)
    if model.error or model.arch is None:
        fail(model.error or f"cannot plan for {model_ref!r}", ExitCode.USAGE)
    assert model.arch is not None
    arch = model.arch
    hbm, chip_label, chip_source, unsupported = _resolve_memory(chip, mem_gb)
    reserve = Reserve(int(reserve_gb * GIB), reserve_fraction)
    prec_name = precision or model.checkpoint_precision or "bf16"
    dtype_notes: List[str] = []
    try:
        prec = parse_precision(prec_name)
    except PlanError as exc:
        fail(str(exc), ExitCode.USAGE)
    if prec.name in unsupported:
        if precision is None:
            # 310P: no BF16. Plan what it can serve (float16, same size) instead of a plan it cannot load.
            dtype_notes.append(f"{chip_label} has no {prec.name.upper()}: planned in fp16 (serve with --dtype "
                               f"float16 / MindIE fp16); --precision {prec.name} shows the unloadable plan")
            prec = parse_precision("fp16")
        else:
            dtype_notes.append(f"{prec.name} is not loadable on {chip_label} (no {prec.name.upper()}): use "
                               "--precision fp16")
    if kv_dtype is None and "bf16" in unsupported:
        kv_dtype = "fp16"
    common: Dict[str, Any] = dict(max_seq_len=max_seq_len, batch=batch, kv_dtype=kv_dtype, reserve=reserve,
                                  tally=model.tally, include_mtp=mtp)
    the_plan: Optional[MemoryPlan] = None
    weights_fit: Optional[MemoryPlan] = None
    try:
        if cards is not None or tp is not None or dp is not None:
            layout = make_layout(cards=cards, tp=tp, dp=dp, ep=ep, moe=arch.is_moe)
            the_plan = plan_memory(arch, prec, hbm, layout, name=model.name, **common)
            requested = layout.cards
        else:
            if ep is not None:
                fail("--ep needs --cards (or --tp/--dp)", ExitCode.USAGE)
            found = smallest_cards(arch, prec, hbm, **common)
            the_plan = plan_memory(arch, prec, hbm, found.layout, name=model.name, **common) if found else None
            if the_plan is None:
                weights_fit = smallest_cards_for_weights(arch, prec, hbm, name=model.name, **common)
            requested = None
        smallest = smallest_cards_by_precision(arch, hbm, precisions=tuple(PRECISIONS), **common)
    except PlanError as exc:
        fail(str(exc), ExitCode.USAGE)
    notes = dtype_notes + list(model.notes) + (list(the_plan.notes) if the_plan else [])
    fits = bool(the_plan and the_plan.fits)
    if fmt == "json":
        data = {
            "model": {"ref": model.ref, "name": model.name, "kind": model.kind,
                      "checkpoint_precision": model.checkpoint_precision,
                      "sources": list(model.family.sources) if model.family else []},
            "card": {"name": chip_label, "hbm_bytes": hbm, "source": chip_source},
            "plan": the_plan.as_dict() if the_plan else None,
            "weights_fit": weights_fit.as_dict() if weights_fit else None,
            "smallest_cards": smallest,
            "not_loadable": sorted({n for n in PRECISIONS if not PRECISIONS[n].ascend_loadable} | set(unsupported)),
            "fits": fits,
            "notes": notes,
        }
        write_output(dump_json(data), output)
    else:
        write_output(_render_text(model, chip_label, chip_source, the_plan, smallest, requested, hbm, notes,
                                  weights_fit, unsupported), output)
    raise SystemExit(int(ExitCode.OK if fits else ExitCode.FINDINGS))
