"""What the hardware runs, beside what the files on disk say (issue 8: running state first).

* The running driver is the ``Version:`` of the ``npu-smi info`` banner (the loaded driver answers
  npu-smi); the board query's ``Software Version`` says the same where the banner has none.
* The running firmware is each NPU's ``Firmware Version`` in ``npu-smi info -t board -i N``.
* The installed ones are ``driver/version.info`` and ``firmware/version.info``.

Pairings (CANN, engines, driver<->firmware) use the running versions when they are known and the
installed ones otherwise, and every record says which it used, so a message can say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, TypeVar

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.stack import ParsedFile

if TYPE_CHECKING:
    from ascend_doctor.parsers.driver_firmware_info import DriverVersionInfo, FirmwareVersionInfo

R = TypeVar("R")  # the record of a version.info (driver or firmware)


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


def _file_version(parsed: ParsedFile[object], kind: str) -> Optional[str]:
    info = parsed.info
    if info is None:
        return None
    if kind == "driver":
        return getattr(info, "version", None) or getattr(info, "package_version", None)
    return getattr(info, "version", None)


def _pick(files: Sequence[ParsedFile[R]], running: Optional[str], kind: str
          ) -> Tuple[Optional[ParsedFile[R]], Tuple[ParsedFile[R], ...]]:
    """The installed file of what runs (else the recorded, first one) and the others."""
    if not files:
        return None, ()
    chosen = files[0]
    if running:
        for parsed in files:
            version = _file_version(parsed, kind)
            if version and same_release(version, running):
                chosen = parsed
                break
    return chosen, tuple(f for f in files if f is not chosen)


@provider("running_stack", reads=Reads())
def running_stack(facts: Facts) -> RunningStack:
    smi = facts.maybe(Facts.npu_smi)
    stack = facts.maybe(Facts.stack)
    boards = facts.maybe(Facts.npu_boards) if smi is not None and smi.devices else None

    running_driver: Optional[str] = smi.driver_version if smi is not None else None
    driver_source = "npu-smi banner" if running_driver else ""
    if not running_driver and boards is not None:
        software = {b.software_version for b in boards.boards.values() if b.software_version}
        if len(software) == 1:
            running_driver = software.pop()
            driver_source = "npu-smi board query"
    by_npu = boards.firmware_versions() if boards is not None else {}
    running_fw = boards.running_firmware() if boards is not None else None
    driver_file, stale_drivers = _pick(stack.drivers if stack else (), running_driver, "driver")
    firmware_file, stale_firmwares = _pick(stack.firmwares if stack else (), running_fw, "firmware")
    if running_fw is None and driver_file is not None and stack is not None and len(stack.firmwares) > 1:
        # no board query: the firmware installed beside the running driver is the likely one
        root = driver_file.path.rsplit("/driver/", 1)[0]
        beside = [f for f in stack.firmwares if f.path.startswith(root + "/firmware/")]
        if beside:
            firmware_file = beside[0]
            stale_firmwares = tuple(f for f in stack.firmwares if f is not firmware_file)
    return RunningStack(
        driver=VersionState(running_driver, _file_version(driver_file, "driver") if driver_file else None,
                            driver_source),
        firmware=VersionState(running_fw, _file_version(firmware_file, "firmware") if firmware_file else None,
                              "npu-smi board query" if running_fw else ""),
        firmware_by_npu=by_npu,
        driver_file=driver_file, firmware_file=firmware_file,
        stale_drivers=stale_drivers, stale_firmwares=stale_firmwares,
    )
