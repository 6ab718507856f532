"""CANN's ``version.cfg`` and per-component ``version.info`` files (compat_facts §5.5).

``<toolkit>/latest/version.cfg``::

    # version: 1.0
    runtime_running_version=[7.6.0.1.220:8.0.0]
    runtime_upgrade_version=[7.6.0.1.220:8.0.0]
    runtime_installed_version=[7.7.T9.0.B057:8.1.T6][7.7.T20.0.B210:8.1.RC1]

Each value is ``[<internal build>:<CANN version>]``; ``installed`` lists every version ever
installed, oldest first (vllm-ascend#629), so its last entry is the newest.

Component ``version.info`` (``toolkit/``, ``opp/``, ``opp_kernel/``, ``runtime/``...)::

    Version=8.2.0.0.201
    version_dir=8.2.RC1
    ops_version=8.2.0.0.201
    required_package_opp_kernel_version=">=7.6, <=8.2"
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers.version_text import (
    JsonRecord,
    NamedFields,
    VersionFileError,
    capped,
    read_pairs,
    safe_version,
)

VERSION_CFG_KIND = "CANN version.cfg"
COMPONENT_KIND = "CANN component version.info"

_CFG_KEY = lazy_re(r"^(?P<component>[A-Za-z0-9_]+?)_(?P<state>running|upgrade|installed)_version$", re.I)
_CFG_ENTRY = lazy_re(r"\[([^\[\]]*)\]")
_REQUIRED_KEY = lazy_re(r"^required_package_(?P<package>.+)_version$", re.I)


class CfgVersion(NamedFields, Tuple[str, Optional[str]]):
    """One ``[internal_build:cann_version]`` entry; ``cann_version`` is None when there is no ``:``."""

    __slots__ = ()
    _fields = ("internal_build", "cann_version")

    def __new__(cls, internal_build: str, cann_version: Optional[str]) -> CfgVersion:
        return tuple.__new__(cls, (internal_build, cann_version))

    @property
    def internal_build(self) -> str:
        return self[0]

    @property
    def cann_version(self) -> Optional[str]:
        return self[1]


class VersionCfg(JsonRecord, Struct, frozen=True):
    running: Dict[str, CfgVersion] = field(default_factory=dict)  # component -> entry
    upgrade: Dict[str, CfgVersion] = field(default_factory=dict)
    installed: Dict[str, CfgVersion] = field(default_factory=dict)  # the newest (last) installed entry
    installed_history: Dict[str, Tuple[CfgVersion, ...]] = field(default_factory=dict)  # oldest first
    cann_version: Optional[str] = None  # the most common running CANN version (see parse_version_cfg)
    raw: Dict[str, str] = field(default_factory=dict)
    warnings: Tuple[str, ...] = ()


def _cfg_entries(value: str) -> Tuple[CfgVersion, ...]:
    entries: List[CfgVersion] = []
    for inner in _CFG_ENTRY.findall(value):
        build, colon, cann = inner.strip().partition(":")
        if build.strip() or cann.strip():
            entries.append(CfgVersion(build.strip(), (cann.strip() or None) if colon else None))
    return tuple(entries)


def _most_common(entries: Dict[str, CfgVersion]) -> Optional[str]:
    counts = Counter(e.cann_version for e in entries.values() if e.cann_version)
    # ties: first seen in the file. most_common(1)'s answer (heapq.nlargest(1) is max()) without the
    # heapq import most_common makes (start-up)
    return max(counts.items(), key=lambda item: item[1])[0] if counts else None


def parse_version_cfg(text: str) -> VersionCfg:
    """Parse ``version.cfg``. Raises :class:`VersionFileError` if it is not one.

    ``cann_version`` is the CANN version most components are *running*; when no running entry
    has one it falls back to the newest installed, then the upgrade entries.
    """
    pairs = read_pairs(text, VERSION_CFG_KIND)
    maps: Dict[str, Dict[str, CfgVersion]] = {"running": {}, "upgrade": {}, "installed": {}}
    history: Dict[str, Tuple[CfgVersion, ...]] = {}
    warnings = list(pairs.warnings)
    for key, value, number in pairs.items:
        match = _CFG_KEY.match(key)
        if not match:
            warnings.append(f"line {number}: unknown key {key!r}")
            continue
        entries = _cfg_entries(value)
        if not entries:
            warnings.append(f"line {number}: {key} has no [build:version] entry: {value!r}")
            continue
        component, state = match.group("component"), match.group("state").lower()
        maps[state][component] = entries[-1]
        if state == "installed":
            history[component] = entries
        elif len(entries) > 1:
            warnings.append(f"line {number}: {key} has {len(entries)} entries; the last is used")
    if not any(maps.values()):
        raise pairs.fail("no <component>_running/upgrade/installed_version=[build:version] line")
    cann = _most_common(maps["running"]) or _most_common(maps["installed"]) or _most_common(maps["upgrade"])
    return VersionCfg(running=maps["running"], upgrade=maps["upgrade"], installed=maps["installed"],
                      installed_history=history, cann_version=cann, raw=pairs.raw, warnings=capped(warnings))


class ComponentVersionInfo(JsonRecord, Struct, frozen=True):
    version: Optional[str] = None  # Version=8.2.0.0.201 (an internal build number for CANN >= 8.2)
    version_dir: Optional[str] = None  # 8.2.RC1 (or "cann" in 8.5+/9.x packaging)
    cann_release: Optional[str] = None  # the CANN release this component belongs to (see parser)
    timestamp: Optional[str] = None
    ops_version: Optional[str] = None
    required_packages: Dict[str, str] = field(default_factory=dict)  # opp_kernel -> ">=7.6, <=8.2"
    raw: Dict[str, str] = field(default_factory=dict)
    warnings: Tuple[str, ...] = ()


_COMPONENT_FOREIGN = {
    "package_name": "a CANN ascend_*_install.info",
    "innerversion": "a driver version.info or a CANN ascend_*_install.info",
    "compatible_version_fw": "a driver version.info",
    "compatible_version_drv": "a firmware version.info",
    "Driver_Install_Path_Param": "/etc/ascend_install.info",
}


def parse_component_version_info(text: str) -> ComponentVersionInfo:
    """Parse a CANN component ``version.info``. Raises :class:`VersionFileError` if it is not one.

    ``cann_release`` is ``version_dir`` when that is a version (``8.2.RC1``); when ``version_dir``
    is a plain name (``cann`` in 9.x packages, whose ``Version=`` is the release) it is
    ``Version``; otherwise None, because ``Version=8.2.0.0.201`` is a build number, not a release.
    """
    pairs = read_pairs(text, COMPONENT_KIND)
    pairs.reject_foreign(("version_dir",), _COMPONENT_FOREIGN)
    version, version_dir = pairs.value("Version"), pairs.value("version_dir")
    if not (version or version_dir):
        raise pairs.fail("no Version= or version_dir= line")
    required: Dict[str, str] = {}
    for key, value, _ in pairs.items:
        match = _REQUIRED_KEY.match(key)
        if match:
            required[match.group("package")] = value
    if safe_version(version_dir):
        release = version_dir
    elif version_dir and safe_version(version):
        release = version
    else:
        release = None
    return ComponentVersionInfo(version=version, version_dir=version_dir, cann_release=release,
                                timestamp=pairs.value("timestamp"), ops_version=pairs.value("ops_version"),
                                required_packages=required, raw=pairs.raw, warnings=pairs.warnings)


__all__ = [
    "CfgVersion",
    "ComponentVersionInfo",
    "VersionCfg",
    "VersionFileError",
    "parse_component_version_info",
    "parse_version_cfg",
]
