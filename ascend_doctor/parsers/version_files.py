"""Parsers for the Ascend version and install files: one import for every caller.

Each ``parse_*`` function takes ONE file's text and returns a frozen dataclass with
``to_dict()``, a ``raw`` key → value map and ``warnings`` (duplicate keys, skipped lines,
malformed entries). Input that is not that kind of file -- empty, binary, no recognised key,
or obviously another kind of version file -- raises :class:`VersionFileError` (a ``ValueError``
whose message names the problem and the first offending line); no other exception escapes.

================================  =========================================  =================================
file                              parser                                     record
================================  =========================================  =================================
driver/version.info               :func:`parse_driver_version_info`           :class:`DriverVersionInfo`
firmware/version.info             :func:`parse_firmware_version_info`         :class:`FirmwareVersionInfo`
/etc/ascend_install.info          :func:`parse_ascend_install_info`           :class:`AscendInstallInfo`
ascend_{toolkit,nnae,ops}_        :func:`parse_cann_install_info`             :class:`CannInstallInfo`
install.info
<toolkit>/latest/version.cfg      :func:`parse_version_cfg`                   :class:`VersionCfg`
<toolkit>/<component>/version.info :func:`parse_component_version_info`       :class:`ComponentVersionInfo`
nnal/atb, mindie, atb-models      :func:`parse_colon_version_info`            :class:`ColonVersionInfo`
version.info (``key : value``)
upgrade-tool ... --version        :func:`parse_upgrade_tool_versions`         :class:`UpgradeToolVersions`
collect_env.py / env dumps        :func:`parse_collect_env`                   :class:`CollectEnv`
================================  =========================================  =================================

Compatibility helpers: :func:`firmware_accepts_driver`, :func:`driver_accepts_firmware`,
:func:`driver_firmware_compatible`, :func:`codes_accept`, :func:`cann_driver_codes_compatible`
(semantics documented in :mod:`ascend_doctor.parsers.driver_firmware_info`).
"""

from __future__ import annotations

from ascend_doctor.parsers.cann_component_info import (
    CfgVersion,
    ComponentVersionInfo,
    VersionCfg,
    parse_component_version_info,
    parse_version_cfg,
)
from ascend_doctor.parsers.collect_env import CollectEnv, parse_collect_env
from ascend_doctor.parsers.colon_version_info import ColonVersionInfo, parse_colon_version_info
from ascend_doctor.parsers.driver_firmware_info import (
    CodeRange,
    DriverVersionInfo,
    FirmwareVersionInfo,
    cann_driver_codes_compatible,
    codes_accept,
    driver_accepts_firmware,
    driver_firmware_compatible,
    firmware_accepts_driver,
    parse_driver_version_info,
    parse_firmware_version_info,
)
from ascend_doctor.parsers.install_info import (
    AscendInstallInfo,
    CannInstallInfo,
    parse_ascend_install_info,
    parse_cann_install_info,
)
from ascend_doctor.parsers.upgrade_tool import (
    DeviceComponentVersion,
    UpgradeToolVersions,
    parse_upgrade_tool_versions,
)
from ascend_doctor.parsers.version_text import VersionFileError

__all__ = [
    "AscendInstallInfo",
    "CannInstallInfo",
    "CfgVersion",
    "CodeRange",
    "CollectEnv",
    "ColonVersionInfo",
    "ComponentVersionInfo",
    "DeviceComponentVersion",
    "DriverVersionInfo",
    "FirmwareVersionInfo",
    "UpgradeToolVersions",
    "VersionCfg",
    "VersionFileError",
    "cann_driver_codes_compatible",
    "codes_accept",
    "driver_accepts_firmware",
    "driver_firmware_compatible",
    "firmware_accepts_driver",
    "parse_ascend_install_info",
    "parse_cann_install_info",
    "parse_collect_env",
    "parse_colon_version_info",
    "parse_component_version_info",
    "parse_driver_version_info",
    "parse_firmware_version_info",
    "parse_upgrade_tool_versions",
    "parse_version_cfg",
]
