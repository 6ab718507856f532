"""``matrix plan``: a complete recommended stack for a chip and an engine, with install steps.

The plan walks the engine's releases from the highest down and keeps the first whose every
pairing (driver, firmware, CANN, torch, torch_npu, Python, engine) is recommended or compatible
with what the caller fixed. Components the caller did not fix take the release's own pairing.
It is the resolver's (``resolve``) answer for a fresh install; its records are the matrix's
(``matrix/plan.py``), which the renderers read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from packaging.version import Version

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.chips import ChipInfo
from ascend_doctor.matrix.engines import (
    ENGINE_NAMES,
    normalize_engine,
)
from ascend_doctor.matrix.plan import InstallStep, PlanError, StackPlan, normalize_fixed
from ascend_doctor.matrix.pytorch import describe_python
from ascend_doctor.matrix.records import MindieRow, VllmAscendRow
from ascend_doctor.matrix.specs import spec_matches, try_ascend
from ascend_doctor.matrix.verdict import Verdict, VerdictKind

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix


def make_plan(m: Matrix, chip: str, engine: str, fixed: Dict[str, str], *, stable_only: bool = False,
              arch: Optional[str] = None) -> StackPlan:
    """``arch``: ``aarch64`` / ``x86_64`` names the packages for that machine; None gives both
    (planning for another machine): never ``$(uname -m)``, which spells HDK files wrongly on x86."""
    from ascend_doctor.matrix.packages import ARCHES, normalize_arch

    key = normalize_engine(engine)
    if key is None:
        raise PlanError(Text(N_("unknown engine {engine} (expected one of {engines})"), engine=repr(engine),
                             engines=", ".join(ENGINE_NAMES)))
    info = m.chip(chip)
    if info is None:
        raise PlanError(Text(N_("unknown chip {chip} (see `ascend-doctor matrix show chips`)"), chip=repr(chip)))
    if arch is not None and normalize_arch(arch) is None:
        raise PlanError(Text(N_("unknown architecture {arch} (aarch64 or x86_64)"), arch=repr(arch)))
    arches: Tuple[str, ...] = (normalize_arch(arch),) if arch else ARCHES  # type: ignore[assignment]
    wanted = normalize_fixed(fixed, key)
    notes: List[str] = []
    support = info.engines.get(key)
    engine_name = ENGINE_NAMES[key]
    if support is not None and support.support == "unsupported":
        fields = {"engine": engine_name, "chip": info.name, "family": info.family, "note": support.note,
                  "sources": "; ".join(support.source)}
        raise PlanError(Text(N_("{engine} does not support {chip} ({family}): {note} ({sources})"), **fields)
                        if support.note else
                        Text(N_("{engine} does not support {chip} ({family}): ({sources})"), **fields))
    if support is not None and support.support != "supported":
        fields = {"engine": engine_name, "family": info.family, "support": support.support, "note": support.note,
                  "sources": "; ".join(support.source)}
        notes.append(Text(N_("{engine} support for {family} is {support}: {note} ({sources})"), **fields)
                     if support.note else
                     Text(N_("{engine} support for {family} is {support} ({sources})"), **fields))
    from ascend_doctor.resolve import StackState, resolve
    from ascend_doctor.resolve.model import KEEP
    from ascend_doctor.resolve.steps import stack_steps

    # The caller's driver (and firmware) are what the machine has: kept as installed. The other fixed
    # components are pins the plan installs.
    state = StackState(chip=info.name, family=info.family, arch=arches[0] if len(arches) == 1 else None,
                       driver=wanted.get("driver"), firmware=wanted.get("firmware"),
                       engine=key if "version" in wanted else None, engine_version=wanted.get("version"),
                       pinned=tuple(k for k in ("driver", "firmware") if k in wanted))
    pins = {k: v for k, v in wanted.items() if k in ("cann", "python", "torch", "torch_npu", "vllm")}
    target = resolve(m, state, engine=key, stable_only=stable_only, pins=pins,
                     want=("hdk", "cann", "torch", "torch_npu", "python"))
    fixed_text = ", ".join(f"{k}={v}" for k, v in wanted.items())
    if not target.ok:
        found: Dict[str, Any] = {"engine": engine_name, "chip": info.name, "fixed": fixed_text,
                                 "reasons": _joined(list(target.conflicts[:6]), more=len(target.conflicts) > 6)}
        raise PlanError(Text(N_("no {engine} release fits {chip} with {fixed}: {reasons}"), **found) if fixed_text else
                        Text(N_("no {engine} release fits {chip}: {reasons}"), **found))
    stack = _versions(target, key)
    row = _engine_row(m, key, stack[key])
    pairings = list(_pairings(m, key, stack, info))
    unverified: List[str] = [
        Text(N_("{pair}: {message} (if this machine is one of them)"), pair=name, message=v.message)
        if name == "chip requirement" else
        Text(N_("{pair}: not recorded in the matrix ({message})"), pair=name, message=v.message)
        for name, v in pairings if not v.ok]
    unverified += [Text(N_("{pair}: {message} (uncertain)"), pair=name, message=v.message)
                   for name, v in pairings if v.ok and v.uncertain]
    extra = _extras(m, key, row, stack) + _family_notes(m, key, row, stack, info)
    if key == "vllm-ascend":
        from ascend_doctor.resolve.engine_steps import base_image, engine_caveats

        base = base_image(m, stack[key], info.image_flavor)
        if base:  # the base of the flavour the plan pulls (-a3 / -310p images are built on their own flavour)
            extra.append(Text(N_("release image base: {image}"), image=base))
        extra += engine_caveats(m, target)
    extra += [Text(N_("{component} {version}: {reason}"), component=p.component, version=p.version, reason=p.reason)
              for p in target.picks.values() if p.change != KEEP and p.reason]
    plan_steps = stack_steps(m, target, info, arches, fresh=True)
    steps = tuple(InstallStep(s.title, s.commands, s.note or None) for s in plan_steps)
    return StackPlan(
        chip=info.name, family=info.family, engine=key, versions=stack,
        pairings=tuple(pairings), steps=steps,
        notes=tuple(notes + list(info.notes if info.is_family else ()) + unverified + extra + list(target.notes)),
        skipped=tuple(_skipped(m, key, state, stack[key], pins, stable_only)), fixed=wanted, matrix=m.identity(),
        arches=arches)


def _skipped(m: Matrix, key: str, state: Any, chosen: str, pins: Dict[str, str], stable_only: bool,
             limit: int = 5) -> List[str]:
    """Why the newer releases of the engine were not chosen: the conflicts the resolver reports for each
    (the nearest ``limit`` of them)."""
    from msgspec import structs

    from ascend_doctor.resolve import resolve
    from ascend_doctor.resolve.provider import same_ascend, same_pypi

    if state.engine_version:
        return []
    rows = _engine_rows(m, key)
    newer: List[str] = []
    for row in rows:
        if (same_pypi if key == "vllm-ascend" else same_ascend)(row.version, chosen):
            break
        newer.append(row.version)
    if stable_only:
        from ascend_doctor.resolve import _stable

        newer = [v for v in newer if _stable(key, v)]
    result: List[str] = []
    for version in newer[-limit:][::-1]:
        pinned = structs.replace(state, engine=key, engine_version=version)
        target = resolve(m, pinned, pins=pins, want=("hdk", "cann", "torch", "torch_npu", "python"))
        if target.conflicts:
            result.append(Text(N_("{engine} {version}: {reason}"), engine=ENGINE_NAMES[key], version=version,
                               reason="; ".join(target.conflicts)))
    return result


def _engine_rows(m: Matrix, key: str) -> List[Any]:
    """The engine's releases, newest first."""
    if key == "vllm-ascend":
        return sorted(m.vllm_ascend_rows, key=lambda r: Version(r.version), reverse=True)
    rows: Sequence[Any] = m.mindie_rows if key == "mindie" else m.mindspeed_rows
    return sorted(rows, key=lambda r: try_ascend(r.version).sort_key, reverse=True)  # type: ignore[union-attr]


