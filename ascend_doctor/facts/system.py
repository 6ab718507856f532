"""Facts about the OS around the stack: device nodes, containers, visible-device variables."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.system import ContainerInfo, DeviceNodes, VisibleDevices
from ascend_doctor.host.base import HostFileError
from ascend_doctor.lazy import lazy_re

DEVICE_CONTROL_NODES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")
_DAVINCI_RE = lazy_re(r"^davinci(\d+)$")


@provider("device_nodes", reads=Reads(present=DEVICE_CONTROL_NODES, listings=("/dev",)))
def device_nodes(facts: Facts) -> DeviceNodes:
    host = facts.host
    try:
        names = host.listdir("/dev")
    except HostFileError:
        names = []
    davinci = sorted(int(m.group(1)) for m in (_DAVINCI_RE.match(n) for n in names) if m)
    control = {node: host.exists(node) for node in DEVICE_CONTROL_NODES}
    return DeviceNodes(tuple(davinci), control)


@provider("container", reads=Reads(
    files=("/proc/1/cgroup",), present=("/.dockerenv", "/run/.containerenv"), host=("env",)))
def container(facts: Facts) -> ContainerInfo:
    host = facts.host
    env = host.env()
    evidence: List[str] = []
    runtime: Optional[str] = None
    if host.exists("/.dockerenv"):
        evidence.append("/.dockerenv exists")
        runtime = "docker"
    if host.exists("/run/.containerenv"):
        evidence.append("/run/.containerenv exists")
        runtime = runtime or "podman"
    if env.get("KUBERNETES_SERVICE_HOST"):
        evidence.append("KUBERNETES_SERVICE_HOST is set")
        runtime = "kubernetes"
    if env.get("container"):
        evidence.append(f"container={env['container']} in the environment")
        runtime = runtime or env["container"]
    try:
        cgroup = host.read_text("/proc/1/cgroup", max_bytes=64 * 1024)
    except HostFileError:
        cgroup = ""
    for word, name in (("kubepods", "kubernetes"), ("docker", "docker"), ("containerd", "containerd"),
                       ("libpod", "podman"), ("lxc", "lxc")):
        if word in cgroup:
            evidence.append(f"/proc/1/cgroup mentions {word}")
            runtime = runtime or name
            break
    from ascend_doctor.facts.origin import PASTED_TEXT, origin_kind

    if origin_kind(facts) != PASTED_TEXT:
        return ContainerInfo(bool(evidence), runtime, tuple(evidence))
    # A paste has no /proc/1/cgroup: the variables the Ascend Docker Runtime sets in its containers
    # are the evidence it can hold. Without any, whether it ran in a container is not known.
    from ascend_doctor.parsers.pasted import CONTAINER_ENV_HINTS

    evidence += [f"{name} is set in the pasted environment" for name in CONTAINER_ENV_HINTS if name in env]
    return ContainerInfo(bool(evidence), runtime, tuple(evidence), known=bool(evidence))


def parse_device_list(text: str) -> Tuple[int, ...]:
    """``0,1,2`` / ``0-3`` / ``1,2,3,4,5,6,7,0`` -> ids, in the order given. ValueError on junk."""
    ids: List[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        if "-" in part:
            lo, _, hi = part.partition("-")
            a, b = int(lo), int(hi)
            if b < a or b - a > 4096:
                raise ValueError(f"bad range {part!r}")
            ids.extend(range(a, b + 1))
        else:
            ids.append(int(part))
    return tuple(ids)


@provider("visible_devices", reads=Reads(host=("env",)))
def visible_devices(facts: Facts) -> VisibleDevices:
    env = facts.host.env()
    errors: List[str] = []
    parsed: Dict[str, Optional[Tuple[int, ...]]] = {}
    for var in ("ASCEND_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"):
        raw = env.get(var)
        parsed[var] = None
        if raw is None or raw.strip() == "" or raw.strip().lower() == "all":
            continue
        try:
            parsed[var] = parse_device_list(raw)
        except ValueError:
            errors.append(f"{var}={raw!r} is not a list of device numbers")
    return VisibleDevices(parsed["ASCEND_VISIBLE_DEVICES"], env.get("ASCEND_VISIBLE_DEVICES"),
                          parsed["ASCEND_RT_VISIBLE_DEVICES"], env.get("ASCEND_RT_VISIBLE_DEVICES"), tuple(errors))


# Paths the container docs mount from the host (compat_facts.md §5.8), besides the driver's own
# lib64 and version.info under the driver root.
HOST_MOUNT_PATHS = ("/etc/ascend_install.info", "/usr/local/dcmi", "/usr/local/bin/npu-smi",
                    "/usr/local/sbin/npu-smi", "/usr/bin/npu-smi")


@provider("mount_paths", reads=Reads(present=("{root}/driver/lib64", "{root}/driver/version.info", *HOST_MOUNT_PATHS)))
def mount_paths(facts: Facts) -> Dict[str, bool]:
    """Whether each host-provided path the stack expects exists here (inside a container: is mounted)."""
    stack = facts.maybe(Facts.stack)
    root = getattr(stack, "driver_root", None) or "/usr/local/Ascend"
    paths = (f"{root}/driver/lib64", f"{root}/driver/version.info", *HOST_MOUNT_PATHS)
    present: Dict[str, bool] = {}
    for path in paths:
        try:
            present[path] = facts.host.exists(path)
        except HostFileError:  # a refused snapshot path: not usable, so not mounted
            present[path] = False
    return present


@provider("processes", reads=Reads(host=("processes",)))
def processes(facts: Facts) -> Optional[List[object]]:
    """Processes visible here (None when unknown, e.g. a snapshot without them)."""
    procs = facts.host.processes()
    return list(procs) if procs is not None else None
