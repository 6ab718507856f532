"""ASC-SYS-003: enough host CPUs per NPU, running at full frequency."""

from __future__ import annotations

from typing import Iterator, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext

CPUS_PER_CHIP = 4

CHECK = CheckSpec(
    id="ASC-SYS-003",
    title="CPU count and frequency governor",
    what=(f"Compares the host CPU count with the NPU chips in scope (WARN below {CPUS_PER_CHIP} per chip) and reads "
          "the cpufreq governor of cpu0 (WARN unless `performance`)."),
    why=("Serving DeepSeek is often host-bound in decode: each rank's Python process, its operator-dispatch "
         "threads (TASK_QUEUE_ENABLE) and the tokenizer need cores of their own; CPU_AFFINITY_CONF binds them per "
         "NPU. MindIE's and vLLM-Ascend's tuning guides both start with the `performance` governor "
         f"(MindIE Service performance tuning: cpupower -c all frequency-set -g performance; vLLM-Ascend "
         f"optimization_and_tuning.md section 5.1). {CPUS_PER_CHIP} cores per chip is this tool's floor for one rank's "
         "process, dispatch and tokenizer threads, not a published figure."),
    fix="cpupower -c all frequency-set -g performance   (or: echo performance | tee "
        "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor), on the host",
)


def _chips(ctx: HostCheckContext) -> Optional[int]:
    smi = ctx.facts.maybe(Facts.npu_smi)
    scope = ctx.facts.maybe(Facts.npu_scope)
    devices = [d for d in getattr(smi, "devices", None) or []
               if scope is None or scope.owns(d.npu_id, d.chip_id)]
    return len(devices) or None


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    res = ctx.facts.resources
    if res.cpu_count is None and res.governor is None:
        raise NotApplicable(_("neither the CPU count nor the frequency governor is known"))
    chips = _chips(ctx)
    if res.cpu_count is not None:
        if chips and res.cpu_count < CPUS_PER_CHIP * chips:
            yield Finding.warn(
                _("{cpus} CPUs for {chips} NPU chip(s): under {per_chip} per chip, dispatch threads of the ranks "
                  "compete and decode becomes host-bound.").format(cpus=res.cpu_count, chips=chips,
                                                                   per_chip=CPUS_PER_CHIP),
                _("Give the host/container more CPUs (docker run --cpus / cpuset), or serve on fewer chips per host"),
                cpu_count=res.cpu_count, chips=chips)
        else:
            text = _("{cpus} CPUs ({per_chip} per NPU chip)") if chips else _("{cpus} CPUs")
            yield Finding.passed(text.format(cpus=res.cpu_count, per_chip=res.cpu_count // chips if chips else None),
                                 cpu_count=res.cpu_count, chips=chips)
    if res.governor is None:
        note = res.notes[0] if res.notes else _("no cpufreq governor exposed")
        yield Finding.passed(_("CPU frequency governor unknown: {note}").format(note=note))
    elif res.governor != "performance":
        yield Finding.warn(
            _("CPU frequency governor is '{governor}': cores clock down between requests, adding latency jitter to "
              "dispatch-bound decode.").format(governor=res.governor),
            _("On the host (root): {command}").format(command="cpupower -c all frequency-set -g performance") + "\n"
            "  or: echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor",
            governor=res.governor).with_actions(FixAction(
                "system", _("Set the CPU frequency governor to performance"),
                ("cpupower -c all frequency-set -g performance",), where="host",
                alternative="echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor"))
    else:
        yield Finding.passed(_("CPU frequency governor is 'performance'"), governor=res.governor)
