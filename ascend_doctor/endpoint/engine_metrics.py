"""vLLM's Prometheus ``/metrics``: the few gauges and counters that tell a working engine from a hung one.

Names as vLLM exports them (vLLM docs, "Production Metrics"; the KV-cache gauge was renamed from
``vllm:gpu_cache_usage_perc`` to ``vllm:kv_cache_usage_perc``, both are read):

* ``vllm:num_requests_running`` / ``vllm:num_requests_waiting``: requests in the batch and queued;
* ``vllm:kv_cache_usage_perc``: KV-cache blocks in use, 0 to 1;
* ``vllm:generation_tokens_total``: tokens generated since start (a counter).

Pure and bounded: the text in, a dict out; label sets of one metric are summed (gauges per engine
under data parallelism add up), the KV-cache share takes the highest.
"""

from __future__ import annotations

import math
from typing import Dict

METRICS_PATH = "/metrics"
MAX_LINES = 20_000

_SUMMED = {
    "vllm:num_requests_running": "running",
    "vllm:num_requests_waiting": "waiting",
    "vllm:generation_tokens_total": "generation_tokens",
}
_HIGHEST = {"vllm:kv_cache_usage_perc": "kv_cache_usage", "vllm:gpu_cache_usage_perc": "kv_cache_usage"}


def parse_vllm_metrics(text: str) -> Dict[str, float]:
    """The values found (keys running, waiting, kv_cache_usage, generation_tokens); absent ones are left out."""
    out: Dict[str, float] = {}
    for index, line in enumerate(text.splitlines()):
        if index >= MAX_LINES:
            break
        if not line.startswith("vllm:"):
            continue
        name_part, _, rest = line.partition(" ")
        name = name_part.split("{", 1)[0]
        if "{" in name_part and "}" not in name_part:  # a label value with a space: take the text after "}"
            rest = line.split("}", 1)[-1]
            name = line.split("{", 1)[0]
        fields = rest.split()
        if not fields:
            continue
        try:
            value = float(fields[0])
        except ValueError:
            continue
        if math.isnan(value) or math.isinf(value):
            continue
        if name in _SUMMED:
            key = _SUMMED[name]
            out[key] = out.get(key, 0.0) + value
        elif name in _HIGHEST:
            key = _HIGHEST[name]
            out[key] = max(out.get(key, 0.0), value)
    return out
