"""``/usr/local/Ascend/driver/version.info`` and ``/usr/local/Ascend/firmware/version.info``.

Driver file (compat_facts §5.1)::

    Version=25.0.rc1.1
    ascendhal_version=7.35.23
    Innerversion=V100R001C21SPC002B220
    compatible_version=[V100R001C17],[V100R001C18],...
    compatible_version_fw=[7.0.0,7.7.99]
    package_version=25.0.rc1.1          (missing in some older files)

Firmware file (§5.2): ``Version`` is the firmware number (``7.7.0.1.231``), not the HDK number,
which is ``package_version``; ``compatible_version_drv=[23.0.0,23.0.0.],[24.1,24.1.]``.

How the two range kinds are read -- both mirror the driver's own compatibility check (DCMI
``dcmi_get_device_compatibility`` / ``dcmi_judge_compatibility`` in Huawei's open-source driver
management library), which reports the pair compatible when EITHER side accepts the other:

* ``compatible_version_drv`` ``[lo,hi]`` (:func:`firmware_accepts_driver`): DCMI cuts the driver
  version to the length of the longer bound and compares the strings byte-wise,
  ``lo <= cut <= hi``. So a trailing dot means "this prefix, then anything": ``[24.1,24.1.]``
  accepts ``24.1`` and every ``24.1.*`` (``24.1.rc2.2``, ``24.1.0``) but not ``24.10`` or
  ``24.2``; ``[23.0.0,23.0.0.]`` accepts ``23.0.0`` and its ``23.0.0.x`` patches but not ``23.0.7``.
  We compare in lower case so ``24.1.RC2`` (marketing spelling) matches ``24.1.rc2`` lists.
* ``compatible_version_fw`` ``[7.0.0,7.7.99]`` (:func:`driver_accepts_firmware`): inclusive range
  on dotted numbers, each bound constraining only as many components as it has, so
  ``7.7.0.1.231`` is inside ``[7.0.0,7.7.99]`` and ``7.7.99.5`` too. (DCMI compares strings;
  the results agree for every version seen, and numbers are safer for ``7.10`` vs ``7.9``.)
* ``compatible_version`` release codes ``[V100R001C17]`` or ranges ``[V100R001C13,V100R001C19]``
  are kept as :class:`CodeRange` pairs (a single code is ``low == high``). Reading the two-item
  form as an inclusive range is an inference from the samples (compat_facts §1.3).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers.version_text import (
    JsonRecord,
    NamedFields,
    Pairs,
    VersionFileError,
    bracket_groups,
    capped,
    read_pairs,
    safe_release_code,
)

DRIVER_KIND = "driver version.info"
FIRMWARE_KIND = "firmware version.info"

# Keys only that kind of file has (CANN install files have innerversion too, so it is no marker).
_DRIVER_MARKERS = ("ascendhal_version", "compatible_version_fw")
_FIRMWARE_MARKERS = ("compatible_version_drv", "firmware_version")
_CANN_MARKERS = {
    "package_name": "a CANN ascend_*_install.info",
    "version_dir": "a CANN component version.info",
    "Driver_Install_Path_Param": "/etc/ascend_install.info",
}
_NUMBER = lazy_re(r"^[0-9]{1,9}$")


class CodeRange(NamedFields, Tuple[str, str]):
    """One ``compatible_version`` entry: ``[C17]`` is ``(C17, C17)``, ``[C13,C19]`` is ``(C13, C19)``."""

    __slots__ = ()
    _fields = ("low", "high")

    def __new__(cls, low: str, high: str) -> CodeRange:
        return tuple.__new__(cls, (low, high))

    @property
    def low(self) -> str:
        return self[0]

    @property
    def high(self) -> str:
        return self[1]

    @property
    def is_single(self) -> bool:
        return self.low == self.high

    def contains(self, code: str) -> Optional[bool]:
        """Whether ``code`` (any ``V…R…C…`` spelling, SPC/B parts ignored) is inside; None if unparseable."""
        wanted, low, high = safe_release_code(code), safe_release_code(self.low), safe_release_code(self.high)
        if wanted is None or low is None or high is None:
            return None
        return low.key <= wanted.key <= high.key

    def text(self) -> str:
        return f"[{self.low}]" if self.is_single else f"[{self.low},{self.high}]"


def codes_accept(ranges: Sequence[CodeRange], code: Optional[str]) -> Optional[bool]:
    """True if any entry holds ``code``; False if all entries are readable and none does; else None."""
    if not ranges or not code:
        return None
    verdicts = [entry.contains(code) for entry in ranges]
    if any(verdicts):
        return True
    return False if all(v is not None for v in verdicts) else None


def parse_code_ranges(value: Optional[str], warnings: List[str]) -> Tuple[CodeRange, ...]:
    ranges: List[CodeRange] = []
    for group in bracket_groups(value or ""):
        if len(group) == 1:
            ranges.append(CodeRange(group[0], group[0]))
        elif len(group) == 2:
            ranges.append(CodeRange(group[0], group[1]))
        elif group:
            warnings.append(f"compatible_version entry {group!r} has {len(group)} items; ignored")
    if value and not ranges:
        warnings.append(f"compatible_version {value!r} holds no [code] entries")
    return tuple(ranges)


def parse_pairs_list(value: Optional[str], name: str, warnings: List[str]) -> Tuple[Tuple[str, str], ...]:
    """``[a,b],[c,d]`` → ``(("a","b"), ("c","d"))``; malformed entries leave a warning."""
    pairs: List[Tuple[str, str]] = []
    for group in bracket_groups(value or ""):
        if len(group) == 2:
            pairs.append((group[0], group[1]))
        elif group:
            warnings.append(f"{name} entry {group!r} is not a [low,high] pair; ignored")
    if value and not pairs:
        warnings.append(f"{name} {value!r} holds no [low,high] ranges")
    return tuple(pairs)


class DriverVersionInfo(JsonRecord, Struct, frozen=True):
    version: str  # Version=, e.g. 24.1.rc2.2 (lower-case rc, as npu-smi prints it)
    package_version: Optional[str] = None  # absent in some older files
    innerversion: Optional[str] = None  # V100R001C18SPC001B233
    compatible_version: Tuple[CodeRange, ...] = ()  # CANN release codes this driver accepts
    compatible_version_fw: Tuple[Tuple[str, str], ...] = ()  # firmware ranges, e.g. (("7.0.0", "7.2.99"),)
    ascendhal_version: Optional[str] = None
    raw: Dict[str, str] = field(default_factory=dict)
    warnings: Tuple[str, ...] = ()


class FirmwareVersionInfo(JsonRecord, Struct, frozen=True):
    version: str  # Version=, the firmware number: 7.7.0.1.231
    package_version: Optional[str] = None  # the HDK release it shipped in: 25.0.rc1.1
    compatible_version_drv: Tuple[Tuple[str, str], ...] = ()  # driver prefix ranges, (("24.1", "24.1."),)
    raw: Dict[str, str] = field(default_factory=dict)
    warnings: Tuple[str, ...] = ()


def _required_version(pairs: Pairs) -> str:
    if not pairs.has("Version"):
        raise pairs.fail("no Version= line")
    version = pairs.get("Version") or ""
    if not version:
        number, text = pairs.line_of("Version") or (None, None)
        raise VersionFileError(pairs.kind, "Version= is empty", number, text)
    return version


def parse_driver_version_info(text: str) -> DriverVersionInfo:
    """Parse ``driver/version.info``. Raises :class:`VersionFileError` if it is not one."""
    pairs = read_pairs(text, DRIVER_KIND)
    pairs.reject_foreign(_DRIVER_MARKERS, {**_CANN_MARKERS,
                                           "compatible_version_drv": "a firmware version.info",
                                           "firmware_version": "a firmware version.info"})
    version = _required_version(pairs)
    warnings = list(pairs.warnings)
    return DriverVersionInfo(
        version=version,
        package_version=pairs.value("package_version"),
        innerversion=pairs.value("Innerversion"),
        compatible_version=parse_code_ranges(pairs.get("compatible_version"), warnings),
        compatible_version_fw=parse_pairs_list(pairs.get("compatible_version_fw"), "compatible_version_fw",
                                               warnings),
        ascendhal_version=pairs.value("ascendhal_version"),
        raw=pairs.raw,
        warnings=capped(warnings),
    )


def parse_firmware_version_info(text: str) -> FirmwareVersionInfo:
    """Parse ``firmware/version.info``. Raises :class:`VersionFileError` if it is not one."""
    pairs = read_pairs(text, FIRMWARE_KIND)
    pairs.reject_foreign(_FIRMWARE_MARKERS, {**_CANN_MARKERS,
                                             "compatible_version_fw": "a driver version.info",
                                             "ascendhal_version": "a driver version.info",
                                             "Innerversion": "a driver version.info"})
    version = _required_version(pairs)
    warnings = list(pairs.warnings)
    return FirmwareVersionInfo(
        version=version,
        package_version=pairs.value("package_version"),
        compatible_version_drv=parse_pairs_list(pairs.get("compatible_version_drv"), "compatible_version_drv",
                                                warnings),
        raw=pairs.raw,
        warnings=capped(warnings),
    )


# -- compatibility between the two ------------------------------------------------------------
def firmware_accepts_driver(fw: FirmwareVersionInfo, driver_version: Optional[str]) -> Optional[bool]:
    """Whether the firmware's ``compatible_version_drv`` lists ``driver_version``.

    None when the file gives no range or no driver version is known. See the module doc for
    how the trailing-dot bounds are read.
    """
    version = (driver_version or "").strip().lower()
    if not fw.compatible_version_drv or not version:
        return None
    for low, high in fw.compatible_version_drv:
        low, high = low.lower(), high.lower()
        cut = version[: max(len(low), len(high))]
        if low <= cut <= high:
            return True
    return False


def _numbers(text: str) -> Optional[Tuple[int, ...]]:
    parts = text.strip().split(".")
    if not all(_NUMBER.match(part) for part in parts):
        return None
    return tuple(int(part) for part in parts)


def _fit(version: Tuple[int, ...], length: int) -> Tuple[int, ...]:
    """``version`` cut or zero-padded to ``length`` components."""
    return (version + (0,) * length)[:length]


def driver_accepts_firmware(drv: DriverVersionInfo, firmware_version: Optional[str]) -> Optional[bool]:
    """Whether ``firmware_version`` falls in one of the driver's ``compatible_version_fw`` ranges.

    None when the driver file gives no range, or the firmware version or every range is not
    a dotted number.
    """
    version = _numbers(firmware_version or "")
    if version is None or not drv.compatible_version_fw:
        return None
    readable = False
    for low_text, high_text in drv.compatible_version_fw:
        low, high = _numbers(low_text), _numbers(high_text)
        if low is None or high is None:
            continue
        readable = True
        if low <= _fit(version, len(low)) and _fit(version, len(high)) <= high:
            return True
    return False if readable else None


def driver_firmware_compatible(drv: DriverVersionInfo, fw: FirmwareVersionInfo) -> Optional[bool]:
    """The driver's verdict on the pair: compatible if either side accepts the other.

    True if either check says yes; False if at least one says no and none says yes; None if
    neither file gives a usable range. (The driver reads the firmware list from the card's
    flash; the on-disk firmware file describes the installed package, which is the same once
    the firmware upgrade has been activated.)
    """
    verdicts = (driver_accepts_firmware(drv, fw.version), firmware_accepts_driver(fw, drv.version))
    if any(verdicts):
        return True
    if any(v is False for v in verdicts):
        return False
    return None


def cann_driver_codes_compatible(driver_codes: Sequence[CodeRange], driver_innerversion: Optional[str],
                                 cann_codes: Sequence[CodeRange], cann_innerversion: Optional[str]
                                 ) -> Optional[bool]:
    """Release-code check between driver and CANN: either side listing the other's code.

    compat_facts §1.3 observed that driver 24.1.0 (C19) does not list CANN 8.0.0 (C20) while
    CANN 8.0.0 lists C19, so one side listing the other is taken as enough -- an inference, not
    a documented rule. None when neither side can be judged.
    """
    verdicts = (codes_accept(driver_codes, cann_innerversion), codes_accept(cann_codes, driver_innerversion))
    if any(verdicts):
        return True
    if any(v is False for v in verdicts):
        return False
    return None
