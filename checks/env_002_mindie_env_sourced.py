"""ASC-ENV-002: the MindIE, ATB-Models and NNAL set_env.sh scripts have been sourced."""

from __future__ import annotations

import posixpath
from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.facts.engines import engine_of_process_name
from ascend_doctor.facts.origin import absence_is_evidence, require_stated
from ascend_doctor.i18n import N_, _
from ascend_doctor.shellcmd import source

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-ENV-002",
    title="MindIE, ATB-Models and NNAL environments (set_env.sh) are loaded",
    requires=("engine:mindie",),
    what=("With MindIE installed: checks the variables its set_env.sh scripts export -- MIES_INSTALL_PATH or "
          "MINDIE_LLM_HOME_PATH (mindie/set_env.sh), ATB_SPEED_HOME_PATH (atb-models/set_env.sh, when ATB-Models is "
          "installed) and ATB_HOME_PATH (nnal/atb/set_env.sh, when NNAL is installed) -- are set and name folders "
          "that exist."),
    why=("mindieservice_daemon and the ATB model runner find their libraries and Python packages only through "
         "these variables (LD_LIBRARY_PATH, PYTHONPATH and the *_HOME_PATH variables the scripts export); without "
         "them the daemon stops with 'error while loading shared libraries' or cannot import atb_llm. "
         "NNAL's script picks the ATB build for torch's C++ ABI (its set_env.sh exports ATB_HOME_PATH=.../cxx_abi_N)."),
    fix=("source /usr/local/Ascend/ascend-toolkit/set_env.sh; source /usr/local/Ascend/nnal/atb/set_env.sh; "
         "source /usr/local/Ascend/mindie/set_env.sh; source /usr/local/Ascend/atb-models/set_env.sh -- in that "
         "order, in the shell, service unit or container entrypoint that starts MindIE."),
    tags=("serving", "mindie"),
)

MINDIE_VARS = ("MIES_INSTALL_PATH", "MINDIE_LLM_HOME_PATH")


def _mindie_running(ctx: HostCheckContext) -> bool:
    """A MindIE process runs (the process list, or npu-smi's process table): it was started from an environment
    that had the scripts loaded, so their absence from the doctor's shell is not what starts MindIE."""
    engines = ctx.facts.maybe(Facts.engines)
    if engines is not None and "MindIE" in engines.running_engines():
        return True
    smi = ctx.facts.maybe(Facts.npu_smi)
    return any(engine_of_process_name(p.name or "") == "MindIE" for p in getattr(smi, "processes", None) or ())


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    menv = ctx.facts.mindie_env
    mindie = ctx.facts.maybe(Facts.mindie)
    nnal = ctx.facts.maybe(Facts.nnal)
    stack = ctx.facts.maybe(Facts.stack)
    root = getattr(mindie, "root", None) or getattr(stack, "driver_root", None) or "/usr/local/Ascend"
    # (component, variables any of which shows the script ran, the script to source)
    wanted: List[Tuple[str, Tuple[str, ...], str]] = []
    if nnal is not None and nnal.installed:
        nnal_root = posixpath.dirname(posixpath.dirname(nnal.root.rstrip("/"))) if nnal.root else root
        wanted.append(("NNAL", ("ATB_HOME_PATH",), posixpath.join(nnal_root, "nnal/atb/set_env.sh")))
    wanted.append(("MindIE", MINDIE_VARS, posixpath.join(root, "mindie/set_env.sh")))
    if mindie is not None and getattr(mindie, "atb_models", None) is not None:
        wanted.append(("ATB-Models", ("ATB_SPEED_HOME_PATH",), posixpath.join(root, "atb-models/set_env.sh")))
    # Pasted text lists some variables, or none: an unlisted one may well be set.
    stated = absence_is_evidence(ctx.facts)
    problems: List[str] = []  # English, for the evidence (machines read it)
    shown: List[str] = []  # the same, in the report's language
    scripts: List[str] = []
    loaded: List[str] = []
    for component, names, script in wanted:
        present = [n for n in names if menv.values.get(n)]
        if not present:
            if stated:
                template = N_("{names} not set ({component})")
                fields = {"names": " / ".join(names), "component": component}
                problems.append(template.format(**fields))
                shown.append(_(template).format(**fields))
                scripts.append(script)
            continue
        name = present[0]
        if stated and menv.exists.get(name) is False:
            template = N_("{variable}={value} does not exist ({component})")
            fields = {"variable": name, "value": str(menv.values[name]), "component": component}
            problems.append(template.format(**fields))
            shown.append(_(template).format(**fields))
            scripts.append(script)
        else:
            loaded.append(f"{name}={menv.values[name]}")
    if problems:
        sources = [source(s) for s in scripts]
        fix = (_("Source the scripts in the shell, service unit or container entrypoint that starts MindIE (after "
                 "the CANN toolkit's set_env.sh):") + "\n  " + "\n  ".join(sources) + "\n"
               + _("and add the same lines to ~/.bashrc or the entrypoint so every start has them."))
        action = FixAction("environment", _("Source the MindIE / ATB environment scripts"), tuple(sources),
                           where="either", direction="set")
        if _mindie_running(ctx):
            # Field judgement (advice review 2, P16): set_env.sh is per shell or service; MindIE runs, so its own
            # environment had them. Only a new start from this shell would miss them.
            yield Finding.warn(_("the MindIE environment is not loaded in this shell ({problems}), but MindIE is "
                                 "running: its own environment had it. Load it where MindIE is started next.").format(
                                   problems="; ".join(shown)), fix, problems=problems, mindie_running=True,
                               scope_of_env="this shell").with_actions(action)
            return
        yield Finding.fail(_("the MindIE environment is not loaded: {problems}.").format(problems="; ".join(shown)),
                           fix, problems=problems, mindie_running=False).with_actions(action)
        return
    if not loaded:
        require_stated(ctx.facts, _("the MindIE / ATB environment variables"))
    yield Finding.passed(_("MindIE environment loaded: {variables}").format(variables=", ".join(loaded)),
                         variables=loaded)
