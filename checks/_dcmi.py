"""Huawei's driver<->firmware compatibility rule, as DCMI computes it (not a check: the registry
skips ``_`` modules).

``dcmi_get_device_compatibility`` (hicann/driver, src/custom/dev_prod/user/dcmi) is what
``npu-smi info -t board -i N`` prints as ``Compatibility`` (hiascend instg_0064: "Compatibility shows
if the NPU driver works with the NPU firmware"). Research: advice_review.md §1.

1. The running firmware version below ``"6.4."`` is NOK.
2. If it falls inside one of the driver's ``compatible_version_fw`` ranges: OK.
3. Otherwise the running driver version is compared with the firmware's ``compatible_version_drv``
   list (DCMI reads it from the card's flash): OK or NOK, UNKNOWN when the list cannot be read.

Comparisons are C ``strcmp``: the candidate is cut to the length of the longer bound, which is why
``[24.1,24.1.]`` means "24.1.*".
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

OK = "OK"
NOK = "NOK"
UNKNOWN = "UNKNOWN"

Range = Tuple[str, str]
MIN_FIRMWARE = "6.4."


class DcmiVerdict:
    """The verdict and which rule gave it ("firmware below 6.4", "driver's range", "firmware's list")."""

    __slots__ = ("by", "result")

    def __init__(self, result: str, by: str) -> None:
        self.result = result
        self.by = by

    def __repr__(self) -> str:
        return f"DcmiVerdict({self.result!r}, by={self.by!r})"


def in_ranges(version: str, ranges: Sequence[Range]) -> bool:
    """Whether ``version`` is inside one ``[low, high]`` range, compared as DCMI does (strings)."""
    wanted = version.strip().lower()
    for low, high in ranges:
        low, high = low.strip().lower(), high.strip().lower()
        cut = wanted[: max(len(low), len(high))]
        if low <= cut <= high:
            return True
    return False


def dcmi_compatibility(firmware: Optional[str], driver: Optional[str], driver_fw_ranges: Sequence[Range],
                       firmware_drv_ranges: Optional[Sequence[Range]]) -> DcmiVerdict:
    """DCMI's verdict for a (firmware, driver) pair.

    ``driver_fw_ranges``: the driver's ``compatible_version_fw``; ``firmware_drv_ranges``: the
    firmware's ``compatible_version_drv`` (None when it cannot be read).
    """
    if not firmware:
        return DcmiVerdict(UNKNOWN, "the firmware version is not known")
    fw = firmware.strip().lower()
    if fw[: len(MIN_FIRMWARE)] < MIN_FIRMWARE:
        return DcmiVerdict(NOK, "firmware below 6.4")
    if driver_fw_ranges and in_ranges(fw, driver_fw_ranges):
        return DcmiVerdict(OK, "the driver's compatible_version_fw")
    if firmware_drv_ranges is None or not driver:
        return DcmiVerdict(UNKNOWN, "the firmware's driver list or the driver version is not known")
    if in_ranges(driver, firmware_drv_ranges):
        return DcmiVerdict(OK, "the firmware's compatible_version_drv")
    return DcmiVerdict(NOK, "neither side lists the other")


def ranges_text(ranges: Sequence[Range]) -> str:
    return ", ".join(f"[{low},{high}]" for low, high in ranges)
