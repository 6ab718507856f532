"""Typed records of the compatibility matrix: one dataclass per table (section) of the YAML.

Field metadata (``fld``) says how each YAML value is checked and, with ``ref``, which table a
version must exist in (checked by ``crosscheck``). Versions are kept as written; the query code
parses them with the cached helpers of ``specs``.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from ascend_doctor.fastdataclass import dataclass

# The chip tables' records and Row (their own module: see chip_records), re-exported here.
from ascend_doctor.matrix.chip_records import ASCEND_SPEC as ASCEND_SPEC
from ascend_doctor.matrix.chip_records import DTYPES as DTYPES
from ascend_doctor.matrix.chip_records import ENGINES as ENGINES
from ascend_doctor.matrix.chip_records import FAMILIES as FAMILIES
from ascend_doctor.matrix.chip_records import SOURCE as SOURCE
from ascend_doctor.matrix.chip_records import TEXT as TEXT
from ascend_doctor.matrix.chip_records import ChipEntry as ChipEntry
from ascend_doctor.matrix.chip_records import ChipFamily as ChipFamily
from ascend_doctor.matrix.chip_records import DtypeSupport as DtypeSupport
from ascend_doctor.matrix.chip_records import EngineSupport as EngineSupport
from ascend_doctor.matrix.chip_records import HdkPackage as HdkPackage
from ascend_doctor.matrix.chip_records import ImageName as ImageName
from ascend_doctor.matrix.chip_records import KernelsPackage as KernelsPackage
from ascend_doctor.matrix.chip_records import Requirement as Requirement
from ascend_doctor.matrix.chip_records import Row as Row
from ascend_doctor.matrix.schema import (
    AscendVersionKind,
    Bool,
    Choice,
    CodeListKind,
    DriverPatternsKind,
    FirmwareRangesKind,
    Int,
    ListOf,
    MatrixVersionKind,
    PypiVersionKind,
    PySpecKind,
    ReleaseCodeKind,
    Struct,
    Text,
    fld,
)

ASCEND = AscendVersionKind()
PYPI = PypiVersionKind()
PYSPEC = PySpecKind()
VERDICTS = ("recommended", "compatible", "incompatible")


# -- meta -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Snapshot(Row):
    repo: str = fld(TEXT, required=True)
    commit: str = fld(TEXT, required=True)
    date: str = fld(TEXT, required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("repo",)


@dataclass(frozen=True)
class Gap(Row):
    topic: str = fld(TEXT, required=True)
    text: str = fld(TEXT, required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)


# -- HDK <-> CANN -------------------------------------------------------------------------------

@dataclass(frozen=True)
class HdkRelease(Row):
    version: str = fld(ASCEND, required=True)
    # an HDK numbering used only by these products (Atlas 350's 1.0.RC1): not comparable with the
    # 2x.y numbering of the other lines, so a CANN pairing of another product never applies to it
    products: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


@dataclass(frozen=True)
class CannRelease(Row):
    version: str = fld(ASCEND, required=True)
    community: Tuple[str, ...] = fld(ListOf(ASCEND), factory=tuple)
    prerelease: bool = fld(Bool(), default=False)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


@dataclass(frozen=True)
class HdkCannRow(Row):
    cann: str = fld(ASCEND, required=True, ref="cann")
    hdk: Tuple[str, ...] = fld(ListOf(ASCEND_SPEC, min_items=1), required=True, factory=tuple, ref="hdk")
    verdict: str = fld(Choice(*VERDICTS), required=True)
    origin: str = fld(Choice("official", "installer", "quick_install", "product"), required=True)
    firmware: Optional[str] = fld(ASCEND)
    flavor: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)
    products: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)
    # origin product: the product release whose note lists the pairing (MindIE 2.1.RC1)
    listed_by: Optional[str] = fld(TEXT)
    # the row is the release's complete support list: an HDK outside every exhaustive row of the
    # CANN is "not in the official list" (never turned into a pairing by weaker evidence)
    exhaustive: bool = fld(Bool(), default=False)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("cann", "hdk", "verdict", "origin", "flavor", "products")


@dataclass(frozen=True)
class HdkCannList(Row):
    product: str = fld(TEXT, required=True)
    cann: Tuple[str, ...] = fld(ListOf(ASCEND, min_items=1), required=True, factory=tuple, ref="cann")
    hdk: Tuple[str, ...] = fld(ListOf(ASCEND, min_items=1), required=True, factory=tuple, ref="hdk")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("product",)


@dataclass(frozen=True)
class Caveat(Row):
    feature: str = fld(TEXT, required=True)
    hdk: Optional[str] = fld(ASCEND_SPEC)
    cann: Optional[str] = fld(ASCEND_SPEC)
    message: str = fld(TEXT, required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    KEY = ("feature",)


@dataclass(frozen=True)
class ReleaseCodeSample(Row):
    side: str = fld(Choice("driver", "cann", "nnae"), required=True)
    version: str = fld(ASCEND, required=True)
    innerversion: str = fld(ReleaseCodeKind(), required=True)
    compatible_version: str = fld(CodeListKind(), required=True)
    compatible_version_fw: Optional[str] = fld(FirmwareRangesKind())
    uncertain: bool = fld(Bool(), default=False)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("side", "version", "innerversion", "compatible_version", "compatible_version_fw")


@dataclass(frozen=True)
class CodeAlignment(Row):
    code: str = fld(ReleaseCodeKind(), required=True)
    cann: Tuple[str, ...] = fld(ListOf(ASCEND), factory=tuple, ref="cann")
    hdk: Tuple[str, ...] = fld(ListOf(ASCEND), factory=tuple, ref="hdk")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("code",)


@dataclass(frozen=True)
class FirmwareRelease(Row):
    firmware: str = fld(ASCEND, required=True)
    hdk: str = fld(ASCEND, required=True, ref="hdk")
    flavor: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)
    compatible_version_drv: Optional[str] = fld(DriverPatternsKind())
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("firmware",)


# -- torch_npu ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PtaRelease(Row):
    pta: str = fld(ASCEND, required=True)
    cann: str = fld(ASCEND, required=True, ref="cann")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    KEY = ("pta",)


@dataclass(frozen=True)
class TorchNpuRow(Row):
    version: str = fld(PYPI, required=True)
    torch: str = fld(PYPI, required=True, ref="torch")
    cann: str = fld(ASCEND, required=True, ref="cann")
    branch: Optional[str] = fld(TEXT)
    pta: Optional[str] = fld(ASCEND, ref="pta")
    status: str = fld(Choice("active", "historical"), required=True)
    origin: str = fld(Choice("table", "release_note", "installer"), required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version", "cann")


@dataclass(frozen=True)
class TorchNpuPython(Row):
    torch_npu: Tuple[str, ...] = fld(ListOf(PYPI, min_items=1), required=True, factory=tuple, ref="torch_npu")
    python: str = fld(PYSPEC, required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("torch_npu",)


@dataclass(frozen=True)
class TorchPython(Row):
    torch: str = fld(PYPI, required=True)
    python: Optional[str] = fld(PYSPEC)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("torch",)


@dataclass(frozen=True)
class TorchNpuCann(Row):
    pta: Tuple[str, ...] = fld(ListOf(ASCEND, min_items=1), required=True, factory=tuple, ref="pta")
    cann: Tuple[str, ...] = fld(ListOf(ASCEND, min_items=1), required=True, factory=tuple, ref="cann")
    verdict: str = fld(Choice(*VERDICTS), required=True)
    uncertain: bool = fld(Bool(), default=False)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("pta", "cann")


@dataclass(frozen=True)
class TorchNpuRuntimeMap(Row):
    cann: str = fld(ASCEND, required=True, ref="cann")
    torch_npu: Tuple[str, ...] = fld(ListOf(PYPI, min_items=1), required=True, factory=tuple)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("cann",)


@dataclass(frozen=True)
class TorchNpuHardware(Row):
    families: Tuple[str, ...] = fld(ListOf(Choice(*FAMILIES), min_items=1), required=True, factory=tuple)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)


# -- vLLM-Ascend ------------------------------------------------------------------------------

@dataclass(frozen=True)
class VllmAscendRow(Row):
    version: str = fld(PYPI, required=True)
    vllm: Tuple[str, ...] = fld(ListOf(PYPI, min_items=1), required=True, factory=tuple)
    python: str = fld(PYSPEC, required=True)
    cann: str = fld(ASCEND, required=True, ref="cann")
    torch: str = fld(PYPI, required=True, ref="torch")
    torch_npu: str = fld(PYPI, required=True)
    triton_ascend: Optional[str] = fld(PYPI)
    mooncake: Optional[str] = fld(PYPI)
    mindie_turbo: Optional[str] = fld(PYPI)
    status: str = fld(Choice("current", "removed"), required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


@dataclass(frozen=True)
class VllmAscendBuild(Row):
    tags: Tuple[str, ...] = fld(ListOf(PYPI, min_items=1), required=True, factory=tuple, ref="vllm_ascend")
    base_image: str = fld(TEXT, required=True)
    cann: str = fld(ASCEND, required=True, ref="cann")
    python: str = fld(PYPI, required=True)
    torch: Optional[str] = fld(PYSPEC)
    torch_npu: Optional[str] = fld(PYSPEC)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("tags",)


@dataclass(frozen=True)
class Note(Row):
    topic: str = fld(TEXT, required=True)
    text: str = fld(TEXT, required=True)
    nnal: Optional[str] = fld(ASCEND, ref="cann")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)


# -- MindIE / MindSpeed / others --------------------------------------------------------------

@dataclass(frozen=True)
class MindieBuild:
    """One run package of a MindIE release: the torch (ABI) it is built for and the torch_npu to pair.

    From the install guide's 软件包清单: ``Ascend-mindie_<v>_linux-<arch>_abi0.run`` <-> torch 2.1.0,
    ``..._abi1.run`` <-> torch 2.6.0; ``torch_npu`` is the release of the PTA the guide names for that
    torch (COMPATIBILITY.en.md's branch table).
    """

    torch: str = fld(PYPI, required=True)
    abi: Optional[int] = fld(Int())  # 0 / 1 (the _abi0 / _abi1 package); None: the source names no ABI variant
    torch_npu: Optional[str] = fld(PYPI)
    pta: Optional[str] = fld(ASCEND)
    python: Optional[str] = fld(PYPI)  # when the source names one Python (3.0.0's download page: 3.11)
    package: Optional[str] = fld(TEXT)  # file name template: {version} (the MindIE release), {arch}
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)

    def package_name(self, version: str, arch: str) -> Optional[str]:
        """The run package's file name for one release and architecture (None when no source names it)."""
        if not self.package:
            return None
        return self.package.replace("{version}", version).replace("{arch}", arch)


@dataclass(frozen=True)
class MindieRow(Row):
    version: str = fld(ASCEND, required=True)
    cann: str = fld(ASCEND, required=True, ref="cann")
    hdk: Tuple[str, ...] = fld(ListOf(ASCEND), factory=tuple, ref="hdk")
    hdk_as_cann: Optional[str] = fld(ASCEND, ref="cann")
    pta: Optional[str] = fld(ASCEND, ref="pta")
    torch: Tuple[str, ...] = fld(ListOf(PYPI), factory=tuple, ref="torch")
    # the run packages per torch ABI (MindIE never ships for the PTA line-up's other torch releases)
    builds: Tuple[MindieBuild, ...] = fld(ListOf(Struct(MindieBuild)), factory=tuple)
    python: Optional[str] = fld(PYSPEC)  # the install guide's Python range ("Python3.10.x或者Python3.11.x")
    python_source: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)
    mindspore: Optional[str] = fld(TEXT)
    mindcluster: Optional[str] = fld(TEXT)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


