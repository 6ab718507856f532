"""ASC-CTR-002: inside a container, the driver files the Ascend stack expects are mounted."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import Placeholder, argv, with_comment

from ._context import HostCheckContext

# The control devices every Ascend container is given next to its /dev/davinciN (vllm-ascend installation.md).
CONTROL_DEVICES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")

CHECK = CheckSpec(
    id="ASC-CTR-002",
    title="Container has the host driver mounts",
    what=("Inside a container, checks the mounts the vLLM-Ascend / CANN image docs pass to docker run: "
          "/usr/local/dcmi, npu-smi, the driver's lib64, driver/version.info and /etc/ascend_install.info; each "
          "missing one is named with its -v flag."),
    why=("The driver lives on the host; images carry only CANN. Without driver lib64 nothing loads "
         "libascend_hal.so; without /etc/ascend_install.info set_env.sh and the runtime cannot find the driver "
         "root; without version.info torch_npu cannot report the driver; without dcmi and npu-smi there is no "
         "monitoring, and a missing /usr/local/dcmi has been reported to give npu-smi's -8020 error."),
    fix=("docker run ... -v /usr/local/dcmi:/usr/local/dcmi -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi "
         "-v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ "
         "-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info "
         "-v /etc/ascend_install.info:/etc/ascend_install.info"),
)


def _expected(driver_root: str) -> List[Tuple[Tuple[str, ...], str, Status, str]]:
    """(paths any of which satisfies it, -v value, status when missing, what breaks)."""
    lib64 = f"{driver_root}/driver/lib64"
    info = f"{driver_root}/driver/version.info"
    return [
        ((lib64,), f"{lib64}/:{lib64}/", Status.FAIL, _("the runtime cannot load libascend_hal.so")),
        (("/etc/ascend_install.info",), "/etc/ascend_install.info:/etc/ascend_install.info", Status.FAIL,
         _("set_env.sh and the runtime cannot find the driver root")),
        ((info,), f"{info}:{info}", Status.WARN, _("torch_npu and the doctor cannot read the driver version")),
        (("/usr/local/dcmi",), "/usr/local/dcmi:/usr/local/dcmi", Status.WARN,
         _("npu-smi cannot talk to the devices (reported as error -8020)")),
        (("/usr/local/bin/npu-smi", "/usr/local/sbin/npu-smi", "/usr/bin/npu-smi"),
         "/usr/local/bin/npu-smi:/usr/local/bin/npu-smi", Status.WARN, _("no npu-smi inside the container")),
    ]


def _recreate(devices: List[int], volume: str) -> str:
    """The ``docker run`` that re-creates this container with ``volume`` mounted: with the NPU devices it has
    now when they are known (a re-created container without them has no NPU), else a note to keep them."""
    words: List[str] = ["docker", "run"]
    for n in devices:
        words += ["--device", f"/dev/davinci{int(n)}"]
    if devices:
        for control in CONTROL_DEVICES:
            words += ["--device", control]
    words += ["-v", volume, Placeholder("image"), "..."]
    note = (_("keep the container's other flags (environment, volumes, ports)") if devices else
            _("keep the container's --device flags (/dev/davinciN, davinci_manager, devmm_svm, hisi_hdc) and its "
              "other flags"))
    return with_comment(argv(*words), note)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    container = ctx.facts.container
    if not container.in_container:
        if not container.known:
            require_stated(ctx.facts, _("whether this ran in a container"))
        raise NotApplicable(_("not running inside a container"))
    # Pasted text shows no mount table: a path it does not list may well be mounted.
    require_stated(ctx.facts, _("the container's mounts (the host paths under /usr/local/Ascend, /etc)"))
    stack = ctx.facts.maybe(Facts.stack)
    driver_root = getattr(stack, "driver_root", None) or "/usr/local/Ascend"
    mounted = ctx.facts.mount_paths
    smi = ctx.facts.maybe(Facts.npu_smi_result)
    smi_found = smi is not None and getattr(getattr(smi, "status", None), "value", "") != "not_found"
    missing: List[Tuple[str, str, Status, str]] = []
    present: List[str] = []
    for paths, flag, status, breaks in _expected(driver_root):
        if any(mounted.get(p, False) for p in paths) or ("npu-smi" in flag and smi_found):
            present.append(paths[0])
        else:
            missing.append((paths[0], flag, status, breaks))

    nodes = ctx.facts.maybe(Facts.device_nodes)
    devices = sorted(int(n) for n in getattr(nodes, "davinci", None) or ())
    listed = ctx.facts.maybe(Facts.npu_smi)
    smi_works = listed is not None and bool(listed.devices)
    for path, flag, status, breaks in missing:
        if path == "/usr/local/dcmi" and smi_works:
            # npu-smi did talk to the devices in this very run (advice review row 18): nothing is broken now.
            status = Status.INFO
            breaks = _("npu-smi works here, but tools built on DCMI (npu-exporter, some engines' health probes) "
                       "look for its libraries there")
        command = _recreate(devices, flag)
        yield Finding(status, _("{path} is not mounted in this container: {breaks}.").format(path=path, breaks=breaks),
                      _("Re-create the container (on the host) with: {command}").format(command=command),
                      {"path": path, "flag": "-v " + flag, "devices": [f"/dev/davinci{n}" for n in devices]},
                      path).with_actions(
            FixAction("container", _("Re-create the container with the host's {path} mounted").format(
                path=path), (command,), where="host"))
    if not missing:
        yield Finding.passed(_("container ({runtime}) has the driver mounts: {paths}").format(
            runtime=container.runtime or _("unknown runtime"), paths=", ".join(present)))
