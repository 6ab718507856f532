"""The records of the ``running`` facts, apart from their providers (ascend_doctor/facts/running.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ascend_doctor.facts.records.stack import ParsedFile

if TYPE_CHECKING:
    from ascend_doctor.parsers.driver_firmware_info import DriverVersionInfo, FirmwareVersionInfo


class VersionState:
    """One component's running and installed versions, and the one to judge pairings with."""

    __slots__ = ("installed", "running", "running_source")

    def __init__(self, running: Optional[str], installed: Optional[str], running_source: str = "") -> None:
        self.running = running
        self.installed = installed
        self.running_source = running_source  # "npu-smi banner", "npu-smi board query", ""

    @property
    def effective(self) -> Optional[str]:
        """The version pairings are judged with: what runs, else what is installed.

        npu-smi's banner may print only the release (``24.1.rc2``) of the installed
        ``24.1.rc2.2``: the same driver, and the installed spelling is the more precise one.
        """
        if self.running and self.installed and same_release(self.running, self.installed):
            return self.installed if len(self.installed) >= len(self.running) else self.running
        return self.running or self.installed

    @property
    def mismatch(self) -> bool:
        """Running and installed are both known and are different releases."""
        return bool(self.running and self.installed and same_release(self.running, self.installed) is False)

    @property
    def basis(self) -> str:
        """How ``effective`` was found, for messages: 'running' or 'installed' (or '')."""
        if self.running:
            return "running"
        return "installed" if self.installed else ""

    def describe(self, component: str) -> str:
        """``driver 24.1.rc3 (running, npu-smi banner)`` / ``driver 24.1.rc2.2 (installed)``."""
        if self.running:
            return f"{component} {self.running} (running, {self.running_source})"
        if self.installed:
            return f"{component} {self.installed} (installed; what runs is not known here)"
        return f"{component} unknown"

    def to_dict(self) -> Dict[str, object]:
        return {"running": self.running, "installed": self.installed, "running_source": self.running_source,
                "effective": self.effective, "basis": self.basis, "mismatch": self.mismatch}


def same_release(a: str, b: str) -> Optional[bool]:
    """Equal versions, or one a shortened spelling of the other; None when either is unreadable."""
    from ascend_doctor.versions import AscendVersion

    va, vb = AscendVersion.try_parse(a), AscendVersion.try_parse(b)
    if va is None or vb is None:
        return None if a != b else True
    if va == vb:
        return True
    return bool(va.same_release(vb) and (not va.extra or not vb.extra))


class RunningStack:
    """Running vs installed driver and firmware, and which installed files belong to what runs.

    With two driver stacks installed, the one whose version is the running driver's is the active
    one (``driver_file``), whatever /etc/ascend_install.info points at; the others are stale.
    """

    __slots__ = ("driver", "driver_file", "firmware", "firmware_by_npu", "firmware_file", "stale_drivers",
                 "stale_firmwares")

    def __init__(self, driver: VersionState, firmware: VersionState, firmware_by_npu: Dict[str, List[int]],
                 driver_file: Optional[ParsedFile[DriverVersionInfo]] = None,
                 firmware_file: Optional[ParsedFile[FirmwareVersionInfo]] = None,
                 stale_drivers: Tuple[ParsedFile[DriverVersionInfo], ...] = (),
                 stale_firmwares: Tuple[ParsedFile[FirmwareVersionInfo], ...] = ()) -> None:
        self.driver = driver
        self.firmware = firmware
        self.firmware_by_npu = firmware_by_npu  # running firmware version -> NPU ids
        self.driver_file = driver_file  # the version.info of the running driver (or the recorded one)
        self.firmware_file = firmware_file
        self.stale_drivers = stale_drivers
        self.stale_firmwares = stale_firmwares

    def to_dict(self) -> Dict[str, object]:
        return {"driver": self.driver.to_dict(), "firmware": self.firmware.to_dict(),
                "firmware_by_npu": {k: list(v) for k, v in self.firmware_by_npu.items()},
                "driver_file": self.driver_file.path if self.driver_file else None,
                "firmware_file": self.firmware_file.path if self.firmware_file else None,
                "stale_drivers": [f.path for f in self.stale_drivers],
                "stale_firmwares": [f.path for f in self.stale_firmwares]}
