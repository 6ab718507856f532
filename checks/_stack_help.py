"""Helpers for the mixed-stack, kernels, NNAL, engine, container, device and host checks.

Not a check (the registry skips ``_`` modules). Texts here are remediation building blocks that
several checks print the same way.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Iterable, List, Optional, Tuple

from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, comment, fits, shaped, with_comment
from ascend_doctor.versions import AscendVersion

from ._context import HostCheckContext

GIB = 1024 ** 3


def gib(value: Optional[int]) -> str:
    return "?" if value is None else f"{value / GIB:.1f} GiB"


def normalize_arch(arch: Optional[str]) -> Optional[str]:
    """uname -m spellings -> the package spelling (aarch64 / x86_64)."""
    if not arch:
        return None
    lowered = arch.strip().lower()
    if not re.fullmatch(r"[a-z0-9_]{1,32}", lowered):
        return None  # not a machine word (a snapshot's hostile value): as unknown, never in a file name
    return {"arm64": "aarch64", "amd64": "x86_64", "x64": "x86_64"}.get(lowered, lowered)


def machine_arch(ctx: HostCheckContext) -> Optional[str]:
    info = ctx.facts.maybe(Facts.host_info)
    return normalize_arch(getattr(info, "arch", None))


def chip_family(ctx: HostCheckContext) -> Optional[str]:
    chip = ctx.facts.maybe(Facts.npu_chip)
    return getattr(chip, "family", None)


def same_release(a: Optional[str], b: Optional[str]) -> Optional[bool]:
    """True/False when both parse as Ascend versions, None otherwise."""
    va, vb = AscendVersion.try_parse(a or ""), AscendVersion.try_parse(b or "")
    if va is None or vb is None:
        return None
    return va.same_release(vb)


def _package_sets(ctx: HostCheckContext, need_family: bool = True) -> List[Any]:
    """The matrix's package names for this host's chip family: its architecture, or both when the
    architecture is not recorded (never a `$(uname -m)` inside a name: HDK files say x86-64).
    Toolkit, NNAE and NNAL names do not depend on the chip (``need_family=False``)."""
    family = chip_family(ctx)
    packages = getattr(ctx.matrix, "packages", None)
    if not family and not need_family:
        families = getattr(ctx.matrix, "chip_families", None) or []
        family = families[0].family if families else None
    if not family or not callable(packages):
        return []
    arches = [machine_arch(ctx)] if machine_arch(ctx) else ["aarch64", "x86_64"]
    sets = []
    for arch in arches:
        try:
            pk = packages(family, arch)
        except Exception:  # a broken matrix: fall back on the lookup command
            pk = None
        if pk is not None:
            sets.append(pk)
    return sets


def _alternatives(names: List[Tuple[str, str]], template: str) -> str:
    """One command per architecture ('or, on x86_64' for the second): ``template`` has ``{name}``."""
    lines = []
    for index, (arch, name) in enumerate(names):
        line = template.replace("{name}", name)
        if len(names) > 1:
            line += "   # " + (arch if index == 0 else _("or, on {arch}").format(arch=arch))
        lines.append(line)
    return "\n".join(lines)


def package_command(ctx: HostCheckContext, kind: str, version: Optional[str], action: str = "--install") -> str:
    """``./<file> <action>`` for a CANN package (toolkit, nnal, nnae, kernels) of this chip and
    machine, with the file name from the matrix; a lookup command when the name is not known."""
    names = []
    # The version is read from the machine: only a version names a file.
    for pk in _package_sets(ctx, need_family=kind == "kernels") if fits(version, "version") else []:
        getter = {"toolkit": pk.toolkit, "nnal": pk.nnal, "kernels": pk.kernels, "nnae": pk.nnae}.get(kind)
        name = getter(version) if getter is not None else None
        if name:
            names.append((pk.arch, name))
    if names:
        return _alternatives(names, "./{name} " + action)
    what = {"kernels": "kernels/ops package"}.get(kind, kind)
    if kind == "kernels" and version and not chip_family(ctx):
        return _kernels_pattern(ctx, version, action)
    if not fits(version, "version"):
        return comment(_("the {what} version is not known here: `ascend-doctor matrix lookup --chip <chip>` names "
                         "the file pattern, `ascend-doctor matrix lookup --cann <version>` the release"
                         ).format(what=what))
    return comment(_("no {what} file name is recorded for this machine (chip family {family}): `ascend-doctor "
                     "matrix lookup --chip <chip>` and the CANN {version} download page").format(
        what=what, family=chip_family(ctx) or "unknown", version=version))


def _kernels_pattern(ctx: HostCheckContext, version: str, action: str) -> str:
    """Without the chip, the kernels name of this CANN's naming era, with the chip word left to fill."""
    conventions = {c.topic: c for c in getattr(ctx.matrix, "package_conventions", [])}
    parsed = AscendVersion.try_parse(version)
    ops = AscendVersion.try_parse(getattr(conventions.get("ops"), "cann", None) or "")
    with_arch = AscendVersion.try_parse(getattr(conventions.get("kernels_arch"), "cann", None) or "")
    arch = machine_arch(ctx) or "<aarch64|x86_64>"
    if parsed is not None and ops is not None and parsed.sort_key >= ops.sort_key:
        name = f"Ascend-cann-<chip>-ops_{version}_linux-{arch}.run"
    elif parsed is not None and with_arch is not None and parsed.sort_key < with_arch.sort_key:
        name = f"Ascend-cann-kernels-<chip>_{version}_linux.run"
    else:
        name = f"Ascend-cann-kernels-<chip>_{version}_linux-{arch}.run"
    return (f"./{name} {action}   # <chip>: this NPU's word (910b, 310p; A3 files are Atlas-A3-cann-kernels_… / "
            "Ascend-cann-A3-ops_…): `ascend-doctor matrix lookup --chip <npu-smi Name>`")


