"""Host resources a DeepSeek deployment leans on: memory, swap, disks, CPUs, THP, open files.

Where each value comes from (live and snapshot alike, always through ``facts.host``):

====================  =====================================================================
value                 source
====================  =====================================================================
memory / swap         ``host.memory()`` (psutil live; ``host.json`` ``memory`` in a snapshot)
cpu count             ``host.cpu_count()``
cpu governor          ``/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor``
transparent hugepage  ``/sys/kernel/mm/transparent_hugepage/enabled`` (``always [madvise] never``)
open-file limit       ``sh -c "ulimit -n"`` through ``facts.command`` (a snapshot answers it from
                      ``commands/sh_-c_ulimit -n.out``), else ``/proc/self/limits``
                      ("Max open files  <soft>  <hard>  files"), which also gives the hard limit
disks                 ``host.disk_usage(path)`` for the model directory (``--model``) and the
                      places CANN and the engines write caches and logs (see ``cache_dirs``)
====================  =====================================================================

The open-file limit is read through a shell because ``ulimit`` is a shell builtin; the doctor's
own limit is inherited from the same login, so it is what a server started from that shell gets.
"""

from __future__ import annotations

import posixpath
import re
from typing import Dict, List, Mapping, Optional, Tuple

from msgspec import Struct

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.resources import DiskSpace, HostResources
from ascend_doctor.host.base import DiskUsage, HostFileError
from ascend_doctor.i18n import gettext as _
from ascend_doctor.lazy import lazy_re

GOVERNOR_PATH = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
THP_PATH = "/sys/kernel/mm/transparent_hugepage/enabled"
LIMITS_PATH = "/proc/self/limits"
ULIMIT_SOFT_COMMAND = ("sh", "-c", "ulimit -n")

_THP_SELECTED = lazy_re(r"\[(\w+)\]")
_LIMITS_NOFILE = lazy_re(r"^Max open files\s+(\S+)\s+(\S+)", re.M)


class CacheDir(Struct, frozen=True):
    """A place where operator/graph caches or logs are written, and the variable that moves it."""

    path: str
    what: str
    variable: Optional[str]  # the environment variable that sets it, when there is one


# -- pure parsers -----------------------------------------------------------------------------
def parse_thp(text: str) -> Optional[str]:
    """``always [madvise] never`` -> ``madvise``; a bare word (some kernels, containers) is kept."""
    text = (text or "").strip()
    match = _THP_SELECTED.search(text)
    if match:
        return match.group(1)
    words = text.split()
    return words[0] if len(words) == 1 and words[0].isalpha() else None


def parse_limit(text: str) -> Optional[int]:
    """``65535`` -> 65535, ``unlimited`` -> -1, anything else -> None."""
    word = (text or "").strip().splitlines()[0].strip() if (text or "").strip() else ""
    if word.lower() == "unlimited":
        return -1
    return int(word) if word.isdigit() and len(word) < 19 else None


def parse_proc_limits(text: str) -> Tuple[Optional[int], Optional[int]]:
    """(soft, hard) open-file limits from ``/proc/<pid>/limits``."""
    match = _LIMITS_NOFILE.search(text or "")
    if not match:
        return None, None
    return parse_limit(match.group(1)), parse_limit(match.group(2))


# -- where caches live ------------------------------------------------------------------------
def cache_dirs(env: Mapping[str, str]) -> List[CacheDir]:
    """Where CANN, torch_npu and the engines write during graph compilation and serving.

    Defaults (when the variable is unset) follow the CANN environment-variable reference:
    operator compile cache ``$HOME/atc_data`` (ASCEND_CACHE_PATH), work files and ``kernel_meta``
    in the working directory (ASCEND_WORK_PATH), logs under ``$HOME/ascend/log``
    (ASCEND_PROCESS_LOG_PATH); the model download caches of ModelScope and Hugging Face.
    """
    home = env.get("HOME") or "/root"
    found: List[CacheDir] = []

    def add(variable: Optional[str], default: Optional[str], what: str) -> None:
        value = env.get(variable, "") if variable else ""
        path = value.strip() or default
        if path and path.startswith("/"):
            found.append(CacheDir(posixpath.normpath(path), what, variable))

    add("ASCEND_CACHE_PATH", posixpath.join(home, "atc_data"), "operator compile cache")
    add("ASCEND_WORK_PATH", None, "CANN work files (kernel_meta)")
    add("ASCEND_PROCESS_LOG_PATH", posixpath.join(home, "ascend", "log"), "CANN logs (plog)")
    add("TORCHINDUCTOR_CACHE_DIR", None, "torch compile cache")
    add("MODELSCOPE_CACHE", posixpath.join(home, ".cache", "modelscope"), "ModelScope download cache")
    add("HF_HOME", posixpath.join(home, ".cache", "huggingface"), "Hugging Face download cache")
    add(None, "/tmp", "temporary files")
    return found


