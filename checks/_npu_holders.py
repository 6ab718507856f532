"""Who holds a busy NPU, and how to stop it the way it was started (ASC-DEV-010, ASC-DEV-011).

A process in npu-smi's table is named by the engine when its name says so, largest first, none
dropped. The fix never kills a serving engine or a training rank: a vLLM worker killed alone is one
tensor-parallel rank of a service whose other ranks then hang, and a MindIE backend killed alone is
restarted or leaves its daemon serving errors. What started the service stops it: its container, its
systemd unit, its job. Which of these it was is read from ``/proc/<pid>/cgroup`` (a
``system.slice/<unit>.service``, ``docker-<id>.scope`` or ``/docker/<id>``, ``kubepods`` or a login
``session-N.scope`` line), which the doctor records for no process: the fix prints that lookup.

Names as npu-smi prints them (the kernel's 15-character ``comm``):

* vLLM: ``VLLMWorker_TP`` / ``VLLMWorker_PP`` (vllm-project/vllm-ascend pull 7107, a comment's npu-smi
  table; the gpustat Ascend test fixture), set by vLLM's ``set_process_title`` (vllm/utils/system_utils.py:
  ``VLLM`` + ``Worker_TP<rank>``, ``EngineCore_DP<rank>``);
* MindIE: ``mindie_llm_back`` (``mindie_llm_backend``, the backend each NPU gets, launched by the daemon:
  Ascend/MindIE-LLM, its executor's ``mindie_llm_backend --local_rank`` command) and ``mindieservice_d``
  (``mindieservice_daemon``, started from mindie-service/bin, MindIE Service guide);
* a training job: npu-smi shows ``python`` (MindCluster's collection guide lists eight ``python`` ranks
  of one job), so only a recorded command line tells (``torchrun``, ``torch.distributed.run``, ``msrun``,
  ``deepspeed``, a ``train``/``pretrain`` script);
* a Ray worker: ``ray::...`` / ``rayWorkerDict`` (the gpustat fixture), one actor of a Ray job.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ascend_doctor.facts.engines import engine_of_process_name
from ascend_doctor.i18n import _
from ascend_doctor.lazy import lazy_re
from ascend_doctor.shellcmd import Placeholder, argv, comment, shaped, with_comment
from msgspec import Struct, structs

# Kinds of holder, as the evidence names them (machines read these; the prose is translated).
SERVING = "serving"
TRAINING = "training"
RAY = "ray"
RANKS = "ranks"  # one name, one process on each of several NPUs: the ranks of one distributed job
OTHER = "other"

# Beyond facts.engines' names: the 15-character cut of mindieservice_daemon, vLLM's own titles.
_MINDIE_NAME = lazy_re(r"^mindie", re.I)
_VLLM_NAME = lazy_re(r"^VLLM|^EngineCore_|^vllm\b", re.I)
_RAY_NAME = lazy_re(r"^ray::|^rayWorker|^raylet$", re.I)
_TRAINING_CMDLINE = lazy_re(
    r"\btorchrun\b|torch\.distributed\.(?:run|launch)|\bmsrun\b|\bdeepspeed\b|\baccelerate launch\b"
    r"|\bllamafactory-cli train\b|\bmindspeed\b|(?:^|[/\s])(?:pre)?train[\w.-]*\.py\b", re.I)
# How many processes one finding names before "and N more, largest first" (the evidence keeps all).
SHOWN = 5


class Holder(Struct, frozen=True):
    """One row of npu-smi's process table, with what the doctor knows of the process."""

    pid: int
    name: str
    memory_mb: Optional[int]
    container_pid: Optional[int]  # npu-smi's "Process id in container": it runs in a container
    kind: str  # SERVING, TRAINING, RAY or OTHER
    engine: Optional[str]  # "vLLM" / "MindIE" for a serving engine
    cmdline: str  # "" when the process list was not recorded or does not show it

    @property
    def label(self) -> str:
        """"vLLM" / "MindIE" / "a training job" / "a Ray job" / "" (nothing the name says)."""
        if self.kind == SERVING and self.engine:
            return self.engine
        return {TRAINING: _("a training job"), RAY: _("a Ray job"),
                RANKS: _("one job's ranks")}.get(self.kind, "")

    def to_dict(self) -> Dict[str, object]:
        data: Dict[str, object] = {"pid": self.pid, "name": self.name, "memory_mb": self.memory_mb,
                                   "kind": self.kind, "engine": self.engine}
        if self.container_pid is not None:
            data["container_pid"] = self.container_pid
        return data


