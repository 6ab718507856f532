"""Which NPUs this run is about: the ones the container was given or the process may use.

Two variables narrow the NPUs a deployment uses (compat_facts §5.8, §7):

* ``ASCEND_VISIBLE_DEVICES`` -- read by the Ascend container runtime when the container is
  created: *physical* device ids (the N of ``/dev/davinciN``; on A3 the ``Phy-ID`` column of
  npu-smi). Inside such a container npu-smi normally lists only those devices, but a privileged
  container sees them all.
* ``ASCEND_RT_VISIBLE_DEVICES`` -- read by the CANN runtime in the process: *logical* indices
  0..n-1 among the devices the process can see, in npu-smi's order (one per chip; 16 on an A3
  server). An index ``>= n`` fails with ``EE1001 ... input data rang[0-n)`` / 207004.

Faults on NPUs outside the scope are somebody else's: checks report them as information.
"""

from __future__ import annotations

from typing import Any, FrozenSet, List, Optional, Tuple

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.scope import ChipKey, NpuScope


@provider("npu_scope", reads=Reads())
def npu_scope(facts: Facts) -> NpuScope:
    container = facts.maybe(Facts.container)
    in_container = bool(getattr(container, "in_container", False))
    visible = facts.maybe(Facts.visible_devices)
    nodes = facts.maybe(Facts.device_nodes)
    smi = facts.maybe(Facts.npu_smi)
    devices: List[Any] = list(getattr(smi, "devices", None) or [])
    davinci = list(getattr(nodes, "davinci", None) or [])
    # Each /dev/davinciN is one logical device for the runtime; without nodes, count npu-smi's chips.
    count: Optional[int] = len(davinci) if davinci else (len(devices) or None)

    owned: Optional[FrozenSet[ChipKey]] = None
    reason = "no ASCEND_VISIBLE_DEVICES / ASCEND_RT_VISIBLE_DEVICES restriction: every listed NPU"
    if in_container:
        reason = "inside a container: the NPUs npu-smi lists here"
    phys = getattr(visible, "visible", None)
    if phys and devices:
        wanted = set(phys)
        keys = frozenset((d.npu_id, d.chip_id) for d in devices
                         if (d.chip_phy_id if d.chip_phy_id is not None else d.npu_id) in wanted)
        if keys and len(keys) < len(devices):
            owned = keys
            reason = f"ASCEND_VISIBLE_DEVICES={getattr(visible, 'visible_raw', '')}"
    rt = getattr(visible, "rt_visible", None)
    out_of_range: Tuple[int, ...] = ()
    if rt is not None:
        if count is not None:
            out_of_range = tuple(i for i in rt if i >= count)
        if devices:
            base = [d for d in devices if owned is None or (d.npu_id, d.chip_id) in owned]
            keys = frozenset((base[i].npu_id, base[i].chip_id) for i in rt if 0 <= i < len(base))
            owned = keys
            reason = f"ASCEND_RT_VISIBLE_DEVICES={getattr(visible, 'rt_visible_raw', '')} (logical indices)"
    return NpuScope(in_container, owned, reason, count, rt, out_of_range)
