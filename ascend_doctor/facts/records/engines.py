"""The records of the ``engines`` facts, apart from their providers (ascend_doctor/facts/engines.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from msgspec import Struct, structs

from ascend_doctor.facts.records.stack import CannInstall, ParsedFile

if TYPE_CHECKING:
    from ascend_doctor.parsers.cann_component_info import ComponentVersionInfo
    from ascend_doctor.parsers.colon_version_info import ColonVersionInfo


# -- kernels / ops ----------------------------------------------------------------------------
class KernelsFacts(Struct, frozen=True):
    """The binary-kernels side of the CANN the runtime will use."""

    cann_home: Optional[str]  # e.g. /usr/local/Ascend/ascend-toolkit/latest or .../cann-8.5.0
    cann_version: Optional[str]  # the toolkit's version= (8.2.RC1)
    opp_path: Optional[str]  # ASCEND_OPP_PATH, else <cann home>/opp
    # <cann home>/opp_kernel/version.info (CANN <= 8.3 kernels package)
    opp_kernel: Optional[ParsedFile[ComponentVersionInfo]]
    ops_packages: Tuple[CannInstall, ...] = ()  # ascend_ops_install.info installs (CANN >= 8.5)
    soc_folders: Tuple[str, ...] = ()  # ascend* folders under <opp>/built-in/.../tbe/kernel/
    soc_configs: Tuple[str, ...] = ()  # ascend* folders under .../kernel/config/ holding binary_info_config.json
    tbe_present: bool = False  # <opp>/built-in/op_impl/ai_core/tbe exists (the toolkit's own operator tree)
    notes: Tuple[str, ...] = ()

    @property
    def kernels_version(self) -> Optional[str]:
        """The CANN release the kernels package belongs to (opp_kernel's, else the ops package's)."""
        info = self.opp_kernel.info if self.opp_kernel else None
        release = getattr(info, "cann_release", None)
        if release:
            return str(release)
        for ops in self.ops_packages:
            if ops.version:
                return ops.version
        return None

    @property
    def installed(self) -> bool:
        return bool((self.opp_kernel and self.opp_kernel.info) or self.ops_packages or self.soc_configs)

    def to_dict(self) -> Dict[str, object]:
        return {
            "cann_home": self.cann_home, "cann_version": self.cann_version, "opp_path": self.opp_path,
            "opp_kernel": self.opp_kernel.to_dict() if self.opp_kernel else None,
            "ops_packages": [o.to_dict() for o in self.ops_packages],
            "soc_folders": list(self.soc_folders), "soc_configs": list(self.soc_configs),
            "kernels_version": self.kernels_version, "tbe_present": self.tbe_present, "notes": list(self.notes),
        }


class _ColonVersionFile:
    """Version, full version and platform read from a ``key : value`` version.info (NNAL, MindIE)."""

    version_file: Optional[ParsedFile[ColonVersionInfo]]

    @property
    def version(self) -> Optional[str]:
        info = self.version_file.info if self.version_file else None
        return getattr(info, "version", None)

    @property
    def full_version(self) -> Optional[str]:
        info = self.version_file.info if self.version_file else None
        return getattr(info, "full_version", None) or self.version

    @property
    def platform(self) -> Optional[str]:
        info = self.version_file.info if self.version_file else None
        return getattr(info, "platform", None)


class NnalFacts(_ColonVersionFile, Struct, frozen=True):
    root: Optional[str]  # <install root>/nnal/atb, None when NNAL is not installed
    version_file: Optional[ParsedFile[ColonVersionInfo]]  # <root>/latest/version.info
    latest_target: Optional[str]  # where latest points (the versioned folder)
    abi_dirs: Tuple[int, ...] = ()  # cxx_abi_N folders present under latest/atb
    atb_home_path: Optional[str] = None  # ATB_HOME_PATH from the environment
    atb_home_abi: Optional[int] = None  # N of ATB_HOME_PATH=.../cxx_abi_N
    atb_home_exists: Optional[bool] = None

    @property
    def installed(self) -> bool:
        return self.root is not None

    def to_dict(self) -> Dict[str, object]:
        return {"root": self.root, "version_file": self.version_file.to_dict() if self.version_file else None,
                "version": self.version, "latest_target": self.latest_target, "abi_dirs": list(self.abi_dirs),
                "atb_home_path": self.atb_home_path, "atb_home_abi": self.atb_home_abi,
                "atb_home_exists": self.atb_home_exists}


# -- MindIE -----------------------------------------------------------------------------------
class MindieFacts(_ColonVersionFile, Struct, frozen=True):
    root: Optional[str]
    version_file: Optional[ParsedFile[ColonVersionInfo]]  # <root>/mindie/latest/version.info
    atb_models: Optional[ParsedFile[ColonVersionInfo]]  # <root>/atb-models/version.info

    @property
    def installed(self) -> bool:
        return bool(self.version_file)

    def to_dict(self) -> Dict[str, object]:
        return {"root": self.root, "version": self.version,
                "version_file": self.version_file.to_dict() if self.version_file else None,
                "atb_models": self.atb_models.to_dict() if self.atb_models else None}


class RunningEngine(Struct, frozen=True):
    engine: str  # "MindIE" | "vLLM"
    pid: int
    name: str
    cmdline: str


class EnginesFacts(Struct, frozen=True):
    installed: Dict[str, Dict[str, str]]  # engine -> {distribution: version}
    mindie_on_disk: Optional[str]  # MindIE version from <root>/mindie/latest/version.info
    running: Tuple[RunningEngine, ...] = ()
    processes_known: bool = False  # False when the host could not list processes
    python_error: Optional[str] = None

    def installed_engines(self) -> List[str]:
        names = [e for e, pkgs in self.installed.items() if pkgs]
        if self.mindie_on_disk and "MindIE" not in names:
            names.append("MindIE")
        return names

    def running_engines(self) -> List[str]:
        seen: List[str] = []
        for r in self.running:
            if r.engine not in seen:
                seen.append(r.engine)
        return seen

    def to_dict(self) -> Dict[str, object]:
        return {"installed": self.installed, "mindie_on_disk": self.mindie_on_disk,
                "running": [structs.asdict(r) for r in self.running], "processes_known": self.processes_known,
                "python_error": self.python_error}


class TorchAbi(Struct, frozen=True):
    """The C++ ABI torch was built with: 0 (pre-cxx11) or 1 (cxx11)."""

    abi: int
    source: str  # how it was established, for the finding's message
    inferred: bool  # True when derived from the torch version rather than read from torch itself
    torch_version: Optional[str] = None