def _versions(target: Any, engine: str) -> Dict[str, str]:
    """The plan's ``versions`` in install order (driver, firmware, CANN, NNAL, Python, torch, torch_npu, vLLM,
    engine)."""
    ordered: Dict[str, str] = {}
    for name, key in (("driver", "hdk"), ("firmware", "firmware"), ("cann", "cann"), ("nnal", "cann"),
                      ("python", "python"), ("torch", "torch"), ("torch_npu", "torch_npu"), ("vllm", "vllm")):
        version = target.version(key)
        if version:
            ordered[name] = version
    ordered[engine] = target.version("engine") or ""
    return ordered


def _engine_row(m: Matrix, engine: str, version: str) -> Any:
    from ascend_doctor.matrix.engines import find_mindie_row, find_mindspeed_row, find_vllm_row

    if engine == "vllm-ascend":
        return find_vllm_row(m, version)
    if engine == "mindie":
        return find_mindie_row(m, version)
    return find_mindspeed_row(m, version)


def _joined(parts: Sequence[str], more: bool) -> Text:
    """``parts`` joined with "; " ("; …" after them when some were left out), each part shown translated:
    the template holds no words, so it is in no catalogue and stays as it is in every language."""
    template = "; ".join(f"{{part{i}}}" for i in range(len(parts))) + ("; …" if more else "")
    return Text(template, **{f"part{i}": part for i, part in enumerate(parts)})


# -- pairings ---------------------------------------------------------------------------------

