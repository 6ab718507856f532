"""ASC-MIX-005: when both a CANN toolkit and an NNAE are installed, they are the same release."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import package_command, same_release

CHECK = CheckSpec(
    id="ASC-MIX-005",
    title="CANN toolkit and NNAE are the same release",
    what="Compares the version of every installed NNAE (ascend_nnae_install.info) with the CANN toolkit's.",
    why=("The NNAE (inference engine package) and the toolkit both carry CANN's runtime and operator libraries, "
         "and both have a set_env.sh exporting the same variables (ASCEND_HOME_PATH, ASCEND_OPP_PATH, "
         "LD_LIBRARY_PATH). Of different releases, whichever was sourced last wins, per shell -- a mixed stack."),
    fix=("Keep one: uninstall the NNAE when the toolkit is installed (./Ascend-cann-nnae_<version>_linux-"
         "<aarch64|x86_64>.run --uninstall), or install the NNAE of the toolkit's release."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    env = ctx.facts.maybe(Facts.env) or {}
    nnaes = [c for c in stack.cann if c.kind == "nnae" and not c.error]
    toolkit = stack.active_toolkit(env)
    if not nnaes:
        raise NotApplicable(_("no NNAE installed"))
    if toolkit is None:
        raise NotApplicable(_("no CANN toolkit installed next to the NNAE"))
    differing = [n for n in nnaes if same_release(n.version, toolkit.version) is False]
    for nnae in differing:
        yield Finding.warn(
            _("NNAE {nnae} ({nnae_path}) and CANN toolkit {toolkit} ({toolkit_path}) are both installed: two CANN "
              "releases whose set_env.sh scripts overwrite each other's variables.").format(
                  nnae=nnae.version, nnae_path=nnae.path, toolkit=toolkit.version, toolkit_path=toolkit.path),
            _("Keep the toolkit and remove the NNAE:") + "\n"
            + package_command(ctx, "nnae", nnae.version, "--uninstall") + "\n"
            + _("or install the NNAE of the same release:") + "\n" + package_command(ctx, "nnae", toolkit.version),
            nnae=nnae.version, toolkit=toolkit.version)
    if not differing:
        yield Finding.passed(_("NNAE {versions} matches CANN toolkit {version}").format(
            versions=", ".join(str(n.version) for n in nnaes), version=toolkit.version))
