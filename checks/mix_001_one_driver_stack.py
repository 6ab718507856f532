"""ASC-MIX-001: one driver and one firmware installation, not two stacks side by side."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Sequence, Union

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.lazy import lazy_re
from ascend_doctor.shellcmd import argv, comment, with_comment

from ._context import HostCheckContext
from ._stack_help import hdk_commands, same_release

if TYPE_CHECKING:
    from ascend_doctor.facts.records.stack import ParsedFile
    from ascend_doctor.parsers.driver_firmware_info import DriverVersionInfo, FirmwareVersionInfo

    DriverFile = ParsedFile[DriverVersionInfo]
    FirmwareFile = ParsedFile[FirmwareVersionInfo]
    VersionFile = ParsedFile[Union[DriverVersionInfo, FirmwareVersionInfo]]

# Huawei's driver/firmware uninstall scripts, one per package (hiascend, 卸载驱动固件):
# <root>/driver/script/uninstall.sh and <root>/firmware/script/uninstall.sh, run as root.
UNINSTALL_SOURCE = ("https://hiascend.com/doc_center/source/zh/300Vtest/300VG/300V_0067.html (卸载驱动固件: "
                    "/usr/local/Ascend/driver/script/uninstall.sh, /usr/local/Ascend/firmware/script/uninstall.sh)")
# A root path that can go into the sed expression as it is ('#' is its separator).
_PLAIN_ROOT = lazy_re(r"/[A-Za-z0-9._/+-]*")
INSTALL_INFO = "/etc/ascend_install.info"

CHECK = CheckSpec(
    id="ASC-MIX-001",
    title="Only one driver/firmware stack is installed",
    what=("Looks for driver/version.info and firmware/version.info under every Ascend install root "
          "(Driver_Install_Path_Param of /etc/ascend_install.info, /usr/local/Ascend, ~/Ascend and the roots "
          "named by ASCEND_HOME_PATH) and FAILs when more than one driver or firmware installation is found."),
    why=("Huawei's install guides uninstall the old driver and firmware before installing another "
         "(/usr/local/Ascend/driver/script/uninstall.sh); a second installation laid over the first on another "
         "path leaves two driver trees of which only one runs, and which one a library loads depends on paths. "
         "Ascend stacks do not coexist the way CUDA versions do. "
         "Related: ASC-DRV-002 compares the running driver with the installed one (a pending reboot)."),
    fix=("Keep the driver the kernel runs (npu-smi's Version) and uninstall the other drivers (<root>/driver/script/"
         "uninstall.sh); keep the firmware of the running driver (npu-smi info -t board says which runs; never the "
         "only firmware package) and uninstall only stale firmware (<root>/firmware/script/uninstall.sh); point "
         "/etc/ascend_install.info at what is kept, clear the operator caches ($HOME/atc_data, the kernel_meta "
         "folders of the engines' working directories), and reboot last. When which stack runs is not known, "
         "uninstall every stack and install one driver+firmware pair of the HDK your CANN pairs with. Source: "
         + UNINSTALL_SOURCE),
)


def _root(path: str) -> str:
    return posixpath.dirname(posixpath.dirname(path))


def _version(parsed: VersionFile, kind: str) -> str:
    info = getattr(parsed, "info", None)
    version = getattr(info, "package_version", None) if kind == "firmware" else None
    return str(version or getattr(info, "version", None) or _("unreadable: {error}").format(
        error=getattr(parsed, "error", "?")))


def _home(ctx: HostCheckContext) -> str:
    """The absolute home folder of the run (the operator caches live there), /root when unknown."""
    home = str((ctx.facts.maybe(Facts.env) or {}).get("HOME", ""))
    return home if home.startswith("/") and "\n" not in home else "/root"


def _cache_lines(ctx: HostCheckContext) -> List[str]:
    """Absolute cache paths (advice review 2, P19): never ./kernel_meta*, which depends on the shell's folder."""
    return [with_comment(argv("rm", "-rf", posixpath.join(_home(ctx), "atc_data")),
                         _("the CANN operator compile cache, built against the mixed stack")),
            comment(_("also delete the kernel_meta* folders in the working directories the engines ran from"))]


