"""Typed records produced by fact providers and shared between checks."""

from __future__ import annotations

from typing import Optional, Tuple

from msgspec import Struct


class ChipSummary(Struct, frozen=True):
    """What kind of NPU this host has, summarised from ``npu-smi info`` and the matrix.

    ``name`` is what npu-smi prints (``910B3``, ``Ascend910``, ``310P3``...), ``family`` the
    matrix family (``A2``, ``A3``, ``310P``, ``310B``, ``910``, ``950``, or None when unknown).
    """

    name: str
    family: Optional[str]
    chip_count: int
    hbm_mb: Optional[int]  # per chip, HBM (or device memory where the chip has no HBM)
    names: Tuple[str, ...] = ()  # every distinct name seen (a mixed host has several)
    # Set when no NPU table was read and the chip comes from a line of pasted text ("NPU type:
    # Ascend910B1"): chip_count is then 0 (not known) and hbm_mb None.
    stated_by: Optional[str] = None