@dataclass(frozen=True)
class MindieImage(Row):
    """A MindIE release image published on AscendHub for one chip family."""

    mindie: str = fld(ASCEND, required=True)
    family: str = fld(Choice(*FAMILIES), required=True, ref="family")
    image: str = fld(TEXT, required=True)
    python: Optional[str] = fld(PYPI)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("mindie", "family")


@dataclass(frozen=True)
class MindieUnconfirmed(Row):
    version: str = fld(ASCEND, required=True)
    likely_cann: str = fld(ASCEND, required=True, ref="cann")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    KEY = ("version",)


@dataclass(frozen=True)
class MindieMotor(Row):
    version: str = fld(ASCEND, required=True)
    mindcluster: Optional[str] = fld(TEXT)
    vllm: Optional[str] = fld(PYPI)
    vllm_ascend: Optional[str] = fld(PYPI, ref="vllm_ascend")
    mooncake: Optional[str] = fld(PYPI)
    hdk: Tuple[str, ...] = fld(ListOf(ASCEND), factory=tuple, ref="hdk")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


@dataclass(frozen=True)
class MindieTurboRow(Row):
    """A MindIE Turbo release and the CANN / vLLM-Ascend / vLLM it must be used with."""

    version: str = fld(Text(r"^[0-9]+\.[0-9]+(\.?[A-Za-z]+[0-9]*|\.[0-9]+)?$", "2.3.0, 2.2.RC1, 2.0rc1"),
                       required=True)
    cann: str = fld(ASCEND, required=True, ref="cann")
    vllm_ascend: Tuple[str, ...] = fld(ListOf(PYPI), factory=tuple, ref="vllm_ascend")
    vllm: Tuple[str, ...] = fld(ListOf(PYPI), factory=tuple)
    pta: Optional[str] = fld(ASCEND, ref="pta")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