def _same_firmware(parsed: VersionFile, running: str) -> bool:
    """Whether a firmware version.info is the firmware npu-smi info -t board reports running (its firmware number,
    or the HDK package version it records)."""
    info = getattr(parsed, "info", None)
    return any(same_release(str(v), running) for v in (getattr(info, "version", None),
                                                         getattr(info, "package_version", None)) if v)


class _Keep:
    """What stays: the running driver, and the firmware that belongs to it, with how that is known."""

    def __init__(self, ctx: HostCheckContext) -> None:
        stack = ctx.facts.stack
        running = ctx.facts.running_stack
        self.drivers: List[DriverFile] = list(stack.drivers)
        self.firmwares: List[FirmwareFile] = list(stack.firmwares)
        self.driver: Optional[DriverFile] = (running.driver_file if running.driver.running is not None
                                             and running.driver_file is not None else None)
        self.firmware: Optional[FirmwareFile] = None
        self.firmware_basis = ""  # "npu-smi board" | "beside the running driver" | "the only firmware package"
        running_fw = running.firmware.running
        if running_fw and running.firmware_file is not None and _same_firmware(running.firmware_file, running_fw):
            self.firmware, self.firmware_basis = running.firmware_file, "npu-smi board"
        elif len(self.firmwares) == 1:
            self.firmware, self.firmware_basis = self.firmwares[0], "the only firmware package"
        elif self.driver is not None:
            beside = [f for f in self.firmwares if _root(f.path) == _root(self.driver.path)]
            if beside:
                self.firmware, self.firmware_basis = beside[0], "beside the running driver"

    @property
    def known(self) -> bool:
        return self.driver is not None

    def stale_drivers(self) -> List[DriverFile]:
        return [f for f in self.drivers if f is not self.driver]

    def stale_firmwares(self) -> List[FirmwareFile]:
        return [f for f in self.firmwares if f is not self.firmware] if self.firmware is not None else []


def _remove_stale(ctx: HostCheckContext, keep: _Keep) -> List[str]:
    """Uninstall the stale drivers and the stale firmware only, point install.info at what is kept, clear the
    caches, reboot last (advice review 2, P4/P19)."""
    assert keep.driver is not None
    lines: List[str] = [comment(_("stop every job and container using the NPUs (see `npu-smi info`), then as "
                                  "root:"))]
    for driver in keep.stale_drivers():
        lines.append(argv(posixpath.join(_root(driver.path), "driver", "script", "uninstall.sh")))
    for firmware in keep.stale_firmwares():
        lines.append(argv(posixpath.join(_root(firmware.path), "firmware", "script", "uninstall.sh")))
    driver_root = _root(keep.driver.path)
    firmware_root = _root(keep.firmware.path) if keep.firmware is not None else None
    if all(_PLAIN_ROOT.fullmatch(r) for r in (driver_root, firmware_root) if r is not None):
        edits = [f"s#^Driver_Install_Path_Param=.*#Driver_Install_Path_Param={driver_root}#"]
        if firmware_root is not None:
            edits.append(f"s#^Firmware_Install_Path_Param=.*#Firmware_Install_Path_Param={firmware_root}#")
        lines.append(argv("sed", "-i", "; ".join(edits), INSTALL_INFO))
    else:
        lines.append(comment(_("edit {file} by hand: Driver_Install_Path_Param is the kept driver's root").format(
            file=INSTALL_INFO)))
    lines += _cache_lines(ctx)
    lines.append(with_comment(argv("reboot"), _("last: the kernel then loads only the kept driver")))
    return lines


