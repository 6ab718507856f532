"""ASC-DEV-010: the NPUs of this deployment are not already used by other processes or containers."""

from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import N_, _
from ascend_doctor.lazy import lazy_re

from ._context import HostCheckContext
from ._npu_holders import (
    Holder,
    by_pid_largest_first,
    describe,
    holders,
    lookup_commands,
    mark_ranks,
    stop_advice,
)

CHECK = CheckSpec(
    id="ASC-DEV-010",
    title="NPUs not occupied by other processes or containers",
    what=("Reads npu-smi's process table for the NPUs in scope (see ASC-CTR-003) and looks for the dcmi "
          "'-8020' / '-8005' messages npu-smi prints when another container holds the devices; names every PID, "
          "largest first, by its engine when the name says it (vLLM workers, MindIE backends and daemon, a training "
          "job, a Ray worker), whether it is visible from here, and how to find what started it. FAILs when the "
          "free HBM is below what the engine to be deployed asks for at start (vLLM: gpu_memory_utilization, 0.9 "
          "of the card by default; MindIE: NPU_MEMORY_FRACTION, 0.8 by default) or when the holder is a serving "
          "engine; WARNs otherwise. Processes on NPUs outside the scope are reported as information."),
    why=("An NPU runs one job's memory at a time: a forgotten server, a crashed job's orphan or another "
         "container on the same cards makes the new deployment fail with EL0004 'Memory Allocation Failure' at "
         "device init. npu-smi in a container answers 'dcmi model initialized failed, because the device is "
         "used. ret is -8020' (or -8005) when another container owns the devices (vllm-ascend#632, #2698)."),
    fix=("Stop what holds the NPU the way it was started: on the host, cat /proc/<pid>/cgroup names its systemd unit "
         "(systemctl stop <unit>), its container (docker stop <id>) or its pod (kubectl delete pod); a serving engine "
         "or a training rank is never killed alone. Or choose free NPUs with ASCEND_VISIBLE_DEVICES / "
         "ASCEND_RT_VISIBLE_DEVICES."),
)

# "DrvMngGetConsoleLogLevel failed. (g_conLogLevel=3)\ndcmi model initialized failed, because the device is
# used. ret is -8020" (cann-container-image#46); "dcmi module initialize failed. ret is -8005" (vllm-ascend#2698)
_DCMI_BUSY = lazy_re(r"dcmi (?:model|module) initiali[sz]e?d? failed[^\n]*ret is (-80(?:20|05))", re.I)
# What an engine asks for when it starts: vLLM(-Ascend) stops unless free HBM >= gpu_memory_utilization x total
# ("Free memory on device ... on startup is less than desired GPU memory utilization (0.9, ...)"); MindIE takes
# NPU_MEMORY_FRACTION of the card.
VLLM_FRACTION = 0.9
VLLM_SOURCE = "https://docs.vllm.ai/en/latest/configuration/engine_args.html (--gpu-memory-utilization, 0.9 by default)"
MINDIE_FRACTION = 0.8
MINDIE_SOURCE = "Ascend/MindIE-LLM mindie_llm/utils/env.py (NPU_MEMORY_FRACTION, 0.8 by default)"


def _engine_request(ctx: HostCheckContext) -> Tuple[float, str, str]:
    """(fraction of the card, engine, source) the engine to be deployed asks for at start. With MindIE
    and vLLM both installed, or neither, the smaller default: less than that free and neither starts."""
    engines = ctx.facts.maybe(Facts.engines)
    installed = engines.installed_engines() if engines is not None else []
    vllm = "vLLM-Ascend" in installed or "vLLM" in installed
    env = ctx.facts.maybe(Facts.env) or {}
    fraction = MINDIE_FRACTION
    text = str(env.get("NPU_MEMORY_FRACTION", "")).strip()
    try:
        value = float(text) if text else None
    except ValueError:
        value = None
    if value is not None and 0 < value <= 1:
        fraction = value
    if "MindIE" in installed and not vllm:
        return fraction, "MindIE", MINDIE_SOURCE
    if vllm and "MindIE" not in installed:
        return VLLM_FRACTION, "vLLM-Ascend", VLLM_SOURCE
    return min(fraction, VLLM_FRACTION), "MindIE or vLLM-Ascend", f"{MINDIE_SOURCE}; {VLLM_SOURCE}"


