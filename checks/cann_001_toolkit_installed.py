"""ASC-CANN-001: a CANN toolkit is installed, for this machine's architecture."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, with_comment

from ._context import HostCheckContext
from ._stack_help import package_command
from ._support import host_arch
from ._wrong_arch import UNINSTALL_SOURCE, replace_action, run_file, uninstall_command

CHECK = CheckSpec(
    id="ASC-CANN-001",
    title="CANN toolkit installed for this architecture",
    what=("Finds ascend_toolkit_install.info under ascend-toolkit/<ver>/<arch>-linux (CANN ≤ 8.3), "
          "cann-<ver>/<arch>-linux (CANN ≥ 8.5), nnae/<ver>, the roots /etc/Ascend/ascend_cann_install.info names and "
          "the CANN home of ASCEND_HOME_PATH (a bare opp/version.info when the install.info is gone), reads version "
          "and arch, and compares arch with uname -m."),
    why=("torch_npu, MindIE and vLLM-Ascend all load CANN's runtime and operator libraries. A toolkit built "
         "for the other architecture (x86_64 on an aarch64 Kunpeng host) installs without complaint and then "
         "fails to load. A toolkit is identified by its ascend_toolkit_install.info: an opp/version.info alone "
         "names the operator package's release, not an installed runtime and compiler, so it gives WARN, not PASS."),
    fix=("Install the toolkit for this architecture: ./Ascend-cann-toolkit_<version>_linux-<aarch64|x86_64>.run "
         "--install, then `source /usr/local/Ascend/ascend-toolkit/set_env.sh`."),
)


# What the stack facts record for a CANN home found only from its operator package's version file.
OPP_ONLY_INFO = "/opp/version.info"


def opp_only(install: object) -> bool:
    """A CANN home known only from ``opp/version.info``: no ascend_toolkit_install.info was found."""
    return str(getattr(install, "info_file", "") or "").endswith(OPP_ONLY_INFO)


def _opp_only_finding(ctx: HostCheckContext, toolkit: object) -> Finding:
    version = getattr(toolkit, "version", None)
    path = str(getattr(toolkit, "path", ""))
    look = with_comment(argv("ls", path), _("a toolkit keeps <arch>-linux/ascend_toolkit_install.info, runtime/ and "
                                            "compiler/ next to opp/"))
    return Finding.warn(
        _("only the operator package of CANN {version} was found at {path} (opp/version.info): the toolkit's "
          "ascend_toolkit_install.info is missing, so whether the CANN toolkit (runtime, compiler) is installed is "
          "not known.").format(version=version, path=path),
        look + "\n" + _("If only opp/ is there, install the toolkit:") + "\n"
        + package_command(ctx, "toolkit", version) + "\n"
        + _("In an image, copy the toolkit's <arch>-linux/ascend_toolkit_install.info in with the rest of it."),
        version=version, path=path, basis="opp/version.info", info_file=getattr(toolkit, "info_file", None))


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    arch = host_arch(ctx)
    env = ctx.facts.maybe(Facts.env) or {}
    broken = [c for c in stack.cann if c.kind == "toolkit" and c.error]
    for install in broken:
        yield Finding.fail(_("{path} cannot be read: {error}").format(path=install.info_file, error=install.error),
                           _("Reinstall the CANN toolkit:") + "\n" + package_command(ctx, "toolkit", install.version))
    toolkit = stack.active_toolkit(env)
    if toolkit is None:
        if not broken:
            require_stated(ctx.facts, _("the CANN toolkit's ascend_toolkit_install.info"))
            searched = ", ".join(stack.roots or ["/usr/local/Ascend"])
            # Without set_env.sh nothing names a CANN installed elsewhere: say so rather than "no CANN".
            unsourced = not (env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME"))
            yield Finding.fail(
                (_("no CANN toolkit under {searched}, and the CANN environment is not loaded here (set_env.sh not "
                   "sourced: ASCEND_HOME_PATH is not set), so a CANN installed in another folder cannot be seen")
                 if unsourced else
                 _("no CANN toolkit found (no ascend_toolkit_install.info, nor opp/version.info, under {searched} or "
                   "ASCEND_HOME_PATH)")).format(searched=searched),
                (_("If CANN is installed in another folder, load its environment and run the check again:") + "\n  "
                 + shellcmd.argv("source", shellcmd.Placeholder("CANN install root/ascend-toolkit/set_env.sh")) + "\n"
                 + _("Otherwise install it.") + " " if unsourced else "")
                + _("Install the CANN toolkit matching your driver ({command} names the releases; the file is "
                    "Ascend-cann-toolkit_<release>_linux-<aarch64|x86_64>.run):").format(
                    command=shellcmd.argv("ascend-doctor", "matrix", "lookup", "--driver",
                                          getattr(stack, "driver_version", None) or shellcmd.Placeholder("version")))
                + "\n  " + shellcmd.argv("./" + shellcmd.Placeholder(
                    "Ascend-cann-toolkit_release_linux-" + (str(arch) if shellcmd.fits(arch, "package") else "ARCH")
                    + ".run"), "--install")
                + "\n  " + shellcmd.source("/usr/local/Ascend/ascend-toolkit/set_env.sh"),
                env_loaded=not unsourced)
        return
    if opp_only(toolkit):
        yield _opp_only_finding(ctx, toolkit)
        return
    if arch and toolkit.arch and toolkit.arch != arch:
        uninstall = uninstall_command(ctx, "toolkit", toolkit.version, toolkit.arch, toolkit.path)
        name = run_file(ctx, "toolkit", toolkit.version, arch)
        install_line = argv("./" + name, "--install") if name else package_command(ctx, "toolkit", toolkit.version)
        yield Finding.fail(
            _("CANN {version} at {path} is built for {package_arch}, but this machine is {arch}.").format(
                version=toolkit.version, path=toolkit.path, package_arch=toolkit.arch, arch=arch),
            _("Uninstall it, then install the {arch} package:").format(arch=arch) + "\n" + uninstall + "\n"
            + install_line,
            toolkit_arch=toolkit.arch, machine_arch=arch, uninstall_source=UNINSTALL_SOURCE).with_actions(
                replace_action(f"CANN toolkit {toolkit.version}", toolkit.arch, arch, uninstall, install_line))
        return
    others = [c.version for c in stack.toolkits() if c is not toolkit]
    text = (_("CANN toolkit {version} ({arch}) at {path} (also installed: {others})") if others else
            _("CANN toolkit {version} ({arch}) at {path}"))
    yield Finding.passed(text.format(version=toolkit.version, arch=toolkit.arch or _("arch not recorded"),
                                     path=toolkit.path, others=", ".join(str(v) for v in others)),
                         version=toolkit.version, path=toolkit.path)
