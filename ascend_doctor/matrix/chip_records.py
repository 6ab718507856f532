"""The records of the chip tables (``chips``, ``chip_families``) and ``Row``, the base of every record.

Part of ``records`` (which re-exports every name here) kept in a module of its own so that resolving
a chip name from the compiled chip tables (``plan --chip``: ``matrix.select.load_chip_index``)
defines these nine record classes instead of the matrix's forty; ``normalize_chip_name`` is the key
both the chip index and the cross-checks use.
"""

from __future__ import annotations

import re
from typing import Annotated, ClassVar, Dict, Mapping, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.matrix.errors import Location
from ascend_doctor.matrix.schema import (
    AscendSpecKind,
    Choice,
    Int,
    ListOf,
    Nested,
    OpenMapping,
    SourceKind,
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


class Row(Struct, frozen=True, kw_only=True):
    """Common bookkeeping: where the row was read. Not part of equality, hash or repr: two rows
    that say the same thing are the same row wherever they were written."""

    loc: Location = Location()
    lines: Mapping[str, int] = field(default_factory=dict)
    path: str = ""

    KEY: ClassVar[Tuple[str, ...]] = ()

    def line(self, name: str) -> int:
        return self.lines.get(name, self.loc.line)

    def _content(self) -> Tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__struct_fields__ if name not in _BOOKKEEPING)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Row)
        return self._content() == other._content()

    def __hash__(self) -> int:
        return hash(self._content())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__struct_fields__
                          if name not in _BOOKKEEPING)
        return f"{type(self).__name__}({shown})"


_BOOKKEEPING = frozenset({"loc", "lines", "path"})


# -- chips ------------------------------------------------------------------------------------

class KernelsPackage(Struct, frozen=True, kw_only=True):
    # before CANN 8.0.RC3: Ascend-cann-kernels-<chip>_<ver>_linux.run
    noarch: Annotated[Optional[str], fld(TEXT)] = None
    legacy: Annotated[Optional[str], fld(TEXT)] = None  # CANN <= 8.3: Ascend-cann-kernels-<chip>_<ver>_linux-<arch>.run
    ops: Annotated[Optional[str], fld(TEXT)] = None  # CANN >= 8.5: Ascend-cann-<chip>-ops_<ver>_linux-<arch>.run
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None


class HdkPackage(Struct, frozen=True, kw_only=True):
    """The driver and firmware .run file names of a chip family ({version}, {arch}, {firmware})."""

    driver: Annotated[str, fld(TEXT, required=True)]
    firmware: Annotated[str, fld(TEXT, required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None


class ImageName(Struct, frozen=True, kw_only=True):
    """A container image name template ({version})."""

    template: Annotated[str, fld(TEXT, required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None


class DtypeSupport(Struct, frozen=True, kw_only=True):
    supported: Annotated[object, fld(Tristate(), required=True, nullable=True)]  # True / False / "partial" / None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None


class EngineSupport(Struct, frozen=True, kw_only=True):
    support: Annotated[str, fld(Choice("supported", "experimental", "unsupported", "unknown"), required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None


class Requirement(Struct, frozen=True, kw_only=True):
    cann: Annotated[Optional[str], fld(ASCEND_SPEC)] = None
    hdk: Annotated[Optional[str], fld(ASCEND_SPEC)] = None
    applies_to: Annotated[str, fld(TEXT, required=True)]
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()


class ChipFamily(Row, frozen=True, kw_only=True):
    family: Annotated[str, fld(Choice(*FAMILIES), required=True)]
    aliases: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()  # other names of the family (A5 for 950)
    description: Annotated[str, fld(TEXT, required=True)]
    image_flavor: Annotated[Optional[str], fld(TEXT)] = None
    soc_version_default: Annotated[Optional[str], fld(TEXT)] = None
    soc_enum: Annotated[Optional[str], fld(TEXT)] = None
    pci_device_id: Annotated[Optional[str], fld(TEXT)] = None
    kernels_package: Annotated[Optional[KernelsPackage], fld(Nested(KernelsPackage))] = None
    hdk_package: Annotated[Optional[HdkPackage], fld(Nested(HdkPackage))] = None
    vllm_ascend_image: Annotated[Optional[ImageName], fld(Nested(ImageName))] = None
    dtypes: Annotated[Dict[str, DtypeSupport], fld(OpenMapping(Nested(DtypeSupport), DTYPES), required=True)] = \
        field(default_factory=dict)
    engines: Annotated[Dict[str, EngineSupport], fld(OpenMapping(Nested(EngineSupport), ENGINES), required=True)] = \
        field(default_factory=dict)
    requirements: Annotated[Tuple[Requirement, ...], fld(ListOf(Nested(Requirement)))] = ()
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("family",)


class ChipEntry(Row, frozen=True, kw_only=True):
    name: Annotated[str, fld(TEXT, required=True)]
    family: Annotated[str, fld(Choice(*FAMILIES), required=True, ref="family")]
    soc_version: Annotated[Optional[str], fld(TEXT)] = None
    soc_enum: Annotated[Optional[int], fld(Int())] = None
    memory_mb: Annotated[Tuple[int, ...], fld(ListOf(Int()))] = ()
    aliases: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()
    patterns: Annotated[Tuple[str, ...], fld(ListOf(Text()))] = ()
    dies_per_npu: Annotated[Optional[int], fld(Int())] = None
    source: Annotated[Tuple[str, ...], fld(SOURCE, required=True)] = ()
    note: Annotated[Optional[str], fld(TEXT)] = None
    KEY = ("name",)
