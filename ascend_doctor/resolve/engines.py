"""Serving-engine releases as resolver candidates: each release row's CANN, torch, torch_npu, Python
and HDK constraints become the candidate's requirements.

* vLLM-Ascend: "select one complete row from the release compatibility matrix" (its versioning
  policy): CANN, torch, torch_npu and vLLM exactly as the row says, Python in its range.
* MindIE: its own CANN release ("MindIE与CANN版本必须配套使用"), the HDKs its release note lists,
  and torch only from the builds MindIE ships (abi0 <-> torch 2.1.0, abi1 <-> torch 2.6.0 for
  2.1.RC1-2.3.0): never a torch from another product's line-up.
* MindSpeed: a CANN its README table lists and the torch it names.

A product's hardware list is a hard constraint: a chip whose support entry says "unsupported" has no
candidate at all, so the resolver reports the conflict instead of planning around it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, List, Optional, Protocol, Sequence, Tuple

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.specs import python_in, try_ascend, try_pypi
from ascend_doctor.resolve.candidates import Candidate, Need, same_ascend, same_public, same_pypi

if TYPE_CHECKING:
    from ascend_doctor.matrix.chips import ChipInfo
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.resolve.model import StackState


class ProviderView(Protocol):
    """What this module reads of the resolver's provider (provider.py's ``StackProvider``, which
    imports this module): the matrix, the machine's state, its chip and the engine asked for.
    Annotating with the provider itself would tie the two modules into a circle, for a type."""

    @property
    def m(self) -> Matrix: ...
    @property
    def state(self) -> StackState: ...
    @property
    def chip(self) -> Optional[ChipInfo]: ...
    @property
    def engine(self) -> Optional[str]: ...


ENGINE_LABEL = {"vllm-ascend": "vLLM-Ascend", "mindie": "MindIE", "mindspeed": "MindSpeed"}


def label(engine: str, version: str) -> str:
    return f"{ENGINE_LABEL.get(engine, engine)} {version}"


def supports_chip(provider: ProviderView, engine: str) -> Tuple[bool, str, Tuple[str, ...]]:
    """(usable, why not, sources) from the chip's engine support entry."""
    chip = provider.chip
    if chip is None:
        return True, "", ()
    support = chip.engines.get(engine)
    if support is not None and support.support == "unsupported":
        fields = {"engine": ENGINE_LABEL.get(engine, engine), "chip": chip.name, "family": chip.family,
                  "note": support.note}
        why = (Text(N_("{engine} does not support {chip} ({family}): {note}"), **fields) if support.note else
               Text(N_("{engine} does not support {chip} ({family})"), **fields))
        return False, why, tuple(support.source)
    return True, "", tuple(support.source) if support is not None else ()


def engine_candidates(provider: ProviderView) -> Iterator[Candidate]:
    engine = provider.engine
    if engine is None:
        return
    usable, _why, _sources = supports_chip(provider, engine)
    if not usable:
        return
    m = provider.m
    current = provider.state.engine_version if provider.state.engine == engine else None
    rows = list(_rows(m, engine))
    ordered = sorted(rows, key=lambda r: _sort_key(engine, r.version), reverse=True)
    if current:
        here = current
        ordered = ([r for r in ordered if _same(engine, r.version, here)]
                   + [r for r in ordered if not _same(engine, r.version, here)])
    for row in ordered:
        kept = current is not None and _same(engine, row.version, current)
        needs = tuple(_needs(provider, engine, row))
        yield Candidate("engine", row.version, kept=kept, reason="installed" if kept else "",
                        sources=tuple(row.source), needs=needs)


def engine_torch_npu_builds(provider: ProviderView) -> List[str]:
    """torch_npu versions that only an engine row names (vLLM-Ascend dev builds)."""
    if provider.engine != "vllm-ascend":
        return []
    return [r.torch_npu for r in provider.m.vllm_ascend_rows]


def mindie_torches(m: Matrix, row: Any) -> List[Tuple[str, Optional[str], Tuple[str, ...]]]:
    """[(torch, abi, sources)] MindIE ships builds for: the release's ``builds`` when recorded, else
    its ``torch`` list; the first torch of a row is the abi0 build."""
    builds = getattr(row, "builds", None) or ()
    found: List[Tuple[str, Optional[str], Tuple[str, ...]]] = []
    for build in builds:
        torch = getattr(build, "torch", None)
        if torch:
            abi = getattr(build, "abi", None)
            found.append((str(torch), None if abi is None else str(abi),
                          tuple(getattr(build, "source", ()) or row.source)))
    if found:
        return found
    return [(t, None, tuple(row.source)) for t in (row.torch or ())]


