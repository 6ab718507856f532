"""ASC-FW-003: the firmware the NPUs run is the installed one, and Huawei's own verdict on the running
driver/firmware pair is OK."""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction, Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import LIVE, absent_phrase, origin_kind

from ._dcmi import OK, dcmi_compatibility, ranges_text
from ._hdk import align_hdk, reboot_action
from ._stack_help import hdk_commands
from ._support import in_container

CHECK = CheckSpec(
    id="ASC-FW-003",
    title="Installed firmware is active and the NPUs report Compatibility OK",
    requires=("npus", "fact:npu_boards"),
    what=("Reads `npu-smi info -t board -i N` of every NPU: the Firmware Version the card runs and Compatibility, "
          "the driver<->firmware verdict DCMI computes on the running pair (OK, NOK, UNKNOWN, NOT SUPPORT). "
          "Compares the running firmware with the Version of firmware/version.info (what is installed)."),
    why=("A firmware install takes effect only after a reboot: until then the card runs the old firmware and the "
         "files on disk describe a pair that is not running. Compatibility NOK is Huawei's own statement that the "
         "running driver and firmware do not work together (device start failures such as 507033, missing NPUs); "
         "UNKNOWN means DCMI could not read the firmware's driver list. hiascend instg_0064: \"Compatibility shows "
         "if the NPU driver works with the NPU firmware\"; Huawei's install guides end every driver/firmware "
         "install with a reboot."),
    fix=("Installed but not running: reboot the host (`reboot`; inside a container the host must reboot, and "
         "nothing is installed in the container). NOK: install the firmware of the running driver's HDK release "
         "(`./<firmware>.run --full`, then reboot), or the driver of the firmware's release; UNKNOWN: upgrade "
         "driver and firmware to one HDK release."),
)

_NOT_RECORDED = "command not found"  # a snapshot without the board query answers like a missing binary


def _describe_pair(board: Any) -> str:
    drv = f"driver {board.software_version}" if board.software_version else "the running driver"
    fw = f"firmware {board.firmware_version}" if board.firmware_version else "the running firmware"
    return f"{drv} with {fw}"


def _installed_firmware_ok(ctx: CheckContext, stack: Any, driver: Optional[str]) -> bool:
    """Whether DCMI would accept the *installed* firmware with the running driver (so a reboot fixes NOK)."""
    fw, drv = getattr(stack, "firmware", None), getattr(stack, "driver", None)
    if fw is None or fw.info is None or not getattr(fw.info, "version", None):
        return False
    driver_ranges = tuple(getattr(drv.info, "compatible_version_fw", ()) or ()) if drv is not None and drv.info else ()
    fw_ranges = getattr(fw.info, "compatible_version_drv", None)
    verdict = dcmi_compatibility(fw.info.version, driver, driver_ranges,
                                 tuple(fw_ranges) if fw_ranges is not None else None)
    return verdict.result == OK


def _nok_fix(ctx: CheckContext, stack: Any, board: Any, container: bool) -> Tuple[str, Tuple[FixAction, ...]]:
    """The remediation of a NOK pair: a reboot when the installed firmware would be accepted, else one HDK
    for both halves (the older half brought to the newer one's release; a rollback only as the alternative),
    worded and structured as the other driver/firmware checks do so the fix plan merges them."""
    driver = board.software_version or getattr(stack, "driver_version", None)
    installed_fw = getattr(stack, "firmware_version", None)
    where = "On the host (never inside a container): " if container else ""
    if installed_fw and board.firmware_version and installed_fw != board.firmware_version \
            and _installed_firmware_ok(ctx, stack, driver):
        text = (f"Firmware {installed_fw} is installed and driver {driver} accepts it, but it is not running yet: "
                "reboot the host" + (" (this is a container: the host must reboot)" if container else "") + ".\n"
                + ("reboot   # on the host" if container else "reboot"))
        return text, (reboot_action(ctx, "activate the installed firmware"),)
    if not driver:
        return (where + "Install the driver and firmware of one HDK release (an upgrade or overwrite: firmware "
                "first, then driver), then reboot:\n" + hdk_commands(ctx, None, "upgrade")), ()
    text, actions = align_hdk(ctx, driver, _firmware_hdk(stack))
    return where + text, tuple(actions)


def _npus(ids: List[int], total: int) -> Optional[str]:
    """The scope of a finding about some NPUs; None when it is about every NPU of the host."""
    if len(ids) == total and total > 1:
        return None
    return "NPU " + ", ".join(map(str, ids))


def _firmware_hdk(stack: Any) -> Optional[str]:
    fw = getattr(stack, "firmware", None)
    info = getattr(fw, "info", None) if fw is not None else None
    value = getattr(info, "package_version", None)
    return str(value) if value else None


