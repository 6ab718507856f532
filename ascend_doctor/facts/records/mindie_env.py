"""The records of the ``mindie_env`` facts, apart from their providers (ascend_doctor/facts/mindie_env.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional

from msgspec import Struct


class MindieEnv(Struct, frozen=True):
    values: Dict[str, Optional[str]]  # each MINDIE_ENV_VARS name -> value (None when unset or empty)
    exists: Dict[str, Optional[bool]]  # name -> whether its folder exists (None: could not be told)

    def to_dict(self) -> Dict[str, object]:
        return {"values": dict(self.values), "exists": dict(self.exists)}
