"""Options of one doctor run, gathered from the command line (and defaults)."""

from __future__ import annotations

from typing import Optional, Tuple

from msgspec import Struct, field


class RunOptions(Struct, frozen=True):
    timeout_s: float = 10.0
    python: Optional[str] = None  # target interpreter; None -> auto (VIRTUAL_ENV, python3, self)
    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    fail_on: str = "fail"  # "fail" or "warn"
    # Model / serving inputs (issue: model checks). None when not given: those checks SKIP.
    model_dir: Optional[str] = None
    verify_manifest: Optional[str] = None
    serving_config: Optional[str] = None
    vllm_args: Optional[str] = None
    # The rank table to validate (--rank-table FILE); None: the one RANK_TABLE_FILE names, if any.
    rank_table: Optional[str] = None
    # Log scanning bounds
    log_max_bytes: int = 64 * 1024 * 1024
    log_max_files: int = 20
    extra: Tuple[Tuple[str, str], ...] = field(default_factory=tuple)
