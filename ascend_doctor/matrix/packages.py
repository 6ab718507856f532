"""Package file names and install command lines, from the matrix's sourced naming data.

    pk = matrix.packages("A3", "x86_64")
    pk.hdk_driver("25.0.RC1")        # Atlas-A3-hdk-npu-driver_25.0.rc1.3_linux-x86-64.run
    pk.firmware_for_hdk("25.0.RC1")  # 7.7.0.3.228 (A3's own number; None when no source gives it)
    pk.kernels("8.5.0")              # Ascend-cann-A3-ops_8.5.0_linux-x86_64.run

Every method returns None for what the matrix does not know (a family without HDK names, an
architecture other than aarch64/x86_64, an A3 firmware number no source gives): callers then print
a lookup command, never a made-up name. HDK files spell the architecture ``x86-64``, CANN files
``x86_64`` (package_conventions), which is why no name here is built from ``$(uname -m)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor import shellcmd
from ascend_doctor.i18n import N_
from ascend_doctor.matrix.records import ChipFamily, HdkPackageRow, PackageConvention
from ascend_doctor.matrix.specs import try_ascend
from ascend_doctor.versions import AscendVersion

if TYPE_CHECKING:
    from ascend_doctor.matrix.tables import MatrixTables

ARCHES = ("aarch64", "x86_64")
_ARCH_SPELLINGS = {"aarch64": "aarch64", "arm64": "aarch64", "armv8": "aarch64", "x86_64": "x86_64",
                   "x86-64": "x86_64", "amd64": "x86_64", "x64": "x86_64"}
FIRST_INSTALL = "first"
UPGRADE = "upgrade"


def normalize_arch(text: Optional[str]) -> Optional[str]:
    """``uname -m`` / package spellings -> ``aarch64`` or ``x86_64``; None for anything else."""
    if not text:
        return None
    return _ARCH_SPELLINGS.get(str(text).strip().lower())


class HdkFiles(Struct, frozen=True):
    """The driver and firmware files of one HDK release for one family and architecture."""

    hdk: str  # the HDK release asked for
    driver: Optional[str]  # file name, None when unknown
    firmware: Optional[str]  # file name, None when the firmware number is unknown
    firmware_version: Optional[str]
    sources: Tuple[str, ...] = ()


class PackageSet(Struct, frozen=True):
    """Package names for one chip family on one architecture (``aarch64`` / ``x86_64``)."""

    family: str
    arch: str
    matrix: MatrixTables  # where the names are read; not part of a set's identity

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PackageSet):
            return NotImplemented
        return (self.family, self.arch) == (other.family, other.arch)

    def __hash__(self) -> int:
        return hash((self.family, self.arch))

    def __repr__(self) -> str:
        return f"PackageSet(family={self.family!r}, arch={self.arch!r})"

    # -- internals --------------------------------------------------------------------------
    @property
    def _family(self) -> Optional[ChipFamily]:
        return self.matrix.family(self.family)

    def _convention(self, topic: str) -> Optional[PackageConvention]:
        return next((c for c in self.matrix.package_conventions if c.topic == topic), None)

    def _arch_spelling(self, topic: str) -> Optional[str]:
        conv = self._convention(topic)
        if conv is None:
            return None
        value = conv.aarch64 if self.arch == "aarch64" else conv.x86_64 if self.arch == "x86_64" else None
        return value or None

    def _hdk_rows(self) -> List[HdkPackageRow]:
        return [r for r in self.matrix.hdk_packages if r.family == self.family]

    def hdk_row(self, version: str) -> Optional[HdkPackageRow]:
        """The family's HDK row for a release (``25.0.RC1``) or a driver file version (``25.0.rc1.3``).

        A patch build the table does not name (``24.1.rc3.7``) has no row: its firmware may differ.
        """
        wanted = try_ascend(version)
        if wanted is None:
            return None
        rows = self._hdk_rows()
        for attr in ("driver", "hdk"):  # an exact spelling first (25.3.rc1.2 is its own row)
            for row in rows:
                listed = try_ascend(getattr(row, attr))
                if listed is not None and listed == wanted and listed.extra == wanted.extra:
                    return row
        if wanted.extra:
            return None
        same = [r for r in rows if (v := try_ascend(r.hdk)) is not None and v.same_release(wanted) and not v.extra]
        return same[0] if same else None

    # -- HDK -------------------------------------------------------------------------------
    def driver_file_version(self, version: str) -> Optional[str]:
        """The version as its driver file spells it: the table's (25.0.RC1 -> 25.0.rc1.1 on A2)
        when the family lists the release, else the version given, in lower case."""
        parsed = try_ascend(version)
        if parsed is None:
            return None
        row = self.hdk_row(version)
        if row is not None:
            return row.driver.lower()
        return version.strip().lower()

    def hdk_driver(self, version: str) -> Optional[str]:
        family = self._family
        arch = self._arch_spelling("hdk_arch")
        file_version = self.driver_file_version(version)
        if family is None or family.hdk_package is None or arch is None or file_version is None:
            return None
        return family.hdk_package.driver.replace("{version}", file_version).replace("{arch}", arch)

    def hdk_firmware(self, firmware: str) -> Optional[str]:
        family = self._family
        if family is None or family.hdk_package is None or try_ascend(firmware) is None:
            return None
        return family.hdk_package.firmware.replace("{firmware}", firmware.strip())

    def firmware_for_hdk(self, version: str) -> Optional[str]:
        """The firmware number shipped with an HDK release for this family (None: no source)."""
        row = self.hdk_row(version)
        return row.firmware if row is not None and row.firmware else None

    def hdk_files(self, version: str) -> HdkFiles:
        firmware = self.firmware_for_hdk(version)
        row = self.hdk_row(version)
        family = self._family
        sources: List[str] = list(row.source) if row is not None else []
        if family is not None and family.hdk_package is not None:
            sources += [s for s in family.hdk_package.source if s not in sources]
        return HdkFiles(version, self.hdk_driver(version), self.hdk_firmware(firmware) if firmware else None,
                        firmware, tuple(sources))

    # -- CANN ------------------------------------------------------------------------------
    def _cann_name(self, topic: str, cann: str) -> Optional[str]:
        conv = self._convention(topic)
        arch = self._arch_spelling("cann_arch")
        if conv is None or not conv.template or arch is None or try_ascend(cann) is None:
            return None
        return conv.template.replace("{cann}", cann.strip()).replace("{arch}", arch)

    def toolkit(self, cann: str) -> Optional[str]:
        return self._cann_name("toolkit", cann)

    def nnal(self, cann: str) -> Optional[str]:
        return self._cann_name("nnal", cann)

    def nnae(self, cann: str) -> Optional[str]:
        return self._cann_name("nnae", cann)

    def kernels(self, cann: str) -> Optional[str]:
        """The kernels (CANN < 8.5) or ops (CANN >= 8.5) package of this family."""
        family = self._family
        version = try_ascend(cann)
        arch = self._arch_spelling("cann_arch")
        if family is None or family.kernels_package is None or version is None or arch is None:
            return None
        pkg = family.kernels_package
        if _at_least(version, self._since("ops")):
            template = pkg.ops
        elif _at_least(version, self._since("kernels_arch")):
            template = pkg.legacy
        else:
            template = pkg.noarch
        if not template:
            return None
        return template.replace("{cann}", cann.strip()).replace("{arch}", arch)

    def _since(self, topic: str) -> Optional[AscendVersion]:
        conv = self._convention(topic)
        return try_ascend(conv.cann) if conv is not None and conv.cann else None

    # -- install commands -------------------------------------------------------------------
    def hdk_install_lines(self, version: str, mode: str = FIRST_INSTALL, *,
                          firmware: Optional[str] = None) -> List[str]:
        """Shell lines installing one HDK release (driver + firmware) in Huawei's order, then one reboot.

        ``mode``: ``first`` (no driver installed: driver -> firmware) or ``upgrade`` (an overwrite
        install, an upgrade or a rollback: firmware -> driver). An unknown file becomes a comment
        naming the lookup command, never a placeholder inside a command.
        """
        return install_lines(self.matrix, self.family, self.arch, version, mode, firmware=firmware)


def _at_least(version: AscendVersion, bound: Optional[AscendVersion]) -> bool:
    return bound is not None and version.sort_key >= bound.sort_key


def convention_order(m: MatrixTables, mode: str) -> Tuple[str, ...]:
    topic = "order_upgrade" if mode == UPGRADE else "order_first_install"
    conv = next((c for c in m.package_conventions if c.topic == topic), None)
    if conv is None or not conv.template:
        return ("driver", "firmware") if mode != UPGRADE else ("firmware", "driver")
    return tuple(p.strip() for p in conv.template.split(",") if p.strip())


def convention_flags(m: MatrixTables, part: str) -> str:
    conv = next((c for c in m.package_conventions if c.topic == f"{part}_flags"), None)
    return conv.template if conv is not None and conv.template else "--full"


def install_lines(m: MatrixTables, family: str, arch: str, version: str, mode: str = FIRST_INSTALL, *,
                  firmware: Optional[str] = None, reboot: bool = True) -> List[str]:
    pk = PackageSet(family, arch, m)
    fw = firmware or pk.firmware_for_hdk(version)
    files: Dict[str, Optional[str]] = {"driver": pk.hdk_driver(version),
                                       "firmware": pk.hdk_firmware(fw) if fw else None}
    lines: List[str] = []
    for part in convention_order(m, mode):
        name = files.get(part)
        if name:
            lines.append(shellcmd.argv("./" + name, *convention_flags(m, part).split()))
        elif part == "firmware":
            lines.append(shellcmd.comment(N_("the {family} firmware of HDK {version} is not recorded: {lookup}").format(
                family=family, version=version, lookup=shellcmd.argv("ascend-doctor", "matrix", "lookup", "--driver",
                                                                     version, "--chip", family))))
        else:
            lines.append(shellcmd.comment(N_("no {family} driver file name is recorded: see the HDK {version} download "
                                             "page (hiascend.com, Firmware and Drivers)").format(family=family,
                                                                                                version=version)))
    if reboot:
        lines.append("reboot")
    return lines


def packages_for(m: MatrixTables, family: str, arch: Optional[str]) -> Optional[PackageSet]:
    """A PackageSet, or None when the family or the architecture is not one the matrix names."""
    arch_name = normalize_arch(arch)
    if arch_name is None or m.family(family) is None:
        return None
    return PackageSet(m.family(family).family, arch_name, m)  # type: ignore[union-attr]
