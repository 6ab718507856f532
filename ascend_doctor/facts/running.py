"""What the hardware runs, beside what the files on disk say (issue 8: running state first).

* The running driver is the ``Version:`` of the ``npu-smi info`` banner (the loaded driver answers
  npu-smi); the board query's ``Software Version`` says the same where the banner has none.
* The running firmware is each NPU's ``Firmware Version`` in ``npu-smi info -t board -i N``.
* The installed ones are ``driver/version.info`` and ``firmware/version.info``.

Pairings (CANN, engines, driver<->firmware) use the running versions when they are known and the
installed ones otherwise, and every record says which it used, so a message can say so.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, TypeVar

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.running import RunningStack, VersionState, same_release
from ascend_doctor.facts.records.stack import ParsedFile

R = TypeVar("R")  # the record of a version.info (driver or firmware)


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