# How a plugin wheel records what it was built against (the check reads the installed version).
WHEEL_RECORDS = ("cann_local_tag",)


@dataclass(frozen=True)
class PluginWheel(Row):
    dist: str = fld(Text(r"^[a-z0-9][a-z0-9._-]{0,63}$", "a PEP 503 distribution name"), required=True)
    records: str = fld(Choice(*WHEEL_RECORDS), required=True)
    example: str = fld(PYPI, required=True)  # an installed version as published, parsed by the check's tests
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("dist",)


@dataclass(frozen=True)
class MindspeedRow(Row):
    version: str = fld(ASCEND, required=True)
    branch: Optional[str] = fld(TEXT)  # the git branch of the release (never master)
    pta: Optional[str] = fld(ASCEND, ref="pta")
    cann: Tuple[str, ...] = fld(ListOf(ASCEND, min_items=1), required=True, factory=tuple, ref="cann")
    torch: Optional[str] = fld(PYPI, ref="torch")
    python: Optional[str] = fld(PYSPEC)
    hardware: Optional[str] = fld(TEXT)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


@dataclass(frozen=True)
class ProductCann(Row):
    """MindStudio / MindSpore releases and the CANN releases they name."""

    version: str = fld(TEXT, required=True)
    cann: Tuple[str, ...] = fld(ListOf(ASCEND, min_items=1), required=True, factory=tuple, ref="cann")
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("version",)


