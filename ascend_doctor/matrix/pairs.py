"""The short answer of ``matrix lookup`` given two or more versions: one verdict per pair asked about.

"CANN 8.5.0 with driver 24.1.rc2.2?" is a yes/no question; the tables of everything that goes with
each version are its long answer (``-v``). Each pair is judged by the same query the checks use
(``cann_vs_driver``, ``torch_npu_vs_cann``, ``engine_vs_stack``), so the lookup and ``check`` agree,
and a pair the matrix has nothing on stays "unknown", never "incompatible".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.matrix import hdk
from ascend_doctor.matrix.verdict import Verdict, VerdictKind

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix

# How a component is named in the answer ("CANN 8.5.0 with driver 24.1.rc2.2").
LABELS = {"cann": "CANN", "driver": "driver", "torch_npu": "torch_npu", "vllm-ascend": "vLLM-Ascend",
          "mindie": "MindIE"}
# The worst verdict of several pairs is the lookup's verdict: one incompatible pair makes the set incompatible.
_SEVERITY = {VerdictKind.INCOMPATIBLE: 3, VerdictKind.UNKNOWN: 2, VerdictKind.COMPATIBLE: 1,
             VerdictKind.RECOMMENDED: 0}


class PairAnswer(Struct, frozen=True):
    """The matrix's verdict on two versions asked about together."""

    first: Tuple[str, str]  # (component, version), as asked
    second: Tuple[str, str]
    verdict: Verdict
    supported: Tuple[str, ...] = ()  # what the first one is documented with, when the pair is not

    @property
    def subject(self) -> str:
        """``CANN 8.5.0 with driver 24.1.rc2.2``."""
        (a, va), (b, vb) = self.first, self.second
        return f"{LABELS.get(a, a)} {va} with {LABELS.get(b, b)} {vb}"

    def to_dict(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"components": [{"component": c, "version": v} for c, v in (self.first, self.second)],
                                **self.verdict.to_dict()}
        if self.supported:
            data["supported"] = list(self.supported)
        return data


def overall(pairs: List[PairAnswer]) -> Optional[str]:
    """The verdict of the whole question: its worst pair's (None when no pair was asked)."""
    if not pairs:
        return None
    return max((p.verdict.kind for p in pairs), key=lambda k: _SEVERITY[k]).value


def _supported_drivers(m: Matrix, cann: str, chip: Optional[str]) -> Tuple[str, ...]:
    """The HDK releases CANN's own pairing rows name as working (the "supports 25.0-25.5" of the answer)."""
    from ascend_doctor.matrix.lookup import lookup_cann

    result = lookup_cann(m, cann, chip)
    found = list(dict.fromkeys(a.version for a in result.answers
                               if a.component == "driver" and a.verdict.ok and not a.version.startswith("<")))
    # a release line ("25.5.X") says it for each of its releases (25.5.0, 25.5.1): the line once
    lines = [spec[:-1].lower() for spec in found if spec.upper().endswith(".X")]
    return tuple(spec for spec in found
                 if spec.upper().endswith(".X") or not any(spec.lower().startswith(line) for line in lines))


def _cann_driver(m: Matrix, cann: str, driver: str, chip: Optional[str]) -> PairAnswer:
    info = m.chip(chip) if chip else None
    verdict = hdk.cann_vs_driver(m, cann, driver, chip=chip) if info is not None else m.cann_vs_driver(cann, driver)
    supported = _supported_drivers(m, cann, chip) if verdict.kind is VerdictKind.INCOMPATIBLE else ()
    return PairAnswer(("cann", cann), ("driver", driver), verdict, supported)


def _engine_pairs(m: Matrix, engine: str, version: str, given: Dict[str, str]) -> List[PairAnswer]:
    """The engine's row against each other version given (its CANN, torch_npu, driver)."""
    found = m.engine_vs_stack(engine, version, cann=given.get("cann"), torch_npu=given.get("torch_npu"),
                              driver=given.get("driver"))
    pairs = []
    for name, verdict in found:
        if name in given:
            pairs.append(PairAnswer((engine, version), (name, given[name]), verdict))
        elif name == "engine":  # the engine's release is not in the matrix: every pair with it is unknown
            pairs.extend(PairAnswer((engine, version), (other, value), verdict) for other, value in given.items())
    return pairs


def lookup_pairs(m: Matrix, *, cann: Optional[str] = None, driver: Optional[str] = None,
                 torch_npu: Optional[str] = None, vllm_ascend: Optional[str] = None, mindie: Optional[str] = None,
                 chip: Optional[str] = None) -> List[PairAnswer]:
    """One verdict per pair of the versions given that the matrix relates (vLLM-Ascend and MindIE are
    alternatives, not a pair; --chip narrows the CANN-driver answer to its family)."""
    pairs: List[PairAnswer] = []
    if cann and driver:
        pairs.append(_cann_driver(m, cann, driver, chip))
    if cann and torch_npu:
        pairs.append(PairAnswer(("cann", cann), ("torch_npu", torch_npu), m.torch_npu_vs_cann(torch_npu, cann)))
    stack = {k: v for k, v in (("cann", cann), ("torch_npu", torch_npu), ("driver", driver)) if v}
    for engine, version in (("vllm-ascend", vllm_ascend), ("mindie", mindie)):
        if version and stack:
            pairs.extend(_engine_pairs(m, engine, version, stack))
    return pairs
