"""Facts about the shell environment CANN's set_env.sh is supposed to produce."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.origin import absence_is_evidence

# Variables set_env.sh exports (compat_facts.md §5.7).
SET_ENV_VARS = ("ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_AICPU_PATH")


@dataclass(frozen=True)
class AscendEnv:
    values: Dict[str, Optional[str]]  # each SET_ENV_VARS name -> value (None when unset)
    missing_paths: Tuple[str, ...]  # variables whose value is a path that does not exist
    ld_library_path: Tuple[str, ...]
    driver_lib64: str
    driver_lib64_on_path: bool
    set_env_scripts: Tuple[str, ...]  # set_env.sh files that exist, most likely first

    def to_dict(self) -> Dict[str, object]:
        return {"values": dict(self.values), "missing_paths": list(self.missing_paths),
                "driver_lib64": self.driver_lib64, "driver_lib64_on_path": self.driver_lib64_on_path,
                "set_env_scripts": list(self.set_env_scripts)}


@provider("ascend_env")
def ascend_env(facts: Facts) -> AscendEnv:
    host = facts.host
    env = host.env()
    stack = facts.try_get("stack")
    driver_root = getattr(stack, "driver_root", "/usr/local/Ascend")
    roots = list(getattr(stack, "roots", ()) or ["/usr/local/Ascend"])
    values = {name: env.get(name) for name in SET_ENV_VARS}
    # Pasted text records no folders: a path it names is not missing, only unseen.
    missing = tuple(name for name, value in values.items()
                    if value and not host.exists(value) and absence_is_evidence(facts))
    ld = tuple(p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p)
    driver_lib64 = posixpath.join(driver_root, "driver", "lib64")
    on_path = any(p.rstrip("/") == driver_lib64 or p.rstrip("/").startswith(driver_lib64 + "/") for p in ld)
    scripts: List[str] = []
    for root in roots:
        for rel in ("ascend-toolkit/set_env.sh", "cann/set_env.sh", "nnae/set_env.sh"):
            path = posixpath.join(root, rel)
            if host.exists(path) and path not in scripts:
                scripts.append(path)
    return AscendEnv(values, missing, ld, driver_lib64, on_path, tuple(scripts))
