"""``--vllm-args "..."``: the few engine arguments the model checks compare with the weights
(--quantization / -q, --tokenizer, --dtype). Pure; shell quoting honoured, bad quoting falls back
to splitting on spaces."""

from __future__ import annotations

import shlex
from typing import List, Optional, Sequence

from msgspec import Struct


class EngineArgs(Struct, frozen=True):
    """The few vLLM arguments the model checks care about."""

    argv: Sequence[str]
    quantization: Optional[str] = None
    tokenizer: Optional[str] = None
    dtype: Optional[str] = None

    @property
    def given(self) -> bool:
        return bool(self.argv)


def _value(argv: List[str], names: Sequence[str]) -> Optional[str]:
    for i, arg in enumerate(argv):
        for name in names:
            if arg == name and i + 1 < len(argv):
                return argv[i + 1]
            if name.startswith("--") and arg.startswith(name + "="):
                return arg.split("=", 1)[1]
    return None


def parse_engine_args(text: Optional[str]) -> EngineArgs:
    """Parse ``--vllm-args "..."`` (shell quoting honoured; bad quoting falls back to spaces)."""
    if not text:
        return EngineArgs(argv=())
    try:
        argv = shlex.split(text)
    except ValueError:
        argv = text.split()
    # vLLM accepts both --quantization and -q, and underscores for dashes.
    norm = [a.replace("_", "-") if a.startswith("--") else a for a in argv]
    return EngineArgs(
        argv=tuple(argv),
        quantization=_value(norm, ("--quantization", "-q")),
        tokenizer=_value(norm, ("--tokenizer",)),
        dtype=_value(norm, ("--dtype",)),
    )