def _pairings(m: Matrix, engine: str, stack: Dict[str, str], info: ChipInfo) -> Iterator[Tuple[str, Verdict]]:
    driver, cann = stack["driver"], stack["cann"]
    if engine in ("vllm-ascend", "mindie"):
        yield from _requirements(info, cann, driver)
    yield "cann vs driver", m.cann_vs_driver(cann, driver, chip=info.name)
    if "firmware" in stack:
        yield "driver vs firmware", m.driver_vs_firmware(driver, stack["firmware"])
    yield "torch_npu vs cann", m.torch_npu_vs_cann(stack["torch_npu"], cann)
    yield "torch_npu vs torch", m.torch_npu_vs_torch(stack["torch_npu"], stack["torch"])
    yield "torch vs python", m.torch_vs_python(stack["torch"], stack["python"])
    engine_name = ENGINE_NAMES[engine]
    for component, verdict in m.engine_vs_stack(engine, stack[engine], cann=cann, torch=stack["torch"],
                                                torch_npu=stack["torch_npu"], vllm=stack.get("vllm"),
                                                python=stack["python"]):
        yield (f"{engine} vs {component}",
               verdict.with_prefix("" if engine_name in verdict.message else f"{engine_name}: "))


def _requirements(info: ChipInfo, cann: str, driver: str) -> List[Tuple[str, Verdict]]:
    result = []
    cann_v, driver_v = try_ascend(cann), try_ascend(driver)
    for req in info.requirements:
        problems = []
        if req.cann and cann_v is not None and not spec_matches(req.cann, cann_v):
            problems.append(f"CANN {req.cann}")
        if req.hdk and driver_v is not None and not spec_matches(req.hdk, driver_v):
            problems.append(f"HDK {req.hdk}")
        label = "chip requirement"
        if problems:
            message = (Text(N_("{chips} need {first} and {second}"), chips=req.applies_to, first=problems[0],
                            second=problems[1]) if len(problems) == 2 else
                       Text(N_("{chips} need {requirement}"), chips=req.applies_to, requirement=problems[0]))
            result.append((label, Verdict(VerdictKind.INCOMPATIBLE, message, req.source)))
        else:
            result.append((label, Verdict(VerdictKind.COMPATIBLE,
                                          Text(N_("{chips} need CANN {cann} and HDK {hdk}"), chips=req.applies_to,
                                               cann=req.cann or Text(N_("any")), hdk=req.hdk or Text(N_("any"))),
                                          req.source)))
    return result


def _extras(m: Matrix, engine: str, row: Any, stack: Dict[str, str]) -> List[str]:
    notes: List[str] = []
    if engine == "vllm-ascend":
        assert isinstance(row, VllmAscendRow)
        if row.triton_ascend:
            notes.append(Text(N_("vLLM-Ascend {version} pairs with Triton Ascend {other}"), version=row.version,
                              other=row.triton_ascend))
        if row.mooncake:
            notes.append(Text(N_("vLLM-Ascend {version} pairs with Mooncake {other}"), version=row.version,
                              other=row.mooncake))
        if row.mindie_turbo:
            notes.append(Text(N_("vLLM-Ascend {version}: install mindie-turbo {other}"), version=row.version,
                              other=row.mindie_turbo))
        if row.status == "removed":
            notes.append(Text(N_("vLLM-Ascend {version} was removed from the published matrix"), version=row.version))
    return notes


def _family_notes(m: Matrix, engine: str, row: Any, stack: Dict[str, str], info: ChipInfo) -> List[str]:
    notes: List[str] = []
    if "firmware" not in stack:
        notes.append(Text(N_("the {family} firmware of HDK {driver} is not recorded in the matrix (firmware numbers "
                             "differ by chip family): take the firmware .run of the same HDK release"),
                          family=info.family, driver=stack["driver"]))
    bf16 = info.dtypes.get("bf16")
    if bf16 is not None and bf16.supported is False:
        notes.append(Text(N_("{family} has no BF16: serve in float16 (vLLM --dtype float16, MindIE fp16) or INT8 "
                             "({sources})"), family=info.family, sources="; ".join(bf16.source)))
    if engine == "mindie":
        assert isinstance(row, MindieRow)
        if row.python:
            notes.append(Text(N_("MindIE {version} needs Python {pythons} ({sources})"), version=row.version,
                              pythons=describe_python(row.python),
                              sources="; ".join(row.python_source or row.source)))
        if row.torch:
            fields = {"version": row.version, "torches": " / ".join(row.torch), "note": row.note}
            notes.append(Text(N_("MindIE {version} ships packages for torch {torches} ({note})"), **fields)
                         if row.note else Text(N_("MindIE {version} ships packages for torch {torches}"), **fields))
        elif row.pta:
            notes.append(Text(N_("MindIE {version} names PTA {pta} but no torch release: torch {torch} is the newest "
                                 "PTA {pta} build; check the MindIE {version} install guide for the torch its "
                                 "packages need"), version=row.version, pta=row.pta, torch=stack["torch"]))
    return notes


