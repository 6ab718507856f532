"""Typed records of the compatibility matrix: one dataclass per table (section) of the YAML.

Field metadata (``fld``) says how each YAML value is checked and, with ``ref``, which table a
version must exist in (checked by ``crosscheck``). Versions are kept as written; the query code
parses them with the cached helpers of ``specs``.
"""

from __future__ import annotations

from typing import Annotated, Dict, Optional, Tuple

from msgspec import Struct

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
    Nested,
    PypiVersionKind,
    PySpecKind,
    ReleaseCodeKind,
    Text,
    fld,
)

ASCEND = AscendVersionKind()
PYPI = PypiVersionKind()
PYSPEC = PySpecKind()
VERDICTS = ("recommended", "compatible", "incompatible")


# -- meta -------------------------------------------------------------------------------------

class Snapshot(Row, frozen=True, kw_only=True):
    repo: Annotated[str, fld(TEXT, required=True)]
    commit: Annotated[str, fld(TEXT, required=True)]
    date: Annotated[str, fld(TEXT, required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("repo",)


class Gap(Row, frozen=True, kw_only=True):
    topic: Annotated[str, fld(TEXT, required=True)]
    text: Annotated[str, fld(TEXT, required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()


# -- HDK <-> CANN -------------------------------------------------------------------------------

class HdkRelease(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(ASCEND, required=True)]
    # an HDK numbering used only by these products (Atlas 350's 1.0.RC1): not comparable with the
    # 2x.y numbering of the other lines, so a CANN pairing of another product never applies to it
    products: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


class CannRelease(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(ASCEND, required=True)]
    community: Annotated[Tuple[str, ...], fld(ListOf(ASCEND))] = ()
    prerelease: Annotated[bool, fld(Bool())] = False
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


class HdkCannRow(Row, frozen=True, kw_only=True):
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    hdk: Annotated[Tuple[str, ...], fld(ListOf(ASCEND_SPEC, min_items=1), required=True, ref="hdk")] = ()
    verdict: Annotated[str, fld(Choice(*VERDICTS), required=True)]
    origin: Annotated[str, fld(Choice("official", "installer", "quick_install", "product"), required=True)]
    firmware: Annotated[Optional[str], fld(ASCEND)] = None
    flavor: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()
    products: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()
    # origin product: the product release whose note lists the pairing (MindIE 2.1.RC1)
    listed_by: Annotated[Optional[str], fld(TEXT)] = None
    # the row is the release's complete support list: an HDK outside every exhaustive row of the
    # CANN is "not in the official list" (never turned into a pairing by weaker evidence)
    exhaustive: Annotated[bool, fld(Bool())] = False
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("cann", "hdk", "verdict", "origin", "flavor", "products")


class HdkCannList(Row, frozen=True, kw_only=True):
    product: Annotated[str, fld(TEXT, required=True)]
    cann: Annotated[Tuple[str, ...], fld(ListOf(ASCEND, min_items=1), required=True, ref="cann")] = ()
    hdk: Annotated[Tuple[str, ...], fld(ListOf(ASCEND, min_items=1), required=True, ref="hdk")] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("product",)


class Caveat(Row, frozen=True, kw_only=True):
    feature: Annotated[str, fld(TEXT, required=True)]
    hdk: Annotated[Optional[str], fld(ASCEND_SPEC)] = None
    cann: Annotated[Optional[str], fld(ASCEND_SPEC)] = None
    message: Annotated[str, fld(TEXT, required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    KEY = ("feature",)


class ReleaseCodeSample(Row, frozen=True, kw_only=True):
    side: Annotated[str, fld(Choice("driver", "cann", "nnae"), required=True)]
    version: Annotated[str, fld(ASCEND, required=True)]
    innerversion: Annotated[str, fld(ReleaseCodeKind(), required=True)]
    compatible_version: Annotated[str, fld(CodeListKind(), required=True)]
    compatible_version_fw: Annotated[Optional[str], fld(FirmwareRangesKind())] = None
    uncertain: Annotated[bool, fld(Bool())] = False
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("side", "version", "innerversion", "compatible_version", "compatible_version_fw")


class CodeAlignment(Row, frozen=True, kw_only=True):
    code: Annotated[str, fld(ReleaseCodeKind(), required=True)]
    cann: Annotated[Tuple[str, ...], fld(ListOf(ASCEND), ref="cann")] = ()
    hdk: Annotated[Tuple[str, ...], fld(ListOf(ASCEND), ref="hdk")] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("code",)


class FirmwareRelease(Row, frozen=True, kw_only=True):
    firmware: Annotated[str, fld(ASCEND, required=True)]
    hdk: Annotated[str, fld(ASCEND, required=True, ref="hdk")]
    flavor: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()
    compatible_version_drv: Annotated[Optional[str], fld(DriverPatternsKind())] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("firmware",)


# -- torch_npu ----------------------------------------------------------------------------------

class PtaRelease(Row, frozen=True, kw_only=True):
    pta: Annotated[str, fld(ASCEND, required=True)]
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    KEY = ("pta",)


class TorchNpuRow(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(PYPI, required=True)]
    torch: Annotated[str, fld(PYPI, required=True, ref="torch")]
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    branch: Annotated[Optional[str], fld(TEXT)] = None
    pta: Annotated[Optional[str], fld(ASCEND, ref="pta")] = None
    status: Annotated[str, fld(Choice("active", "historical"), required=True)]
    origin: Annotated[str, fld(Choice("table", "release_note", "installer"), required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version", "cann")


class TorchNpuPython(Row, frozen=True, kw_only=True):
    torch_npu: Annotated[Tuple[str, ...], fld(ListOf(PYPI, min_items=1), required=True, ref="torch_npu")] = ()
    python: Annotated[str, fld(PYSPEC, required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("torch_npu",)


class TorchPython(Row, frozen=True, kw_only=True):
    torch: Annotated[str, fld(PYPI, required=True)]
    python: Annotated[Optional[str], fld(PYSPEC)] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("torch",)


class TorchNpuCann(Row, frozen=True, kw_only=True):
    pta: Annotated[Tuple[str, ...], fld(ListOf(ASCEND, min_items=1), required=True, ref="pta")] = ()
    cann: Annotated[Tuple[str, ...], fld(ListOf(ASCEND, min_items=1), required=True, ref="cann")] = ()
    verdict: Annotated[str, fld(Choice(*VERDICTS), required=True)]
    uncertain: Annotated[bool, fld(Bool())] = False
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("pta", "cann")


class TorchNpuRuntimeMap(Row, frozen=True, kw_only=True):
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    torch_npu: Annotated[Tuple[str, ...], fld(ListOf(PYPI, min_items=1), required=True)] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("cann",)


class TorchNpuHardware(Row, frozen=True, kw_only=True):
    families: Annotated[Tuple[str, ...], fld(ListOf(Choice(*FAMILIES), min_items=1), required=True)] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None


# -- vLLM-Ascend ------------------------------------------------------------------------------

class VllmAscendRow(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(PYPI, required=True)]
    vllm: Annotated[Tuple[str, ...], fld(ListOf(PYPI, min_items=1), required=True)] = ()
    python: Annotated[str, fld(PYSPEC, required=True)]
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    torch: Annotated[str, fld(PYPI, required=True, ref="torch")]
    torch_npu: Annotated[str, fld(PYPI, required=True)]
    triton_ascend: Annotated[Optional[str], fld(PYPI)] = None
    mooncake: Annotated[Optional[str], fld(PYPI)] = None
    mindie_turbo: Annotated[Optional[str], fld(PYPI)] = None
    status: Annotated[str, fld(Choice("current", "removed"), required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


class VllmAscendBuild(Row, frozen=True, kw_only=True):
    tags: Annotated[Tuple[str, ...], fld(ListOf(PYPI, min_items=1), required=True, ref="vllm_ascend")] = ()
    base_image: Annotated[str, fld(TEXT, required=True)]
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    python: Annotated[str, fld(PYPI, required=True)]
    torch: Annotated[Optional[str], fld(PYSPEC)] = None
    torch_npu: Annotated[Optional[str], fld(PYSPEC)] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("tags",)


class Note(Row, frozen=True, kw_only=True):
    topic: Annotated[str, fld(TEXT, required=True)]
    text: Annotated[str, fld(TEXT, required=True)]
    nnal: Annotated[Optional[str], fld(ASCEND, ref="cann")] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()


# -- MindIE / MindSpeed / others --------------------------------------------------------------

class MindieBuild(Struct, frozen=True, kw_only=True):
    """One run package of a MindIE release: the torch (ABI) it is built for and the torch_npu to pair.

    From the install guide's 软件包清单: ``Ascend-mindie_<v>_linux-<arch>_abi0.run`` <-> torch 2.1.0,
    ``..._abi1.run`` <-> torch 2.6.0; ``torch_npu`` is the release of the PTA the guide names for that
    torch (COMPATIBILITY.en.md's branch table).
    """

    torch: Annotated[str, fld(PYPI, required=True)]
    # 0 / 1 (the _abi0 / _abi1 package); None: the source names no ABI variant
    abi: Annotated[Optional[int], fld(Int())] = None
    torch_npu: Annotated[Optional[str], fld(PYPI)] = None
    pta: Annotated[Optional[str], fld(ASCEND)] = None
    python: Annotated[Optional[str], fld(PYPI)] = None  # when the source names one Python (3.0.0's download page: 3.11)
    package: Annotated[Optional[str], fld(TEXT)] = None  # file name template: {version} (the MindIE release), {arch}
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None

    def package_name(self, version: str, arch: str) -> Optional[str]:
        """The run package's file name for one release and architecture (None when no source names it)."""
        if not self.package:
            return None
        return self.package.replace("{version}", version).replace("{arch}", arch)


class MindieRow(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(ASCEND, required=True)]
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    hdk: Annotated[Tuple[str, ...], fld(ListOf(ASCEND), ref="hdk")] = ()
    hdk_as_cann: Annotated[Optional[str], fld(ASCEND, ref="cann")] = None
    pta: Annotated[Optional[str], fld(ASCEND, ref="pta")] = None
    torch: Annotated[Tuple[str, ...], fld(ListOf(PYPI), ref="torch")] = ()
    # the run packages per torch ABI (MindIE never ships for the PTA line-up's other torch releases)
    builds: Annotated[Tuple[MindieBuild, ...], fld(ListOf(Nested(MindieBuild)))] = ()
    # the install guide's Python range ("Python3.10.x或者Python3.11.x")
    python: Annotated[Optional[str], fld(PYSPEC)] = None
    python_source: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()
    mindspore: Annotated[Optional[str], fld(TEXT)] = None
    mindcluster: Annotated[Optional[str], fld(TEXT)] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


class MindieImage(Row, frozen=True, kw_only=True):
    """A MindIE release image published on AscendHub for one chip family."""

    mindie: Annotated[str, fld(ASCEND, required=True)]
    family: Annotated[str, fld(Choice(*FAMILIES), required=True, ref="family")]
    image: Annotated[str, fld(TEXT, required=True)]
    python: Annotated[Optional[str], fld(PYPI)] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("mindie", "family")


class MindieUnconfirmed(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(ASCEND, required=True)]
    likely_cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    KEY = ("version",)


class MindieMotor(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(ASCEND, required=True)]
    mindcluster: Annotated[Optional[str], fld(TEXT)] = None
    vllm: Annotated[Optional[str], fld(PYPI)] = None
    vllm_ascend: Annotated[Optional[str], fld(PYPI, ref="vllm_ascend")] = None
    mooncake: Annotated[Optional[str], fld(PYPI)] = None
    hdk: Annotated[Tuple[str, ...], fld(ListOf(ASCEND), ref="hdk")] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


class MindieTurboRow(Row, frozen=True, kw_only=True):
    """A MindIE Turbo release and the CANN / vLLM-Ascend / vLLM it must be used with."""

    version: Annotated[str, fld(Text(r"^[0-9]+\.[0-9]+(\.?[A-Za-z]+[0-9]*|\.[0-9]+)?$", "2.3.0, 2.2.RC1, 2.0rc1"),
                                 required=True)]
    cann: Annotated[str, fld(ASCEND, required=True, ref="cann")]
    vllm_ascend: Annotated[Tuple[str, ...], fld(ListOf(PYPI), ref="vllm_ascend")] = ()
    vllm: Annotated[Tuple[str, ...], fld(ListOf(PYPI))] = ()
    pta: Annotated[Optional[str], fld(ASCEND, ref="pta")] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


# How a plugin wheel records what it was built against (the check reads the installed version).
WHEEL_RECORDS = ("cann_local_tag",)


class PluginWheel(Row, frozen=True, kw_only=True):
    dist: Annotated[str, fld(Text(r"^[a-z0-9][a-z0-9._-]{0,63}$", "a PEP 503 distribution name"), required=True)]
    records: Annotated[str, fld(Choice(*WHEEL_RECORDS), required=True)]
    example: Annotated[str, fld(PYPI, required=True)]  # an installed version as published, parsed by the check's tests
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("dist",)


class MindspeedRow(Row, frozen=True, kw_only=True):
    version: Annotated[str, fld(ASCEND, required=True)]
    branch: Annotated[Optional[str], fld(TEXT)] = None  # the git branch of the release (never master)
    pta: Annotated[Optional[str], fld(ASCEND, ref="pta")] = None
    cann: Annotated[Tuple[str, ...], fld(ListOf(ASCEND, min_items=1), required=True, ref="cann")] = ()
    torch: Annotated[Optional[str], fld(PYPI, ref="torch")] = None
    python: Annotated[Optional[str], fld(PYSPEC)] = None
    hardware: Annotated[Optional[str], fld(TEXT)] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


class ProductCann(Row, frozen=True, kw_only=True):
    """MindStudio / MindSpore releases and the CANN releases they name."""

    version: Annotated[str, fld(TEXT, required=True)]
    cann: Annotated[Tuple[str, ...], fld(ListOf(ASCEND, min_items=1), required=True, ref="cann")] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("version",)


# -- package file names, pip indexes --------------------------------------------------------

CONVENTIONS = ("hdk_arch", "cann_arch", "toolkit", "nnal", "nnae", "kernels_arch", "ops", "driver_flags",
               "firmware_flags", "order_first_install", "order_upgrade")


class PackageConvention(Row, frozen=True, kw_only=True):
    """A file-name or install rule shared by every chip family (with its source)."""

    topic: Annotated[str, fld(Choice(*CONVENTIONS), required=True)]
    template: Annotated[Optional[str], fld(TEXT)] = None
    aarch64: Annotated[Optional[str], fld(TEXT)] = None
    x86_64: Annotated[Optional[str], fld(TEXT)] = None
    cann: Annotated[Optional[str], fld(ASCEND, ref="cann")] = None  # the first CANN release the rule applies to
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("topic",)


class HdkPackageRow(Row, frozen=True, kw_only=True):
    """One HDK release of one chip family: the version in its driver file name, its firmware number."""

    family: Annotated[str, fld(Choice(*FAMILIES), required=True, ref="family")]
    hdk: Annotated[str, fld(ASCEND, required=True, ref="hdk")]
    driver: Annotated[str, fld(ASCEND, required=True)]  # as written in the file name (25.0.rc1.1)
    firmware: Annotated[Optional[str], fld(ASCEND)] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("family", "hdk")


PIP_USES = ("torch_cpu", "torch_npu_dev", "vllm_ascend", "triton_ascend")


class PipIndex(Row, frozen=True, kw_only=True):
    """An extra pip index a documented install needs, and for what."""

    use: Annotated[str, fld(Choice(*PIP_USES), required=True)]
    url: Annotated[str, fld(Text(r"^https://", "an https URL"), required=True)]
    after: Annotated[Optional[str], fld(PYPI)] = None  # applies to releases after this one (vllm-ascend > 0.11.0)
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("use", "url")


class PypiReleases(Row, frozen=True, kw_only=True):
    """The versions of a package that were on PyPI when queried (anything else is not on PyPI)."""

    package: Annotated[str, fld(TEXT, required=True)]
    versions: Annotated[Tuple[str, ...], fld(ListOf(PYPI, min_items=1), required=True)] = ()
    queried: Annotated[str, fld(Text(r"^\d{4}-\d{2}-\d{2}$", "a date written YYYY-MM-DD (quoted)"), required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("package",)


class Meta(Struct, frozen=True, kw_only=True):
    schema_version: Annotated[int, fld(Int(), required=True)]
    version: Annotated[str, fld(MatrixVersionKind(), required=True)]
    date: Annotated[str, fld(Text(r"^\d{4}-\d{2}-\d{2}$", "a date written YYYY-MM-DD (quoted)"), required=True)]
    title: Annotated[Optional[str], fld(TEXT)] = None
    include: Annotated[Tuple[str, ...],
                       fld(ListOf(Text(r"^[A-Za-z0-9_.-]+\.ya?ml$", "a sibling .yaml file name")))] = ()


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
