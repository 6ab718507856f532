"""ASC-MIX-004: with several CANN toolkits, `latest` and ASCEND_HOME_PATH name the same one."""

from __future__ import annotations

from typing import Iterator, Mapping, Optional

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import package_command

TOOLKIT_SET_ENV = "/usr/local/Ascend/ascend-toolkit/set_env.sh"

CHECK = CheckSpec(
    id="ASC-MIX-004",
    title="Several CANN toolkits: `latest` and ASCEND_HOME_PATH agree",
    what=("Lists every CANN toolkit installed (ascend-toolkit/<ver>, cann-<ver>) and, when there are several, "
          "compares the one the `latest` (or `cann`) link points at with the one ASCEND_HOME_PATH / "
          "ASCEND_TOOLKIT_HOME selects."),
    why=("CANN's own set_env.sh exports .../ascend-toolkit/latest, and so do the NNAL/ATB set_env.sh, MindIE and "
         "the vLLM-Ascend build; a shell that sourced another version's set_env.sh loads that version's runtime "
         "and operators while everything that follows `latest` uses the other -- two CANN releases in one "
         "process, with failures that look like version mismatches nowhere visible in one file."),
    fix=("Pick one: `source /usr/local/Ascend/ascend-toolkit/set_env.sh` (follows latest), or re-point latest "
         "by reinstalling the wanted version; uninstall toolkits you do not use: "
         "./Ascend-cann-toolkit_<old version>_linux-<aarch64|x86_64>.run --uninstall"),
)


def _home(env: Mapping[str, str]) -> Optional[str]:
    value = env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")
    return value.rstrip("/") if value else None


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    env = ctx.facts.maybe(Facts.env) or {}
    toolkits = stack.toolkits()
    if not toolkits:
        raise NotApplicable(_("no CANN toolkit installed (see ASC-CANN-001)"))
    listing = ", ".join(f"{t.version} ({t.path})" for t in toolkits)
    if len(toolkits) == 1:
        yield Finding.passed(_("one CANN toolkit installed: {toolkits}").format(toolkits=listing))
        return
    latest = next((t for t in toolkits if t.via_latest), None)
    home = _home(env)
    if home is None:
        yield Finding.passed((_("{count} CANN toolkits installed ({toolkits}); latest -> {latest}; ASCEND_HOME_PATH "
                                "is not set, so set_env.sh decides (ASC-ENV-001)") if latest else
                              _("{count} CANN toolkits installed ({toolkits}); latest -> none; ASCEND_HOME_PATH is "
                                "not set, so set_env.sh decides (ASC-ENV-001)")).format(
            count=len(toolkits), toolkits=listing, latest=latest.version if latest else None),
            toolkits=[t.version for t in toolkits])
        return
    selected = stack.active_toolkit(env)
    matches_home = selected is not None and (selected.path == home or selected.path.startswith(home + "/"))
    if selected is None or not matches_home:
        yield Finding.warn(
            _("ASCEND_HOME_PATH={home} is none of the {count} installed toolkits ({toolkits}).").format(
                home=home, count=len(toolkits), toolkits=listing),
            "source /usr/local/Ascend/ascend-toolkit/set_env.sh   # "
            + _("or the set_env.sh of the toolkit you want"),
            home=home, toolkits=[t.path for t in toolkits])
        return
    if latest is None or selected is latest:
        yield Finding.passed((_("{count} CANN toolkits installed ({toolkits}); ASCEND_HOME_PATH selects {version}, "
                                "the one `latest` points at") if latest else
                              _("{count} CANN toolkits installed ({toolkits}); ASCEND_HOME_PATH selects {version} "
                                "(no `latest` link)")).format(count=len(toolkits), toolkits=listing,
                                                              version=selected.version))
        return
    yield Finding.warn(
        _("{count} CANN toolkits are installed and two are in use: ASCEND_HOME_PATH={home} selects CANN {selected}, "
          "while `latest` points at CANN {latest} -- the NNAL/ATB set_env.sh, MindIE and vLLM-Ascend follow `latest`, "
          "so one process can end up with libraries of both releases.").format(
              count=len(toolkits), home=home, selected=selected.version, latest=latest.version),
        _("Use the toolkit `latest` points at (CANN {latest}) everywhere: remove the ASCEND_HOME_PATH export that "
          "selects {selected} from the service's environment and profile, then load the default environment:")
        .format(latest=latest.version, selected=selected.version) + "\n  " + shellcmd.source(TOOLKIT_SET_ENV) + "\n"
        + _("or, to keep CANN {version}, make it `latest` by reinstalling it, and uninstall the other:").format(
            version=selected.version) + "\n"
        + "\n".join(f"  {line}" for line in package_command(ctx, "toolkit", latest.version, "--uninstall")
                    .splitlines()),
        selected=selected.version, latest=latest.version, home=home).with_actions(
        # one direction in the plan, its title and its command together; the uninstall stays the stated
        # alternative, never a command under a "use it" title
        FixAction("environment", _("Use the toolkit `latest` points at (CANN {latest}) everywhere").format(
            latest=latest.version), (shellcmd.source(TOOLKIT_SET_ENV),), where="either",
            alternative=_("or keep CANN {version}: reinstall it so that `latest` points at it, and uninstall CANN "
                          "{latest}").format(version=selected.version, latest=latest.version)))
