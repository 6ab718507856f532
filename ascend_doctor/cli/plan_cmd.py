"""``ascend-doctor plan``: will a model fit, and on how many cards?"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import click

from ascend_doctor.cli._common import fail, guard_output, handle_errors, output_options, write_output
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n_text import localized

KV_CHOICES = ("bf16", "fp16", "int8", "fp8")
PRECISION_CHOICES = ("bf16", "fp16", "w8a8", "w8a16", "w4a8", "fp8")


def _host_chip() -> Tuple[Optional[int], Optional[str]]:
    """(memory per chip in bytes, chip name) as this host's npu-smi reports it."""
    try:
        from ascend_doctor.facts import Facts
        from ascend_doctor.host.factory import make_host

        host = make_host(None)
        chip = Facts(host).maybe(Facts.npu_chip)
    except Exception:  # no usable npu-smi is an answer here, not a crash
        return None, None
    hbm_mb = getattr(chip, "hbm_mb", None)
    if not hbm_mb:
        return None, getattr(chip, "name", None)
    return int(hbm_mb) * 1024 * 1024, str(getattr(chip, "name", "npu"))


class _Card:
    """The card planned for: its size, its label, where the size came from and what the matrix says of its
    dtypes (unsupported: not loadable; supported: loadable; undocumented: no documented route)."""

    def __init__(self, hbm: int, label: str, source: str, memory: Any = None) -> None:
        self.hbm, self.label, self.source = hbm, label, source
        self.unsupported: Tuple[str, ...] = tuple(getattr(memory, "unsupported_dtypes", ()))
        self.supported: Tuple[str, ...] = tuple(getattr(memory, "supported_dtypes", ()))
        self.undocumented: Tuple[str, ...] = tuple(getattr(memory, "undocumented", ()))