# -- package file names, pip indexes --------------------------------------------------------

CONVENTIONS = ("hdk_arch", "cann_arch", "toolkit", "nnal", "nnae", "kernels_arch", "ops", "driver_flags",
               "firmware_flags", "order_first_install", "order_upgrade")


@dataclass(frozen=True)
class PackageConvention(Row):
    """A file-name or install rule shared by every chip family (with its source)."""

    topic: str = fld(Choice(*CONVENTIONS), required=True)
    template: Optional[str] = fld(TEXT)
    aarch64: Optional[str] = fld(TEXT)
    x86_64: Optional[str] = fld(TEXT)
    cann: Optional[str] = fld(ASCEND, ref="cann")  # the first CANN release the rule applies to
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("topic",)


@dataclass(frozen=True)
class HdkPackageRow(Row):
    """One HDK release of one chip family: the version in its driver file name, its firmware number."""

    family: str = fld(Choice(*FAMILIES), required=True, ref="family")
    hdk: str = fld(ASCEND, required=True, ref="hdk")
    driver: str = fld(ASCEND, required=True)  # as written in the file name (25.0.rc1.1)
    firmware: Optional[str] = fld(ASCEND)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("family", "hdk")


PIP_USES = ("torch_cpu", "torch_npu_dev", "vllm_ascend", "triton_ascend")


