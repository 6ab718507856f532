"""ASC-DRV-002: the driver that runs is the driver that is installed."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._hdk import newer, reboot_action
from ._support import container_mount_command, in_container

CHECK = CheckSpec(
    id="ASC-DRV-002",
    title="Installed driver is the one running",
    requires=("npus", "fact:stack"),
    what=("Compares the version npu-smi reports (the running driver, or the npu-smi tool when the banner has no "
          "Version field) with the installed driver's version.info, and says which one is newer. With two driver "
          "stacks installed, the installed stack compared is the one the kernel runs."),
    why=("After a driver upgrade the old kernel module keeps running until the host reboots. Until then CANN and "
         "torch_npu are matched against a driver that is not the one answering, and the errors look like version "
         "mismatches that the installed files do not show. Inside a container a reboot of the container changes "
         "nothing, and a version.info baked into the image can be a stale copy."),
    fix=("Installed newer than running: reboot the host (not the container). Installed older than running inside a "
         "container: the container's version.info is a stale copy baked into the image — mount the host's file "
         "instead. Two stacks installed: see ASC-MIX-001."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    smi = ctx.facts.npu_smi
    running = ctx.facts.running_stack
    installed = running.driver.installed
    if not installed:
        yield Finding.skip(_("no readable driver version.info to compare with (ASC-DRV-001 says why)"))
        return
    live = running.driver.running
    where = running.driver_file.path if running.driver_file else "version.info"
    stale = [f.path for f in running.stale_drivers]
    # A clause added to the sentence it ends ("...; the other driver stack ... is stale").
    stale_note = (_("; the other driver stack ({paths}) is stale — ASC-MIX-001 says how to remove it").format(
        paths=", ".join(stale)) if stale else "")
    if live:
        if not running.driver.mismatch:
            text = (_("running driver {running} = installed {installed} ({path}){stale_note}") if live == installed else
                    _("running driver {running} is the same release as installed {installed} ({path}){stale_note}"))
            yield Finding.passed(text.format(running=live, installed=installed, path=where, stale_note=stale_note),
                                 running=live, installed=installed)
            return
        yield from _mismatch(ctx, live, installed, where, stale_note)
        return
    tool = smi.version
    if tool:
        from ascend_doctor.facts.records.running import same_release

        if same_release(tool, installed) is False:
            yield Finding.warn(
                _("npu-smi {tool} differs from the installed driver {installed}: either the host has not been "
                  "rebooted since the driver changed, or npu-smi comes from another package (mounted from a "
                  "different host path).").format(tool=tool, installed=installed),
                _("If the driver was changed since the last boot: reboot the host. In a container, mount npu-smi "
                  "from the same host driver: -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi"),
                npu_smi=tool, installed=installed)
            return
        yield Finding.passed(_("npu-smi {tool} matches installed driver {installed}").format(tool=tool,
                                                                                             installed=installed))
        return
    yield Finding.skip(_("npu-smi printed no version banner to compare"))


def _mismatch(ctx: HostCheckContext, live: str, installed: str, where: str, stale_note: str) -> Iterator[Finding]:
    container = in_container(ctx)
    evidence = {"running": live, "installed": installed, "in_container": container}
    if newer(installed, live) == installed:
        # The installed driver is newer: an upgrade waiting for the host's reboot.
        reboot = (_("Reboot the host (rebooting this container does not load a driver) so the installed driver "
                    "{installed} is the one running:") if container else
                  _("Reboot the host so the installed driver {installed} is the one running:"))
        yield Finding.fail(
            _("the running driver is {running}, but {installed} is installed ({path}): the newer driver is not loaded "
              "yet{stale_note}.").format(running=live, installed=installed, path=where, stale_note=stale_note),
            reboot.format(installed=installed) + "\n  reboot\n"
            + _("(after the reboot, `npu-smi info` shows Version: {installed})").format(installed=installed),
            **evidence).with_actions(reboot_action(ctx, _("load the installed driver {installed}").format(
                installed=installed)))
        return
    if container:
        mount = container_mount_command(ctx, ("version",))
        # The driver that runs is fine; a stale record misleads CANN's and torch_npu's version checks.
        yield Finding.warn(
            _("the host runs driver {running}, but this container's {path} says {installed} (older): the file is a "
              "stale copy baked into the image, not the host's.").format(running=live, path=where, installed=installed),
            _("Re-create the container with the host's version.info mounted instead of the image's copy:") + "\n  "
            + mount,
            **evidence).with_actions(FixAction("container", _("Mount the host's driver version.info into the "
                                                              "container"), (mount,), where="host"))
        return
    yield Finding.fail(
        _("the running driver {running} is newer than the installed {installed} ({path}){stale_note}: a downgrade "
          "waiting for a reboot, or a version.info left by another installation.").format(
              running=live, installed=installed, path=where, stale_note=stale_note),
        _("If the driver was rolled back on purpose, reboot the host to load it:") + "\n  reboot\n"
        + _("Otherwise the version.info belongs to another install: ascend-doctor check --select ASC-MIX lists the "
            "stacks installed."),
        **evidence)
