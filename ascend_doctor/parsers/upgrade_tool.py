"""Output of ``upgrade-tool --device_index -1 --component -1 --version``.

``/usr/local/Ascend/driver/tools/upgrade-tool`` prints, per device and firmware component, a
status line and a JSON-like record whose values are not quoted::

    Get component version(7.1.0.7.220) succeed for deviceId(0), componentType(0).
    {"device_id":0, "component":nve, "version":7.1.0.7.220}

so records are read with patterns, not ``json``. A device whose components disagree is one
whose firmware upgrade did not finish everywhere.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers.version_text import JsonRecord, VersionFileError

UPGRADE_TOOL_KIND = "upgrade-tool --version output"

_RECORD = lazy_re(
    r'\{\s*"device_id"\s*:\s*"?(?P<device>[0-9]{1,6})"?\s*,\s*"component"\s*:\s*"?(?P<component>[A-Za-z0-9_\-]{1,32})"?'
    r'\s*,\s*"version"\s*:\s*"?(?P<version>[^",}\s]{1,64})"?\s*\}'
)
_STATUS = lazy_re(
    r"Get component version\((?P<version>[^)]{0,64})\)\s*(?P<result>\w+)\s+for\s+deviceId\((?P<device>[0-9]{1,6})\)"
    r"\s*,\s*componentType\((?P<type>[0-9]{1,6})\)",
    re.I,
)


class DeviceComponentVersion(JsonRecord, Struct, frozen=True):
    device_id: int
    component: str  # nve / uefi / imu / imp ...
    version: str
    component_type: Optional[int] = None  # the componentType(N) of the preceding status line


class UpgradeToolVersions(JsonRecord, Struct, frozen=True):
    components: Tuple[DeviceComponentVersion, ...] = ()
    warnings: Tuple[str, ...] = ()

    def by_device(self) -> Dict[int, Dict[str, str]]:
        """device id → component → version."""
        result: Dict[int, Dict[str, str]] = {}
        for item in self.components:
            result.setdefault(item.device_id, {})[item.component] = item.version
        return result

    def versions(self) -> Tuple[str, ...]:
        """Distinct versions, in order of appearance (one when every component agrees)."""
        seen: List[str] = []
        for item in self.components:
            if item.version not in seen:
                seen.append(item.version)
        return tuple(seen)


def parse_upgrade_tool_versions(text: str) -> UpgradeToolVersions:
    """Parse upgrade-tool's component version listing. Raises :class:`VersionFileError` if none is found."""
    if not isinstance(text, str):
        raise VersionFileError(UPGRADE_TOOL_KIND, f"expected text, got {type(text).__name__}")
    if not text.strip():
        raise VersionFileError(UPGRADE_TOOL_KIND, "the output is empty")
    if "\x00" in text:
        raise VersionFileError(UPGRADE_TOOL_KIND, "binary data (NUL byte)")
    components: List[DeviceComponentVersion] = []
    warnings: List[str] = []
    pending_type: Dict[Tuple[int, str], int] = {}  # (device, version) -> componentType from a status line
    first: Optional[Tuple[int, str]] = None
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if first is None:
            first = (number, line)
        status = _STATUS.search(line)
        if status:
            if status.group("result").lower() != "succeed":
                warnings.append(f"line {number}: {line[:120]}")
            else:
                pending_type[(int(status.group("device")), status.group("version"))] = int(status.group("type"))
            continue
        for record in _RECORD.finditer(line):
            device, version = int(record.group("device")), record.group("version")
            components.append(DeviceComponentVersion(device, record.group("component"), version,
                                                     pending_type.pop((device, version), None)))
        if "fail" in line.lower() and not status:
            warnings.append(f"line {number}: {line[:120]}")
    if not components:
        problem = 'no {"device_id":…, "component":…, "version":…} record'
        if first is None:
            raise VersionFileError(UPGRADE_TOOL_KIND, problem)
        raise VersionFileError(UPGRADE_TOOL_KIND, problem, first[0], first[1])
    return UpgradeToolVersions(tuple(components), tuple(warnings))


__all__ = ["DeviceComponentVersion", "UpgradeToolVersions", "VersionFileError", "parse_upgrade_tool_versions"]
