"""ASC-CTR-001: the NPU device nodes exist (/dev/davinciN and the three control nodes)."""

from __future__ import annotations

from typing import Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import hdk_commands
from ._support import container_mount_command

CHECK = CheckSpec(
    id="ASC-CTR-001",
    title="NPU device nodes present",
    what=("Lists /dev/davinciN and checks /dev/davinci_manager, /dev/devmm_svm and /dev/hisi_hdc. In a "
          "container each missing node is named with the `docker run --device` flag that adds it."),
    why=("The runtime opens /dev/davinciN for each NPU and the three control nodes for management, shared "
         "memory and host-device communication. Without them npu-smi and torch_npu see no device "
         "(`drvGetDevNum ... drvRetCode=87`, device count 0) even though the driver is fine."),
    fix=("Container: add --device /dev/davinciN (one per NPU) --device /dev/davinci_manager --device "
         "/dev/devmm_svm --device /dev/hisi_hdc to docker run. Host: the nodes appear when the driver is loaded; "
         "reboot after installing it, or reinstall the driver."),
)

CONTROL_NODES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    nodes = ctx.facts.device_nodes
    container = ctx.facts.maybe(Facts.container)
    in_container = bool(getattr(container, "in_container", False))
    stack = ctx.facts.maybe(Facts.stack)
    has_driver = bool(getattr(stack, "drivers", ()))
    present_control = [n for n, ok in nodes.control.items() if ok]
    if not nodes.davinci and not present_control and not has_driver and not in_container:
        require_stated(ctx.facts, _("the /dev/davinci* device nodes"))
        raise NotApplicable(_("no Ascend driver and no NPU device node on this machine"))
    missing = [n for n in CONTROL_NODES if not nodes.control.get(n)]
    if missing or not nodes.davinci:
        require_stated(ctx.facts, _("the /dev/davinci* device nodes"))
    problems: List[str] = []
    if not nodes.davinci:
        problems.append(_("no /dev/davinciN node"))
    problems += [_("{node} is missing").format(node=n) for n in missing]
    if not problems:
        listed = ", ".join(f"davinci{i}" for i in nodes.davinci)
        yield Finding.passed(_("/dev/{{{listed}}} and {nodes} present").format(listed=listed,
                                                                               nodes=", ".join(CONTROL_NODES)),
                             davinci=list(nodes.davinci))
        return
    if in_container:
        # Every device node of the job and the control nodes, on one line (a comment never sits inside it).
        command = container_mount_command(ctx, ("devices",))
        yield Finding.fail(
            _("inside this container {problems}: the NPU runtime cannot open the devices.").format(
                problems="; ".join(problems)),
            _("Re-create the container (on the host) with the NPU device nodes:") + "\n  " + command,
            missing=missing, davinci=list(nodes.davinci)).with_actions(
                FixAction("container", _("Re-create the container with the NPU device nodes"),
                          (command,), where="host"))
        return
    reinstall = hdk_commands(ctx, getattr(stack, "driver_version", None), "upgrade")
    yield Finding.fail(
        _("{problems} on this host: the driver module is not loaded (or failed to create its nodes).").format(
            problems="; ".join(problems)),
        _("Load the installed driver: reboot (after a driver install the nodes appear on the next boot); if they "
          "still do not, reinstall its HDK (an overwrite install: firmware first, then driver; `dmesg | grep -i "
          "davinci` shows why the module failed):") + "\n" + reinstall,
        missing=missing, davinci=list(nodes.davinci))