def classify(name: str, cmdline: str = "") -> Tuple[str, Optional[str]]:
    """(kind, engine) of a process from its name in npu-smi and, when recorded, its command line."""
    engine = engine_of_process_name(name) or engine_of_process_name(cmdline)
    if engine is None and _MINDIE_NAME.search(name):
        engine = "MindIE"
    if engine is None and (_VLLM_NAME.search(name) or re.search(r"\bvllm serve\b|vllm\.entrypoints", cmdline)):
        engine = "vLLM"
    if engine is not None:
        return SERVING, engine
    if _RAY_NAME.search(name):
        return RAY, None
    if _TRAINING_CMDLINE.search(cmdline):
        return TRAINING, None
    return OTHER, None


def holders(rows: Iterable[Any], cmdlines: Dict[int, str]) -> List[Holder]:
    """npu-smi's process rows (``NpuProcess``) as holders, largest first (then by pid, so the order is stable)."""
    found = []
    for row in rows:
        pid = int(row.pid)
        name = str(row.name or "")
        cmdline = cmdlines.get(pid, "")
        kind, engine = classify(name, cmdline)
        found.append(Holder(pid, name, row.memory_mb, row.container_pid, kind, engine, cmdline))
    return largest_first(found)


def mark_ranks(chips: Dict[Tuple[int, Optional[int]], List[Holder]]) -> Dict[Tuple[int, Optional[int]], List[Holder]]:
    """Processes of one name that each hold a different NPU (eight ``python`` on eight NPUs, as MindCluster's
    collection guide shows a training job) are one distributed job's ranks, even when the name says
    nothing more: stopped through what launched them, never one rank at a time."""
    npus: Dict[str, Set[int]] = {}
    for (npu, _chip), found in chips.items():
        for h in found:
            if h.kind == OTHER and h.name:
                npus.setdefault(h.name, set()).add(npu)
    ranked = {name for name, where in npus.items() if len(where) > 1}
    if not ranked:
        return chips
    return {key: [structs.replace(h, kind=RANKS) if h.kind == OTHER and h.name in ranked else h for h in found]
            for key, found in chips.items()}


def largest_first(found: Iterable[Holder]) -> List[Holder]:
    return sorted(found, key=lambda h: (-(h.memory_mb or 0), h.pid))


def by_pid_largest_first(found: Iterable[Holder]) -> List[Holder]:
    """One holder per PID (the same worker may hold several NPUs), ordered by all the memory it holds."""
    total: Dict[int, int] = {}
    first: Dict[int, Holder] = {}
    for h in found:
        total[h.pid] = total.get(h.pid, 0) + (h.memory_mb or 0)
        first.setdefault(h.pid, h)
    return sorted(first.values(), key=lambda h: (-total[h.pid], h.pid))


def describe(found: Sequence[Holder]) -> str:
    """'vLLM: pid 669096 VLLMWorker_TP 55124 MB; pid 669153 VLLMWorker_TP 107 MB; and 3 more, largest first'."""
    parts = []
    for h in found[:SHOWN]:
        inside = " " + _("(pid {pid} in its container)").format(pid=h.container_pid) if h.container_pid else ""
        mem = f" {h.memory_mb} MB" if h.memory_mb is not None else ""
        parts.append(f"pid {h.pid} {h.name or _('unnamed')}{inside}{mem}")
    if len(found) > SHOWN:
        parts.append(_("and {count} more, largest first").format(count=len(found) - SHOWN))
    labels = list(dict.fromkeys(h.label for h in found if h.label))
    text = "; ".join(parts)
    return f"{', '.join(labels)}: {text}" if labels else text


