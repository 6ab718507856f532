"""The records of a resolution: what a machine has (``StackState``) and what it should have (``TargetStack``).

A stack is one version per component. ``StackState`` is what the machine holds now (empty for a
fresh install); ``TargetStack`` is the one stack the resolver chose, each component with the reason
it was chosen and the source that says so. The fix plan and ``matrix plan`` are both the ordered
difference between the two.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from msgspec import Struct, structs

from ascend_doctor.i18n_text import Text

# The components the resolver chooses a version for, in the order a person installs them.
# The firmware follows the HDK (driver) release; kernels/ops and NNAL follow CANN.
RESOLVED = ("hdk", "cann", "python", "torch", "torch_npu", "vllm", "engine")

def joined(parts: Sequence[str], separator: str = "; ") -> str:
    """Parts joined for people: a ``Text`` whose template holds no words (so it is in no catalogue), each
    part shown translated by ``localized``."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    template = separator.join(f"{{part{i}}}" for i in range(len(parts)))
    return Text(template, **{f"part{i}": part for i, part in enumerate(parts)})


KEEP = "keep"
INSTALL = "install"
UPGRADE = "upgrade"
DOWNGRADE = "downgrade"


class StackState(Struct, frozen=True):
    """What the machine holds. None = not installed (or not seen: ``unseen`` names those)."""

    chip: Optional[str] = None  # the matrix's chip name, or a family name when only that is known
    family: Optional[str] = None
    arch: Optional[str] = None  # aarch64 / x86_64; None = plan for both
    driver: Optional[str] = None  # what runs (npu-smi) before what files say
    firmware: Optional[str] = None
    cann: Optional[str] = None  # the toolkit (an operator tree alone is not a toolkit)
    kernels: Optional[str] = None
    nnal: Optional[str] = None
    python: Optional[str] = None
    torch: Optional[str] = None
    torch_npu: Optional[str] = None
    vllm: Optional[str] = None
    engine: Optional[str] = None  # "vllm-ascend" / "mindie" / "mindspeed"
    engine_version: Optional[str] = None
    in_container: bool = False
    engines: Tuple[str, ...] = ()  # every engine installed (more than one: no anchor)
    # npu-smi's board query says the running driver and firmware are not compatible (Compatibility NOK):
    # what the hardware says beats any table, so the running pair is not kept
    driver_firmware_nok: bool = False
    # Components the caller fixed (``matrix plan --driver ...``): the resolver keeps them whatever the rest.
    pinned: Tuple[str, ...] = ()
    unseen: Tuple[str, ...] = ()

    def get(self, component: str) -> Optional[str]:
        if component == "hdk":
            return self.driver
        if component == "engine":
            return self.engine_version
        value = getattr(self, component, None)
        return value if isinstance(value, str) else None

    def to_dict(self) -> Dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in structs.asdict(self).items()}


class Pick(Struct, frozen=True):
    """One component of the target stack."""

    component: str
    version: str
    change: str  # keep / install / upgrade / downgrade
    reason: str
    sources: Tuple[str, ...] = ()
    current: Optional[str] = None
    uncertain: bool = False  # kept although the matrix has no verdict for it with the rest
    # the reason as one message whose values are plain data (a report read back in another language
    # converts it through the catalogue); ``reason`` has every requirement
    short: str = ""

    def to_dict(self) -> Dict[str, Any]:
        return {"component": self.component, "version": self.version, "change": self.change,
                "current": self.current, "reason": self.reason, "sources": list(self.sources),
                "uncertain": self.uncertain}


class TargetStack(Struct, frozen=True):
    """The resolver's answer: one version per component, or the constraints that conflict."""

    state: StackState
    engine: Optional[str]
    picks: Dict[str, Pick]
    firmware: Optional[Pick] = None
    conflicts: Tuple[str, ...] = ()  # "what needs what" lines, as pip prints them
    notes: Tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.conflicts

    def version(self, component: str) -> Optional[str]:
        if component == "firmware":
            return self.firmware.version if self.firmware else None
        pick = self.picks.get(component)
        return pick.version if pick else None

    def changes(self) -> List[Pick]:
        return [p for p in self.picks.values() if p.change != KEEP]

    def to_dict(self) -> Dict[str, Any]:
        return {"engine": self.engine, "picks": {k: p.to_dict() for k, p in self.picks.items()},
                "firmware": self.firmware.to_dict() if self.firmware else None,
                "conflicts": list(self.conflicts), "notes": list(self.notes)}


# Where building vLLM and vLLM-Ascend from source is described (steps.py, engine_steps.py).
VLLM_SOURCE_BUILD = ("github.com/vllm-project/vllm-ascend docs/source/installation.md (Build from source code: "
                     "VLLM_TARGET_DEVICE=empty pip install -v -e . for vLLM; git submodule update --init --recursive "
                     "for vLLM-Ascend)")


class PlanStep(Struct, frozen=True):
    """One step of the plan: what, the commands to paste, where they run, and why."""

    component: str  # hdk, reboot, cann, kernels, nnal, cann_deps, torch, engine, python, keep
    title: str
    commands: Tuple[str, ...] = ()
    where: str = "host"  # host / either / container
    target: Optional[str] = None
    why: str = ""
    sources: Tuple[str, ...] = ()
    note: Optional[str] = None
