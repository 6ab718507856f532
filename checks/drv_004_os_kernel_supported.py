"""ASC-DRV-004: the host OS is in the NPU driver's support list and the driver is loaded in the running
kernel."""

from __future__ import annotations

from typing import Any, Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import absence_is_evidence
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import hdk_commands

CHECK = CheckSpec(
    id="ASC-DRV-004",
    title="Host OS is in the driver's support list and the driver is loaded in the running kernel",
    requires=("not-container",),
    what=("Compares the host OS (os-release) and architecture with the operating systems Huawei lists for the "
          "NPU driver of this chip family (compat_matrix/os_support.yaml, every entry with its source; where a "
          "source gives the package's default kernel, `uname -r` is compared with it), and checks that an installed "
          "driver answers in the running kernel (npu-smi and /dev/davinci_manager)."),
    why=("The driver is a kernel module: on an OS or kernel outside Huawei's list the binary package does not "
         "install, and a source (DKMS) build needs the running kernel's headers, gcc and dkms. A kernel update "
         "(`yum update`) followed by a reboot leaves a driver built for the old kernel unloaded: no "
         "/dev/davinci*, npu-smi fails (hiascend install guides, \"确认操作系统和内核版本\")."),
    fix=("OS not listed: check the support list of your server's HDK release (install guide, 支持的操作系统) before "
         "installing; move to a listed OS if it is not there. Driver not loaded in this kernel: install dkms, gcc "
         "and the headers of `uname -r`, reinstall the driver (overwrite install) and reboot."),
)


def _deps_command(host_os: str) -> str:
    lowered = host_os.lower()
    if "ubuntu" in lowered or "debian" in lowered:
        return "apt-get install -y dkms gcc make linux-headers-$(uname -r)"
    return "yum install -y dkms gcc make kernel-devel-$(uname -r) kernel-headers-$(uname -r)"


def _loaded(ctx: HostCheckContext) -> Optional[bool]:
    """True when the driver answers here, False when installed but silent, None when not judged."""
    smi = ctx.facts.maybe(Facts.npu_smi)
    if smi is not None and smi.devices:
        return True
    nodes = ctx.facts.maybe(Facts.device_nodes)
    if nodes is not None and (nodes.davinci or nodes.control.get("/dev/davinci_manager")):
        return True
    result = ctx.facts.maybe(Facts.npu_smi_result)
    if result is not None and getattr(getattr(result, "status", None), "value", "") == "timeout":
        return None  # a hung npu-smi: the module is there but unwell (ASC-SMI-001)
    return False


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.matrix.os_support import MATCH, families, find, load_os_support

    info = ctx.facts.host_info
    host_os = (info.os or "").strip()
    kernel = (info.kernel or "").strip()
    arch = (info.arch or "").strip() or None
    stack = ctx.facts.maybe(Facts.stack)
    installed = bool(getattr(stack, "drivers", ()))
    chip = ctx.facts.maybe(Facts.npu_chip)
    family = getattr(chip, "family", None)
    yielded = False

    # Pasted text that does not show npu-smi or /dev proves nothing about the module.
    loaded = _loaded(ctx) if installed and absence_is_evidence(ctx.facts) else None
    if installed and loaded is False:
        yielded = True
        version = getattr(stack, "driver_version", None)
        deps = _deps_command(host_os)
        shown_kernel = kernel or _("(unknown)")
        fix = (_("The driver {version} is installed but not loaded in the running kernel {kernel} -- typical after a "
                 "kernel update. Build it for this kernel: install the build tools and headers, reinstall the driver "
                 "(an overwrite install: firmware first, then driver) and reboot:").format(
                     version=version or "", kernel=shown_kernel)
               + "\n  " + deps + "\n" + hdk_commands(ctx, version, "upgrade") + "\n"
               + _("After the reboot `npu-smi info` must list the NPUs."))
        yield Finding(Status.WARN, _("driver {version} is installed but does not answer in the running kernel "
                                     "{kernel}: no /dev/davinci_manager and npu-smi lists no NPU.").format(
                          version=version or _("(version unknown)"), kernel=shown_kernel),
                      fix, {"kernel": kernel, "driver": version}, None,
                      (FixAction("system", _("Install dkms, gcc and the headers of the running kernel"), (deps,),
                                 where="host"),))

    entries = load_os_support()
    if not host_os:
        if not yielded:
            raise NotApplicable(_("the host's OS (os-release) is not known here"))
        return
    if not family:
        if not yielded:
            raise NotApplicable(_("the NPU family is not known (npu-smi lists no NPU), so no support list "
                                  "applies"))
        return
    if family not in families(entries):
        if not yielded:
            raise NotApplicable(_("no OS support list for {family} NPUs is recorded (compat_matrix/os_support.yaml "
                                  "has {families})").format(family=family, families=", ".join(families(entries))))
        return
    matches = find(entries, family, host_os, arch)
    full = [m for m in matches if m.kind == MATCH]
    listed = _listed(entries, family)
    look = "cat /etc/os-release; uname -r   # " + _("compare with the support list of your server's HDK release "
                                                   "(install guide, 支持的操作系统)")
    action = FixAction("system", _("Check the OS and kernel against the support list of the HDK release"),
                       ("cat /etc/os-release; uname -r",), where="host")
    if full:
        best = full[0]
        note = ""
        if best.supported.kernel and kernel and kernel != best.supported.kernel:
            # A clause added to the end of the sentence below.
            note = _("; the running kernel {kernel} is not the package's default {default}, so the driver is built "
                     "from source at install time (needs dkms, gcc and this kernel's headers)").format(
                         kernel=kernel, default=best.supported.kernel)
        yield Finding.passed(_("{os} ({arch}) is listed for {family} as {label} ({release}; {source}){note}").format(
            os=host_os, arch=arch or _("arch unknown"), family=family, label=best.supported.label,
            release=best.entry.release, source=best.entry.source, note=note),
            os=host_os, kernel=kernel, source=best.entry.source)
        return
    if matches:
        labels = sorted({m.supported.label for m in matches})
        yield Finding(Status.WARN, _("{os} cannot be confirmed against the {family} driver's support list: it "
                                     "lists {labels}, and os-release does not say which of these this is.").format(
                          os=host_os, family=family, labels=", ".join(labels)),
                      look, {"os": host_os, "candidates": labels,
                             "sources": sorted({m.entry.source for m in matches})}, None, (action,))
        return
    yield Finding(Status.WARN, _("{os} ({arch}) is not in the support list we know for {family} NPUs "
                                 "({listed}).").format(os=host_os, arch=arch or _("arch unknown"), family=family,
                                                       listed=", ".join(listed)),
                  _("Not a proof that it fails: our list is what the sources we read show. Check the support list "
                    "of your server's HDK release before installing or upgrading the driver:") + f"\n  {look}",
                  {"os": host_os, "kernel": kernel, "known": listed}, None, (action,))


def _listed(entries: Any, family: str) -> List[str]:
    out: List[str] = []
    for entry in entries:
        if entry.family != family:
            continue
        for supported in entry.os:
            if supported.label not in out:
                out.append(supported.label)
    return out