def _pid_word(pid: int) -> str:
    return shaped(str(pid), "pid")


def list_command(found: Sequence[Holder]) -> str:
    """``ps -o pid,ppid,user,etime,args -p 1,2,3``: every holder (largest first) with its parent and command."""
    pids = ",".join(_pid_word(h.pid) for h in found)
    return with_comment(argv("ps", "-o", "pid,ppid,user,etime,args", "-p", pids),
                        _("every holder, largest first: the parent and the command line say what started it"))


def origin_command(holder: Holder) -> str:
    """``cat /proc/PID/cgroup``: the unit, container, pod or login session the process was started in."""
    # the engine's name or the pid: a process name is the machine's text and stays out of a command line
    label = holder.label or f"pid {_pid_word(holder.pid)}"
    return with_comment(argv("cat", f"/proc/{_pid_word(holder.pid)}/cgroup"),
                        _("{holder}: its unit, container, pod or login session").format(holder=label))


def stop_by_origin() -> str:
    """What each answer of ``/proc/PID/cgroup`` means for stopping the service (a comment line)."""
    return comment(_("then stop it there: system.slice/<unit>.service -> systemctl stop <unit>; docker-<id>.scope or "
                     "/docker/<id> -> docker stop <id>; kubepods -> kubectl delete pod <pod>; session-N.scope -> "
                     "in the shell that started it"))


def services(found: Sequence[Holder]) -> List[List[Holder]]:
    """The holders grouped by what the name says (one vLLM, one MindIE, one training job ...), each
    group largest first and the groups in the order of their largest member."""
    groups: Dict[Tuple[str, Optional[str]], List[Holder]] = {}
    for h in found:
        groups.setdefault((h.kind, h.engine), []).append(h)
    return sorted((largest_first(g) for g in groups.values()), key=lambda g: (-(g[0].memory_mb or 0), g[0].pid))


def lookup_commands(found: Sequence[Holder]) -> Tuple[str, ...]:
    """Every holder listed in one ``ps`` line, then where the largest of each group was started."""
    if not found:
        return ()
    return ((list_command(found),) + tuple(origin_command(group[0]) for group in services(found))
            + (stop_by_origin(),))


def stop_advice(found: Sequence[Holder]) -> str:
    """How to stop what the names say, in prose; ``kill`` only for a process the user picks and never
    for a serving engine or a training rank."""
    lines = []
    engines = list(dict.fromkeys(g[0].engine for g in services(found) if g[0].kind == SERVING and g[0].engine))
    if engines:
        lines.append(_("A serving engine ({engines}): stop the service the way it was started (its container, its "
                       "systemd unit, its job), never one worker with kill: the other ranks would hang or the engine "
                       "would start it again.").format(engines=", ".join(engines)))
    for group in services(found):
        head = group[0]
        if head.kind == TRAINING:
            lines.append(_("A training job: stop it through what launched it (its job scheduler, or the terminal "
                           "torchrun runs in); a rank killed alone leaves the other ranks waiting in HCCL."))
        elif head.kind == RANKS:
            lines.append(_("One distributed job's ranks (one process named {name} on each of several NPUs, training "
                           "or serving): stop the job through what launched it, not one rank with kill: the others "
                           "would wait in HCCL.").format(name=head.name))
        elif head.kind == RAY:
            lines.append(_("A Ray job's worker: stop the Ray job it belongs to (ray job stop <job id>), not the "
                           "worker."))
        elif head.kind == OTHER:
            lines.append(_("If {names} is a leftover you chose to end (not a serving engine): {command}").format(
                names=", ".join(dict.fromkeys(h.name or _("unnamed") for h in group)),
                command=argv("kill", Placeholder("pid you chose"))))
    return "\n".join(lines)
