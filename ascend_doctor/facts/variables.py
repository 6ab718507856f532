"""The values of the variables in the providers' ``Reads`` declarations, for one host and run.

Capture expands the declarations with the values of the live machine; the declared-reads test
with those of a snapshot. Both use this one function, so they cannot disagree.
"""

from __future__ import annotations

import posixpath
from typing import Dict, List, Optional

from ascend_doctor.host.base import Host, HostFileError
from ascend_doctor.options import RunOptions

# Ascend variables whose values are paths the providers look at.
PATH_VARIABLES = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH",
                  "ATB_HOME_PATH", "ASCEND_CUSTOM_OPP_PATH",
                  "MIES_INSTALL_PATH", "MINDIE_LLM_HOME_PATH", "ATB_SPEED_HOME_PATH")  # MindIE's (facts/mindie_env.py)


def _install_root(host: Host) -> Optional[str]:
    from ascend_doctor.facts.stack import ASCEND_INSTALL_INFO
    from ascend_doctor.parsers.install_info import parse_ascend_install_info

    try:
        text = host.read_text(ASCEND_INSTALL_INFO, max_bytes=256 * 1024)
        info = parse_ascend_install_info(text)
    except (HostFileError, ValueError):
        return None
    path = getattr(info, "driver_install_path", None)
    return str(path) if path else None


def _home_users(host: Host) -> List[str]:
    try:
        return [name for name in host.listdir("/home") if not name.startswith(".")]
    except HostFileError:
        return []


def read_variables(host: Host, options: Optional[RunOptions] = None,
                   model_dirs: Optional[List[str]] = None) -> Dict[str, List[str]]:
    """``{root}``, ``{log_root}``, ``{env_path}``, ``{python}``, ``{python_site}`` and the inputs."""
    from ascend_doctor.facts.engines import _site_candidates
    from ascend_doctor.facts.logs import log_roots
    from ascend_doctor.facts.stack import cann_install_roots, root_candidates

    env = dict(host.env())
    out: Dict[str, List[str]] = {
        "root": root_candidates(env, _install_root(host), cann_install_roots(host)),
        "log_root": list(log_roots(env, _home_users(host))),
        "env_path": [env[name].rstrip("/") for name in PATH_VARIABLES
                     if env.get(name, "").startswith("/") and env[name].rstrip("/")],
    }
    python = host.python_env()
    executables: List[str] = []
    if python.executable:
        executables.append(python.executable)
        try:
            real = host.realpath(python.executable)
        except HostFileError:
            real = python.executable
        if real not in executables:
            executables.append(real)
    out["python"] = executables
    out["python_site"] = [site for exe in executables for site in _site_candidates(exe, python.version)]
    opts = options or RunOptions()
    models = list(model_dirs or [])
    if opts.model_dir:
        models.insert(0, opts.model_dir)
    out["model"] = [posixpath.normpath(m) for m in models]
    out["config"] = [opts.serving_config] if opts.serving_config else []
    out["manifest"] = [opts.verify_manifest] if opts.verify_manifest else []
    from ascend_doctor.facts.ranktable import rank_table_paths

    out["rank_table"] = list(rank_table_paths(opts, env))
    return out
