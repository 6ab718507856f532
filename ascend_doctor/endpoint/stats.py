"""Percentiles and summaries of latency samples (pure)."""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Sequence

from msgspec import Struct


def percentile(values: Sequence[float], q: float) -> Optional[float]:
    """The q-th percentile (0..100) by linear interpolation between the closest ranks.

    This is the usual definition (numpy's default, "type 7"): with 5 samples the p95 lies
    between the 4th and 5th smallest. None for no samples; NaN and infinities are ignored.
    """
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within 0..100, not {q}")
    clean = sorted(v for v in values if isinstance(v, (int, float)) and math.isfinite(v))
    if not clean:
        return None
    if len(clean) == 1:
        return float(clean[0])
    rank = (len(clean) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(clean) - 1)
    fraction = rank - low
    return float(clean[low] + (clean[high] - clean[low]) * fraction)


class Summary(Struct, frozen=True):
    """count, min, p50, p95, max and mean of a set of samples (None when there are none)."""

    count: int
    minimum: Optional[float]
    p50: Optional[float]
    p95: Optional[float]
    maximum: Optional[float]
    mean: Optional[float]

    def to_dict(self, digits: int = 4) -> Dict[str, Any]:
        def r(v: Optional[float]) -> Optional[float]:
            return None if v is None else round(v, digits)

        return {"count": self.count, "min": r(self.minimum), "p50": r(self.p50), "p95": r(self.p95),
                "max": r(self.maximum), "mean": r(self.mean)}


def summarize(values: Sequence[float]) -> Summary:
    clean = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if not clean:
        return Summary(0, None, None, None, None, None)
    return Summary(len(clean), min(clean), percentile(clean, 50), percentile(clean, 95), max(clean),
                   sum(clean) / len(clean))
