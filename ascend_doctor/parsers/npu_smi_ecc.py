"""``npu-smi info -t ecc -i N``: the ECC counters of one NPU's memory (DDR and/or HBM).

Fields, as the npu-smi command reference and DCMI's ``struct dcmi_ecc_info`` (hiascend
Atlas 200I A2 24.1.RC3 api_044) describe them:

* ``<MEM> Single Bit Error Count`` / ``Double Bit Error Count``: errors counted now (single-bit
  ones were corrected; double-bit ones were not);
* ``... Aggregate Total Err Cnt``: the same over the device's lifetime;
* ``... Isolated Pages Count``: memory pages already retired because of errors;
* ``... Next-Isolated Pages Count`` (newer drivers): pages that will be retired at the next NPU
  reset or host reboot.

Samples: tests/samples/npu-smi-other/mindcluster-doc-ecc-910.txt (DDR + HBM, legacy 910) and
npu-smi-reference-ecc-hbm-next-isolated.txt (HBM only, with the Next-Isolated lines). An NPU with
several chips prints one block per chip; a ``Chip ID`` line names the chip of its block.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers.npu_smi import NpuSmiParseError, _keyvalue_lines

# "<DDR|HBM> <Single|Double> Bit <what>" -> (memory, bits, counter)
_ECC_KEY = lazy_re(
    r"^(?P<mem>DDR|HBM|SRAM|L2)\s+(?P<bits>Single|Double)\s+Bit\s+(?P<what>Error Count|Aggregate Total Err Cnt|"
    r"Isolated Pages Count|Next-Isolated Pages Count)$", re.I)
_COUNTERS = {"error count": "errors", "aggregate total err cnt": "lifetime", "isolated pages count": "isolated",
             "next-isolated pages count": "next_isolated"}
MAX_CHIPS = 64


class EccCounters:
    """One chip's counters: ``counts[(memory, bits, counter)] = value`` (``memory`` "HBM"/"DDR",
    ``bits`` "single"/"double", ``counter`` errors|lifetime|isolated|next_isolated)."""

    __slots__ = ("chip_id", "counts")

    def __init__(self, chip_id: Optional[int], counts: Dict[Tuple[str, str, str], int]) -> None:
        self.chip_id = chip_id
        self.counts = counts

    def get(self, memory: str, bits: str, counter: str) -> int:
        return self.counts.get((memory, bits, counter), 0)

    def total(self, bits: str, counter: str) -> int:
        """The counter summed over the memories (DDR + HBM)."""
        return sum(v for (_, b, c), v in self.counts.items() if b == bits and c == counter)

    def to_dict(self) -> Dict[str, Any]:
        return {"chip_id": self.chip_id,
                "counts": {f"{m} {b} {c}": v for (m, b, c), v in sorted(self.counts.items())}}


class EccInfo:
    """The ECC query of one NPU: one ``EccCounters`` per chip block."""

    __slots__ = ("chips", "npu_id")

    def __init__(self, npu_id: Optional[int], chips: List[EccCounters]) -> None:
        self.npu_id = npu_id
        self.chips = chips

    def to_dict(self) -> Dict[str, Any]:
        return {"npu_id": self.npu_id, "chips": [c.to_dict() for c in self.chips]}


def _number(value: str) -> Optional[int]:
    value = value.strip()
    return int(value) if value.isdigit() and len(value) <= 12 else None


def parse_npu_smi_ecc(text: str) -> EccInfo:
    """Parse one ECC query. Counters printed as ``NA`` are left out. Raises ``NpuSmiParseError``
    when the text holds no ECC counter at all (an error message, another query's output)."""
    npu_id: Optional[int] = None
    chips: List[EccCounters] = []
    current: Dict[Tuple[str, str, str], int] = {}
    chip_id: Optional[int] = None
    seen_any = False

    def close() -> None:
        nonlocal current, chip_id
        if current:
            chips.append(EccCounters(chip_id, current))
        current, chip_id = {}, None

    for key, value in _keyvalue_lines(text):
        if key is None:
            continue
        name = " ".join(key.split())
        if name.lower() == "npu id" and npu_id is None:
            npu_id = _number(value)
            continue
        if name.lower() == "chip id":
            if current and chip_id is None:
                chip_id = _number(value)  # the 910 layout prints Chip ID after its counters
            else:
                close()
                chip_id = _number(value)
            continue
        match = _ECC_KEY.match(name)
        if not match:
            continue
        seen_any = True
        slot = (match.group("mem").upper(), match.group("bits").lower(), _COUNTERS[match.group("what").lower()])
        if slot in current:  # the same counter again: the next chip's block
            close()
        number = _number(value)
        if number is not None:
            current[slot] = number
        if len(chips) >= MAX_CHIPS:
            break
    close()
    if not seen_any:
        raise NpuSmiParseError("the ECC query printed no '... Bit Error Count' line")
    return EccInfo(npu_id, chips)
