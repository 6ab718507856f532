"""``npu-smi info -t board -i N``: what the NPU itself runs.

The board query is the authority on the running firmware (``Firmware Version``, read from the
device) and on Huawei's own driver<->firmware verdict (``Compatibility``: OK, NOK, UNKNOWN or
NOT SUPPORT, computed by DCMI's ``dcmi_get_device_compatibility``; hiascend instg_0064). The
``Software Version`` line is the running driver. Sample: tests/samples/npu-smi-other/
mindcluster-doc-board-910-d801.txt.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_keyvalue

COMPATIBILITY_VALUES = ("OK", "NOK", "UNKNOWN", "NOT SUPPORT")


class BoardInfo:
    """One NPU's board query, as printed (``None`` where the line is absent or ``NA``)."""

    __slots__ = (
        "bus_info",
        "chip_count",
        "compatibility",
        "firmware_version",
        "npu_id",
        "pci_device_id",
        "software_version",
    )

    def __init__(self, npu_id: Optional[int], software_version: Optional[str], firmware_version: Optional[str],
                 compatibility: Optional[str], pci_device_id: Optional[str] = None, bus_info: Optional[str] = None,
                 chip_count: Optional[int] = None) -> None:
        self.npu_id = npu_id
        self.software_version = software_version
        self.firmware_version = firmware_version
        self.compatibility = compatibility
        self.pci_device_id = pci_device_id
        self.bus_info = bus_info
        self.chip_count = chip_count

    def to_dict(self) -> Dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BoardInfo) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"BoardInfo({self.to_dict()!r})"


def _value(fields: Dict[str, str], key: str) -> Optional[str]:
    value = fields.get(key, "").strip()
    return None if not value or value.upper() in ("NA", "N/A", "-") else value


def _int(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def parse_npu_smi_board(text: str) -> BoardInfo:
    """Parse one board query; NpuSmiParseError when it holds neither a firmware nor a driver line."""
    fields = parse_npu_smi_keyvalue(text)
    firmware = _value(fields, "Firmware Version")
    software = _value(fields, "Software Version")
    if firmware is None and software is None and _value(fields, "Compatibility") is None:
        raise NpuSmiParseError("the board query printed no Firmware Version, Software Version or Compatibility")
    compatibility = _value(fields, "Compatibility")
    if compatibility is not None:
        compatibility = " ".join(compatibility.upper().split())
    return BoardInfo(
        npu_id=_int(_value(fields, "NPU ID")),
        software_version=software,
        firmware_version=firmware,
        compatibility=compatibility,
        pci_device_id=_value(fields, "PCI Device ID"),
        bus_info=_value(fields, "PCIe Bus Info"),
        chip_count=_int(_value(fields, "Chip Count")),
    )
