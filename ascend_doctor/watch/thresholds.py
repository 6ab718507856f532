"""Alert thresholds, each with where its default comes from (all overridable on the command line).

Serving engines reserve most of the device memory when they start (vLLM's
``--gpu-memory-utilization`` defaults to 0.9, DeepSeek guides use 0.92-0.95), so a fixed ceiling
on HBM use fires on every healthy serving node. Memory is therefore judged against the level
each chip settles at once its engine has started (the *baseline*): growth beyond it, or a new
process on a chip an engine already holds, is what precedes an OOM. A fixed ceiling is still
available (``--hbm-max``) and is off by default.

AICore utilisation says nothing while nobody sends requests (an idle engine sits near 0 %), so
that rule runs only when the user says load is applied (``watch --load``, e.g. during
``ascend-doctor probe`` or a benchmark).

Defaults that are our own choice say "ours" and why; the others name their public source.
"""

from __future__ import annotations

from typing import Dict, Optional

from msgspec import Struct

DEFAULT_INTERVAL_S = 10.0  # npu-smi info takes about a second on 16 chips; 10 s keeps that overhead at 10 %


class Thresholds(Struct, frozen=True):
    temp_max_c: float = 85.0
    memory_max_pct: Optional[float] = None  # a fixed ceiling: off unless --hbm-max is given
    memory_growth_pct: float = 2.0  # of the chip's capacity, above the post-start baseline
    baseline_samples: int = 3  # consecutive settled samples before the baseline is taken
    aicore_min_pct: float = 30.0
    aicore_sustain_s: float = 300.0
    aicore_samples: Optional[int] = None  # None: aicore_sustain_s / interval
    load_applied: bool = False  # --load: requests are being sent, low AICore means something
    leak_window_s: float = 3600.0
    leak_min_rate_mb_h: float = 50.0
    leak_min_r2: float = 0.8
    leak_max_load_rise_pct: float = 10.0

    def aicore_streak(self, interval_s: float) -> int:
        """Consecutive low samples before the AICore rule raises."""
        if self.aicore_samples is not None:
            return max(1, self.aicore_samples)
        return max(1, int(-(-self.aicore_sustain_s // max(interval_s, 0.001))))


ENGINE_RESERVATION = ("vLLM engine arguments: --gpu-memory-utilization, default 0.9 of the device memory reserved at "
                      "start (https://docs.vllm.ai/en/v0.8.5/serving/engine_args.html; also "
                      "https://unsloth.ai/docs/de/grundlagen/inference-and-deployment/vllm-guide/vllm-engine-arguments)")

SOURCES: Dict[str, str] = {
    "temp_max_c": ("WARN, not FAIL: a public Ascend NPU monitoring guide suggests > 80 C as a throttling risk and "
                   "> 85 C as the alarm level (https://ai6s.net/6a11e5b810ee7a33f274b027.html); the chip's own "
                   "verdict is its health status, which FAILs at Alarm/Critical"),
    "health": ("npu-smi command reference, info -t health: OK, Warning (minor), Alarm (major), Critical "
               "(https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html)"),
    "ecc": ("npu-smi command reference, info -t ecc, and DCMI dcmi_ecc_info: double-bit errors were not corrected; "
            "isolated pages are retired memory (https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/"
            "24.1.RC3/re/api/api_044.html)"),
    "memory_max_pct": "off by default: " + ENGINE_RESERVATION + "; a fixed ceiling fires on every serving node",
    "memory_growth_pct": ("ours, from " + ENGINE_RESERVATION + ": the engine's pool is fixed once it has started, "
                          "so growth beyond it is memory outside the pool; 2 % of the capacity is a fifth of the "
                          "10 % the default leaves free"),
    "baseline_samples": ("ours: an engine loads weights and then allocates its KV cache before serving; the "
                         "baseline waits for 3 samples in a row with the same processes and memory within half "
                         "the growth margin"),
    "aicore_min_pct": ("only with --load: a public Ascend NPU monitoring guide flags utilisation below 30 % for 5 min "
                       "as resources wasted (https://ai6s.net/6a11e5b810ee7a33f274b027.html); an idle engine and "
                       "memory-bound low-concurrency decode sit lower on healthy nodes"),
    "aicore_sustain_s": "below 30 % for 5 minutes (https://ai6s.net/6a11e5b810ee7a33f274b027.html)",
    "leak_window_s": ("ours: a 1 h window sees a creep of a few hundred MB/h well before a card's free memory is "
                      "gone"),
    "leak_min_rate_mb_h": "ours: 50 MB/h is 1.2 GB a day, a card's headroom gone within days",
    "leak_min_r2": "ours: the fit must explain 80 % of the variance, i.e. growth that is steady, not one jump",
    "leak_max_load_rise_pct": ("ours: growth with AICore up by more than 10 points over the window follows "
                               "load (more requests, a larger batch), not a leak"),
}
