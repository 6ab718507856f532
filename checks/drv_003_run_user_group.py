"""ASC-DRV-003: the user that runs the NPU jobs may open the devices (root, the driver's group, or a
driver installed for all users)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, pipe, shaped

from ._context import HostCheckContext
from ._support import in_container

CHECK = CheckSpec(
    id="ASC-DRV-003",
    title="The run user may use the NPUs (root, in HwHiAiUser, or driver installed for all users)",
    requires=("fact:run_user",),
    what=("Reads `id` (the user running this check: run it as the user that will serve) and /etc/ascend_install.info "
          "(UserGroup, Driver_Install_For_All). A non-root user needs the driver's run group (HwHiAiUser unless the "
          "driver was installed with another --install-usergroup) unless the driver was installed with "
          "--install-for-all."),
    why=("The driver's device nodes and tools are owned by its run user and group. A non-root user outside that "
         "group gets 'Permission denied' on /dev/davinci*, npu-smi and DCMI fail (dcmi -8002, 'not permitted'), and "
         "torch_npu sees no device. Huawei's install guides create HwHiAiUser and install the driver with "
         "--install-for-all so that other users can run jobs."),
    fix=("usermod -aG HwHiAiUser <user> on the host (log in again so the new group applies), or reinstall the "
         "driver with --full --install-for-all. In a container, start it with --group-add <host gid of HwHiAiUser> "
         "or run as root."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    user = ctx.facts.run_user
    stack = ctx.facts.maybe(Facts.stack)
    info = getattr(getattr(stack, "install_info", None), "info", None)
    group = (getattr(info, "user_group", None) or "HwHiAiUser").strip() or "HwHiAiUser"
    for_all = (getattr(info, "driver_install_for_all", None) or "").strip().lower()
    name = user.user or str(user.uid)
    evidence = {"user": name, "uid": user.uid, "groups": [n or str(g) for g, n in user.groups],
                "driver_group": group, "driver_install_for_all": for_all or None}
    container = in_container(ctx)
    if not container and (stack is None or not getattr(stack, "drivers", ())):
        raise NotApplicable(_("no Ascend driver installed here (see ASC-DRV-001)"))
    if user.is_root:
        yield Finding.passed(_("runs as root (uid 0): the NPUs are open to it"), **evidence)
        return
    if user.in_group(group):
        yield Finding.passed(_("{user} is in the driver's group {group}").format(user=name, group=group), **evidence)
        return
    if for_all == "yes":
        yield Finding.passed(_("{user} is not in {group}, but the driver was installed for all users "
                               "(Driver_Install_For_All=yes)").format(user=name, group=group), **evidence)
        return
    message = (_("{user} (uid {uid}) is not root and not in the driver's group {group}, and the driver was not "
                 "installed for all users (Driver_Install_For_All=no): NPU access is denied to it.")
               if for_all == "no" else
               _("{user} (uid {uid}) is not root and not in the driver's group {group}, and /etc/ascend_install.info "
                 "does not say the driver was installed for all users: NPU access is denied to it.")).format(
        user=name, uid=user.uid, group=group)
    # The group name comes from /etc/ascend_install.info: only a group name goes into a command.
    word = shaped(group, "group", "UserGroup of /etc/ascend_install.info")
    gid = pipe(argv("getent", "group", word), argv("cut", "-d:", "-f3"))
    group_add = f"docker run --group-add $({gid}) ..."  # a fixed form around words argv quoted
    if container:
        fix = (_("On the host, re-create the container so {user} gets the host's {group} group id (the device "
                 "nodes belong to it):").format(user=name, group=group)
               + f"\n  {group_add}   # " + _("run on the host") + "\n"
               + _("or run the container as root."))
        action = FixAction("container", _("Give the container user the host's {group} group").format(group=group),
                           (group_add,), where="host")
    else:
        fix = (_("As root on the host, add {user} to {group}, then log in again (or start a new session) so the "
                 "group applies:").format(user=name, group=group)
               + "\n  " + argv("usermod", "-aG", word, name) + "\n"
               + _("or reinstall the driver with --full --install-for-all (an overwrite install: firmware first, then "
                   "driver; reboot)."))
        action = FixAction("system", _("Add {user} to the {group} group").format(user=name, group=group),
                           (argv("usermod", "-aG", word, name),), where="host")
    # Status: FAIL when the install record says "not for all"; WARN when the record cannot tell.
    status = Status.FAIL if for_all == "no" else Status.WARN
    yield Finding(status, message, fix, evidence, None, (action,))
