"""ASC-DEV-005: no NPU memory reports uncorrectable (double-bit) ECC errors or retired pages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, Status
from ascend_doctor.facts.origin import absent_phrase
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._support import in_scope, scope_reason

if TYPE_CHECKING:
    from ascend_doctor.parsers.npu_smi_ecc import EccCounters, EccInfo

CHECK = CheckSpec(
    id="ASC-DEV-005",
    title="NPU memory has no uncorrectable ECC errors",
    requires=("fact:npu_ecc",),
    what=("Reads `npu-smi info -t ecc -i N` of every NPU: single- and double-bit error counts (now and over the "
          "card's lifetime) and the pages retired (isolated) or due to be retired at the next reset, for HBM and, on "
          "cards that have it, DDR."),
    why=("A double-bit error is one the ECC could not correct: data in the NPU's memory was lost, and a job using "
         "that memory crashes or, worse, computes with corrupted weights. Pages with double-bit errors are isolated "
         "(retired); \"Next-Isolated\" pages are retired at the next NPU reset or host reboot (npu-smi command "
         "reference, info -t ecc; DCMI dcmi_ecc_info). Recurring double-bit errors mean the memory is failing. "
         "Single-bit errors are corrected by the hardware and are reported for information only."),
    fix=("Take the NPU out of service (leave it out of ASCEND_VISIBLE_DEVICES / npuDeviceIds), keep the output of "
         "`npu-smi info -t ecc -i N` and the device logs, and open a Huawei support case: failing memory means a "
         "board or module replacement. Pages waiting to be isolated are retired by a reboot in a maintenance "
         "window; check again afterwards."),
)


def _chips(info: EccInfo) -> List[Tuple[str, EccCounters]]:
    out = []
    for chip in info.chips:
        label = f"chip {chip.chip_id}" if chip.chip_id is not None else ""
        out.append((label, chip))
    return out


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    ecc = ctx.facts.npu_ecc
    bad = 0
    single_total = 0
    for npu_id, info in sorted(ecc.by_npu.items()):
        for label, chip in _chips(info):
            chip_id = getattr(chip, "chip_id", None)
            scope = f"NPU {npu_id}" + (f" {label}" if label else "")
            shown = (_("NPU {npu} chip {chip}").format(npu=npu_id, chip=chip_id) if label else f"NPU {npu_id}")
            double_now = chip.total("double", "errors")
            double_life = chip.total("double", "lifetime")
            isolated = chip.total("double", "isolated")
            pending = chip.total("double", "next_isolated")
            single_total += chip.total("single", "errors")
            evidence = chip.to_dict()
            if not (double_now or double_life or isolated or pending):
                continue
            if not in_scope(ctx, npu_id, chip_id):
                yield Finding(Status.PASS, _("{scope} has double-bit ECC errors, but it is not one of the NPUs this "
                                             "run is about ({reason}): for information only.").format(
                                  scope=shown, reason=scope_reason(ctx)), "", evidence, scope)
                continue
            bad += 1
            collect = f"npu-smi info -t ecc -i {npu_id}"
            if double_now:
                counts = [_("{count} uncorrectable (double-bit) ECC error(s) counted now").format(count=double_now)]
                if isolated:
                    counts.append(_("{count} page(s) isolated").format(count=isolated))
                if pending:
                    counts.append(_("{count} waiting to be isolated").format(count=pending))
                message = _("{scope}: {counts}: the NPU's memory is failing.").format(scope=shown,
                                                                                     counts=", ".join(counts))
                fix = (_("Stop using NPU {npu}: leave it out of ASCEND_VISIBLE_DEVICES / npuDeviceIds and restart the "
                         "service on the other NPUs. Keep the evidence and open a Huawei support case (memory errors "
                         "that ECC cannot correct mean a board/module replacement):").format(npu=npu_id)
                       + f"\n  {collect}")
                action = FixAction("system", _("Take NPU {npu} out of service and open a Huawei support case "
                                               "(uncorrectable memory errors)").format(npu=npu_id), (collect,),
                                   where="host")
                yield Finding(Status.FAIL, message, fix, evidence, scope, (action,))
                continue
            parts = []
            if double_life:
                parts.append(_("{count} double-bit error(s) over its lifetime").format(count=double_life))
            if isolated:
                parts.append(_("{count} page(s) already isolated").format(count=isolated))
            if pending:
                parts.append(_("{count} page(s) waiting to be isolated at the next reset").format(count=pending))
            message = _("{scope}: {counts} (no uncorrectable error counted now).").format(scope=shown,
                                                                                         counts=", ".join(parts))
            fix_lines = [_("Watch it: `{command}` after each job; a new double-bit error means failing memory (open a "
                           "Huawei support case).").format(command=collect)]
            actions = [FixAction("system", _("Watch the ECC counters of NPU {npu}").format(npu=npu_id), (collect,),
                                 where="host")]
            if pending:
                fix_lines.insert(0, _("Reboot the host in a maintenance window so that the pending pages are isolated "
                                      "(npu-smi reference: Next-Isolated pages are isolated after an NPU reset or "
                                      "reboot), then check the counters again:") + "\n  reboot")
                actions.insert(0, FixAction("reboot", _("Reboot the host so that pending ECC pages are isolated"),
                                            ("reboot",), where="host"))
            yield Finding(Status.WARN, message, "\n".join(fix_lines), evidence, scope, tuple(actions))
    for npu_id, why in sorted(ecc.failures.items()):
        yield Finding(Status.WARN, _("NPU {npu}: the ECC query gave nothing usable ({why}).").format(npu=npu_id,
                                                                                                    why=why),
                      _("Run `npu-smi info -t ecc -i {npu}` by hand; a hang or an error there is itself a sign of a "
                        "device problem (see `dmesg | grep -i -E 'davinci|devdrv|ecc'`).").format(npu=npu_id),
                      {"failure": why}, f"NPU {npu_id}")
    if not bad and ecc.by_npu:
        # Clauses added to the end of the sentence.
        note = (_("; {count} corrected single-bit error(s) (information only)").format(count=single_total)
                if single_total else "")
        unrecorded = (_("; NPU {ids}: {absent}").format(ids=", ".join(map(str, ecc.not_recorded)),
                                                        absent=absent_phrase(ctx.facts))
                      if ecc.not_recorded else "")
        yield Finding.passed(_("no double-bit ECC error or isolated page on {count} NPU(s)").format(
            count=len(ecc.by_npu)) + note + unrecorded, single_bit_errors=single_total)
