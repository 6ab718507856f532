"""What the hardware runs, beside what the files on disk say (issue 8: running state first).

* The running driver is the ``Version:`` of the ``npu-smi info`` banner (the loaded driver answers
  npu-smi); the board query's ``Software Version`` says the same where the banner has none.
* The running firmware is each NPU's ``Firmware Version`` in ``npu-smi info -t board -i N``.
* The installed ones are ``driver/version.info`` and ``firmware/version.info``.

Pairings (CANN, engines, driver<->firmware) use the running versions when they are known and the
installed ones otherwise, and every record says which it used, so a message can say so.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads


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

    def to_dict(self) -> Dict[str, Any]:
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
    """Running vs installed driver and firmware."""

    __slots__ = ("driver", "firmware", "firmware_by_npu")

    def __init__(self, driver: VersionState, firmware: VersionState, firmware_by_npu: Dict[str, List[int]]) -> None:
        self.driver = driver
        self.firmware = firmware
        self.firmware_by_npu = firmware_by_npu  # running firmware version -> NPU ids

    def to_dict(self) -> Dict[str, Any]:
        return {"driver": self.driver.to_dict(), "firmware": self.firmware.to_dict(),
                "firmware_by_npu": {k: list(v) for k, v in self.firmware_by_npu.items()}}


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
    return RunningStack(
        driver=VersionState(running_driver, stack.driver_version if stack else None, driver_source),
        firmware=VersionState(running_fw, stack.firmware_version if stack else None,
                              "npu-smi board query" if running_fw else ""),
        firmware_by_npu=by_npu,
    )
