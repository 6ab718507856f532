"""The uninstall of a package built for the other architecture, printed before the right install.

Shared by ASC-CANN-001 (the active toolkit) and ASC-ARCH-001 (every other package). Installing the
right build over the wrong one leaves the wrong libraries where the loader finds them, so the fix is
two steps: uninstall the wrong build (its own ``script/uninstall.sh``, or its ``.run --uninstall``),
then install this machine's build (advice review 2, P18; hiascend CANN install guide, 卸载).
"""

from __future__ import annotations

import posixpath
from typing import Optional

from ascend_doctor.checkapi import FixAction
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, comment, fits, with_comment

from ._context import HostCheckContext
from ._stack_help import chip_family, normalize_arch

UNINSTALL_SOURCE = ("https://www.hiascend.com/document/detail/zh/canncommercial/63RC1/envdeployment/instg/"
                    "instg_000083.html (uninstall: <path>/<arch>-linux/script/uninstall.sh or ./<package>.run "
                    "--uninstall)")


def run_file(ctx: HostCheckContext, kind: str, version: Optional[str], arch: Optional[str]) -> Optional[str]:
    """The matrix's .run file name of a CANN package (toolkit, nnal, nnae, kernels) for ``arch``, or None."""
    arch = normalize_arch(arch)
    packages = getattr(ctx.matrix, "packages", None)
    if not version or not arch or not callable(packages):
        return None
    family = chip_family(ctx)
    if not family and kind != "kernels":  # toolkit, NNAL and NNAE names do not depend on the chip
        families = getattr(ctx.matrix, "chip_families", None) or []
        family = families[0].family if families else None
    if not family:
        return None
    try:
        pk = packages(family, arch)
    except Exception:  # a broken matrix: no name rather than a made-up one
        return None
    if pk is None:
        return None
    getters = {"toolkit": pk.toolkit, "nnal": pk.nnal, "nnae": pk.nnae, "kernels": pk.kernels, "ops": pk.kernels}
    getter = getters.get(kind)
    name = getter(version) if getter is not None else None
    return name if name and fits(name, "package") else None


def uninstall_command(ctx: HostCheckContext, kind: str, version: Optional[str], arch: Optional[str],
                      path: Optional[str]) -> str:
    """One line that removes the ``arch`` build installed at ``path``: the package's own uninstall script when
    ``path`` is its ``<arch>-linux`` folder, else ``./<file> --uninstall`` (the file of the same release and
    architecture), else a comment saying what to look up."""
    arch = normalize_arch(arch)
    name = run_file(ctx, kind, version, arch)
    folder = (path or "").rstrip("/")
    if arch and folder and posixpath.basename(folder) == f"{arch}-linux":
        script = argv(posixpath.join(folder, "script", "uninstall.sh"))
        return with_comment(script, _("uninstalls the {arch} build").format(arch=arch)
                            + (_("; or: {command}").format(command=argv("./" + name, "--uninstall")) if name else ""))
    if name:
        return argv("./" + name, "--uninstall")
    return comment(_("uninstall the {arch} build first: its <path>/<arch>-linux/script/uninstall.sh, or the .run file "
                     "it was installed from with --uninstall").format(arch=arch or "?"))


def replace_action(what: str, package_arch: Optional[str], arch: str, uninstall: str, install: str) -> FixAction:
    """One plan step: the uninstall, then the install (the same for ASC-CANN-001 and ASC-ARCH-001, so the plan
    merges them)."""
    lines = (line.strip() for line in (uninstall, install))
    commands = tuple(line for line in lines if line and not line.startswith("#"))
    return FixAction("cann", _("Replace the {package_arch} build of {package} with the {arch} build").format(
        package_arch=package_arch or "?", package=what, arch=arch), commands, where="host", direction="reinstall",
        subject=what)
