"""The records of the ``system`` facts, apart from their providers (ascend_doctor/facts/system.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct, field


class DeviceNodes(Struct, frozen=True):
    davinci: Tuple[int, ...]  # N of every /dev/davinciN
    control: Dict[str, bool]  # control node -> present

    def to_dict(self) -> Dict[str, object]:
        return {"davinci": list(self.davinci), "control": dict(self.control)}


class ContainerInfo(Struct, frozen=True):
    in_container: bool
    runtime: Optional[str]  # docker | podman | kubernetes | containerd | lxc
    evidence: Tuple[str, ...] = field(default_factory=tuple)
    # False when nothing could tell (pasted text without a container hint): in_container is then
    # False by default, and messages say "not in the pasted text" rather than "not a container".
    known: bool = True

    def to_dict(self) -> Dict[str, object]:
        return {"in_container": self.in_container, "runtime": self.runtime, "evidence": list(self.evidence),
                "known": self.known}


class VisibleDevices(Struct, frozen=True):
    """ASCEND_VISIBLE_DEVICES (container runtime: physical ids) and ASCEND_RT_VISIBLE_DEVICES
    (the CANN runtime: logical indices among what the process sees)."""

    visible: Optional[Tuple[int, ...]]
    visible_raw: Optional[str]
    rt_visible: Optional[Tuple[int, ...]]
    rt_visible_raw: Optional[str]
    errors: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, object]:
        return {"ASCEND_VISIBLE_DEVICES": self.visible_raw, "ASCEND_RT_VISIBLE_DEVICES": self.rt_visible_raw,
                "visible": list(self.visible) if self.visible is not None else None,
                "rt_visible": list(self.rt_visible) if self.rt_visible is not None else None,
                "errors": list(self.errors)}
