"""ASC-DEV-011: NPU memory in use that no listed process accounts for."""

from __future__ import annotations

from typing import Dict, Iterator, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.i18n import N_, _
from ascend_doctor.shellcmd import argv, shaped

from ._context import HostCheckContext

# An idle card shows some memory in use (driver/firmware reservations): ~3.2-3.4 GB of 64 GB on
# 910B/A3, ~2 GB of 32 GB on 910B4, ~1.5 GB of 44 GB on 310P3 (corpus: vllm-ascend-4480 A3,
# fixture-2x910B4 NPU 1, nvtop#421 300I Duo). Memory beyond this floor with no process is somebody's.
FLOOR_MB = 4096
FLOOR_SHARE = 0.10
HALF = 0.5

CHECK = CheckSpec(
    id="ASC-DEV-011",
    title="No NPU memory held without a visible process",
    requires=("npu_devices",),
    what=(f"For each chip in scope, subtracts the memory of the processes npu-smi lists from the memory in use; "
          f"WARNs when more than max({FLOOR_MB} MB, {FLOOR_SHARE:.0%} of the chip) is unaccounted for (an idle "
          "chip shows 1.5-3.5 GB reserved), FAILs when that is more than half the chip."),
    why=("npu-smi inside a container lists only that container's processes: memory held by a job in another "
         "container (or leaked by a crashed one) shows as used with nobody to blame, and the deployment then fails "
         "at device init with EL0004 'Memory Allocation Failure'."),
    fix=("Run `npu-smi info` on the host, where every process is listed, and stop the owner the way it was started "
         "(its container, its systemd unit, its job; ASC-DEV-010 shows how to find which). "
         "If no process owns it, the memory leaked: reboot, or reset that NPU (npu-smi set -t reset -i <npu> -c "
         "<chip>, as root, nothing else running on it)."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    smi = ctx.facts.npu_smi
    if not smi.process_table_present and not smi.idle_npus:
        raise NotApplicable(_("npu-smi printed no process table, so held memory cannot be attributed"))
    scope = ctx.facts.npu_scope
    listed: Dict[Tuple[int, int], int] = {}
    for p in smi.processes:
        key = (p.npu_id, p.chip_id if p.chip_id is not None else 0)
        listed[key] = listed.get(key, 0) + (p.memory_mb or 0)
    flagged = 0
    checked = 0
    outside = []  # English, for the evidence (machines read it)
    outside_shown = []  # the same, in the report's language
    for dev in smi.devices:
        used, cap = dev.in_use_mb, dev.capacity_mb
        if used is None or not cap:
            continue
        label = f"NPU {dev.npu_id} chip {dev.chip_id}"  # the finding's scope
        shown = _("NPU {npu} chip {chip}").format(npu=dev.npu_id, chip=dev.chip_id)
        unexplained = used - listed.get((dev.npu_id, dev.chip_id), 0)
        floor = max(FLOOR_MB, int(FLOOR_SHARE * cap))
        if unexplained <= floor:
            checked += 1
            continue
        if not scope.owns(dev.npu_id, dev.chip_id):
            outside.append(f"{label} ({unexplained} MB)")
            outside_shown.append(f"{shown} ({unexplained} MB)")
            continue
        checked += 1
        flagged += 1
        fix = (_("On the host: {command}   # lists every process on NPU {npu}; stop its owner the way it was "
                 "started: its container, its systemd unit or its job").format(command="npu-smi info",
                                                                                npu=dev.npu_id) + "\n"
               + _("If nothing owns it, reboot the host, or reset the NPU (on the physical host, as root, with nothing "
                   "running on it -- on A3 one NPU carries two dies and a reset ends every job on either): "
                   "{command}").format(command=argv("npu-smi", "set", "-t", "reset", "-i",
                                                    shaped(str(dev.npu_id), "device_id", "NPU"), "-c",
                                                    shaped(str(dev.chip_id), "device_id", "chip"))))
        evidence = {"used_mb": used, "capacity_mb": cap, "listed_mb": used - unexplained,
                    "unexplained_mb": unexplained, "threshold_mb": floor}
        fields = {"npu": shown, "used": used, "capacity": cap, "listed": listed.get((dev.npu_id, dev.chip_id), 0),
                  "unexplained": unexplained}
        # One plan step for every such NPU: the same npu-smi table answers for all of them.
        action = FixAction("system", _("Find what holds NPU memory that no listed process explains"), (
            "npu-smi info   # " + N_("lists every process on each NPU; stop its owner the way it was started (its "
                                     "container, its systemd unit, its job)"),),
            where="host", alternative=_("if nothing owns the memory: reboot the host, or reset the NPU as its finding "
                                        "says (on A3 a reset ends the jobs on both dies)"))
        if unexplained > HALF * cap:
            yield Finding.fail(_("{npu}: {used} of {capacity} MB in use but the processes npu-smi lists hold {listed} "
                                 "MB -- {unexplained} MB belong to a process this view cannot see (another container) "
                                 "or were leaked by a crashed job; less than half of the chip is left for this "
                                 "deployment.").format(**fields), fix, **evidence).scoped(label).with_actions(action)
        else:
            yield Finding.warn(_("{npu}: {used} of {capacity} MB in use but the processes npu-smi lists hold {listed} "
                                 "MB -- {unexplained} MB belong to a process this view cannot see (another container) "
                                 "or were leaked by a crashed job.").format(**fields), fix, **evidence).scoped(label
                                                                                              ).with_actions(action)
    if outside:
        yield Finding.passed(_("outside this run's NPUs ({reason}), memory held with no listed process: {npus} -- "
                               "information only").format(reason=scope.reason, npus="; ".join(outside_shown)),
                             outside=outside)
    if flagged == 0:
        yield Finding.passed(_("memory in use on the {count} chip(s) in scope is accounted for by listed processes "
                               "(beyond the idle reservation of up to max({floor} MB, {share}))").format(
            count=checked, floor=FLOOR_MB, share=f"{FLOOR_SHARE:.0%}"))
