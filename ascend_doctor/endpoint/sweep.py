"""The concurrency sweep: one point per level, and the cliff where more concurrency stops paying.

A healthy engine's output throughput rises with concurrency until it saturates, and its TPOT
grows slowly while batching absorbs the extra requests. A *cliff* is the level where that breaks:
throughput falls from one level to the next, or TPOT jumps by more than the added concurrency
(every stream slows more than the batch grew). vLLM-Ascend users report exactly this: "Decode
throughput collapses 3-4x silently when running sequences exceed 256 per engine"
(https://github.com/vllm-project/vllm-ascend/issues/14440). The margins below are ours.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from msgspec import Struct

from ascend_doctor.endpoint import records as rec

THROUGHPUT_DROP = 0.10  # ours: output tokens/s more than 10 % below the previous level
TPOT_JUMP = 2.0  # ours: TPOT at least doubles ...
TPOT_OVER_CONCURRENCY = 1.1  # ... and grows 10 % more than the concurrency did (saturation grows them alike)
CLIENT_BOUND_SHARE = 0.8  # ours: the probe used 80 % of one core (its GIL limit) or more
SPARKS = "▁▂▃▄▅▆▇█"

DEFINITIONS = {
    "ttft": "time from sending the request to the first non-empty streamed token (content or reasoning), as "
            "vLLM's benchmark and AIPerf define it (empty first chunks do not count)",
    "tpot": "time per output token excluding the first: (last token - first token) / (output tokens - 1), "
            "vLLM's benchmark \"TPOT (excl. 1st token)\"",
    "itl": "inter-token latency: the gap between successive non-empty streamed chunks",
    "output_tps": "output tokens of the successful requests / the level's wall time; tokens from the server's "
                  "usage when it reports them, else counted from the stream (one token per chunk)",
}


class SweepPoint(Struct, frozen=True):
    concurrency: int
    sent: int
    ok: int
    failed: int
    ttft_p50_s: Optional[float]
    tpot_p50_s: Optional[float]
    itl_p50_s: Optional[float]
    output_tps: Optional[float]
    client_cpu_share: Optional[float]
    tokens_by_server: bool

    def to_dict(self) -> Dict[str, Any]:
        def r(value: Optional[float], digits: int = 4) -> Optional[float]:
            return None if value is None else round(value, digits)

        return {"concurrency": self.concurrency, "sent": self.sent, "ok": self.ok, "failed": self.failed,
                "ttft_p50_s": r(self.ttft_p50_s), "tpot_p50_s": r(self.tpot_p50_s), "itl_p50_s": r(self.itl_p50_s),
                "output_tokens_per_s": r(self.output_tps, 2), "client_cpu_share": r(self.client_cpu_share, 3),
                "tokens_counted_by": "server usage" if self.tokens_by_server else "streamed chunks"}


class Cliff(Struct, frozen=True):
    concurrency: int  # the level where it broke
    previous: int  # the level before, the one to cap concurrency at
    kind: str  # "throughput" or "tpot"
    before: float
    after: float


def points(phases: Sequence[rec.LoadPhase]) -> List[SweepPoint]:
    out = []
    for phase in phases:
        ok = phase.succeeded
        out.append(SweepPoint(
            concurrency=phase.concurrency, sent=len(phase.replies), ok=len(ok),
            failed=len(phase.replies) - len(ok) - phase.count(rec.CANCELLED),
            ttft_p50_s=phase.ttft().p50, tpot_p50_s=phase.tpot().p50, itl_p50_s=phase.inter_token().p50,
            output_tps=phase.output_tokens_per_s, client_cpu_share=phase.client_cpu_share,
            tokens_by_server=bool(ok) and all(r.tokens_counted_by_server for r in ok)))
    return out


def find_cliff(series: Sequence[SweepPoint]) -> Optional[Cliff]:
    """The first level where throughput falls or TPOT jumps past what the added concurrency explains."""
    for prev, cur in zip(series, series[1:]):
        if prev.output_tps and cur.output_tps is not None and cur.output_tps < prev.output_tps * (1 - THROUGHPUT_DROP):
            return Cliff(cur.concurrency, prev.concurrency, "throughput", prev.output_tps, cur.output_tps)
        if prev.tpot_p50_s and cur.tpot_p50_s:
            ratio = cur.tpot_p50_s / prev.tpot_p50_s
            if ratio >= TPOT_JUMP and ratio > TPOT_OVER_CONCURRENCY * cur.concurrency / max(prev.concurrency, 1):
                return Cliff(cur.concurrency, prev.concurrency, "tpot", prev.tpot_p50_s, cur.tpot_p50_s)
    return None


def sparkline(values: Sequence[Optional[float]]) -> str:
    known = [v for v in values if v is not None]
    if not known:
        return ""
    top = max(known) or 1.0
    return "".join(" " if v is None else SPARKS[min(len(SPARKS) - 1, int(v / top * (len(SPARKS) - 1) + 0.5))]
                   for v in values)


def table(series: Sequence[SweepPoint]) -> List[str]:
    """A small fixed-width table, one line per level."""
    def cell(value: Optional[float], scale: float = 1.0, digits: int = 0) -> str:
        return "-" if value is None else f"{value * scale:.{digits}f}"

    lines = [f"{'conc':>5} {'ok':>4} {'fail':>4} {'TTFT p50 ms':>11} {'TPOT p50 ms':>11} {'out tok/s':>9}"]
    for p in series:
        lines.append(f"{p.concurrency:>5} {p.ok:>4} {p.failed:>4} {cell(p.ttft_p50_s, 1000):>11} "
                     f"{cell(p.tpot_p50_s, 1000, 1):>11} {cell(p.output_tps, 1, 1):>9}")
    return lines


def client_bound(series: Sequence[SweepPoint]) -> List[int]:
    """Levels where the probe itself was near one core: their figures may be the client's limit."""
    return [p.concurrency for p in series
            if p.client_cpu_share is not None and p.client_cpu_share >= CLIENT_BOUND_SHARE]


def chart(series: Sequence[SweepPoint]) -> Dict[str, Any]:
    """The series as the HTML report's generic chart evidence (render/chart_svg.py)."""
    return {"title": "concurrency sweep", "x_label": "concurrency", "x": [p.concurrency for p in series],
            "series": [
                {"name": "output tokens/s", "unit": "tok/s",
                 "values": [None if p.output_tps is None else round(p.output_tps, 2) for p in series]},
                {"name": "TPOT p50", "unit": "ms",
                 "values": [None if p.tpot_p50_s is None else round(p.tpot_p50_s * 1000, 2) for p in series]},
                {"name": "TTFT p50", "unit": "ms",
                 "values": [None if p.ttft_p50_s is None else round(p.ttft_p50_s * 1000, 1) for p in series]},
            ]}