def kernels_package_file(ctx: HostCheckContext, cann_version: Optional[str]) -> Optional[str]:
    """The kernels/ops .run file for this chip, CANN release and machine (None when not known)."""
    for pk in _package_sets(ctx) if cann_version else []:
        name = pk.kernels(cann_version)
        if name:
            return str(name)
    return None


def hdk_commands(ctx: HostCheckContext, driver_version: Optional[str], mode: str = "first",
                 firmware: Optional[str] = None, reboot: bool = True) -> str:
    """Install lines for one HDK release (driver + firmware of this chip family and machine), in
    Huawei's order: ``first`` install driver -> firmware, ``upgrade``/overwrite firmware -> driver."""
    from ascend_doctor.matrix.packages import convention_flags, convention_order

    sets = _package_sets(ctx)
    if not sets:
        return comment(_("which HDK release: `ascend-doctor matrix lookup --cann <your CANN> --chip <chip>`; the "
                         "driver and firmware file names: `ascend-doctor matrix lookup --chip <chip>`"))
    if not fits(driver_version, "version"):  # read from the machine: only a version names a file
        return _hdk_pattern(ctx, sets, mode)
    m = ctx.matrix
    firmware = firmware or sets[0].firmware_for_hdk(driver_version)
    lines: List[str] = []
    for part in convention_order(m, mode):
        if part == "driver":
            names = [(pk.arch, pk.hdk_driver(driver_version)) for pk in sets]
            known = [(a, n) for a, n in names if n]
            lines.append(_alternatives(known, "./{name} " + convention_flags(m, "driver")) if known else
                         comment(_("no driver file name is recorded for this chip family (HDK {version})").format(
                             version=driver_version)))
        else:
            name = sets[0].hdk_firmware(firmware) if firmware else None
            lines.append(f"./{name} {convention_flags(m, 'firmware')}" if name else
                         comment(_("the firmware number of HDK {version} for this chip family is not recorded: "
                                   "{lookup}").format(
                             version=driver_version,
                             lookup=argv("ascend-doctor", "matrix", "lookup", "--driver", str(driver_version),
                                         "--chip", shaped(chip_family(ctx), "package", "chip")))))
    if reboot:
        lines.append("reboot")
    return "\n".join(lines)


def _hdk_pattern(ctx: HostCheckContext, sets: List[Any], mode: str) -> str:
    """The family's HDK file names with the release left open (which release is a lookup away)."""
    from ascend_doctor.matrix.packages import convention_flags, convention_order

    family = ctx.matrix.family(sets[0].family)
    package = getattr(family, "hdk_package", None)
    lookup = comment(_("which HDK release: `ascend-doctor matrix lookup --cann <your CANN> --chip {family}` "
                       "(<version> = the driver version, <firmware> = that HDK's firmware number)").format(
        family=sets[0].family))
    if package is None:
        return lookup
    conventions = {c.topic: c for c in ctx.matrix.package_conventions}
    spelling = conventions.get("hdk_arch")
    lines = [lookup]
    for part in convention_order(ctx.matrix, mode):
        if part == "driver":
            names = [(pk.arch, package.driver.replace("{version}", "<version>").replace(
                "{arch}", str(getattr(spelling, pk.arch, pk.arch)))) for pk in sets]
            lines.append(_alternatives(names, "./{name} " + convention_flags(ctx.matrix, "driver")))
        else:
            lines.append(f"./{package.firmware.replace('{firmware}', '<firmware>')} "
                         f"{convention_flags(ctx.matrix, 'firmware')}")
    lines.append("reboot")
    return "\n".join(lines)


def firmware_file(ctx: HostCheckContext, driver_version: Optional[str]) -> Optional[str]:
    """The firmware .run of the driver's HDK release for this chip family (None when not recorded)."""
    for pk in _package_sets(ctx)[:1] if driver_version else []:
        number = pk.firmware_for_hdk(driver_version)
        return str(pk.hdk_firmware(number)) if number else None
    return None


def cleanup_sequence(ctx: HostCheckContext, driver_roots: Iterable[str], driver_version: Optional[str] = None) -> str:
    """The clean-up that ends a mixed driver/firmware installation (seed 003 §5.1).

    Uninstall every stack completely, install one matching driver+firmware pair (a first install
    again: driver, then firmware), reboot, then throw away the graphs and operator binaries compiled
    against the mixed stack.
    """
    roots = sorted({r.rstrip("/") or "/" for r in driver_roots})
    lines: List[str] = [comment(_("1. stop every job and container using the NPUs (see `npu-smi info`), then as "
                                  "root:"))]
    for root in roots:  # install roots read from the machine: quoted words
        lines.append(argv("bash", posixpath.join(root, "driver/script/uninstall.sh"), "--force"))
        lines.append(argv("bash", posixpath.join(root, "firmware/script/uninstall.sh")))
    lines += [
        with_comment("rm -f /etc/ascend_install.info", _("only if the uninstallers left it behind")),
        "reboot",
        comment(_("2. install ONE driver and the firmware of the SAME Ascend HDK release (the one your CANN pairs "
                  "with), driver first:")),
        hdk_commands(ctx, driver_version, "first"),
        comment(_("3. rebuild what was compiled against the old stack: clear the operator/graph caches and restart "
                  "the engine")),
        with_comment("rm -rf ~/atc_data ./kernel_meta*", _("CANN operator compile cache and kernel_meta work files")),
    ]
    return "\n".join(lines)


def first(items: Iterable[Any]) -> Optional[Any]:
    for item in items:
        return item
    return None
