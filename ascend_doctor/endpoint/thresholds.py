"""The figures a probe is graded against, each with where it comes from (overridable by options)."""

from __future__ import annotations

from typing import Any, Dict, FrozenSet

from ascend_doctor.fastdataclass import dataclass, field
from ascend_doctor.i18n import N_

# Seed 003 §6 (field report, "验证与进阶"): at concurrency 1, a 7B model on a 910B "首 token 时延
# 应该低于 500ms，解码吞吐在 30 token/s 以上". These fit a 7B distill on one 910B; larger models
# and other chips need their own figures (--max-ttft-ms, --min-decode-tps).
MAX_TTFT_MS = 500.0
MIN_DECODE_TPS = 30.0
# Our choice, not a published figure: a share of repeated 4-grams above 0.30 means almost a third
# of the reply restates itself, which fluent prose (near 0) and ordinary R1 reasoning (a few
# percent of stock phrases) stay well below, and the loops seed 003 §5.5 describes ("频繁出现重复
# 词") far exceed. The metric is seq-rep-4 (see repetition.py).
MAX_REPEAT_RATIO = 0.30
REPEAT_NGRAM = 4

# English in the report's evidence and facts; messages show them translated (checks/_probe.py).
SOURCES = {
    "max_ttft_ms": N_("seed 003 §6: TTFT below 500 ms for a 7B model on 910B at concurrency 1"),
    "min_decode_tps": N_("seed 003 §6: decode above 30 tokens/s for a 7B model on 910B at concurrency 1"),
    "max_repeat_ratio": N_("ascend-doctor's own bound on seq-rep-4 (Welleck et al. 2019); seed 003 §5.5 "
                           "describes the symptom, not a figure"),
}
OPTIONS = {"max_ttft_ms": "--max-ttft-ms", "min_decode_tps": "--min-decode-tps",
           "max_repeat_ratio": "--max-repeat-ratio"}


@dataclass(frozen=True)
class Thresholds:
    max_ttft_ms: float = MAX_TTFT_MS
    min_decode_tps: float = MIN_DECODE_TPS
    max_repeat_ratio: float = MAX_REPEAT_RATIO
    repeat_ngram: int = REPEAT_NGRAM
    overridden: FrozenSet[str] = field(default_factory=frozenset)

    def source(self, name: str) -> str:
        """Where a threshold comes from: the seed's figure, or the option that replaced it."""
        if name in self.overridden:
            return f"set with {OPTIONS.get(name, name)}"
        return SOURCES.get(name, "")

    def to_dict(self) -> Dict[str, Any]:
        return {name: {"value": getattr(self, name), "source": self.source(name)} for name in SOURCES}


def thresholds_from_options(max_ttft_ms: Any = None, min_decode_tps: Any = None,
                            max_repeat_ratio: Any = None) -> Thresholds:
    given = {"max_ttft_ms": max_ttft_ms, "min_decode_tps": min_decode_tps, "max_repeat_ratio": max_repeat_ratio}
    values = {k: float(v) for k, v in given.items() if v is not None}
    defaults = Thresholds()
    return Thresholds(max_ttft_ms=values.get("max_ttft_ms", defaults.max_ttft_ms),
                      min_decode_tps=values.get("min_decode_tps", defaults.min_decode_tps),
                      max_repeat_ratio=values.get("max_repeat_ratio", defaults.max_repeat_ratio),
                      overridden=frozenset(values))
