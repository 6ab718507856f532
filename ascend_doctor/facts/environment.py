"""Facts about the shell environment CANN's set_env.sh is supposed to produce."""

from __future__ import annotations

import posixpath
from typing import List

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.origin import absence_known
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.environment import AscendEnv

# Variables set_env.sh exports (compat_facts.md §5.7).
SET_ENV_VARS = ("ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_AICPU_PATH")


@provider("ascend_env", reads=Reads(
    present=("{env_path}", "{root}/ascend-toolkit/set_env.sh", "{root}/cann/set_env.sh", "{root}/nnae/set_env.sh"),
    host=("env",)))
def ascend_env(facts: Facts) -> AscendEnv:
    host = facts.host
    env = host.env()
    stack = facts.maybe(Facts.stack)
    running = facts.maybe(Facts.running_stack)
    driver_root = stack.driver_root if stack is not None else "/usr/local/Ascend"
    if running is not None and running.driver_file is not None:
        # The libraries that must be on the path are the running driver's, not a stale stack's (review row 5).
        driver_root = running.driver_file.path.rsplit("/driver/", 1)[0] or "/"
    roots = list(stack.roots if stack is not None and stack.roots else ["/usr/local/Ascend"])
    values = {name: env.get(name) for name in SET_ENV_VARS}
    absent = [name for name, value in values.items() if value and not host.exists(value)]
    # A snapshot that did not capture a path, or a paste, does not show whether it exists.
    missing = tuple(name for name in absent if absence_known(facts, values[name] or ""))
    unrecorded = tuple(name for name in absent if name not in missing)
    ld = tuple(p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p)
    driver_lib64 = posixpath.join(driver_root, "driver", "lib64")
    on_path = any(p.rstrip("/") == driver_lib64 or p.rstrip("/").startswith(driver_lib64 + "/") for p in ld)
    scripts: List[str] = []
    for root in roots:
        for rel in ("ascend-toolkit/set_env.sh", "cann/set_env.sh", "nnae/set_env.sh"):
            path = posixpath.join(root, rel)
            if host.exists(path) and path not in scripts:
                scripts.append(path)
    return AscendEnv(values, missing, ld, driver_lib64, on_path, tuple(scripts), unrecorded)
