"""ASC-FW-003: the firmware the NPUs run is the installed one, and Huawei's own verdict on the running
driver/firmware pair is OK."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import absent_phrase
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._dcmi import ranges_text
from ._hdk import reboot_action
from ._support import in_container

CHECK = CheckSpec(
    id="ASC-FW-003",
    title="Installed firmware is the one the NPUs run",
    requires=("fact:npu_boards",),
    what=("Reads `npu-smi info -t board -i N` of every NPU: the Firmware Version the card runs, and compares it with "
          "the Version of firmware/version.info (what is installed; with two stacks, the running driver's). "
          "Huawei's Compatibility verdict on the running pair is ASC-FW-002's finding."),
    why=("A firmware install takes effect only after a reboot: until then the card runs the old firmware and the "
         "files on disk describe a pair that is not running. Compatibility NOK is Huawei's own statement that the "
         "running driver and firmware do not work together (device start failures such as 507033, missing NPUs); "
         "UNKNOWN means DCMI could not read the firmware's driver list. hiascend instg_0064: \"Compatibility shows "
         "if the NPU driver works with the NPU firmware\"; Huawei's install guides end every driver/firmware "
         "install with a reboot."),
    fix=("Installed but not running: reboot the host (`reboot`; inside a container the host must reboot, and "
         "nothing is installed in the container). Running firmware newer than the file: the file is stale (or "
         "baked into an image); trust the board query."),
)



def run(ctx: HostCheckContext) -> Iterator[Finding]:
    boards = ctx.facts.npu_boards
    stack = ctx.facts.maybe(Facts.stack)
    container = in_container(ctx)
    # With two stacks the installed firmware that counts is the running driver's (advice review row 5).
    installed = ctx.facts.running_stack.firmware.installed
    not_recorded = sorted(boards.not_recorded)
    failed = dict(boards.failures)
    if not boards.boards:
        if failed:
            first = min(failed)
            yield Finding.skip(_("the board query gave nothing usable for any NPU ({why}): the running firmware and "
                                 "DCMI's verdict cannot be read here").format(why=failed[first]))
        else:
            yield Finding.skip(_("the board query (`npu-smi info -t board -i N`): {absent}").format(
                absent=absent_phrase(ctx.facts)))
        return
    bad = 0
    mismatch: Dict[str, List[int]] = {}
    for npu_id, board in sorted(boards.boards.items()):
        # Compatibility NOK / UNKNOWN is ASC-FW-002's verdict; this check only compares running with installed.
        if board.firmware_version and installed and board.firmware_version != installed:
            mismatch.setdefault(board.firmware_version, []).append(npu_id)
    if mismatch and installed:
        bad += 1
        yield _not_active(ctx, stack, installed, mismatch, container)
    for npu_id, why in sorted(failed.items()):
        yield Finding(Status.WARN, _("NPU {npu}: the board query gave nothing usable ({why}), so its running "
                                     "firmware is not known.").format(npu=npu_id, why=why),
                      _("Run `npu-smi info -t board -i {npu}` by hand; if it hangs or errors, see "
                        "`dmesg | grep -i -E 'davinci|devdrv'`.").format(npu=npu_id), {"failure": why}, f"NPU {npu_id}")
    if not bad:
        running = sorted({b.firmware_version for b in boards.boards.values() if b.firmware_version})
        verdicts = sorted({b.compatibility for b in boards.boards.values() if b.compatibility})
        if running:
            text = (_("{count} NPU(s) run firmware {running} = the installed one (firmware/version.info)") if installed
                    else _("{count} NPU(s) run firmware {running} (firmware/version.info not readable here, so "
                           "installed vs running is not compared)"))
        else:
            text = (_("{count} NPU(s) run the firmware = the installed one (firmware/version.info)") if installed
                    else _("{count} NPU(s) run the firmware (firmware/version.info not readable here, so installed "
                           "vs running is not compared)"))
        # Clauses added to the end of the sentence.
        text = text.format(count=len(boards.boards), running=", ".join(running))
        if verdicts:
            text += _("; Compatibility {verdicts} (ASC-FW-002)").format(verdicts=", ".join(verdicts))
        if not_recorded:
            text += _("; NPU {ids}: board query {absent}").format(ids=", ".join(map(str, not_recorded)),
                                                                   absent=absent_phrase(ctx.facts))
        yield Finding.passed(text, running=running, installed=installed, compatibility=verdicts)


def _not_active(ctx: HostCheckContext, stack: Any, installed: str, mismatch: Dict[str, List[int]],
                container: bool) -> Finding:
    from ascend_doctor.versions import AscendVersion

    running = sorted(mismatch)
    npus = sorted(i for ids in mismatch.values() for i in ids)
    inst_v = AscendVersion.try_parse(installed)
    newer = [r for r in running if inst_v is not None and (AscendVersion.try_parse(r) or inst_v) < inst_v]
    ids = ", ".join(map(str, npus))
    evidence = {"installed": installed, "running": {k: v for k, v in mismatch.items()}}
    if newer and len(newer) == len(running):
        message = _("firmware {installed} is installed (firmware/version.info) but NPU {ids} still run {running}: the "
                    "new firmware becomes active at the next reboot of the host.").format(
                        installed=installed, ids=ids, running=", ".join(running))
        fix = ((_("Reboot the host to activate it (this is a container: reboot the host; never install firmware "
                  "inside a container), then check `npu-smi info -t board -i {npu}` shows Firmware Version "
                  "{installed}:") if container else
                _("Reboot the host to activate it, then check `npu-smi info -t board -i {npu}` shows Firmware "
                  "Version {installed}:")).format(npu=npus[0], installed=installed)
               + "\n" + ("reboot   # " + _("on the host") if container else "reboot"))
        return Finding(Status.WARN, message, fix, evidence, None,
                       (reboot_action(ctx, _("activate the installed firmware")),))
    # The card runs a newer (or unrelated) firmware than version.info says.
    drv = getattr(stack, "driver", None)
    ranges = ranges_text(tuple(getattr(drv.info, "compatible_version_fw", ()) or ())) if drv is not None and \
        drv.info is not None else ""
    message = (_("NPU {ids} run firmware {running} but firmware/version.info says {installed}: the file does not "
                 "describe what runs (a copy baked into this container image?).") if container else
               _("NPU {ids} run firmware {running} but firmware/version.info says {installed}: the file does not "
                 "describe what runs (an older firmware installed since the last reboot, or a stale file).")).format(
        ids=ids, running=", ".join(running), installed=installed)
    fix = (_("Trust what the card reports (`npu-smi info -t board -i N`).") + " "
           + (_("Mount the host's file instead of the image's copy: docker run ... -v "
                "/usr/local/Ascend/firmware/version.info:/usr/local/Ascend/firmware/version.info (or leave it out).")
              if container else
              _("If a firmware was installed on purpose since the last boot, reboot to activate it; otherwise "
                "reinstall the firmware of your HDK release with --full so that the file matches, then reboot."))
           + (" " + _("The driver accepts firmware in {ranges}.").format(ranges=ranges) if ranges else ""))
    return Finding(Status.WARN, message, fix, evidence)
