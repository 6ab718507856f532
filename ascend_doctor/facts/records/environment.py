"""The records of the ``environment`` facts, apart from their providers (ascend_doctor/facts/environment.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct


class AscendEnv(Struct, frozen=True):
    values: Dict[str, Optional[str]]  # each SET_ENV_VARS name -> value (None when unset)
    missing_paths: Tuple[str, ...]  # variables whose value is a path that does not exist
    ld_library_path: Tuple[str, ...]
    driver_lib64: str
    driver_lib64_on_path: bool
    set_env_scripts: Tuple[str, ...]  # set_env.sh files that exist, most likely first
    # variables whose path this snapshot (or paste) does not show either way
    unrecorded_paths: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, object]:
        return {"values": dict(self.values), "missing_paths": list(self.missing_paths),
                "unrecorded_paths": list(self.unrecorded_paths),
                "driver_lib64": self.driver_lib64, "driver_lib64_on_path": self.driver_lib64_on_path,
                "set_env_scripts": list(self.set_env_scripts)}