FREE_NPUS = N_("deploy on free NPUs: export ASCEND_RT_VISIBLE_DEVICES=<free logical ids> (containers: -e "
               "ASCEND_VISIBLE_DEVICES=<free ids>)")


def _stop_holders(found: List[Holder]) -> FixAction:
    """One step for every busy NPU of the report: each finding carries the same action (every holder in
    scope, largest first), so the plan shows it once and names every NPU it fixes."""
    return FixAction(
        "system", _("Find what started the processes holding the busy NPUs and stop it that way"),
        lookup_commands(found), where="host", alternative=_(FREE_NPUS))


def _describe(found: List[Holder], visible_pids: Optional[Set[int]]) -> str:
    """'vLLM: pid 669096 VLLMWorker_TP 55124 MB; ...; and 3 more, largest first -- <where they run>'."""
    text = describe(found)
    if visible_pids is None:
        # An empty or missing process list was not captured: it says nothing about namespaces.
        return text + " -- " + _("process list not recorded: cannot tell whether they run here or in another "
                                 "container")
    hidden = [h.pid for h in found if h.pid not in visible_pids and not h.container_pid]
    if hidden:
        text += " -- " + (_("not visible from here, so they run in another container or PID namespace")
                          if len(hidden) == len(found) else
                          _("pid {pids} not visible from here").format(pids=", ".join(map(str, hidden))))
    return text


def _fix(shown: str, found: List[Holder]) -> str:
    """Look up what started each holder (every one listed), stop it that way; or use other NPUs."""
    lookups = "\n  ".join(lookup_commands(found))
    return (_("Stop what holds {npu}, the way it was started:").format(npu=shown) + "\n"
            + _("on the host:") + f"\n  {lookups}\n" + stop_advice(found) + "\n" + _("or") + " " + _(FREE_NPUS))


