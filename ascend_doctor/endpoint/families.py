"""Which published-results family a served model's name belongs to (compat_matrix/serving_refs.yaml)."""

from __future__ import annotations

import re
from typing import Optional

from ascend_doctor.endpoint.thresholds import model_params_b


def family_of(model: Optional[str]) -> Optional[str]:
    """deepseek-r1 (the 671B V3/R1 and their updates), deepseek-v4-flash, r1-distill-<N>b; None when unknown."""
    if not model:
        return None
    name = model.rsplit("/", 1)[-1].lower()
    if re.search(r"v4[-_ ]?flash", name):
        return "deepseek-v4-flash"
    size = model_params_b(model)
    if "distill" in name and size is not None:
        return f"r1-distill-{size:g}b"
    if re.search(r"deepseek[-_ ]?(?:v3|r1)", name) and size in (None, 671.0):
        return "deepseek-r1"
    if size == 671.0:
        return "deepseek-r1"
    return None


def engine_key(engine: Optional[str]) -> Optional[str]:
    """The probe's engine guess as the reference table names engines."""
    return {"vllm": "vllm-ascend", "mindie": "mindie", "sglang": "sglang"}.get(engine or "")
