"""The variables MindIE's, ATB-Models' and NNAL's set_env.sh scripts export (ASC-ENV-002).

* ``mindie/set_env.sh`` runs the scripts of its components: mindie-service exports
  ``MIES_INSTALL_PATH``, mindie-llm ``MINDIE_LLM_HOME_PATH`` (MindIE-LLM ``src/server/scripts/set_env.sh``);
* ``atb-models/set_env.sh`` exports ``ATB_SPEED_HOME_PATH`` (its own folder);
* ``nnal/atb/set_env.sh`` exports ``ATB_HOME_PATH=<root>/nnal/atb/latest/atb/cxx_abi_<n>`` (compat_facts §5.6).
"""

from __future__ import annotations

from typing import Dict, Optional

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.mindie_env import MindieEnv
from ascend_doctor.host.base import HostFileError

MINDIE_ENV_VARS = ("MIES_INSTALL_PATH", "MINDIE_LLM_HOME_PATH", "ATB_SPEED_HOME_PATH", "ATB_HOME_PATH")


@provider("mindie_env", reads=Reads(present=("{env_path}",), host=("env",)))
def mindie_env(facts: Facts) -> MindieEnv:
    env = facts.host.env()
    values: Dict[str, Optional[str]] = {}
    exists: Dict[str, Optional[bool]] = {}
    for name in MINDIE_ENV_VARS:
        value = (env.get(name) or "").strip() or None
        values[name] = value
        if value is None:
            continue
        try:
            exists[name] = bool(facts.host.exists(value))
        except HostFileError:  # a refused path: not proof of absence
            exists[name] = None
    return MindieEnv(values, exists)
