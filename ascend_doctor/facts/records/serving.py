"""The records of the ``serving`` facts, apart from their providers (ascend_doctor/facts/serving.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Tuple

from msgspec import Struct

if TYPE_CHECKING:
    # Imported where used: other facts ask for serving_config on every run (ASC-CFG-011), and without
    # --config or --model none of the parsing and planning code is needed (start-up).
    from ascend_doctor.model.arch import ModelArch
    from ascend_doctor.model.families import ModelFamily
    from ascend_doctor.model.plan import WeightTally


class WeightDir(Struct, frozen=True):
    """What this host has at one weight path of the serving configuration."""

    path: str
    exists: bool
    is_dir: bool
    has_config: bool
    error: Optional[str] = None


class PlanModel(Struct, frozen=True):
    """The model a memory plan is for, and where its numbers come from."""

    ref: str  # what was given: a directory, a config.json, or a built-in name
    kind: Optional[str] = None  # KIND_* (None when it could not be resolved)
    arch: Optional[ModelArch] = None
    tally: Optional[WeightTally] = None
    family: Optional[ModelFamily] = None
    error: Optional[str] = None
    notes: Tuple[str, ...] = ()
    torch_dtype: Optional[str] = None
    # Why the weights are sized from the architecture although headers were read (an incomplete
    # download); the precision those headers showed is kept, it is still the checkpoint's.
    weights_reason: Optional[str] = None
    header_precision: Optional[str] = None

    @property
    def name(self) -> str:
        if self.family is not None:
            return self.family.name
        return self.ref.rstrip("/").rsplit("/", 1)[-1] or self.ref

    @property
    def checkpoint_precision(self) -> Optional[str]:
        """The precision the weights on disk are in (from the headers, else config.json)."""
        if self.tally is not None and self.tally.detected_precision:
            return self.tally.detected_precision
        if self.header_precision:
            return self.header_precision
        if self.arch is not None and self.arch.quant_method:
            method = self.arch.quant_method
            return "fp8" if method == "fp8" else method if method in ("w8a8", "w8a16", "w4a8") else None
        dtype = (self.torch_dtype or "").lower()
        return {"bfloat16": "bf16", "float16": "fp16"}.get(dtype)
