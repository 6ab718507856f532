"""Grade a measured endpoint against published serving results (compat_matrix/serving_refs.yaml).

Pure: a measurement and the rows ``serving_refs.nearest`` picked in, a verdict out:

* ``within``: TPOT (and TTFT where the row has one) no more than ``BAND`` above the published
  figure;
* ``slower``: by how much, with the causes the sources themselves name for slower results
  (eager instead of graph dispatch, MTP off, a different TP/DP layout);
* ``not_comparable``: no row matches a key (which one is said), or the lengths or concurrency
  differ from the row's (run with the row's lengths and concurrency).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from msgspec import Struct

from ascend_doctor.matrix.serving_refs import RefQuery, ServingRef, nearest

# Ours: published figures come from other tools (AISBench, vLLM's benchmark, SGLang's tables)
# whose TPOT definitions differ (AISBench and EvalScope disagree on the same run:
# https://github.com/AISBench/benchmark/issues/375), so 20 % above the figure is still "within".
BAND = 0.20
LENGTH_TOLERANCE = 0.25  # input/output lengths within 25 % of the row's count as the same scenario

# Causes the sources name for a slower result, used when the row names none itself.
GENERIC_CAUSES: Tuple[str, ...] = (
    "eager (single-operator) dispatch instead of graph mode: 9.78 vs 38.94 TPS/NPU on the same A2 PD setup "
    "(https://github.com/vllm-project/vllm-ascend/issues/3097)",
    "MTP off where the reference ran with it: 38.94 vs 42.67 TPS/NPU "
    "(https://github.com/vllm-project/vllm-ascend/issues/3097)",
    "a different TP/DP/EP layout or engine: vLLM-Ascend TTFT 3.68 s / TPOT 42 ms vs MindIE 1.83 s / 31 ms in one "
    "scenario (https://github.com/vllm-project/vllm-ascend/issues/4295)",
)

WITHIN = "within"
SLOWER = "slower"
NOT_COMPARABLE = "not_comparable"


class Measured(Struct, frozen=True):
    """What the probe measured, with the scenario it measured it in."""

    concurrency: int
    input_tokens: Optional[int]
    output_tokens: Optional[int]
    tpot_ms: Optional[float]
    ttft_s: Optional[float] = None
    output_tps: Optional[float] = None


class RefGrade(Struct, frozen=True):
    verdict: str
    reason: str
    row: Optional[ServingRef] = None
    slower_pct: Optional[float] = None
    causes: Tuple[str, ...] = ()
    missing: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        return {"verdict": self.verdict, "reason": self.reason, "reference": self.row.to_dict() if self.row else None,
                "slower_pct": None if self.slower_pct is None else round(self.slower_pct, 1),
                "causes": list(self.causes), "missing": list(self.missing)}


def _close(measured: Optional[int], published: int) -> bool:
    return measured is not None and abs(measured - published) <= LENGTH_TOLERANCE * published


def _scenario_gap(row: ServingRef, m: Measured) -> List[str]:
    gaps = []
    if not _close(m.input_tokens, row.input_tokens):
        gaps.append(f"input {m.input_tokens or '?'} tokens vs {row.input_tokens}")
    if not _close(m.output_tokens, row.output_tokens):
        gaps.append(f"output {m.output_tokens or '?'} tokens vs {row.output_tokens}")
    if row.concurrency is not None and row.concurrency != m.concurrency:
        gaps.append(f"concurrency {m.concurrency} vs {row.concurrency}")
    return gaps


def _shares_metric(row: ServingRef, m: Measured) -> bool:
    return ((row.metric("tpot_ms") is not None and m.tpot_ms is not None)
            or (row.metric("ttft_s") is not None and m.ttft_s is not None)
            or (row.metric("output_tps") is not None and bool(m.output_tps)))


def pick(rows: Sequence[ServingRef], m: Measured) -> Optional[ServingRef]:
    """The row whose scenario matches the measurement: same concurrency first, a row that shares a
    metric with it, and not a row that documents a slow configuration (eager mode)."""
    fitting = [r for r in rows if not _scenario_gap(r, m)]
    # stable: the order nearest() gave (same engine first) breaks ties
    fitting.sort(key=lambda r: (r.concurrency != m.concurrency, not _shares_metric(r, m), r.mode == "eager"))
    return fitting[0] if fitting else None


def grade(rows: Sequence[ServingRef], query: RefQuery, m: Measured) -> RefGrade:
    """The verdict of one measurement against the published rows."""
    found, missing = nearest(rows, query, limit=50)
    if not found:
        return RefGrade(NOT_COMPARABLE, "no published result matches " + ", ".join(missing), missing=tuple(missing))
    row = pick(found, m)
    if row is None:
        first = found[0]
        return RefGrade(NOT_COMPARABLE, "published results exist for this deployment but at another scenario ("
                        + "; ".join(_scenario_gap(first, m)) + f"): run at {first.input_tokens}/{first.output_tokens} "
                        f"tokens" + (f", concurrency {first.concurrency}" if first.concurrency else ""), row=first)
    ratios: List[float] = []
    published_tpot = row.metric("tpot_ms")
    if published_tpot is not None and m.tpot_ms is not None:
        ratios.append(m.tpot_ms / published_tpot)
    published_ttft = row.metric("ttft_s")
    if published_ttft is not None and m.ttft_s is not None:
        ratios.append(m.ttft_s / published_ttft)
    published_tps = row.metric("output_tps")
    if published_tps is not None and m.output_tps:
        ratios.append(published_tps / m.output_tps)
    if not ratios:
        return RefGrade(NOT_COMPARABLE, "the reference and the measurement share no metric (TPOT, TTFT, output "
                        "tokens/s)", row=row)
    worst = max(ratios)
    if worst <= 1 + BAND:
        return RefGrade(WITHIN, f"within {BAND:.0%} of the published figures", row=row)
    causes = row.slower_causes or GENERIC_CAUSES
    return RefGrade(SLOWER, f"{(worst - 1) * 100:.0f} % slower than published", row=row,
                    slower_pct=(worst - 1) * 100, causes=tuple(causes))
