"""``/etc/ascend_install.info`` and CANN's ``ascend_<pkg>_install.info`` files.

``/etc/ascend_install.info`` (compat_facts §5.3) is written by the driver and firmware ``.run``
installers; readers (``set_env.sh``, the CANN runtime) take the driver root from
``Driver_Install_Path_Param`` and look for ``<that>/driver``. Keys are matched case-insensitively
because the shell readers use ``grep -i``.

CANN install files (§5.4)::

    package_name=Ascend-cann-toolkit
    version=8.2.RC1
    innerversion=V100R001C22SPC001B231
    compatible_version=[V100R001C15],[V100R001C18],...
    arch=aarch64
    os=linux
    path=/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux     (CANN <= 8.3)
    path=/usr/local/Ascend/cann-8.5.0/aarch64-linux                 (CANN >= 8.5)

The same reader serves ``ascend_toolkit_install.info``, ``ascend_nnae_install.info`` and
``ascend_ops_install.info``.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers.driver_firmware_info import CodeRange, parse_code_ranges
from ascend_doctor.parsers.version_text import JsonRecord, VersionFileError, capped, read_pairs

INSTALL_INFO_KIND = "/etc/ascend_install.info"
CANN_INFO_KIND = "CANN ascend_*_install.info"

_INSTALL_KEY = lazy_re(r"^(?P<component>.+?)_install_(?P<what>path_param|type|for_all|mode)$", re.I)
_ARCH_DIR = lazy_re(r"/(?P<arch>[A-Za-z0-9_]+)-linux/*$")


class AscendInstallInfo(JsonRecord, Struct, frozen=True):
    driver_install_path: Optional[str] = None  # Driver_Install_Path_Param: the root holding driver/
    firmware_install_path: Optional[str] = None  # Firmware_Install_Path_Param
    driver_install_type: Optional[str] = None  # full / run / devel ...
    firmware_install_type: Optional[str] = None
    driver_install_for_all: Optional[str] = None  # yes / no
    driver_install_mode: Optional[str] = None
    user_name: Optional[str] = None  # the run user, HwHiAiUser by default
    user_group: Optional[str] = None
    install_paths: Dict[str, str] = field(default_factory=dict)  # every <Component>_Install_Path_Param
    raw: Dict[str, str] = field(default_factory=dict)
    warnings: Tuple[str, ...] = ()

    @property
    def driver_dir(self) -> Optional[str]:
        """Where driver/version.info and driver/lib64 live: ``<Driver_Install_Path_Param>/driver``."""
        if not self.driver_install_path:
            return None
        return self.driver_install_path.rstrip("/") + "/driver"


def parse_ascend_install_info(text: str) -> AscendInstallInfo:
    """Parse ``/etc/ascend_install.info``. Raises :class:`VersionFileError` if it is not one."""
    pairs = read_pairs(text, INSTALL_INFO_KIND)
    install_paths: Dict[str, str] = {}
    recognised = False
    for key, value, _ in pairs.items:
        match = _INSTALL_KEY.match(key)
        if match:
            recognised = True
            if match.group("what").lower() == "path_param":
                install_paths[match.group("component")] = value
        elif key.lower() in ("username", "usergroup"):
            recognised = True
    if not recognised:
        raise pairs.fail("no *_Install_Path_Param, *_Install_Type or UserName line")
    return AscendInstallInfo(
        driver_install_path=pairs.value("Driver_Install_Path_Param"),
        firmware_install_path=pairs.value("Firmware_Install_Path_Param"),
        driver_install_type=pairs.value("Driver_Install_Type"),
        firmware_install_type=pairs.value("Firmware_Install_Type"),
        driver_install_for_all=pairs.value("Driver_Install_For_All"),
        driver_install_mode=pairs.value("Driver_Install_Mode"),
        user_name=pairs.value("UserName"),
        user_group=pairs.value("UserGroup"),
        install_paths=install_paths,
        raw=pairs.raw,
        warnings=pairs.warnings,
    )


class CannInstallInfo(JsonRecord, Struct, frozen=True):
    package_name: Optional[str] = None  # Ascend-cann-toolkit / Ascend-cann-nnae / Ascend-cann-950-ops
    version: Optional[str] = None  # 8.2.RC1, 8.5.0, 9.0.0-beta.1
    innerversion: Optional[str] = None  # V100R001C22SPC001B231
    compatible_version: Tuple[CodeRange, ...] = ()  # driver release codes this CANN accepts
    arch: Optional[str] = None  # arch=, else taken from the <arch>-linux end of path
    os: Optional[str] = None
    path: Optional[str] = None  # the versioned <arch>-linux directory
    home: Optional[str] = None  # path without its <arch>-linux part: what ASCEND_TOOLKIT_HOME names
    raw: Dict[str, str] = field(default_factory=dict)
    warnings: Tuple[str, ...] = ()

    @property
    def package_kind(self) -> Optional[str]:
        """``toolkit`` / ``nnae`` / ``950-ops``...: package_name without ``Ascend-cann-``."""
        if not self.package_name:
            return None
        name = self.package_name
        return name[len("Ascend-cann-"):] if name.lower().startswith("ascend-cann-") else name


_CANN_FOREIGN = {
    "compatible_version_fw": "a driver version.info",
    "ascendhal_version": "a driver version.info",
    "compatible_version_drv": "a firmware version.info",
    "version_dir": "a CANN component version.info",
    "Driver_Install_Path_Param": "/etc/ascend_install.info",
}


def parse_cann_install_info(text: str) -> CannInstallInfo:
    """Parse a CANN ``ascend_*_install.info``. Raises :class:`VersionFileError` if it is not one."""
    pairs = read_pairs(text, CANN_INFO_KIND)
    pairs.reject_foreign(("package_name",), _CANN_FOREIGN)
    if not (pairs.value("package_name") or pairs.value("version")):
        raise pairs.fail("no package_name= or version= line")
    warnings: List[str] = list(pairs.warnings)
    path = pairs.value("path")
    arch = pairs.value("arch")
    home = path
    if path:
        match = _ARCH_DIR.search(path)
        if match:
            home = path[: match.start()] or "/"
            if not arch:
                arch = match.group("arch")
            elif arch != match.group("arch"):
                warnings.append(f"arch={arch} but path ends in {match.group('arch')}-linux")
    return CannInstallInfo(
        package_name=pairs.value("package_name"),
        version=pairs.value("version"),
        innerversion=pairs.value("innerversion"),
        compatible_version=parse_code_ranges(pairs.get("compatible_version"), warnings),
        arch=arch,
        os=pairs.value("os"),
        path=path,
        home=home,
        raw=pairs.raw,
        warnings=capped(warnings),
    )


__all__ = [
    "AscendInstallInfo",
    "CannInstallInfo",
    "VersionFileError",
    "parse_ascend_install_info",
    "parse_cann_install_info",
]
