"""ASC-ENV-001: CANN's set_env.sh has been sourced in this shell."""

from __future__ import annotations

from typing import Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import absence_is_evidence, require_stated
from ascend_doctor.i18n import N_, _
from ascend_doctor.shellcmd import argv, source

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-ENV-001",
    title="CANN environment (set_env.sh) is loaded",
    what=("Checks that ASCEND_HOME_PATH and ASCEND_OPP_PATH are set and exist, and that the driver's lib64 is "
          "on LD_LIBRARY_PATH, as CANN's set_env.sh arranges."),
    why=("Without them torch_npu prints 'ASCEND_OPP_PATH environment variable is not set', cannot find "
         "libascend_hal.so, or loads operators from another CANN than the one you think."),
    fix=("source /usr/local/Ascend/ascend-toolkit/set_env.sh (and /usr/local/Ascend/nnal/atb/set_env.sh for "
         "MindIE / vLLM-Ascend); add the same line to ~/.bashrc or the container's entrypoint."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    aenv = ctx.facts.ascend_env
    stack = ctx.facts.maybe(Facts.stack)
    if stack is not None and not stack.toolkits():
        yield Finding.skip(_("no CANN toolkit installed, so no set_env.sh to source (ASC-CANN-001 says what to "
                             "install)"))
        return
    script = aenv.set_env_scripts[0] if aenv.set_env_scripts else "/usr/local/Ascend/ascend-toolkit/set_env.sh"
    # The script's path was found on the machine: quoted once, and the line echoed as one quoted word.
    source_line = source(script)
    persist = argv("echo", source_line) + " >> ~/.bashrc"
    unset: List[str] = []  # English, for the evidence (machines read it)
    shown: List[str] = []  # the same, in the report's language
    # Pasted text lists some variables, or none: an unlisted one may well be set.
    stated = absence_is_evidence(ctx.facts)
    for name in ("ASCEND_HOME_PATH", "ASCEND_OPP_PATH"):
        if not aenv.values.get(name) and stated:
            template = N_("{name} is not set")
            unset.append(template.format(name=name))
            shown.append(_(template).format(name=name))
    if not aenv.driver_lib64_on_path and (stated or aenv.ld_library_path):
        template = N_("{path} is not on LD_LIBRARY_PATH")
        unset.append(template.format(path=aenv.driver_lib64))
        shown.append(_(template).format(path=aenv.driver_lib64))
    stale = [f"{name}={aenv.values.get(name)}" for name in aenv.missing_paths]
    action = FixAction("environment", _("Load the CANN environment ({script})").format(script=script),
                       (source_line, persist), where="either")
    if unset:
        yield Finding.fail(_("the CANN environment is not loaded: {problems}.").format(problems="; ".join(shown)),
                           f"{source_line}\n{persist}   # " + _("so every new shell has it"),
                           problems=unset, set_env_scripts=list(aenv.set_env_scripts)).with_actions(action)
        return
    if stale:
        # The variables ARE set: sourcing the same script again will not help (review row 20).
        yield Finding.fail(
            _("the CANN variables are set but point at a toolkit that is not here: {variables} does not exist "
              "(uninstalled, moved, or another version's set_env.sh was sourced).").format(variables="; ".join(stale)),
            _("Source the set_env.sh of the toolkit that is installed, in a new shell:") + "\n"
            f"  {source_line}\n"
            + _("and remove the old `source .../set_env.sh` line from ~/.bashrc (or the engine's env file); if that "
                "toolkit should be there, reinstall it (ASC-CANN-001 names the package)."),
            problems=stale, set_env_scripts=list(aenv.set_env_scripts)).with_actions(action)
        return
    if aenv.unrecorded_paths:
        values = ", ".join(f"{name}={aenv.values.get(name)}" for name in aenv.unrecorded_paths)
        yield Finding.passed(_("the CANN environment is set ({variables}); whether those folders exist is not "
                               "recorded in this snapshot").format(variables=values),
                             unrecorded=list(aenv.unrecorded_paths))
        return
    if not (aenv.values.get("ASCEND_HOME_PATH") and aenv.values.get("ASCEND_OPP_PATH") and aenv.ld_library_path):
        require_stated(ctx.facts, _("ASCEND_HOME_PATH, ASCEND_OPP_PATH and LD_LIBRARY_PATH"))
    yield Finding.passed(_("ASCEND_HOME_PATH={path}, ASCEND_OPP_PATH set, driver lib64 on LD_LIBRARY_PATH").format(
        path=aenv.values["ASCEND_HOME_PATH"]))