def _resolve_memory(chip: Optional[str], mem_gb: Optional[float]) -> _Card:
    """The card: bytes per card, label, where it came from, and the chip's dtype support."""
    from ascend_doctor.model.plan import GIB, PlanError, chip_memory

    if mem_gb is not None:
        return _Card(int(mem_gb * GIB), _("custom"), "--mem-gb")
    if chip:
        try:
            info = chip_memory(chip)
        except PlanError as exc:
            fail(localized(exc), ExitCode.USAGE)
        from ascend_doctor.i18n import translate

        return _Card(info.hbm_bytes, info.name, "--chip" + (f" ({translate(info.note)})" if info.note else ""), info)
    hbm, name = _host_chip()
    if hbm is None:
        if name:
            fail(_("no --chip or --mem-gb given and this host's npu-smi reports no NPU memory (npu-smi names a "
                   "{chip} but not its memory); pass e.g. --chip 910B3 or --mem-gb 64").format(chip=name),
                 ExitCode.USAGE)
        fail(_("no --chip or --mem-gb given and this host's npu-smi reports no NPU memory; pass e.g. --chip 910B3 "
               "or --mem-gb 64"), ExitCode.USAGE)
    memory = None
    try:  # the same resolver as --chip: what this host's chip cannot load
        memory = chip_memory(str(name))
    except Exception:  # an unknown npu-smi name still plans by its memory
        memory = None
    return _Card(hbm, str(name), _("npu-smi on this host"), memory)


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
        loadable_on,
        loading_routes,
        make_layout,
        parse_precision,
        plan_memory,
        smallest_cards,
        smallest_cards_for_weights,
        smallest_layouts_by_precision,
    )

    if chip and mem_gb is not None:
        fail("give --chip or --mem-gb, not both", ExitCode.USAGE)
    guard_output(output, files=[model_ref], folders=[model_ref])
    try:
        host = make_host(None)
    except Exception as exc:
        fail(_("cannot open this host: {error}").format(error=exc), ExitCode.INCOMPLETE)
    model = load_plan_model(host, model_ref)
    if model.error or model.arch is None:
        fail(localized(model.error) if model.error else _("cannot plan for {model}").format(model=repr(model_ref)),
             ExitCode.USAGE)
    assert model.arch is not None
    arch = model.arch
    card = _resolve_memory(chip, mem_gb)
    hbm, chip_label, chip_source, unsupported = card.hbm, card.label, card.source, card.unsupported
    reserve = Reserve(int(reserve_gb * GIB), reserve_fraction)
    prec_name = precision or model.checkpoint_precision or "bf16"
    dtype_notes: List[str] = []
    try:
        prec = parse_precision(prec_name)
    except PlanError as exc:
        fail(localized(exc), ExitCode.USAGE)
    if prec.name in unsupported and prec.name == "bf16" and precision is None:
        # 310P: no BF16. Plan what it can serve (float16, same size) instead of a plan it cannot load.
        dtype_notes.append(_("{chip} has no {dtype}: planned in fp16 (serve with --dtype float16 / MindIE fp16); "
                             "--precision {precision} shows the unloadable plan").format(
            chip=chip_label, dtype=prec.name.upper(), precision=prec.name))
        prec = parse_precision("fp16")
    loadable = loadable_on(prec, unsupported, card.supported)
    routes = tuple(loading_routes(prec, unsupported)) if not loadable else ()
    if prec.name in card.undocumented:
        dtype_notes.append(_("no documented {precision} route on {chip}: the matrix records no source for "
                             "{precision} weights on this chip (planned for comparison)").format(
            precision=prec.name, chip=chip_label))
    if kv_dtype is None and "bf16" in unsupported:
        kv_dtype = "fp16"
    common: Dict[str, Any] = dict(max_seq_len=max_seq_len, batch=batch, kv_dtype=kv_dtype, reserve=reserve,
                                  tally=model.tally, include_mtp=mtp)
    the_plan: Optional[MemoryPlan] = None
    weights_fit: Optional[MemoryPlan] = None
    try:
        if cards is not None or tp is not None or dp is not None:
            layout = make_layout(cards=cards, tp=tp, dp=dp, ep=ep, moe=arch.is_moe)
            the_plan = plan_memory(arch, prec, hbm, layout, name=model.name, loadable=loadable, **common)
            requested = layout.cards
        else:
            if ep is not None:
                fail("--ep needs --cards (or --tp/--dp)", ExitCode.USAGE)
            found = smallest_cards(arch, prec, hbm, attention_dp=True, **common)
            the_plan = plan_memory(arch, prec, hbm, found.layout, name=model.name, loadable=loadable,
                                   **common) if found else None
            if the_plan is None:
                weights_fit = smallest_cards_for_weights(arch, prec, hbm, name=model.name, **common)
            requested = None
        layouts = smallest_layouts_by_precision(arch, hbm, precisions=tuple(PRECISIONS), attention_dp=True,
                                                **common)
    except PlanError as exc:
        fail(localized(exc), ExitCode.USAGE)
    from ascend_doctor.render.plan import PlanOutcome, render_plan

    outcome = PlanOutcome(
        model_ref=model.ref, model_name=model.name, model_kind=model.kind,
        checkpoint_precision=model.checkpoint_precision,
        model_sources=tuple(model.family.sources) if model.family else (), arch=arch,
        card_name=chip_label, card_source=chip_source, hbm_bytes=hbm, plan=the_plan, weights_fit=weights_fit,
        smallest_cards={name: (layout.cards if layout else None) for name, layout in layouts.items()},
        requested_cards=requested, unsupported=unsupported,
        notes=tuple(dtype_notes + list(model.notes) + (list(the_plan.notes) if the_plan else [])),
        loadable=loadable, routes=routes, undocumented=card.undocumented, smallest_layouts=layouts)
    write_output(render_plan(outcome, fmt), output)
    raise SystemExit(int(ExitCode.OK if outcome.fits else ExitCode.FINDINGS))