def _clean_reinstall(ctx: HostCheckContext, keep: _Keep) -> List[str]:
    """Which stack runs is not known: uninstall every recorded driver and firmware, install one HDK, reboot last."""
    lines: List[str] = [comment(_("1. stop every job and container using the NPUs (see `npu-smi info`), then as "
                                  "root:"))]
    for root in sorted({_root(f.path) for f in keep.drivers}):
        lines.append(argv(posixpath.join(root, "driver", "script", "uninstall.sh")))
    for root in sorted({_root(f.path) for f in keep.firmwares}):  # only stacks that record a firmware
        lines.append(argv(posixpath.join(root, "firmware", "script", "uninstall.sh")))
    lines.append(with_comment(argv("rm", "-f", INSTALL_INFO), _("only if the uninstallers left it behind")))
    lines.append(comment(_("2. install ONE driver and the firmware of the SAME Ascend HDK release (the one your "
                           "CANN pairs with), driver first:")))
    lines += [line for line in hdk_commands(ctx, getattr(ctx.facts.stack, "driver_version", None), "first",
                                            reboot=False).split("\n") if line]
    lines += _cache_lines(ctx)
    lines.append(with_comment(argv("reboot"), _("last: load the new driver and activate the firmware")))
    return lines


def _describe(kind: str, files: Sequence[VersionFile], keep: _Keep) -> str:
    kept = keep.driver if kind == "driver" else keep.firmware
    labels: Dict[str, str] = {
        "npu-smi board": _("running, npu-smi info -t board"),
        "beside the running driver": _("kept: beside the running driver"),
        "the only firmware package": _("kept: the only firmware package"),
    }
    parts = []
    for parsed in files:
        if not keep.known:
            label = "?"
        elif parsed is kept:
            label = _("running") if kind == "driver" else labels.get(keep.firmware_basis, _("kept"))
        else:
            label = _("stale")
        parts.append(f"{getattr(parsed, 'path', '?')} ({_version(parsed, kind)}, {label})")
    return "; ".join(parts)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    stack = ctx.facts.stack
    drivers, firmwares = list(stack.drivers), list(stack.firmwares)
    if not drivers and not firmwares:
        yield Finding.skip(_("no driver or firmware version.info found (ASC-DRV-001 says what to install)"))
        return
    keep = _Keep(ctx)
    mixed = [kind for kind, files in (("driver", drivers), ("firmware", firmwares)) if len(files) > 1]
    if not mixed:
        where = ", ".join(f.path for f in drivers + firmwares)
        yield Finding.passed(_("one driver and one firmware installation ({paths})").format(paths=where))
        return
    # What the kernel runs is the stack to keep (advice review row 5); the firmware of the running driver stays.
    lines = _remove_stale(ctx, keep) if keep.known else _clean_reinstall(ctx, keep)
    fix = "\n".join(lines)
    commands = tuple(line for line in lines if not line.startswith("#"))
    for kind in mixed:
        files = drivers if kind == "driver" else firmwares
        evidence: Dict[str, object] = {"kind": kind, "paths": [f.path for f in files],
                                       "uninstall": [w for w in commands if w.endswith("uninstall.sh")],
                                       "source": UNINSTALL_SOURCE}
        if keep.known:
            assert keep.driver is not None
            driver_root = _root(keep.driver.path)
            evidence.update(keep=driver_root, keep_firmware=_root(keep.firmware.path) if keep.firmware else None,
                            firmware_basis=keep.firmware_basis or None)
            message = (_("{count} driver installations found: {found}. The kernel runs the one under {keep}; the "
                         "others are leftovers: a library may load the wrong one.") if kind == "driver" else
                       _("{count} firmware installations found: {found}. The driver runs from {keep}; the other "
                         "firmware packages are leftovers: a library may load the wrong one."))
            yield Finding.fail(message.format(count=len(files), found=_describe(kind, files, keep), keep=driver_root),
                               fix, **evidence).with_actions(
                FixAction("hdk", _("Remove the stale driver/firmware package(s); keep the running driver under "
                                   "{keep}").format(keep=driver_root), commands, where="host", subject="stale stack"))
            continue
        message = (_("{count} driver installations found: {found}; which one runs is not known here (npu-smi gave "
                     "no version). A library may load the wrong one.") if kind == "driver" else
                   _("{count} firmware installations found: {found}; which one runs is not known here (npu-smi gave "
                     "no version). A library may load the wrong one."))
        yield Finding.fail(message.format(count=len(files), found=_describe(kind, files, keep)), fix, **evidence)
