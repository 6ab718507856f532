"""The records of the chip tables (``chips``, ``chip_families``) and ``Row``, the base of every record.

Part of ``records`` (which re-exports every name here) kept in a module of its own so that resolving
a chip name from the compiled chip tables (``plan --chip``: ``matrix.select.load_chip_index``)
defines these nine record classes instead of the matrix's forty; ``normalize_chip_name`` is the key
both the chip index and the cross-checks use.
"""

from __future__ import annotations

import re
from typing import ClassVar, Dict, Mapping, Optional, Tuple

from ascend_doctor.fastdataclass import dataclass, field
from ascend_doctor.matrix.errors import Location
from ascend_doctor.matrix.schema import (
    AscendSpecKind,
    Choice,
    Int,
    ListOf,
    OpenMapping,
    SourceKind,
    Struct,
    Text,
    Tristate,
    fld,
)

ASCEND_SPEC = AscendSpecKind()
TEXT = Text()
SOURCE = SourceKind()
ENGINES = ("vllm-ascend", "mindie", "mindspeed")
DTYPES = ("bf16", "fp16", "int8", "int4", "fp8")  # int4: int4 weights (the W4A8 route)
FAMILIES = ("A2", "A3", "310P", "310B", "910", "950", "310")


def normalize_chip_name(name: str) -> str:
    """``Ascend910B3`` / ``ascend 910b3`` / ``910B3`` -> ``910b3``.

    ``Ascend910`` keeps its prefix: npu-smi prints it on A3, while a bare ``910`` names the
    first-generation chip family, so the two must not collapse into one key.
    """
    text = re.sub(r"\s+", "", name or "").lower()
    if text.startswith("ascend") and text != "ascend910":
        text = text[len("ascend"):]
    return text


@dataclass(frozen=True)
class Row:
    """Common bookkeeping: where the row was read (not part of equality)."""

    loc: Location = field(default=Location(), compare=False, repr=False)
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    path: str = field(default="", compare=False, repr=False)

    KEY: ClassVar[Tuple[str, ...]] = ()

    def line(self, name: str) -> int:
        return self.lines.get(name, self.loc.line)


# -- chips ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class KernelsPackage:
    noarch: Optional[str] = fld(TEXT)  # before CANN 8.0.RC3: Ascend-cann-kernels-<chip>_<ver>_linux.run
    legacy: Optional[str] = fld(TEXT)  # CANN <= 8.3: Ascend-cann-kernels-<chip>_<ver>_linux-<arch>.run
    ops: Optional[str] = fld(TEXT)  # CANN >= 8.5: Ascend-cann-<chip>-ops_<ver>_linux-<arch>.run
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)


@dataclass(frozen=True)
class HdkPackage:
    """The driver and firmware .run file names of a chip family ({version}, {arch}, {firmware})."""

    driver: str = fld(TEXT, required=True)
    firmware: str = fld(TEXT, required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)


@dataclass(frozen=True)
class ImageName:
    """A container image name template ({version})."""

    template: str = fld(TEXT, required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)


@dataclass(frozen=True)
class DtypeSupport:
    supported: object = fld(Tristate(), required=True, nullable=True)  # True / False / "partial" / None
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)


@dataclass(frozen=True)
class EngineSupport:
    support: str = fld(Choice("supported", "experimental", "unsupported", "unknown"), required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)


@dataclass(frozen=True)
class Requirement:
    cann: Optional[str] = fld(ASCEND_SPEC)
    hdk: Optional[str] = fld(ASCEND_SPEC)
    applies_to: str = fld(TEXT, required=True)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)


@dataclass(frozen=True)
class ChipFamily(Row):
    family: str = fld(Choice(*FAMILIES), required=True)
    aliases: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)  # other names of the family (A5 for 950)
    description: str = fld(TEXT, required=True)
    image_flavor: Optional[str] = fld(TEXT)
    soc_version_default: Optional[str] = fld(TEXT)
    soc_enum: Optional[str] = fld(TEXT)
    pci_device_id: Optional[str] = fld(TEXT)
    kernels_package: Optional[KernelsPackage] = fld(Struct(KernelsPackage))
    hdk_package: Optional[HdkPackage] = fld(Struct(HdkPackage))
    vllm_ascend_image: Optional[ImageName] = fld(Struct(ImageName))
    dtypes: Dict[str, DtypeSupport] = fld(OpenMapping(Struct(DtypeSupport), DTYPES), required=True, factory=dict)
    engines: Dict[str, EngineSupport] = fld(OpenMapping(Struct(EngineSupport), ENGINES), required=True,
                                            factory=dict)
    requirements: Tuple[Requirement, ...] = fld(ListOf(Struct(Requirement)), factory=tuple)
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("family",)


@dataclass(frozen=True)
class ChipEntry(Row):
    name: str = fld(TEXT, required=True)
    family: str = fld(Choice(*FAMILIES), required=True, ref="family")
    soc_version: Optional[str] = fld(TEXT)
    soc_enum: Optional[int] = fld(Int())
    memory_mb: Tuple[int, ...] = fld(ListOf(Int()), factory=tuple)
    aliases: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)
    patterns: Tuple[str, ...] = fld(ListOf(Text()), factory=tuple)
    dies_per_npu: Optional[int] = fld(Int())
    source: Tuple[str, ...] = fld(SOURCE, required=True, factory=tuple)
    note: Optional[str] = fld(TEXT)
    KEY = ("name",)
