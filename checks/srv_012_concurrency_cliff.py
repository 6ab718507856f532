"""ASC-SRV-012: throughput keeps rising (or holds) as concurrency rises (probe --sweep)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import sweep
from ascend_doctor.i18n import _

from ._probe import ProbeCheckContext, hints, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-012",
    title="No concurrency cliff across the sweep",
    suite="probe",
    what="With --sweep 1,4,16,64,256: the same streamed request at each level (at most --sweep-requests requests "
         "and --sweep-seconds per level); TTFT, TPOT (excluding the first token) and output tokens/s per level. "
         "A cliff is a level where output tokens/s falls more than 10 % below the previous level, or TPOT at "
         "least doubles and grows more than 10 % faster than the concurrency did (a saturated engine's TPOT grows "
         "with concurrency, not faster).",
    why="Engines can collapse past a batch size without any error: vLLM-Ascend users report decode throughput "
        "falling 3-4x once more than 256 sequences run per engine "
        "(https://github.com/vllm-project/vllm-ascend/issues/14440). vLLM-Ascend's FAQ 22 calls a TPOT rise of "
        "0.5-1 ms per 4 more concurrent requests normal and a jump of 10-100 ms preemption: the KV cache reached "
        "100 % and requests are recomputed (https://docs.vllm.ai/projects/ascend/en/latest/faqs.html).",
    fix="Cap the engine's concurrency at the last level before the cliff (vLLM --max-num-seqs; MindIE "
        "ScheduleConfig.maxBatchSize), or give the KV cache more room (vLLM --gpu-memory-utilization, smaller "
        "--max-num-batched-tokens); the engine's log shows the KV cache usage at the cliff.",
)


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    if not facts.settings.sweep:
        raise NotApplicable(_("no --sweep given (e.g. --sweep 1,4,16,64,256)"))
    if not facts.sweep:
        raise NotApplicable(facts.not_measured(_("the concurrency sweep")))
    series = sweep.points(facts.sweep)
    spark = sweep.sparkline([p.output_tps for p in series])
    levels = ", ".join(str(p.concurrency) for p in series)
    evidence = {"series": [p.to_dict() for p in series], "sparkline": spark, "table": sweep.table(series),
                "definitions": sweep.DEFINITIONS, "client_bound_levels": sweep.client_bound(series),
                "chart": sweep.chart(series)}
    cliff = sweep.find_cliff(series)
    summary = _("output tokens/s across concurrency {levels}: {spark}").format(levels=levels, spark=spark)
    table = "\n".join(sweep.table(series))
    if cliff is None:
        yield Finding.passed(_("{summary}; no cliff").format(summary=summary) + "\n" + table, **evidence)
        return
    if cliff.kind == "throughput":
        what = _("throughput falls from {before:.1f} to {after:.1f} output tokens/s between concurrency {prev} and "
                 "{level}").format(before=cliff.before, after=cliff.after, prev=cliff.previous, level=cliff.concurrency)
    else:
        what = _("TPOT jumps from {before:.1f} ms to {after:.1f} ms between concurrency {prev} and {level}").format(
            before=cliff.before * 1000, after=cliff.after * 1000, prev=cliff.previous, level=cliff.concurrency)
    bound = cliff.concurrency in evidence["client_bound_levels"]
    note = (" " + _("(the probe used most of a CPU core at that level: the client may be the limit)")) if bound else ""
    yield Finding.warn(
        _("{summary}; cliff: {what}{note}").format(summary=summary, what=what, note=note) + "\n" + table,
        _("Cap concurrency at {prev} ({limit}), or give the KV cache more room (vLLM: raise "
          "--gpu-memory-utilization, lower --max-num-batched-tokens); read the engine's log ({logs}) at concurrency "
          "{level}: \"KV cache usage\" near 100 % means preemption (vLLM-Ascend FAQ 22, "
          "https://docs.vllm.ai/projects/ascend/en/latest/faqs.html).").format(
            prev=cliff.previous, limit=hints(facts).concurrency_limit, logs=hints(facts).logs, level=cliff.concurrency),
        cliff={"concurrency": cliff.concurrency, "previous": cliff.previous, "kind": cliff.kind,
               "before": round(cliff.before, 4), "after": round(cliff.after, 4)}, **evidence)