def _rows(m: Matrix, engine: str) -> Sequence[Any]:
    if engine == "vllm-ascend":
        return m.vllm_ascend_rows
    if engine == "mindie":
        return m.mindie_rows
    return m.mindspeed_rows


def _sort_key(engine: str, version: str) -> Any:
    if engine == "vllm-ascend":
        parsed = try_pypi(version)
        return (1, parsed) if parsed is not None else (0, None)
    parsed_a = try_ascend(version.split("_core")[0])
    return tuple(parsed_a.sort_key) if parsed_a is not None else ()


def _same(engine: str, a: str, b: str) -> bool:
    if engine == "vllm-ascend":
        return same_pypi(a, b)
    return same_ascend(a.split("_core")[0], b.split("_core")[0].replace("MindIE", "").strip())


def _python_need(spec: Optional[str], by: str, sources: Tuple[str, ...], current: Optional[str]) -> Iterator[Need]:
    if not spec:
        return
    spec_text = spec

    def fits(python: str) -> bool:
        return bool(python_in(spec_text, python))

    yield Need("python", f"Python {spec_text}", fits, by=by, sources=sources)


def _needs(provider: ProviderView, engine: str, row: Any) -> Iterator[Need]:
    m = provider.m
    by = label(engine, row.version)
    sources = tuple(row.source)
    if engine == "vllm-ascend":
        cann, torch, torch_npu, vllms = row.cann, row.torch, row.torch_npu, tuple(row.vllm)
        yield Need("cann", f"CANN {cann}", lambda v: same_ascend(v, cann), by=by, sources=sources, prefer=(cann,))
        yield Need("torch", f"torch {torch}", lambda v: same_public(v, torch), by=by, sources=sources,
                   prefer=(torch,))
        yield Need("torch_npu", f"torch_npu {torch_npu}", lambda v: same_pypi(v, torch_npu), by=by,
                   sources=sources, prefer=(torch_npu,))
        yield Need("vllm", "vLLM " + " / ".join(vllms), lambda v: any(same_pypi(v, x) for x in vllms), by=by,
                   sources=sources, prefer=vllms)
        yield from _python_need(row.python, by, sources, provider.state.python)
        return
    if engine == "mindie":
        cann = row.cann
        yield Need("cann", f"CANN {cann}", lambda v: same_ascend(v, cann), by=by, sources=sources, prefer=(cann,))
        torches = mindie_torches(m, row)
        if torches:
            names = tuple(t for t, _abi, _src in torches)
            torch_sources = tuple(s for _t, _abi, src in torches for s in src)
            yield Need("torch", Text(N_("torch {versions} (the torch builds MindIE ships)"),
                                     versions=" / ".join(names)),
                       lambda v: any(same_public(v, t) for t in names), by=by, sources=torch_sources or sources,
                       prefer=names)
        from ascend_doctor.matrix.engines import mindie_pairs

        pairs = tuple(p.version for p in mindie_pairs(m, row))
        if pairs:
            yield Need("torch_npu", Text(N_("a torch_npu of its PyTorch Adapter release")), lambda v: True, by=by,
                       prefer=pairs)
        hdks = tuple(row.hdk)
        hdk_as = getattr(row, "hdk_as_cann", None)
        if hdks:
            yield Need("hdk", Text(N_("HDK {versions} (its release note's list)"), versions=" / ".join(hdks)),
                       lambda v: any(same_ascend(v, h) for h in hdks), by=by, sources=sources, prefer=hdks)
        elif hdk_as:
            def driver_fits(driver: str, cann_as: str = hdk_as) -> bool:
                return m.cann_vs_driver(cann_as, driver).ok

            yield Need("hdk", Text(N_("a driver paired with CANN {cann} (same HDK as CANN {cann})"), cann=hdk_as),
                       driver_fits,
                       by=by, sources=sources)
        yield from _python_need(row.python, by, tuple(row.python_source or row.source), provider.state.python)
        return
    # MindSpeed
    canns = tuple(row.cann)
    yield Need("cann", f"CANN {' / '.join(canns)}", lambda v: any(same_ascend(v, c) for c in canns), by=by,
               sources=sources, prefer=canns[::-1])
    if row.torch:
        torch_ms = row.torch
        yield Need("torch", f"torch {torch_ms}", lambda v: same_public(v, torch_ms), by=by, sources=sources,
                   prefer=(torch_ms,))
    yield from _python_need(row.python, by, sources, provider.state.python)
