"""ASC-FW-001: the NPU firmware is known: what the cards run, and the installed package's record."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import LIVE, origin_kind, require_stated
from ascend_doctor.i18n import _

from ._context import HostCheckContext
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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    running = ctx.facts.running_stack
    stack = ctx.facts.stack
    firmware = running.firmware_file
    live = running.firmware.running
    versions = running.firmware_by_npu
    if firmware is not None and firmware.info is not None:
        info = firmware.info
        every = bool(live) and len(versions) == 1
        if info.package_version:
            text = (_("firmware {version} (HDK {hdk}) installed; every NPU runs {running}") if every else
                    _("firmware {version} (HDK {hdk}) installed"))
        else:
            text = (_("firmware {version} installed; every NPU runs {running}") if every else
                    _("firmware {version} installed"))
        yield Finding.passed(text.format(version=info.version, hdk=info.package_version, running=live),
                             version=info.version, hdk=info.package_version, running=live)
        return
    if live or versions:
        # The cards say what they run: the firmware is there, only the package's record is not.
        shown = live or ", ".join(_("{version} on NPU {ids}").format(version=v, ids=", ".join(map(str, ids)))
                                  for v, ids in versions.items())
        record = (_("{path} cannot be read: {error}").format(path=firmware.path, error=firmware.error)
                  if firmware is not None else
                  _("no firmware version.info under {root}/firmware").format(root=stack.driver_root))
        yield Finding.passed(_("the NPUs run firmware {running} (npu-smi board query); {record} — a missing record, "
                               "not a missing firmware").format(running=shown, record=record), running=shown)
        return
    if running.driver_file is None and not running.driver.running:
        yield Finding.skip(_("no driver installed, so no firmware to check (ASC-DRV-001 says what to install)"))
        return
    if in_container(ctx):
        yield Finding.skip(_("firmware lives on the host and is not mounted into containers; check it on the host"))
        return
    require_stated(ctx.facts, _("the firmware's version.info"))
    # The firmware must match the driver that runs after the next reboot: the installed one.
    driver_version = running.driver.installed or running.driver.effective
    fw_file = firmware_file(ctx, driver_version)
    how = (_("Read what the cards run: {command}   (Firmware Version)").format(command="npu-smi info -t board -i 0")
           + "\n"
           + (_("If it is empty, reinstall the firmware of driver {driver}'s HDK, then reboot the host:").format(
               driver=driver_version) + "\n  " + shellcmd.argv("./" + fw_file, "--full") + "\n  reboot" if fw_file else
              _("If it is empty, reinstall the firmware of driver {driver}'s HDK with --full, then reboot the host "
                "(ascend-doctor matrix lookup --driver {driver} --chip {chip} names the file).").format(
                  driver=driver_version, chip=chip_family(ctx) or "<chip>")))
    read = FixAction("firmware", _("Read the firmware the NPUs run (Firmware Version)"),
                     ("npu-smi info -t board -i 0",), where="host")
    # "Not recorded" only when the snapshot did not run the board query; one that ran it and got
    # nothing says what the machine said.
    boards = ctx.facts.maybe(Facts.npu_boards)
    live_host = origin_kind(ctx.facts) == LIVE or not (
        boards is None or bool(boards.not_recorded and not boards.boards and not boards.failures))
    if firmware is not None:
        text = (_("{path} cannot be read: {error}, and the board query gave no firmware version: which firmware runs "
                  "is not known here.") if live_host else
                _("{path} cannot be read: {error}, and the board query (npu-smi info -t board) is not recorded in "
                  "this snapshot: which firmware runs is not known here."))
        yield Finding.warn(text.format(path=firmware.path, error=firmware.error), how).with_actions(read)
        return
    text = (_("no firmware version.info under {root}/firmware, and the board query gave no firmware version: which "
              "firmware the NPUs run is not known here.") if live_host else
            _("no firmware version.info under {root}/firmware, and the board query (npu-smi info -t board) is not "
              "recorded in this snapshot: which firmware the NPUs run is not known here."))
    yield Finding.warn(text.format(root=stack.driver_root), how).with_actions(read)
