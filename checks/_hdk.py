"""Fix steps for the driver/firmware (HDK) checks, built so the report's fix plan can merge them.

Not a check (the registry skips ``_`` modules). Every HDK step names the HDK release it installs
(``FixAction.target``) and the releases that would fix its finding as well (``accepts``), so that
when MIX-003 wants the firmware's HDK and CANN-002 any HDK of the CANN's list, the plan picks the
one release that satisfies both instead of printing two contradicting steps (advice review §1 R1).
Direction: keep what runs and upgrade the older half; a rollback is only ever the alternative.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple, Union

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.versions import AscendVersion

from ._context import HostCheckContext
from ._stack_help import _package_sets, chip_family, hdk_commands

if TYPE_CHECKING:
    from ascend_doctor.parsers.driver_firmware_info import DriverVersionInfo, FirmwareVersionInfo

    from ._dcmi import Range


def newer(a: Optional[str], b: Optional[str]) -> Optional[str]:
    """The newer of two Ascend versions (None when neither parses)."""
    va, vb = AscendVersion.try_parse(a or ""), AscendVersion.try_parse(b or "")
    if va is None:
        return b if vb is not None else None
    if vb is None:
        return a
    return a if va.sort_key >= vb.sort_key else b


def family_hdk_versions(ctx: HostCheckContext) -> List[str]:
    """Driver file versions of the HDK releases the matrix names for this chip family."""
    family = chip_family(ctx)
    rows = getattr(ctx.matrix, "hdk_packages", None) or []
    return [r.driver for r in rows if getattr(r, "family", None) == family and getattr(r, "driver", None)]


def compatible_hdks(ctx: HostCheckContext, cann: Optional[str]) -> List[str]:
    """HDK releases of this family that the matrix says work with ``cann`` (recommended or compatible)."""
    if not cann:
        return []
    out: List[str] = []
    for version in family_hdk_versions(ctx):
        try:
            verdict = ctx.matrix.cann_vs_driver(cann, version)
        except Exception:
            continue
        kind = str(getattr(getattr(verdict, "kind", None), "value", "")).lower()
        if kind in ("recommended", "compatible") and not getattr(verdict, "uncertain", False):
            out.append(version)
    return out


def cann_version(ctx: HostCheckContext) -> Optional[str]:
    stack = ctx.facts.maybe(Facts.stack)
    env = ctx.facts.maybe(Facts.env) or {}
    toolkit = stack.active_toolkit(env) if stack is not None else None
    return toolkit.version if toolkit is not None else None


def driver_upgrade_lines(ctx: HostCheckContext, version: str) -> List[str]:
    """Only the driver of an HDK release, as an overwrite install (the firmware already matches)."""
    from ascend_doctor.matrix.packages import convention_flags

    names = [(pk.arch, pk.hdk_driver(version)) for pk in _package_sets(ctx)]
    known = [(arch, name) for arch, name in names if name]
    if not known:
        return [shellcmd.comment(_("the driver file of HDK {version} for this chip family: {lookup}").format(
            version=shellcmd.shaped(version, 'version'), lookup=_lookup(ctx, version)))]
    flags = convention_flags(ctx.matrix, "driver")
    lines = []
    for index, (arch, name) in enumerate(known):
        line = shellcmd.argv("./" + name, *flags.split())
        if len(known) > 1:
            line = shellcmd.with_comment(line, arch if index == 0 else _("or, on {arch}").format(arch=arch))
        lines.append(line)
    return lines


def hdk_action(ctx: HostCheckContext, version: str, summary: str, *, mode: str = "upgrade",
               accepts: Sequence[str] = (), direction: str = "upgrade", alternative: str = "",
               driver_only: bool = False) -> FixAction:
    """Install (or upgrade to) one HDK release on the host, then one reboot (a separate step)."""
    if driver_only:
        commands = driver_upgrade_lines(ctx, version)
    else:
        commands = [line for line in hdk_commands(ctx, version, mode, reboot=False).split("\n") if line]
    return FixAction("hdk", summary, tuple(commands), where="host", target=version.lower(), direction=direction,
                     alternative=alternative, subject="driver+firmware", accepts=tuple(a.lower() for a in accepts))


def reboot_action(ctx: HostCheckContext, why: str) -> FixAction:
    """``why``: what the reboot does, translated by the caller ("load the upgraded driver")."""
    from ._support import in_container

    if in_container(ctx):
        summary = (_("Reboot the host on the host (rebooting a container does not reload the driver or activate "
                     "firmware): {why}") if why else
                   _("Reboot the host on the host (rebooting a container does not reload the driver or activate "
                     "firmware)"))
    else:
        summary = _("Reboot the host: {why}") if why else _("Reboot the host")
    return FixAction("reboot", summary.format(why=why).rstrip(": "), ("reboot",), where="host")


def hdk_of_firmware(ctx: HostCheckContext, firmware: Optional[str]) -> Optional[str]:
    """The HDK release (driver file version) whose firmware is ``firmware``, for this family."""
    family = chip_family(ctx)
    for row in getattr(ctx.matrix, "hdk_packages", None) or []:
        if getattr(row, "family", None) == family and getattr(row, "firmware", None) == firmware:
            return str(row.driver)
    return None


def ranges_of(info: Union[DriverVersionInfo, FirmwareVersionInfo, None], attr: str) -> List[Range]:
    return [tuple(r) for r in (getattr(info, attr, None) or ())]


def align_hdk(ctx: HostCheckContext, driver_version: str, firmware_hdk: Optional[str]) -> Tuple[str, List[FixAction]]:
    """One HDK for both halves: upgrade the older half to the newer half's release (never a downgrade of
    what is newer); the rollback is stated as the alternative. Returns (remediation text, actions)."""
    from ._stack_help import firmware_file

    cann = cann_version(ctx)
    accepted = compatible_hdks(ctx, cann)
    target = newer(driver_version, firmware_hdk) if firmware_hdk else driver_version
    target = target or driver_version
    rollback = firmware_file(ctx, driver_version)
    if firmware_hdk and target != driver_version:
        # The firmware is the newer half: bring the driver to the firmware's HDK.
        usable = not cann or not accepted or any(v.lower() == target.lower() for v in accepted)
        alternative = (_("roll the firmware back to driver {driver}'s HDK instead (firmware first, then reboot): "
                         "{command}").format(driver=driver_version, command=shellcmd.argv("./" + rollback, "--full"))
                       if rollback else "")
        if usable:
            action = hdk_action(ctx, target, _("Upgrade the driver to HDK {target}, the release of the installed "
                                               "firmware").format(target=target),
                                driver_only=True, accepts=[target], alternative=alternative)
            text = (_("Upgrade the driver to the firmware's HDK release (the firmware already matches it), then "
                      "reboot the host:")
                    + "\n  " + "\n  ".join(action.commands) + "\n  reboot"
                    + ("\n" + _("or, to keep driver {driver}, {alternative}").format(driver=driver_version,
                                                                                   alternative=alternative)
                       if alternative else ""))
            return text, [action, reboot_action(ctx, _("load the upgraded driver"))]
        # The firmware's HDK does not fit the CANN: bring the whole HDK to one the CANN accepts.
        fit = accepted[-1]
        action = hdk_action(ctx, fit, _("Install HDK {hdk} (driver and firmware) for CANN {cann}").format(
            hdk=fit, cann=cann), accepts=accepted)
        text = (_("Driver and firmware disagree and the firmware's HDK {hdk} is not one CANN {cann} supports: "
                  "install one HDK release CANN {cann} supports (upgrade order: firmware, then driver), then reboot "
                  "the host:").format(hdk=target, cann=cann)
                + "\n  " + "\n  ".join(action.commands) + "\n  reboot")
        return text, [action, reboot_action(ctx, _("load the new driver and activate the firmware"))]
    # The driver is the newer (or the same) release: install its firmware.
    fw = firmware_file(ctx, driver_version)
    commands = (shellcmd.argv("./" + fw, "--full"),) if fw else (
        shellcmd.comment(_("the firmware of HDK {version} for this chip: {lookup}").format(
            version=shellcmd.shaped(driver_version, 'version'), lookup=_lookup(ctx, driver_version))),)
    action = FixAction("hdk", _("Install the firmware of driver {driver}'s HDK release").format(driver=driver_version),
                       commands, where="host", target=driver_version.lower(), direction="upgrade",
                       subject="driver+firmware", accepts=(driver_version.lower(),))
    text = (_("Install the firmware shipped with driver {driver}'s HDK, then reboot the host:").format(
        driver=driver_version) + "\n  " + "\n  ".join(commands) + "\n  reboot")
    return text, [action, reboot_action(ctx, _("activate the firmware"))]


def _lookup(ctx: HostCheckContext, version: str) -> str:
    """``ascend-doctor matrix lookup --driver V --chip F``, quoted (the version may come from the machine)."""
    family = chip_family(ctx)
    return shellcmd.argv("ascend-doctor", "matrix", "lookup", "--driver", version, "--chip",
                         family or shellcmd.Placeholder("chip"))