def _group_disks(entries: List[Tuple[str, str, Optional[DiskUsage]]]) -> Tuple[DiskSpace, ...]:
    """One DiskSpace per filesystem, listing every path found on it.

    A live host reports the nearest existing parent of each path, not its mount point, so paths
    on one filesystem are recognised by identical (total, free) figures; the shortest reported
    path names the group.
    """
    groups: Dict[Tuple[int, int], Tuple[List[str], List[str], List[str]]] = {}
    for path, what, usage in entries:
        if usage is None:
            continue
        mounts, holds, paths = groups.setdefault((usage.total_bytes, usage.free_bytes), ([], [], []))
        if usage.path not in mounts:
            mounts.append(usage.path)
        if what not in holds:
            holds.append(what)
        if path not in paths:
            paths.append(path)
    return tuple(DiskSpace(min(mounts, key=len), total, free, tuple(holds), tuple(paths))
                 for (total, free), (mounts, holds, paths) in groups.items())


# -- the provider -----------------------------------------------------------------------------
def _read_small(facts: Facts, path: str) -> Optional[str]:
    try:
        return facts.host.read_text(path, max_bytes=64 * 1024)
    except HostFileError:
        return None


def _nofile(facts: Facts) -> Tuple[Optional[int], Optional[int], Optional[str]]:
    soft: Optional[int] = None
    hard: Optional[int] = None
    source: Optional[str] = None
    result = facts.command(ULIMIT_SOFT_COMMAND)
    if result.ok:
        soft = parse_limit(result.stdout)
        if soft is not None:
            source = "`ulimit -n`"
    limits = _read_small(facts, LIMITS_PATH)
    if limits:
        p_soft, p_hard = parse_proc_limits(limits)
        hard = p_hard
        if soft is None and p_soft is not None:
            soft, source = p_soft, LIMITS_PATH
    return soft, hard, source


# Adaptive: the folders whose disk usage it asks depend on the environment (cache_dirs).
@provider("resources", reads=Reads(
    commands=(ULIMIT_SOFT_COMMAND,), files=(LIMITS_PATH, GOVERNOR_PATH, THP_PATH),
    host=("env", "memory", "cpu", "disks"), adaptive=True))
def resources(facts: Facts) -> HostResources:
    host = facts.host
    notes: List[str] = []
    governor_text = _read_small(facts, GOVERNOR_PATH)
    governor = governor_text.strip().split()[0] if governor_text and governor_text.strip() else None
    if governor_text is None:
        notes.append(_("{path} is absent (no cpufreq driver: a VM, a container, or fixed-frequency CPUs)").format(
            path=GOVERNOR_PATH))
    thp_text = _read_small(facts, THP_PATH)
    thp = parse_thp(thp_text) if thp_text else None

    soft, hard, source = _nofile(facts)

    env = dict(host.env())
    paths: List[Tuple[str, str]] = []
    if facts.options.model_dir:
        paths.append((facts.options.model_dir, "model weights"))
    for cache in cache_dirs(env):
        paths.append((cache.path, cache.what))
    entries = [(p, what, host.disk_usage(p)) for p, what in paths]
    return HostResources(
        memory=host.memory(), cpu_count=host.cpu_count(), governor=governor, thp=thp,
        nofile_soft=soft, nofile_hard=hard, nofile_source=source,
        disks=_group_disks(entries), notes=tuple(notes),
    )
