"""ASC-SYS-005: the open-file limit is high enough for a DeepSeek server."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext

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
    return _("unlimited") if value < 0 else str(value)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    res = ctx.facts.resources
    soft, hard = res.nofile_soft, res.nofile_hard
    if soft is None:
        raise NotApplicable(_("the open-file limit could not be read (no `ulimit -n` answer, no /proc/self/limits)"))
    evidence = {"soft": soft, "hard": hard, "source": res.nofile_source}
    if soft < 0 or soft >= TARGET:
        yield Finding.passed(_("open-file limit {limit} (from {source})").format(limit=_show(soft),
                                                                                 source=res.nofile_source), **evidence)
        return
    if hard is None:
        text = _("open-file limit {soft} (from {source}), under {target}: ~160 weight shards per rank plus "
                 "HCCL/ZMQ/HTTP sockets end in 'Too many open files'.")
    elif hard < 0 or hard >= TARGET:
        text = _("open-file limit {soft} (from {source}), under {target}; the hard limit {hard} lets vLLM raise it "
                 "itself, MindIE will not: ~160 weight shards per rank plus HCCL/ZMQ/HTTP sockets end in 'Too many "
                 "open files'.")
    else:
        text = _("open-file limit {soft} (from {source}), under {target}; the hard limit {hard} stops vLLM from "
                 "raising it: ~160 weight shards per rank plus HCCL/ZMQ/HTTP sockets end in 'Too many open files'.")
    yield Finding.warn(
        text.format(soft=soft, source=res.nofile_source, target=TARGET, hard=_show(hard) if hard is not None else ""),
        f"ulimit -n {TARGET}   # " + _("in the shell that starts the engine") + "\n"
        f"docker run --ulimit nofile={TARGET}:{TARGET} ...   # " + _("containers") + "\n"
        f"printf '* soft nofile {TARGET}\\n* hard nofile {TARGET}\\n' >> /etc/security/limits.conf   # "
        + _("permanent"),
        **evidence)
