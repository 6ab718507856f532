"""ASC-SYS-005: the open-file limit is high enough for a DeepSeek server."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

TARGET = 65535

CHECK = CheckSpec(
    id="ASC-SYS-005",
    title=f"Open-file limit >= {TARGET}",
    what=(f"Reads the soft open-file limit (ulimit -n; hard limit from /proc/self/limits) and WARNs below {TARGET}, "
          "the soft limit vLLM raises itself to at start-up (vllm/utils set_ulimit(target_soft_limit=65535))."),
    why=("A DeepSeek-R1/V3 checkpoint is ~160 safetensors shards that every rank may open, plus the sockets of "
         "HCCL, ZMQ and the HTTP front end for each of 8-16 ranks: the usual 1024 ends in 'Too many open files'. "
         "vLLM raises its soft limit to 65535 only when the hard limit allows; MindIE does not raise it."),
    fix=f"ulimit -n {TARGET} in the launching shell; for containers: docker run --ulimit nofile={TARGET}:{TARGET}; "
        f"permanently: '* soft nofile {TARGET}' and '* hard nofile {TARGET}' in /etc/security/limits.conf",
)


def _show(value: int) -> str:
    return "unlimited" if value < 0 else str(value)


def run(ctx: CheckContext) -> Iterator[Finding]:
    res = ctx.facts.get("resources")
    soft, hard = res.nofile_soft, res.nofile_hard
    if soft is None:
        raise NotApplicable("the open-file limit could not be read (no `ulimit -n` answer, no /proc/self/limits)")
    evidence = {"soft": soft, "hard": hard, "source": res.nofile_source}
    if soft < 0 or soft >= TARGET:
        yield Finding.passed(f"open-file limit {_show(soft)} (from {res.nofile_source})", **evidence)
        return
    hard_note = ""
    if hard is not None:
        hard_note = (f"; the hard limit {_show(hard)} lets vLLM raise it itself, MindIE will not" if hard < 0 or
                     hard >= TARGET else f"; the hard limit {_show(hard)} stops vLLM from raising it")
    yield Finding.warn(
        f"open-file limit {soft} (from {res.nofile_source}), under {TARGET}{hard_note}: ~160 weight shards per rank "
        "plus HCCL/ZMQ/HTTP sockets end in 'Too many open files'.",
        f"ulimit -n {TARGET}   # in the shell that starts the engine\n"
        f"docker run --ulimit nofile={TARGET}:{TARGET} ...   # containers\n"
        f"printf '* soft nofile {TARGET}\\n* hard nofile {TARGET}\\n' >> /etc/security/limits.conf   # permanent",
        **evidence)
