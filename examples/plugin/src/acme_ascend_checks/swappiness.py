"""ACME-SYS-001: vm.swappiness is low on an inference host (the ACME site's policy; a recommendation).

vLLM-Ascend's tuning guide sets ``vm.swappiness=0`` among its OS settings for serving hosts
(https://docs.vllm.ai/projects/ascend/en/latest/developer_guide/performance_and_debug/optimization_and_tuning.html);
ACME allows up to 10 and reports a higher value as INFO, which never changes the exit code.
"""

from __future__ import annotations

from typing import Iterator

from acme_ascend_checks.facts import SWAPPINESS_PATH, VM_SWAPPINESS
from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, FixAction
from ascend_doctor.shellcmd import argv, with_comment

CHECK_API = 1  # the version of ascend-doctor's public check API this module is written for

LIMIT = 10
SOURCE = ("https://docs.vllm.ai/projects/ascend/en/latest/developer_guide/performance_and_debug/"
          "optimization_and_tuning.html")

CHECK = CheckSpec(
    id="ACME-SYS-001",
    title="vm.swappiness is at most 10 on an inference host (ACME policy)",
    what=f"Reads {SWAPPINESS_PATH}.",
    why="A swapped-out page of a serving process stalls a decode step; vLLM-Ascend's tuning guide sets "
        f"vm.swappiness=0 ({SOURCE}).",
    fix="sysctl -w vm.swappiness=0 on the host, and the same line in /etc/sysctl.d/ to keep it after a reboot.",
    tags=("tuning",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    value = ctx.facts.value(VM_SWAPPINESS)  # FactUnavailable (file absent) becomes SKIP
    if value <= LIMIT:
        yield Finding.passed(f"vm.swappiness is {value}", swappiness=value)
        return
    command = argv("sysctl", "-w", "vm.swappiness=0")
    yield Finding.info(f"vm.swappiness is {value}: the kernel swaps serving memory out early",
                       with_comment(command, f"on the host; source: {SOURCE}"), swappiness=value).with_actions(
        FixAction("system", "Set vm.swappiness to 0", (command,), where="host", direction="set",
                  subject="vm.swappiness"))
