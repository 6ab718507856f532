"""What a serving container can see of its own `docker run` flags (ASC-CTR-005).

Observable from inside: the size of ``/dev/shm`` (``--shm-size``; Docker's default is 64 MB),
the ``/dev/davinciN`` nodes (``--device``, fact ``device_nodes``), and the host files multi-node
serving mounts: ``hccn_tool`` (``-v /usr/local/Ascend/driver/tools/hccn_tool:...``) and
``/etc/hccn.conf``. Host networking (``--net=host``) leaves no reliable trace inside a container,
so it is named in the fix but never judged.
"""

from __future__ import annotations

import posixpath
from typing import List

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.serving_mounts import ServingMounts
from ascend_doctor.host.base import HostFileError

SHM = "/dev/shm"
HCCN_CONF = "/etc/hccn.conf"
HCCN_TOOL_REL = "driver/tools/hccn_tool"


def _exists(facts: Facts, path: str) -> bool:
    try:
        return bool(facts.host.exists(path))
    except HostFileError:
        return False


# Adaptive: it asks the usage of /dev/shm itself, which only running it records (host.json disks).
@provider("serving_mounts", reads=Reads(present=("{root}/" + HCCN_TOOL_REL, HCCN_CONF), host=("disks",),
                                         adaptive=True))
def serving_mounts(facts: Facts) -> ServingMounts:
    usage = facts.host.disk_usage(SHM)
    # A host answers with the closest recorded parent ("/"): only /dev/shm's own size counts.
    shm = usage.total_bytes if usage is not None and posixpath.normpath(usage.path) == SHM else None
    stack = facts.maybe(Facts.stack)
    roots: List[str] = [getattr(stack, "driver_root", None) or "/usr/local/Ascend"]
    roots += [r for r in getattr(stack, "roots", ()) or () if r not in roots]
    if "/usr/local/Ascend" not in roots:
        roots.append("/usr/local/Ascend")
    paths = tuple(posixpath.join(root, HCCN_TOOL_REL) for root in roots)
    tool = next((p for p in paths if _exists(facts, p)), None)
    return ServingMounts(shm, tool, paths, _exists(facts, HCCN_CONF))
