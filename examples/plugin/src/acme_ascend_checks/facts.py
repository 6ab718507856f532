"""The facts the ACME checks read, declared with ascend-doctor's public fact API.

A provider reads through ``facts.host`` (a live machine, a snapshot or a pasted text alike) and
declares what it reads, so that ``ascend-doctor snapshot`` records the file on the customer's host.
"""

from __future__ import annotations

from ascend_doctor.facts import Fact, Facts, FactUnavailable, Reads, provider
from ascend_doctor.host.base import HostFileError

SWAPPINESS_PATH = "/proc/sys/vm/swappiness"


@provider("vm_swappiness", reads=Reads(files=(SWAPPINESS_PATH,)))
def vm_swappiness(facts: Facts) -> int:
    """The kernel's vm.swappiness (0-200)."""
    try:
        text = facts.host.read_text(SWAPPINESS_PATH, max_bytes=64)
    except HostFileError as exc:
        raise FactUnavailable(f"{SWAPPINESS_PATH} cannot be read ({exc.message})") from None
    value = text.strip()
    if not value.isdigit():
        raise FactUnavailable(f"{SWAPPINESS_PATH} holds {value[:20]!r}, not a number")
    return int(value)


VM_SWAPPINESS: Fact[int] = Fact(__name__, "vm_swappiness")
