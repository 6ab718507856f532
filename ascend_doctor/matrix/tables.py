"""What the query modules read of a matrix: its tables and the few queries they ask of it.

``Matrix`` (model.py) is the facade that checks and commands call: it imports the query modules
(hdk, pytorch, engines, packages, pip) and hands itself to them. Had those modules annotated their
``m`` with ``Matrix``, each would import the facade back, for a type, and the six would be one
knot. They annotate with ``MatrixTables`` instead, which ``Matrix`` satisfies structurally (mypy
checks it wherever ``Matrix`` passes itself on), and which imports none of them.

The members are read-only properties: a query reads a table and never sets one. A query that is
itself answered by another query module (``cann_vs_driver`` by hdk.py, the PyTorch pairs by
pytorch.py) is declared here, so that engines.py can ask it of the matrix without importing its
implementation. Only the type checker imports this module.
"""

from __future__ import annotations

from typing import Callable, Hashable, List, Optional, Protocol, Sequence, Tuple, TypeVar

from ascend_doctor.matrix.chips import ChipInfo
from ascend_doctor.matrix.records import (
    Caveat,
    ChipFamily,
    CodeAlignment,
    FirmwareRelease,
    HdkCannList,
    HdkCannRow,
    HdkPackageRow,
    HdkRelease,
    MindieRow,
    MindieUnconfirmed,
    MindspeedRow,
    PackageConvention,
    PipIndex,
    PtaRelease,
    PypiReleases,
    ReleaseCodeSample,
    Row,
    TorchNpuCann,
    TorchNpuPython,
    TorchNpuRow,
    TorchNpuRuntimeMap,
    TorchPython,
    VllmAscendBuild,
    VllmAscendRow,
)
from ascend_doctor.matrix.verdict import Verdict
from ascend_doctor.versions import AscendVersion

R = TypeVar("R", bound=Row)


class MatrixTables(Protocol):
    """The tables and queries of a loaded matrix that hdk, pytorch, engines, packages and pip use."""

    # -- HDK / CANN tables -------------------------------------------------------------------
    @property
    def hdk_releases(self) -> Sequence[HdkRelease]: ...
    @property
    def firmware_releases(self) -> Sequence[FirmwareRelease]: ...
    @property
    def caveats(self) -> Sequence[Caveat]: ...
    @property
    def release_codes(self) -> Sequence[ReleaseCodeSample]: ...
    @property
    def code_alignment(self) -> Sequence[CodeAlignment]: ...
    @property
    def hdk_packages(self) -> Sequence[HdkPackageRow]: ...
    @property
    def package_conventions(self) -> Sequence[PackageConvention]: ...
    @property
    def chip_families(self) -> Sequence[ChipFamily]: ...

    # -- PyTorch tables ----------------------------------------------------------------------
    @property
    def pta_releases(self) -> Sequence[PtaRelease]: ...
    @property
    def torch_npu_rows(self) -> Sequence[TorchNpuRow]: ...
    @property
    def torch_npu_python(self) -> Sequence[TorchNpuPython]: ...
    @property
    def torch_python(self) -> Sequence[TorchPython]: ...
    @property
    def torch_npu_cann(self) -> Sequence[TorchNpuCann]: ...
    @property
    def torch_npu_runtime_map(self) -> Sequence[TorchNpuRuntimeMap]: ...

    # -- serving engines and pip -------------------------------------------------------------
    @property
    def vllm_ascend_rows(self) -> Sequence[VllmAscendRow]: ...
    @property
    def vllm_builds(self) -> Sequence[VllmAscendBuild]: ...
    @property
    def mindie_rows(self) -> Sequence[MindieRow]: ...
    @property
    def mindie_unconfirmed(self) -> Sequence[MindieUnconfirmed]: ...
    @property
    def mindspeed_rows(self) -> Sequence[MindspeedRow]: ...
    @property
    def pip_indexes(self) -> Sequence[PipIndex]: ...
    @property
    def pypi_releases(self) -> Sequence[PypiReleases]: ...

    # -- lookups the matrix keeps for its life -----------------------------------------------
    def chip(self, name: str) -> Optional[ChipInfo]: ...
    def family(self, family: str) -> Optional[ChipFamily]: ...
    def knows_cann(self, cann: AscendVersion) -> bool: ...
    def knows_cann_exactly(self, cann: AscendVersion) -> bool: ...
    def hdk_cann_rows(self, cann: AscendVersion) -> List[HdkCannRow]: ...
    def lists_naming_cann(self, cann: AscendVersion) -> List[HdkCannList]: ...
    def memo(self, key: Tuple[Hashable, ...], rows: Callable[[], List[R]]) -> List[R]: ...

    # -- queries answered by another query module (hdk.py, pytorch.py) -----------------------
    def cann_vs_driver(self, cann: str, driver: str, *, cann_innerversion: Optional[str] = None,
                       cann_compatible: Sequence[str] = (), driver_innerversion: Optional[str] = None,
                       driver_compatible: Sequence[str] = (), product: Optional[str] = None,
                       chip: Optional[str] = None) -> Verdict: ...
    def torch_npu_vs_torch(self, torch_npu: str, torch: str) -> Verdict: ...
    def torch_npu_vs_cann(self, torch_npu: str, cann: str) -> Verdict: ...
    def torch_vs_python(self, torch: str, python: str) -> Verdict: ...
    def torch_npu_vs_python(self, torch_npu: str, python: str) -> Verdict: ...