def run(ctx: CheckContext) -> Iterator[Finding]:
    boards = ctx.facts.npu_boards
    stack = ctx.facts.maybe(Facts.stack)
    container = in_container(ctx)
    replay = origin_kind(ctx.facts) != LIVE
    installed = getattr(stack, "firmware_version", None)
    not_recorded = sorted(i for i, why in boards.failures.items() if replay and why.endswith(_NOT_RECORDED))
    failed = {i: why for i, why in boards.failures.items() if i not in not_recorded}
    if not boards.boards:
        if failed:
            first = min(failed)
            yield Finding.skip(f"the board query gave nothing usable for any NPU ({failed[first]}): the running "
                               "firmware and DCMI's verdict cannot be read here")
        else:
            yield Finding.skip(f"the board query (`npu-smi info -t board -i N`): {absent_phrase(ctx.facts)}")
        return
    bad = 0
    mismatch: Dict[str, List[int]] = {}
    # NPUs printing the same verdict for the same pair are one finding (a host has 8 or 16 of them).
    groups: Dict[Tuple[str, Optional[str], Optional[str]], List[int]] = {}
    for npu_id, board in sorted(boards.boards.items()):
        if board.compatibility in ("NOK", "UNKNOWN"):
            groups.setdefault((board.compatibility, board.software_version, board.firmware_version), []).append(npu_id)
        if board.firmware_version and installed and board.firmware_version != installed:
            mismatch.setdefault(board.firmware_version, []).append(npu_id)
    for (verdict, _, _), ids in groups.items():
        bad += 1
        board = boards.boards[ids[0]]
        scope = _npus(ids, len(boards.boards))
        who = f"NPU {', '.join(map(str, ids))}" if len(ids) < len(boards.boards) or len(ids) == 1 else \
            f"All {len(ids)} NPUs"
        evidence = {"compatibility": verdict, "firmware": board.firmware_version, "driver": board.software_version,
                    "installed_firmware": installed, "npus": ids}
        if verdict == "NOK":
            fix, actions = _nok_fix(ctx, stack, board, container)
            yield Finding(Status.FAIL, f"{who} report{'s' if len(ids) == 1 else ''} Compatibility NOK: DCMI, Huawei's "
                          f"own check, says {_describe_pair(board)} do not work together.", fix, evidence, scope,
                          actions)
        else:
            yield Finding(Status.WARN, f"{who} report{'s' if len(ids) == 1 else ''} Compatibility UNKNOWN: DCMI "
                          f"could not read the firmware's driver list, so {_describe_pair(board)} is not confirmed.",
                          "Install the driver and firmware of one HDK release (an upgrade or overwrite: firmware "
                          "first, then driver), then reboot:\n"
                          + hdk_commands(ctx, board.software_version or getattr(stack, "driver_version", None),
                                         "upgrade"), evidence, scope)
    if mismatch and installed:
        bad += 1
        yield _not_active(ctx, stack, installed, mismatch, container)
    for npu_id, why in sorted(failed.items()):
        yield Finding(Status.WARN, f"NPU {npu_id}: the board query gave nothing usable ({why}), so its running "
                      "firmware is not known.", f"Run `npu-smi info -t board -i {npu_id}` by hand; if it hangs or "
                      "errors, see `dmesg | grep -i -E 'davinci|devdrv'`.", {"failure": why}, f"NPU {npu_id}")
    if not bad:
        running = sorted({b.firmware_version for b in boards.boards.values() if b.firmware_version})
        verdicts = sorted({b.compatibility for b in boards.boards.values() if b.compatibility})
        what = f"firmware {', '.join(running)}" if running else "the firmware"
        yield Finding.passed(
            f"{len(boards.boards)} NPU(s) run {what}"
            + (" = the installed one (firmware/version.info)" if installed else
               " (firmware/version.info not readable here, so installed vs running is not compared)")
            + (f"; Compatibility {', '.join(verdicts)}" if verdicts else "")
            + (f"; NPU {', '.join(map(str, not_recorded))}: board query {absent_phrase(ctx.facts)}"
               if not_recorded else ""),
            running=running, installed=installed, compatibility=verdicts)


def _not_active(ctx: CheckContext, stack: Any, installed: str, mismatch: Dict[str, List[int]],
                container: bool) -> Finding:
    from ascend_doctor.versions import AscendVersion

    running = sorted(mismatch)
    npus = sorted(i for ids in mismatch.values() for i in ids)
    inst_v = AscendVersion.try_parse(installed)
    newer = [r for r in running if inst_v is not None and (AscendVersion.try_parse(r) or inst_v) < inst_v]
    where = "NPU " + ", ".join(map(str, npus))
    evidence = {"installed": installed, "running": {k: v for k, v in mismatch.items()}}
    if newer and len(newer) == len(running):
        message = (f"firmware {installed} is installed (firmware/version.info) but {where} still run "
                   f"{', '.join(running)}: the new firmware becomes active at the next reboot of the host.")
        fix = ("Reboot the host to activate it" + (" (this is a container: reboot the host; never install "
               "firmware inside a container)" if container else "") + ", then check `npu-smi info -t board -i "
               f"{npus[0]}` shows Firmware Version {installed}:\n"
               + ("reboot   # on the host" if container else "reboot"))
        return Finding(Status.WARN, message, fix, evidence, None,
                       (reboot_action(ctx, "activate the installed firmware"),))
    # The card runs a newer (or unrelated) firmware than version.info says.
    drv = getattr(stack, "driver", None)
    ranges = ranges_text(tuple(getattr(drv.info, "compatible_version_fw", ()) or ())) if drv is not None and \
        drv.info is not None else ""
    message = (f"{where} run firmware {', '.join(running)} but firmware/version.info says {installed}: the file "
               "does not describe what runs" + (" (a copy baked into this container image?)" if container else
                                                " (an older firmware installed since the last reboot, or a stale "
                                                "file)") + ".")
    fix = ("Trust what the card reports (`npu-smi info -t board -i N`). "
           + ("Mount the host's file instead of the image's copy: docker run ... -v "
              "/usr/local/Ascend/firmware/version.info:/usr/local/Ascend/firmware/version.info (or leave it out)."
              if container else
              "If a firmware was installed on purpose since the last boot, reboot to activate it; otherwise "
              "reinstall the firmware of your HDK release with --full so that the file matches, then reboot.")
           + (f" The driver accepts firmware in {ranges}." if ranges else ""))
    return Finding(Status.WARN, message, fix, evidence)