@dataclass(frozen=True)
class PipIndex(Row):
    """An extra pip index a documented install needs, and for what."""

    use: str = fld(Choice(*PIP_USES), required=True)
    url: str = fld(Text(r"^https://", "an https URL"), required=True)
    after: Optional[str] = fld(PYPI)  # applies to releases after this one (vllm-ascend > 0.11.0)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("use", "url")


@dataclass(frozen=True)
class PypiReleases(Row):
    """The versions of a package that were on PyPI when queried (anything else is not on PyPI)."""

    package: str = fld(TEXT, required=True)
    versions: Tuple[str, ...] = fld(ListOf(PYPI, min_items=1), required=True, factory=tuple)
    queried: str = fld(Text(r"^\d{4}-\d{2}-\d{2}$", "a date written YYYY-MM-DD (quoted)"), required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("package",)


@dataclass(frozen=True)
class Meta:
    schema_version: int = fld(Int(), required=True)
    version: str = fld(MatrixVersionKind(), required=True)
    date: str = fld(Text(r"^\d{4}-\d{2}-\d{2}$", "a date written YYYY-MM-DD (quoted)"), required=True)
    title: Optional[str] = fld(TEXT)
    include: Tuple[str, ...] = fld(ListOf(Text(r"^[A-Za-z0-9_.-]+\.ya?ml$", "a sibling .yaml file name")),
                                   factory=tuple)


# Section name -> record class. The order is the order of `matrix show`.
SECTIONS: Dict[str, type] = {
    "snapshots": Snapshot,
    "gaps": Gap,
    "hdk_releases": HdkRelease,
    "cann_releases": CannRelease,
    "hdk_cann": HdkCannRow,
    "hdk_cann_lists": HdkCannList,
    "hdk_cann_caveats": Caveat,
    "release_codes": ReleaseCodeSample,
    "release_code_alignment": CodeAlignment,
    "firmware_releases": FirmwareRelease,
    "pta_releases": PtaRelease,
    "torch_npu": TorchNpuRow,
    "torch_npu_python": TorchNpuPython,
    "torch_python": TorchPython,
    "torch_npu_cann": TorchNpuCann,
    "torch_npu_runtime_map": TorchNpuRuntimeMap,
    "torch_npu_hardware": TorchNpuHardware,
    "vllm_ascend": VllmAscendRow,
    "vllm_ascend_builds": VllmAscendBuild,
    "vllm_ascend_notes": Note,
    "mindie": MindieRow,
    "mindie_images": MindieImage,
    "mindie_unconfirmed": MindieUnconfirmed,
    "mindie_motor": MindieMotor,
    "mindie_turbo": MindieTurboRow,
    "plugin_wheels": PluginWheel,
    "mindspeed": MindspeedRow,
    "mindstudio": ProductCann,
    "mindspore": ProductCann,
    "chip_families": ChipFamily,
    "chips": ChipEntry,
    "package_conventions": PackageConvention,
    "hdk_packages": HdkPackageRow,
    "pip_indexes": PipIndex,
    "pypi_releases": PypiReleases,
}

# Sections a complete matrix must have (the others may be empty or absent).
REQUIRED_SECTIONS = ("hdk_releases", "cann_releases", "hdk_cann", "torch_npu", "torch_python",
                     "vllm_ascend", "mindie", "chip_families", "chips")
