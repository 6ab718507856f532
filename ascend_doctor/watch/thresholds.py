"""Alert thresholds, each with where its default comes from (all overridable on the command line).

"seed 000" is the field report the project started from (910B DeepSeek deployment write-up):
its FAQ describes the production daemon this command replaces (read ``npu-smi info`` every
10 s, alert above 85 C), its TL;DR says AICore below 60 % means the operators are not saturated,
its measurements say HBM at 95 % preceded the OOMs, and its second pitfall is Reserved Memory
creeping up over 24 h until the service hung. The seed gives no figure for the leak rate or
for how steady the growth must be: those defaults are ours and say so.
"""

from __future__ import annotations

from typing import Dict

from ascend_doctor.fastdataclass import dataclass

DEFAULT_INTERVAL_S = 10.0  # seed 000 FAQ: "每10秒抓取一次 npu-smi info"


@dataclass(frozen=True)
class Thresholds:
    temp_max_c: float = 85.0
    memory_max_pct: float = 95.0
    aicore_min_pct: float = 60.0
    aicore_samples: int = 3
    leak_window_s: float = 3600.0
    leak_min_rate_mb_h: float = 50.0
    leak_min_r2: float = 0.8
    leak_max_load_rise_pct: float = 10.0


SOURCES: Dict[str, str] = {
    "temp_max_c": "seed 000 FAQ: the production daemon alerts once the temperature exceeds 85 C",
    "memory_max_pct": "seed 000 section 3: FP16 pushed memory use to 95 % and then OOM",
    "aicore_min_pct": "seed 000 TL;DR: AICore utilisation below 60 % means the operators are not saturated",
    "aicore_samples": ("ours: AICore(%) is an instantaneous reading that swings between decode steps; "
                       "3 samples in a row (30 s at the default interval) before calling a chip idle"),
    "leak_window_s": ("ours: seed 000 pitfall 2 saw Reserved Memory creep for 24 h; a 1 h window sees a "
                      "creep of a few hundred MB/h well before the hang"),
    "leak_min_rate_mb_h": "ours: 50 MB/h is 1.2 GB a day, a card's headroom gone within days",
    "leak_min_r2": "ours: the fit must explain 80 % of the variance, i.e. growth that is steady, not one jump",
    "leak_max_load_rise_pct": ("ours: growth with AICore up by more than 10 points over the window follows "
                               "load (more requests, a larger batch), not a leak"),
}
