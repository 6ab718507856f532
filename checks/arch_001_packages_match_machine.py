"""ASC-ARCH-001: every installed Ascend package is built for this machine's architecture."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, comment, fits

from ._context import HostCheckContext
from ._stack_help import kernels_package_file, machine_arch, normalize_arch
from ._wrong_arch import UNINSTALL_SOURCE, replace_action, run_file, uninstall_command

CHECK = CheckSpec(
    id="ASC-ARCH-001",
    title="Every Ascend package matches the machine architecture",
    what=("Compares uname -m with the arch recorded by every CANN package found (toolkit, NNAE, ops: arch= or "
          "the <arch>-linux folder of ascend_*_install.info), NNAL/ATB and MindIE (Platform : in version.info), "
          "active or not. ASC-CANN-001 covers the active toolkit; this covers everything else installed."),
    why=("Ascend .run packages exist for aarch64 and x86_64 and install on either without complaint; a package of "
         "the other architecture fails only when its libraries are loaded ('cannot open shared object file', "
         "'wrong ELF class'), often long after the install."),
    fix=("Uninstall the package (its <path>/<arch>-linux/script/uninstall.sh, or ./<package>_<version>_linux-<other "
         "arch>.run --uninstall), then install its build for this machine: "
         "./<package>_<version>_linux-<aarch64|x86_64>.run --install"),
)

_RUN_NAMES = {"toolkit": "Ascend-cann-toolkit", "nnae": "Ascend-cann-nnae", "ops": "Ascend-cann-<chip>-ops"}


Package = Tuple[str, str, Optional[str], str, str, Optional[str]]


def _packages(ctx: HostCheckContext) -> List[Package]:
    """(description, where, arch, .run name stem, kind, version) of everything that records an arch."""
    found: List[Package] = []
    stack = ctx.facts.maybe(Facts.stack)
    for install in getattr(stack, "cann", ()) or ():
        if install.error:
            continue
        stem = install.package_name or _RUN_NAMES.get(install.kind, "Ascend-cann-" + install.kind)
        if install.kind == "ops" and not install.package_name:
            # the chip's own ops file (Ascend-cann-A3-ops on A3), not a <chip> placeholder
            known = kernels_package_file(ctx, install.version)
            stem = known.split("_")[0] if known else stem
        found.append((f"CANN {install.kind} {install.version}", install.path, install.arch,
                      f"{stem}_{install.version}", install.kind, install.version))
    nnal = ctx.facts.maybe(Facts.nnal)
    if nnal is not None and nnal.installed and nnal.platform:
        found.append((f"NNAL/ATB {nnal.full_version}", str(nnal.root), nnal.platform,
                      f"Ascend-cann-nnal_{nnal.version}", "nnal", nnal.version))
    mindie = ctx.facts.maybe(Facts.mindie)
    if mindie is not None and mindie.installed:
        if mindie.platform:
            found.append((f"MindIE {mindie.full_version}", f"{mindie.root}/mindie", mindie.platform,
                          f"Ascend-mindie_{mindie.version}", "mindie", mindie.version))
        models = mindie.atb_models.info if mindie.atb_models else None
        if models is not None and getattr(models, "platform", None):
            found.append((f"ATB-Models {models.full_version or models.version}", f"{mindie.root}/atb-models",
                          models.platform, "Ascend-mindie-atb-models_<version>", "atb-models", None))
    return found


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    arch = machine_arch(ctx)
    if not arch:
        raise NotApplicable(_("the machine architecture (uname -m) is unknown"))
    packages = _packages(ctx)
    recorded = [p for p in packages if p[2]]
    if not recorded:
        raise NotApplicable(_("no installed Ascend package records an architecture"))
    wrong = [p for p in recorded if normalize_arch(p[2]) != arch]
    for what, where, pkg_arch, stem, kind, version in wrong:
        # The matrix's file names where it has them (toolkit, NNAE, NNAL, kernels); the recorded stem otherwise.
        install = run_file(ctx, kind, version, arch) or f"{stem}_linux-{arch}.run"
        install_line = (argv("./" + install, "--install") if fits(install, "package") else
                        comment(_("install the {arch} build of {package}").format(arch=arch, package=what)))
        uninstall = uninstall_command(ctx, kind, version, pkg_arch, where)
        wrong_file = f"{stem}_linux-{normalize_arch(pkg_arch)}.run"
        if uninstall.startswith("#") and fits(wrong_file, "package"):  # no matrix name, no script folder
            uninstall = argv("./" + wrong_file, "--uninstall")
        yield Finding.fail(
            _("{package} at {path} is built for {package_arch}, but this machine is {arch}: its libraries will not "
              "load.").format(package=what, path=where, package_arch=pkg_arch, arch=arch),
            _("Uninstall it, then install the {arch} build:").format(arch=arch)
            + f"\n  {uninstall}\n  {install_line}",
            package=what, package_arch=pkg_arch, machine_arch=arch, uninstall_source=UNINSTALL_SOURCE).scoped(
                where).with_actions(replace_action(what, pkg_arch, arch, uninstall, install_line))
    if not wrong:
        yield Finding.passed(_("all {count} packages that record an architecture are {arch}: {packages}").format(
            count=len(recorded), arch=arch, packages=", ".join(p[0] for p in recorded)))
