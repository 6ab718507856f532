"""The loaded matrix: typed tables plus the queries checks and commands call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple, TypeVar, cast

from ascend_doctor.matrix import hdk, pytorch
from ascend_doctor.matrix.chips import ChipIndex, ChipInfo
from ascend_doctor.matrix.loader import Document
from ascend_doctor.matrix.records import (
    CannRelease,
    Caveat,
    ChipEntry,
    ChipFamily,
    CodeAlignment,
    FirmwareRelease,
    Gap,
    HdkCannList,
    HdkCannRow,
    HdkPackageRow,
    HdkRelease,
    Meta,
    MindieImage,
    MindieMotor,
    MindieRow,
    MindieTurboRow,
    MindieUnconfirmed,
    MindspeedRow,
    Note,
    PackageConvention,
    PipIndex,
    PluginWheel,
    ProductCann,
    PtaRelease,
    PypiReleases,
    ReleaseCodeSample,
    Row,
    Snapshot,
    TorchNpuCann,
    TorchNpuHardware,
    TorchNpuPython,
    TorchNpuRow,
    TorchNpuRuntimeMap,
    TorchPython,
    VllmAscendBuild,
    VllmAscendRow,
)
from ascend_doctor.matrix.specs import release_rank, try_ascend
from ascend_doctor.matrix.verdict import Verdict
from ascend_doctor.versions import AscendVersion

if TYPE_CHECKING:
    from ascend_doctor.matrix.packages import PackageSet

R = TypeVar("R", bound=Row)


class Matrix:
    """A validated compatibility matrix. ``origin`` says where it came from (shown in every report)."""

    def __init__(self, doc: Document, origin: str, warnings: Sequence[str] = ()) -> None:
        assert doc.meta is not None
        self.meta: Meta = doc.meta
        self.path = doc.path
        self.origin = origin
        self.warnings: List[str] = list(warnings)
        self.sections = doc.sections

        def rows(name: str, cls: type) -> List[Any]:
            return [r for r in doc.sections.get(name, []) if isinstance(r, cls)]

        self.snapshots: List[Snapshot] = rows("snapshots", Snapshot)
        self.gaps: List[Gap] = rows("gaps", Gap)
        self.hdk_releases: List[HdkRelease] = rows("hdk_releases", HdkRelease)
        self.cann_releases: List[CannRelease] = rows("cann_releases", CannRelease)
        self.hdk_cann: List[HdkCannRow] = rows("hdk_cann", HdkCannRow)
        self.hdk_cann_lists: List[HdkCannList] = rows("hdk_cann_lists", HdkCannList)
        self.caveats: List[Caveat] = rows("hdk_cann_caveats", Caveat)
        self.release_codes: List[ReleaseCodeSample] = rows("release_codes", ReleaseCodeSample)
        self.code_alignment: List[CodeAlignment] = rows("release_code_alignment", CodeAlignment)
        self.firmware_releases: List[FirmwareRelease] = rows("firmware_releases", FirmwareRelease)
        self.pta_releases: List[PtaRelease] = rows("pta_releases", PtaRelease)
        self.torch_npu_rows: List[TorchNpuRow] = rows("torch_npu", TorchNpuRow)
        self.torch_npu_python: List[TorchNpuPython] = rows("torch_npu_python", TorchNpuPython)
        self.torch_python: List[TorchPython] = rows("torch_python", TorchPython)
        self.torch_npu_cann: List[TorchNpuCann] = rows("torch_npu_cann", TorchNpuCann)
        self.torch_npu_runtime_map: List[TorchNpuRuntimeMap] = rows("torch_npu_runtime_map", TorchNpuRuntimeMap)
        self.torch_npu_hardware: List[TorchNpuHardware] = rows("torch_npu_hardware", TorchNpuHardware)
        self.vllm_ascend_rows: List[VllmAscendRow] = rows("vllm_ascend", VllmAscendRow)
        self.vllm_builds: List[VllmAscendBuild] = rows("vllm_ascend_builds", VllmAscendBuild)
        self.vllm_notes: List[Note] = rows("vllm_ascend_notes", Note)
        self.mindie_rows: List[MindieRow] = rows("mindie", MindieRow)
        self.mindie_unconfirmed: List[MindieUnconfirmed] = rows("mindie_unconfirmed", MindieUnconfirmed)
        self.mindie_motor: List[MindieMotor] = rows("mindie_motor", MindieMotor)
        self.mindspeed_rows: List[MindspeedRow] = rows("mindspeed", MindspeedRow)
        self.mindie_turbo: List[MindieTurboRow] = rows("mindie_turbo", MindieTurboRow)
        self.plugin_wheels: List[PluginWheel] = rows("plugin_wheels", PluginWheel)
        self.mindstudio: List[ProductCann] = rows("mindstudio", ProductCann)
        self.mindspore: List[ProductCann] = rows("mindspore", ProductCann)
        self.chip_families: List[ChipFamily] = rows("chip_families", ChipFamily)
        self.chip_entries: List[ChipEntry] = rows("chips", ChipEntry)
        self.chip_index = ChipIndex(self.chip_entries, self.chip_families)
        self.mindie_images: List[MindieImage] = rows("mindie_images", MindieImage)
        self.package_conventions: List[PackageConvention] = rows("package_conventions", PackageConvention)
        self.hdk_packages: List[HdkPackageRow] = rows("hdk_packages", HdkPackageRow)
        self.pip_indexes: List[PipIndex] = rows("pip_indexes", PipIndex)
        self.pypi_releases: List[PypiReleases] = rows("pypi_releases", PypiReleases)
        # Answers that depend only on one CANN release, kept for this Matrix's life: `matrix lookup
        # --cann` asks cann_vs_driver about every HDK release, each of which used to scan the CANN
        # spellings and the HDK/CANN table again (a few thousand version comparisons per lookup).
        self._known_canns: Dict[AscendVersion, bool] = {}
        self._hdk_cann_rows: Dict[AscendVersion, List[HdkCannRow]] = {}
        self._lists_naming_cann: Dict[AscendVersion, List[HdkCannList]] = {}
        self._memo: Dict[Tuple[Any, ...], List[Any]] = {}
        # Pairwise verdicts, asked again and again while the resolver backtracks (torch_npu vs CANN:
        # 6,000 times for 84 checks of one test); verdicts are frozen records, shared safely.
        self._verdicts: Dict[Tuple[Hashable, ...], Verdict] = {}

    # -- identity ---------------------------------------------------------------------------
    @property
    def version(self) -> str:
        return self.meta.version

    @property
    def date(self) -> str:
        return self.meta.date

    @property
    def schema_version(self) -> int:
        return self.meta.schema_version

    def describe(self) -> str:
        """``matrix 2026.11.29 (2026-11-29, shipped)`` — for report headers."""
        return f"matrix {self.version} ({self.date}, {self.origin})"

    def identity(self) -> Dict[str, Any]:
        return {"version": self.version, "date": self.date, "schema_version": self.schema_version,
                "origin": self.origin, "path": self.path}

    def __repr__(self) -> str:
        return f"<Matrix {self.version} {self.origin}>"

    # -- tables -----------------------------------------------------------------------------
    def knows_cann(self, cann: AscendVersion) -> bool:
        known = self._known_canns.get(cann)
        if known is None:
            known = self._known_canns[cann] = any(self._cann_spellings_match(r, cann) for r in self.cann_releases)
        return known

    def hdk_cann_rows(self, cann: AscendVersion) -> List[HdkCannRow]:
        """The HDK/CANN rows naming ``cann``, only the most specific spelling's (``hdk.best_rank_rows``)."""
        rows = self._hdk_cann_rows.get(cann)
        if rows is None:
            rows = self._hdk_cann_rows[cann] = hdk.best_rank_rows(self.hdk_cann, cann)
        return list(rows)

    def memo(self, key: Tuple[Any, ...], rows: Callable[[], List[R]]) -> List[R]:
        """``rows()``, computed once per ``key`` (a query's name and arguments) for this Matrix's
        life; a copy of the list each time."""
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = rows()
        return list(found)

    def _verdict(self, key: Tuple[Hashable, ...], compute: Callable[[], Verdict]) -> Verdict:
        found = self._verdicts.get(key)
        if found is None:
            found = self._verdicts[key] = compute()
        return found

    def lists_naming_cann(self, cann: AscendVersion) -> List[HdkCannList]:
        """The co-existence lists (``hdk_cann_lists``) that name ``cann``, in table order."""
        lists = self._lists_naming_cann.get(cann)
        if lists is None:
            lists = self._lists_naming_cann[cann] = [
                listing for listing in self.hdk_cann_lists
                if any(release_rank(v, cann) >= 0 for v in (try_ascend(c) for c in listing.cann) if v)]
        return list(lists)

    def knows_cann_exactly(self, cann: AscendVersion) -> bool:
        """True when ``cann`` (with its alpha/beta suffix) is itself a listed spelling."""
        for row in self.cann_releases:
            for text in (row.version, *row.community):
                version = try_ascend(text)
                if version is not None and version.same_release(cann) and version.pre == cann.pre:
                    return True
        return False

    @staticmethod
    def _cann_spellings_match(row: CannRelease, cann: AscendVersion) -> bool:
        versions = [try_ascend(t) for t in (row.version, *row.community)]
        return any(v is not None and (release_rank(v, cann) >= 0 or release_rank(cann, v) >= 0) for v in versions)

    def knows_hdk(self, version: AscendVersion) -> bool:
        return any((v := try_ascend(r.version)) is not None and v.same_release(version) for r in self.hdk_releases)

    # -- queries: HDK / CANN ----------------------------------------------------------------
    def cann_vs_driver(self, cann: str, driver: str, *, cann_innerversion: Optional[str] = None,
                       cann_compatible: Sequence[str] = (), driver_innerversion: Optional[str] = None,
                       driver_compatible: Sequence[str] = (), product: Optional[str] = None,
                       chip: Optional[str] = None) -> Verdict:
        key = ("cann_vs_driver", cann, driver, cann_innerversion, tuple(cann_compatible), driver_innerversion,
               tuple(driver_compatible), product, chip)
        return self._verdict(key, lambda: hdk.cann_vs_driver(
            self, cann, driver, cann_innerversion=cann_innerversion, cann_compatible=cann_compatible,
            driver_innerversion=driver_innerversion, driver_compatible=driver_compatible, product=product,
            chip=chip))

    def driver_vs_firmware(self, driver: str, firmware: str, *,
                           compatible_version_fw: Sequence[Tuple[str, str]] = (),
                           firmware_compatible_drv: Sequence[Tuple[str, str]] = ()) -> Verdict:
        key = ("driver_vs_firmware", driver, firmware, tuple(compatible_version_fw), tuple(firmware_compatible_drv))
        return self._verdict(key, lambda: hdk.driver_vs_firmware(
            self, driver, firmware, compatible_version_fw=compatible_version_fw,
            firmware_compatible_drv=firmware_compatible_drv))

    # -- queries: PyTorch -------------------------------------------------------------------
    def torch_npu_vs_torch(self, torch_npu: str, torch: str) -> Verdict:
        return self._verdict(("torch_npu_vs_torch", torch_npu, torch),
                             lambda: pytorch.torch_npu_vs_torch(self, torch_npu, torch))

    def torch_npu_vs_cann(self, torch_npu: str, cann: str) -> Verdict:
        return self._verdict(("torch_npu_vs_cann", torch_npu, cann),
                             lambda: pytorch.torch_npu_vs_cann(self, torch_npu, cann))

    def torch_vs_python(self, torch: str, python: str) -> Verdict:
        return self._verdict(("torch_vs_python", torch, python), lambda: pytorch.torch_vs_python(self, torch, python))

    def torch_npu_vs_python(self, torch_npu: str, python: str) -> Verdict:
        return self._verdict(("torch_npu_vs_python", torch_npu, python),
                             lambda: pytorch.torch_npu_vs_python(self, torch_npu, python))

    # -- queries: engines -------------------------------------------------------------------
    def engine_vs_stack(self, engine: str, version: str, *, cann: Optional[str] = None,
                        torch: Optional[str] = None, torch_npu: Optional[str] = None, vllm: Optional[str] = None,
                        python: Optional[str] = None, driver: Optional[str] = None) -> List[Tuple[str, Verdict]]:
        # imported here: a machine without a serving engine never asks (42 KB of code a check spares)
        from ascend_doctor.matrix import engines

        return engines.engine_vs_stack(self, engine, version, cann=cann, torch=torch, torch_npu=torch_npu,
                                       vllm=vllm, python=python, driver=driver)

    # -- queries: recommendations -----------------------------------------------------------
    def recommended_for_cann(self, cann: str, *, chip: Optional[str] = None) -> Dict[str, str]:
        """The release's own pairing for a CANN release: driver, firmware, torch_npu, torch, PTA, NNAL.

        Empty when the CANN release is unknown. Values are strings; ``*_source`` keys name sources.
        """
        cann_v = try_ascend(cann)
        if cann_v is None or not self.knows_cann(cann_v):
            return {}
        info = self.chip(chip) if chip else None
        flavor = info.image_flavor if info else None
        result: Dict[str, str] = {"cann": cann_v.release if not cann_v.pre else cann}
        hit = hdk.recommended_driver(self, cann_v, flavor)
        if hit is not None:
            row, spec = hit
            result["driver"] = spec
            result["driver_origin"] = row.origin
            result["driver_source"] = "; ".join(row.source)
            driver_v = try_ascend(spec)
            firmware = row.firmware
            if firmware is None and driver_v is not None:
                found = hdk.firmware_for_hdk(self, driver_v, flavor)
                firmware = found[0] if found else None
            if firmware:
                result["firmware"] = firmware
        pair = pytorch.recommended_pair(self, cann_v)
        if pair is not None:
            result["torch_npu"] = pair.version
            result["torch"] = pair.torch
            result["torch_npu_source"] = "; ".join(pair.source)
            all_rows = pytorch.rows_for_cann(self, cann_v)
            result["torch_npu_all"] = ", ".join(f"{r.version} (torch {r.torch})" for r in all_rows)
            if pair.pta:
                result["pta"] = pair.pta
        result["nnal"] = result["cann"]
        return result

    # -- chips -----------------------------------------------------------------------------
    def chip(self, name: str) -> Optional[ChipInfo]:
        return self.chip_index.lookup(name)

    def family(self, family: str) -> Optional[ChipFamily]:
        key = (family or "").strip().lower()
        return next((f for f in self.chip_families
                     if f.family.lower() == key or key in (a.lower() for a in f.aliases)), None)

    def packages(self, family: str, arch: Optional[str]) -> Optional[PackageSet]:
        """Package names for a chip family on an architecture (``aarch64``/``x86_64``); see ``packages``.

        None when the family or the architecture is not one the matrix names.
        """
        from ascend_doctor.matrix.packages import packages_for

        return packages_for(self, family, arch)

    # -- lookups ------------------------------------------------------------------------------
    # (A plan is the resolver's: ascend_doctor.resolve.plan.make_plan(matrix, chip, engine, ...).)
    def rows(self, section: str) -> List[Row]:
        return cast(List[Row], list(self.sections.get(section, [])))
