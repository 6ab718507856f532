"""ASC-FW-001: the NPU firmware is known: what the cards run, and the installed package's record."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import LIVE, origin_kind, require_stated

from ._stack_help import chip_family, firmware_file
from ._support import in_container

CHECK = CheckSpec(
    id="ASC-FW-001",
    title="NPU firmware installed",
    requires=("fact:stack",),
    what=("Reads the firmware each NPU runs (npu-smi info -t board -i N, Firmware Version) and the installed "
          "firmware package's record (firmware/version.info: Version = firmware number, package_version = HDK)."),
    why=("Firmware and driver ship together in one HDK release; a driver running with firmware of another release "
         "fails at device start (507033) or behaves erratically. The firmware lives in the card's flash: a missing "
         "version.info is a missing record, not a missing firmware."),
    fix=("Read what runs: npu-smi info -t board -i 0 (Firmware Version). Reinstall only the firmware of the driver's "
         "HDK release (the matrix names the file) with --full, then reboot the host."),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    running = ctx.facts.running_stack
    stack = ctx.facts.stack
    firmware = running.firmware_file
    live = running.firmware.running
    versions = running.firmware_by_npu
    if firmware is not None and firmware.info is not None:
        info = firmware.info
        hdk = f" (HDK {info.package_version})" if info.package_version else ""
        runs = ""
        if live:
            runs = f"; every NPU runs {live}" if len(versions) == 1 else ""
        yield Finding.passed(f"firmware {info.version}{hdk} installed{runs}", version=info.version,
                             hdk=info.package_version, running=live)
        return
    if live or versions:
        # The cards say what they run: the firmware is there, only the package's record is not.
        shown = live or ", ".join(f"{v} on NPU {', '.join(map(str, ids))}" for v, ids in versions.items())
        record = (f"{firmware.path} cannot be read: {firmware.error}" if firmware is not None else
                  f"no firmware version.info under {stack.driver_root}/firmware")
        yield Finding.passed(f"the NPUs run firmware {shown} (npu-smi board query); {record} — a missing record, "
                             "not a missing firmware", running=shown)
        return
    if running.driver_file is None and not running.driver.running:
        yield Finding.skip("no driver installed, so no firmware to check (ASC-DRV-001 says what to install)")
        return
    if in_container(ctx):
        yield Finding.skip("firmware lives on the host and is not mounted into containers; check it on the host")
        return
    require_stated(ctx.facts, "the firmware's version.info")
    # The firmware must match the driver that runs after the next reboot: the installed one.
    driver_version = running.driver.installed or running.driver.effective
    fw_file = firmware_file(ctx, driver_version)
    how = ("Read what the cards run: npu-smi info -t board -i 0   (Firmware Version)\n"
           + (f"If it is empty, reinstall the firmware of driver {driver_version}'s HDK, then reboot the host:\n"
              f"  ./{fw_file} --full\n  reboot" if fw_file else
              f"If it is empty, reinstall the firmware of driver {driver_version}'s HDK with --full, then reboot the "
              f"host (ascend-doctor matrix lookup --driver {driver_version} --chip {chip_family(ctx) or '<chip>'} "
              "names the file)."))
    read = FixAction("firmware", "Read the firmware the NPUs run (Firmware Version)", ("npu-smi info -t board -i 0",),
                     where="host")
    # "Not recorded" only when the snapshot did not run the board query; one that ran it and got
    # nothing says what the machine said.
    boards = ctx.facts.maybe(Facts.npu_boards)
    unrecorded = origin_kind(ctx.facts) != LIVE and (
        boards is None or bool(boards.not_recorded and not boards.boards and not boards.failures))
    board = ("the board query (npu-smi info -t board) is not recorded in this snapshot" if unrecorded else
             "the board query gave no firmware version")
    if firmware is not None:
        yield Finding.warn(f"{firmware.path} cannot be read: {firmware.error}, and {board}: which firmware runs is "
                           "not known here.", how).with_actions(read)
        return
    yield Finding.warn(f"no firmware version.info under {stack.driver_root}/firmware, and {board}: which firmware "
                       "the NPUs run is not known here.", how).with_actions(read)
