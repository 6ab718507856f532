"""ASC-SMI-001: npu-smi answers and lists the NPUs."""

from __future__ import annotations

import re
from typing import Iterator

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, Status
from ascend_doctor.facts import FactUnavailable
from ascend_doctor.facts.npu import CommandResult, CommandStatus
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import N_, _, ngettext
from ascend_doctor.lazy import lazy_re

from ._context import HostCheckContext
from ._support import container_mount_command, driver_install_hint, in_container

CHECK = CheckSpec(
    id="ASC-SMI-001",
    title="npu-smi answers and lists the NPUs",
    what="Runs `npu-smi info` (with a timeout) and reads its device table.",
    why=("npu-smi talks to the driver through DCMI. If it is missing, hangs, or reports the device as used, "
         "nothing else on the machine (CANN, torch_npu, MindIE, vLLM-Ascend) will be able to open the NPUs."),
    fix=("Missing: install the Ascend driver on the host (or mount npu-smi and /usr/local/dcmi into the container). "
         "Hung: the driver is in a bad state; look at `dmesg`, reload the driver or reboot. "
         "'-8020' (device is used): another container or process holds the NPUs; on the host, "
         "`cat /proc/uda/namespace_node` shows the owning process; stop it, or give each container its own NPUs. "
         "'-8005' right after a driver or firmware upgrade: reboot the host."),
)

# compat_facts.md §7: "dcmi model initialized failed, because the device is used. ret is -8020",
# "dcmi module initialize failed. ret is -8005" (vllm-ascend #632, #2698)
_DEVICE_USED = lazy_re(r"ret is -80(20|05)|device is used", re.I)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    result: CommandResult = ctx.facts.npu_smi_result
    text = f"{result.stdout}\n{result.stderr}"
    if result.status is CommandStatus.NOT_FOUND:
        require_stated(ctx.facts, _("the output of `npu-smi info`"))  # pasted text without the table: SKIP
        fix = driver_install_hint(ctx)
        if in_container(ctx):
            # Never install a driver inside a container: it comes from the host.
            fix = (_("This is a container: re-create it (on the host) with the host's driver tools and devices "
                     "mounted:") + "\n  " + container_mount_command(ctx, ("devices", "driver", "npu-smi")) + "\n"
                   + _("(if the host itself has no driver, install it there first)"))
        yield Finding.fail(_("`npu-smi` is not installed: no Ascend driver on this machine (or not mounted into this "
                             "container)."), fix)
        return
    if result.status is CommandStatus.TIMEOUT:
        yield Finding.fail(
            _("`npu-smi info` did not answer within {seconds} s and was killed. A hung npu-smi means the driver or a "
              "device is in a bad state.").format(seconds=f"{result.timeout_s:g}"),
            _("Look for driver errors: {command}").format(
                command="dmesg | grep -i -E 'davinci|drv_|npu|hdc' | tail -50")
            + "\n" + _("Then reload the driver or reboot the server; if it persists, reinstall the driver and firmware "
                       "of one HDK release."),
            command=result.command_line, waited_s=result.timeout_s)
        return
    code = _DEVICE_USED.search(text)
    if code and "8005" in code.group(0):
        # -8005: DCMI could not initialise; right after an upgrade that means the new driver or firmware is not
        # active yet (MindCluster FAQ), not that someone else holds the device.
        yield Finding.fail(
            _("npu-smi could not initialise the devices ({code}).").format(code=code.group(0)),
            _("If the driver or firmware was installed or upgraded since the last boot: reboot the host.") + "\n"
            + _("Otherwise another process may hold the devices: on the host, cat /proc/uda/namespace_node"),
            output=text.strip()[-500:])
        return
    if code:
        yield Finding.fail(
            _("npu-smi reports the device is used by someone else ({code}): another container or a host process holds "
              "these NPUs.").format(code=code.group(0)),
            _("On the host: {command}   # find root_tgid of the process holding the device").format(
                command="cat /proc/uda/namespace_node") + "\n"
            "  " + shellcmd.with_comment(shellcmd.argv("ps", "-o", "pid,cmd", "-p", shellcmd.Placeholder("root_tgid")),
                                         _("then stop that process, or its container (docker ps)")) + "\n  docker ps\n"
            + _("Give each container its own NPUs (--device /dev/davinciN per container). --privileged exposes every "
                "device and the host to the container: not a fix for sharing."),
            output=text.strip()[-500:]).with_actions(FixAction(
                "system", _("Find and stop what holds the NPUs"),
                ("cat /proc/uda/namespace_node   # " + N_("root_tgid of the process holding the device"),
                 shellcmd.with_comment(shellcmd.argv("ps", "-o", "pid,cmd", "-p", shellcmd.Placeholder("root_tgid")),
                                       N_("then stop that process, or its container (docker ps)")),
                 shellcmd.argv("docker", "ps")), where="host"))
        return
    if result.status is CommandStatus.PERMISSION_DENIED:
        yield Finding.fail(_("`npu-smi info` was refused: permission denied."),
                           _("Run as root, or add the user to the driver's group: usermod -aG HwHiAiUser $USER "
                             "(log in again afterwards)."), output=text.strip()[-300:])
        return
    if not result.ok and not result.stdout.strip():
        yield Finding.fail(_("npu-smi failed: {why}").format(why=result.describe_failure()),
                           _("Check the driver: dmesg | grep -i davinci | tail -50; reinstall the driver of your "
                             "HDK release and reboot if the error persists."), output=text.strip()[-500:])
        return
    try:
        info = ctx.facts.npu_smi
    except FactUnavailable as exc:
        yield Finding(Status.WARN, exc.reason,
                      _("ascend-doctor does not know this npu-smi layout. Please attach the output of "
                        "`npu-smi info` to a bug report; device checks are skipped meanwhile."),
                      {"output_head": result.stdout[:800]})
        return
    if not info.devices:
        yield Finding.fail(_("npu-smi answered but lists no NPU."),
                           _("Check that the cards are seen on the PCI bus: lspci | grep -i -E 'd801|d802|d500'; "
                             "in a container, pass the devices: --device /dev/davinci0 ..."))
        return
    npus = len(info.npu_ids)
    chips = len(info.devices)
    names = sorted({d.name for d in info.devices})
    version = f" {info.version}" if info.version else ""
    layout = (ngettext("{npus} NPU ({chips} chips)", "{npus} NPUs ({chips} chips)", npus) if chips != npus else
              ngettext("{npus} NPU", "{npus} NPUs", npus)).format(npus=npus, chips=chips)
    summary = (_("npu-smi{version} lists {layout}: {names}; tolerated: {warnings}") if info.warnings else
               _("npu-smi{version} lists {layout}: {names}")).format(
        version=version, layout=layout, names=", ".join(names), warnings="; ".join(info.warnings))
    yield Finding.passed(summary, npus=npus, chips=chips, names=names)
