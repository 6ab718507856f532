"""The records of the ``stack`` facts, apart from their providers (ascend_doctor/facts/stack.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Dict, Generic, List, Optional, Tuple, TypeVar

from msgspec import Struct, field

if TYPE_CHECKING:
    from ascend_doctor.parsers.driver_firmware_info import CodeRange, DriverVersionInfo, FirmwareVersionInfo
    from ascend_doctor.parsers.install_info import AscendInstallInfo


# The parser's record a ParsedFile holds; covariant: a file is only read.
R_co = TypeVar("R_co", covariant=True)


class ParsedFile(Struct, Generic[R_co], frozen=True):
    """A version/install file read from the host, parsed or with the reason it could not be."""

    path: str
    info: Optional[R_co] = None  # the parser's record
    error: Optional[str] = None

    def to_dict(self) -> Dict[str, object]:
        to_dict = getattr(self.info, "to_dict", None)  # every parser's record has one; None has none
        return {"path": self.path, "error": self.error, "info": to_dict() if callable(to_dict) else self.info}


class CannInstall(Struct, frozen=True):
    """One CANN package install (toolkit, nnae, ops...) found on disk."""

    kind: str  # toolkit | nnae | ops | kernels
    version: Optional[str]
    arch: Optional[str]
    path: str  # the directory holding the *_install.info file
    info_file: str
    innerversion: Optional[str] = None
    compatible_version: Tuple[CodeRange, ...] = ()  # driver release codes this CANN accepts
    package_name: Optional[str] = None
    via_latest: bool = False  # reached through a `latest` / `cann` link
    error: Optional[str] = None

    def to_dict(self) -> Dict[str, object]:
        return {
            "kind": self.kind, "version": self.version, "arch": self.arch, "path": self.path,
            "info_file": self.info_file, "innerversion": self.innerversion,
            "compatible_version": [list(c) if isinstance(c, (tuple, list)) else c for c in self.compatible_version],
            "package_name": self.package_name, "via_latest": self.via_latest, "error": self.error,
        }


class StackFacts(Struct, frozen=True):
    """Everything found under the Ascend install roots."""

    roots: Tuple[str, ...]
    install_info: Optional[ParsedFile[AscendInstallInfo]]
    driver_root: str
    drivers: Tuple[ParsedFile[DriverVersionInfo], ...] = ()  # every driver/version.info found, active one first
    firmwares: Tuple[ParsedFile[FirmwareVersionInfo], ...] = ()
    cann: Tuple[CannInstall, ...] = ()
    notes: Tuple[str, ...] = field(default_factory=tuple)

    @property
    def driver(self) -> Optional[ParsedFile[DriverVersionInfo]]:
        return self.drivers[0] if self.drivers else None

    @property
    def firmware(self) -> Optional[ParsedFile[FirmwareVersionInfo]]:
        return self.firmwares[0] if self.firmwares else None

    @property
    def driver_version(self) -> Optional[str]:
        info = self.driver.info if self.driver else None
        return getattr(info, "version", None) or getattr(info, "package_version", None)

    @property
    def firmware_version(self) -> Optional[str]:
        info = self.firmware.info if self.firmware else None
        return getattr(info, "version", None)

    def toolkits(self) -> List[CannInstall]:
        return [c for c in self.cann if c.kind == "toolkit" and not c.error]

    def active_toolkit(self, env: Optional[Dict[str, str]] = None) -> Optional[CannInstall]:
        """The toolkit set_env.sh points at, else the one behind `latest`, else the newest."""
        toolkits = self.toolkits()
        if not toolkits:
            return None
        home = (env or {}).get("ASCEND_HOME_PATH") or (env or {}).get("ASCEND_TOOLKIT_HOME")
        if home:
            home = home.rstrip("/")
            for tk in toolkits:
                if tk.path.startswith(home + "/") or tk.path == home or posixpath.dirname(tk.path) == home:
                    return tk
        for tk in toolkits:
            if tk.via_latest:
                return tk
        from ascend_doctor.versions import AscendVersion

        return max(toolkits, key=lambda t: AscendVersion.try_parse(t.version or "") or AscendVersion.parse("0.0"))

    def to_dict(self) -> Dict[str, object]:
        return {
            "roots": list(self.roots), "driver_root": self.driver_root,
            "install_info": self.install_info.to_dict() if self.install_info else None,
            "drivers": [d.to_dict() for d in self.drivers], "firmwares": [f.to_dict() for f in self.firmwares],
            "cann": [c.to_dict() for c in self.cann], "notes": list(self.notes),
        }
