"""The figures a probe is graded against, each with where it comes from (overridable by options)."""

from __future__ import annotations

import re
from typing import Any, Dict, FrozenSet, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import N_
from ascend_doctor.lazy import lazy_re

# This tool's starting figures at concurrency 1 for a 7B model on one 910B (TTFT below 500 ms,
# decode above 30 tokens/s), not published ones. They fit a 7B distill and nothing larger: a DeepSeek-V3/R1
# 671B across nodes decodes one stream well below 30 tokens/s when healthy. So they are applied
# only to a served model whose name says it is small (``DEFAULTS_MAX_PARAMS_B``); a larger one is
# skipped with the reason, and --max-ttft-ms / --min-decode-tps, or a published reference
# (probe --chip/--cards), grade it instead.
MAX_TTFT_MS = 500.0
MIN_DECODE_TPS = 30.0
DEFAULTS_MAX_PARAMS_B = 8.0
# Our choice, not a published figure: a share of repeated 4-grams above 0.30 means almost a third
# of the reply restates itself, which fluent prose (near 0) and ordinary R1 reasoning (a few
# percent of stock phrases) stay well below, and the loops seed 003 §5.5 describes ("频繁出现重复
# 词") far exceed. The metric is seq-rep-4 (see repetition.py).
MAX_REPEAT_RATIO = 0.30
REPEAT_NGRAM = 4

# English in the report's evidence and facts; messages show them translated (checks/_probe.py).
SOURCES = {
    "max_ttft_ms": N_("this tool's starting figure for a 7B model on one 910B at concurrency 1 (TTFT below "
                      "500 ms; not a published one), applied only to models up to 8B"),
    "min_decode_tps": N_("this tool's starting figure for a 7B model on one 910B at concurrency 1 (decode above "
                         "30 tokens/s; not a published one), applied only to models up to 8B"),
    "max_repeat_ratio": N_("ascend-doctor's own bound on seq-rep-4 (Welleck et al. 2019, "
                           "https://arxiv.org/abs/1908.04319)"),
}
OPTIONS = {"max_ttft_ms": "--max-ttft-ms", "min_decode_tps": "--min-decode-tps",
           "max_repeat_ratio": "--max-repeat-ratio"}


class Thresholds(Struct, frozen=True):
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


_SIZE = lazy_re(r"(?<![0-9.])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])")
_FULL_DEEPSEEK = lazy_re(r"deepseek[-_ ]?(?:v3|r1|v2\.5|v3\.1|v3\.2)", re.I)


def model_params_b(name: Optional[str]) -> Optional[float]:
    """Billions of parameters a served model's name states ("...-Distill-Qwen-7B" -> 7, "...-671B"
    -> 671); a DeepSeek-V3/R1 without a size and without "Distill" is the 671B model. None when the
    name does not say."""
    if not name:
        return None
    base = name.rsplit("/", 1)[-1]
    sizes = [float(m.group(1)) for m in _SIZE.finditer(base)]
    if sizes:
        return max(sizes)
    if _FULL_DEEPSEEK.search(base) and "distill" not in base.lower():
        return 671.0
    return None


def defaults_apply(thresholds: Thresholds, name: str, model: Optional[str]) -> Tuple[bool, Optional[float]]:
    """Whether the default figure ``name`` grades this model: always when the user set it, else only
    for a model no larger than the 7B the figure was measured on. Returns (applies, size in B)."""
    size = model_params_b(model)
    if name in thresholds.overridden:
        return True, size
    return (size is None or size <= DEFAULTS_MAX_PARAMS_B), size