def _dcmi_busy(ctx: HostCheckContext) -> Optional[Finding]:
    result = ctx.facts.npu_smi_result
    text = f"{result.stdout}\n{result.stderr}"
    match = _DCMI_BUSY.search(text)
    if not match:
        return None
    code = match.group(1)
    return Finding.fail(
        _("npu-smi cannot open the devices: '{line}' -- the NPUs are held by another container (or a process in "
          "another mount namespace), so the runtime of this one will fail the same way.").format(
              line=match.group(0).strip()),
        _("On the host: {command}   # the process table shows who holds each NPU").format(command="npu-smi info")
        + "\n"
        "  cat /proc/uda/namespace_node   # " + _("the root_tgid of the namespace holding the device") + "\n"
        "  docker ps   # " + _("stop the container using those NPUs: docker stop <id>") + "\n"
        + _("Give each container its own NPUs (--device /dev/davinciN per container); --privileged exposes every "
            "device and the host and is no fix. A missing -v /usr/local/dcmi:/usr/local/dcmi mount has been reported "
            "to give the same message (ASC-CTR-002)."),
        code=code).with_actions(FixAction(  # SMI-001 asks the same of the same output: the plan makes it one step
            "system", _("Find and stop what holds the NPUs"),
            # plan commands: their comments are catalogue messages, translated where the plan is shown
            ("npu-smi info   # " + N_("the process table shows who holds each NPU"),
             "cat /proc/uda/namespace_node   # " + N_("root_tgid of the process holding the device"),
             shellcmd.with_comment(shellcmd.argv("ps", "-o", "pid,cmd", "-p", shellcmd.Placeholder("root_tgid")),
                                   N_("then stop that process, or its container (docker ps)")),
             shellcmd.argv("docker", "ps")), where="host"))


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    busy = _dcmi_busy(ctx)
    if busy is not None:
        yield busy
        return
    smi = ctx.facts.maybe(Facts.npu_smi)
    if smi is None:
        raise NotApplicable(_("npu-smi gave no table to read (see ASC-SMI-001)"))
    if not smi.process_table_present and not smi.idle_npus:
        raise NotApplicable(_("npu-smi printed no process table (cut off or an old layout)"))
    scope = ctx.facts.npu_scope
    visible_pids: Optional[Set[int]] = None
    procs = ctx.facts.maybe(Facts.processes)
    if procs:  # a live machine always lists at least this process: an empty list was not recorded
        visible_pids = {p.pid for p in procs}
    capacity: Dict[Tuple[int, int], int] = {(d.npu_id, d.chip_id): d.capacity_mb or 0 for d in smi.devices}
    in_use: Dict[Tuple[int, int], Optional[int]] = {(d.npu_id, d.chip_id): d.in_use_mb for d in smi.devices}
    fraction, engine, source = _engine_request(ctx)
    cmdlines = {p.pid: " ".join(p.cmdline) for p in procs or []}
    by_chip: Dict[Tuple[int, Optional[int]], List[Any]] = {}
    for p in smi.processes:
        by_chip.setdefault((p.npu_id, p.chip_id), []).append(p)
    chips = mark_ranks({key: holders(rows, cmdlines) for key, rows in by_chip.items()})
    # every holder in scope, once, in one plan step that every busy NPU's finding shares
    action = _stop_holders(by_pid_largest_first(
        h for (npu, chip), found in chips.items() if scope.owns(npu, chip) for h in found))
    in_scope = 0
    outside: List[str] = []  # English, for the evidence (machines read it)
    outside_shown: List[str] = []  # the same, in the report's language
    ordered = sorted(chips.items(), key=lambda kv: (kv[0][0], -1 if kv[0][1] is None else kv[0][1]))
    for (npu, chip), found in ordered:
        label = f"NPU {npu}" + (f" chip {chip}" if chip is not None else "")  # the finding's scope
        shown = _("NPU {npu} chip {chip}").format(npu=npu, chip=chip) if chip is not None else label
        held = sum(h.memory_mb or 0 for h in found)
        if not scope.owns(npu, chip):
            template = N_("{npu} ({count} process(es), {held} MB)")
            outside.append(template.format(npu=label, count=len(found), held=held))
            outside_shown.append(_(template).format(npu=shown, count=len(found), held=held))
            continue
        in_scope += 1
        text = _describe(found, visible_pids)
        cap = capacity.get((npu, chip if chip is not None else 0)) or 0
        fix = _fix(shown, found)
        used = in_use.get((npu, chip if chip is not None else 0))
        used = held if used is None else max(used, held)
        free = cap - used if cap else None
        request = int(fraction * cap) if cap else None
        engines = sorted({h.engine for h in found if h.engine})
        evidence = {"pids": [h.pid for h in found], "processes": [h.to_dict() for h in found], "held_mb": held,
                    "capacity_mb": cap, "used_mb": used, "free_mb": free, "request_mb": request,
                    "request_fraction": fraction, "request_engine": engine, "request_source": source,
                    "holder_engines": engines, "holder_kinds": sorted({h.kind for h in found}),
                    "processes_recorded": visible_pids is not None}
        if free is not None and request is not None and free < request:
            finding = Finding.fail(_("{npu} is busy: {processes} -- {free} of {capacity} MB free, less than the "
                                     "{request} MB ({fraction} of the card) {engine} asks for at start, so the "
                                     "deployment stops at start or with EL0004 Memory Allocation Failure "
                                     "(source: {source}).").format(
                                       npu=shown, processes=text, free=free, capacity=cap, request=request,
                                       fraction=fraction, engine=engine, source=source), fix, **evidence)
        elif engines:
            finding = Finding.fail(_("{npu} is held by another serving engine ({engines}): {processes} ({held} of "
                                     "{capacity} MB); it takes its memory share as it serves, so a new deployment "
                                     "on this NPU competes with it.").format(
                                       npu=shown, engines=", ".join(engines), processes=text, held=held,
                                       capacity=cap or "?"), fix, **evidence)
        else:
            finding = Finding.warn(_("{npu} is in use: {processes} ({held} of {capacity} MB).").format(
                                       npu=shown, processes=text, held=held, capacity=cap or "?"), fix, **evidence)
        yield finding.scoped(label).with_actions(action)
    if outside:
        yield Finding.passed(_("outside this run's NPUs ({reason}), in use: {npus} -- information only").format(
            reason=scope.reason, npus="; ".join(outside_shown)), outside=outside)
    if in_scope == 0:
        yield Finding.passed(_("no process runs on the NPUs of this deployment ({count} NPU(s) report no running "
                               "process)").format(count=len(smi.idle_npus)) if smi.idle_npus else
                             _("no process runs on the NPUs of this deployment"))
