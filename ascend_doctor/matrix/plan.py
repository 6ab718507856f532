"""``matrix plan``: a complete recommended stack for a chip and an engine, with install steps.

The plan walks the engine's releases from the highest down and keeps the first whose every
pairing (driver, firmware, CANN, torch, torch_npu, Python, engine) is recommended or compatible
with what the caller fixed. Components the caller did not fix take the release's own pairing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from packaging.version import Version

from ascend_doctor.fastdataclass import dataclass, field
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix import hdk, pytorch
from ascend_doctor.matrix.chips import ChipInfo
from ascend_doctor.matrix.engines import (
    ENGINE_NAMES,
    builds_for,
    mindie_pairs,
    mindspeed_cann,
    normalize_engine,
    python_choice,
)
from ascend_doctor.matrix.pytorch import describe_python
from ascend_doctor.matrix.records import MindieRow, MindspeedRow, VllmAscendRow
from ascend_doctor.matrix.specs import release_rank, spec_matches, try_ascend, try_pypi
from ascend_doctor.matrix.verdict import Verdict, VerdictKind

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix

PYTHONS = ("3.13", "3.12", "3.11", "3.10", "3.9", "3.8")
FIXABLE = ("driver", "firmware", "cann", "python", "torch", "torch_npu", "vllm", "version")


class PlanError(Exception):
    """No stack can be planned (unknown chip, unsupported engine, nothing satisfies the fixed parts).

    Raised with an ascend_doctor.i18n_text.Text: ``str(exc)`` is English (the CLI reads its start),
    ``localized(exc)`` the message in the run's language. The plan's titles, notes and reasons are
    Text too (the JSON stays English; the text view shows them with ``localized``)."""


@dataclass(frozen=True)
class InstallStep:
    title: str
    commands: Tuple[str, ...] = ()
    note: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"title": self.title, "commands": list(self.commands)}
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True)
class StackPlan:
    chip: str
    family: str
    engine: str
    versions: Dict[str, str]
    pairings: Tuple[Tuple[str, Verdict], ...]
    steps: Tuple[InstallStep, ...]
    notes: Tuple[str, ...] = ()
    skipped: Tuple[str, ...] = ()  # higher releases that did not fit, and why
    fixed: Dict[str, str] = field(default_factory=dict)
    matrix: Dict[str, Any] = field(default_factory=dict)
    arches: Tuple[str, ...] = ("aarch64", "x86_64")  # the package names printed are for these

    def to_dict(self) -> Dict[str, Any]:
        return {
            "chip": self.chip,
            "family": self.family,
            "engine": self.engine,
            "arch": list(self.arches),
            "fixed": dict(self.fixed),
            "versions": dict(self.versions),
            "pairings": [{"pair": name, **verdict.to_dict()} for name, verdict in self.pairings],
            "steps": [step.to_dict() for step in self.steps],
            "notes": list(self.notes),
            "skipped": list(self.skipped),
            "matrix": dict(self.matrix),
        }


def normalize_fixed(fixed: Dict[str, str], engine: str) -> Dict[str, str]:
    result = {}
    for key, value in fixed.items():
        if value is None or str(value).strip() == "":
            continue
        name = key.strip().lower().replace("-", "_")
        if name in ("torchnpu", "torch_npu"):
            name = "torch_npu"
        elif name in (engine.replace("-", "_"), "engine", "engine_version"):
            name = "version"
        if name not in FIXABLE:
            raise PlanError(Text(N_("cannot fix {key} (fixable: {fixable})"), key=repr(key),
                                 fixable=", ".join(FIXABLE)))
        result[name] = str(value).strip()
    return result


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
    skipped: List[str] = []
    for row in _candidates(m, key, wanted, stable_only):
        stack, reason = _stack(m, key, row, wanted, info)
        if stack is None:
            skipped.append(Text(N_("{engine} {version}: {reason}"), engine=engine_name, version=row.version,
                                reason=reason))
            continue
        pairings: List[Tuple[str, Verdict]] = []
        bad: Optional[Tuple[str, Verdict]] = None
        for name, verdict in _pairings(m, key, stack, info):  # lazily: stop at the first misfit
            pairings.append((name, verdict))
            if not verdict.ok and not _tolerated(name, verdict, wanted):
                bad = (name, verdict)
                break
        if bad is not None:
            name, verdict = bad
            skipped.append(Text(N_("{engine} {version}: {pair}: {verdict} — {message}"), engine=engine_name,
                                version=row.version, pair=name, verdict=verdict.kind.value, message=verdict.message))
            continue
        unverified: List[str] = [
            Text(N_("{pair}: {message} (if this machine is one of them)"), pair=name, message=v.message)
            if name == "chip requirement" else
            Text(N_("{pair}: not recorded in the matrix ({message})"), pair=name, message=v.message)
            for name, v in pairings if not v.ok]
        unverified += [Text(N_("{pair}: {message} (uncertain)"), pair=name, message=v.message)
                       for name, v in pairings if v.ok and v.uncertain]
        extra = _extras(m, key, row, stack) + _family_notes(m, key, row, stack, info)
        if "python" not in wanted and key != "vllm-ascend" and not getattr(row, "python", None):
            extra.append(Text(N_("{engine} {version} states no Python range: Python {python} is the highest PyTorch "
                                 "{torch} supports"), engine=engine_name, version=row.version,
                              python=stack["python"], torch=stack["torch"]))
        return StackPlan(
            chip=info.name, family=info.family, engine=key, versions=stack,
            pairings=tuple(pairings), steps=tuple(_steps(m, key, stack, info, arches, wanted, row)),
            notes=tuple(notes + list(info.notes if info.is_family else ()) + unverified + extra),
            skipped=tuple(skipped), fixed=wanted, matrix=m.identity(), arches=arches)
    fixed_text = ", ".join(f"{k}={v}" for k, v in wanted.items())
    found: Dict[str, Any] = {"engine": engine_name, "chip": info.name, "fixed": fixed_text}
    if not skipped:
        raise PlanError(Text(N_("no {engine} release fits {chip} with {fixed}"), **found) if fixed_text else
                        Text(N_("no {engine} release fits {chip} with nothing fixed"), **found))
    found["reasons"] = _joined(skipped[:5], more=len(skipped) > 5)
    raise PlanError(Text(N_("no {engine} release fits {chip} with {fixed} ({reasons})"), **found) if fixed_text else
                    Text(N_("no {engine} release fits {chip} with nothing fixed ({reasons})"), **found))


def _joined(parts: Sequence[str], more: bool) -> Text:
    """``parts`` joined with "; " ("; …" after them when some were left out), each part shown translated:
    the template holds no words, so it is in no catalogue and stays as it is in every language."""
    template = "; ".join(f"{{part{i}}}" for i in range(len(parts))) + ("; …" if more else "")
    return Text(template, **{f"part{i}": part for i, part in enumerate(parts)})


def _tolerated(name: str, verdict: Verdict, wanted: Dict[str, str]) -> bool:
    """An UNKNOWN pairing between parts we chose (not fixed) only lacks data; it does not disqualify.

    A chip requirement names a product line (e.g. Atlas A2 *inference* products) that the chip name
    alone cannot confirm, so a miss is reported as a note instead of ruling the release out.
    """
    if name == "chip requirement":
        return True
    if verdict.kind is not VerdictKind.UNKNOWN:
        return False
    parts = ["version" if p in ENGINE_NAMES else p for p in name.split(" vs ")]
    return not any(p in wanted for p in parts)


# -- candidates -------------------------------------------------------------------------------

def _candidates(m: Matrix, engine: str, wanted: Dict[str, str], stable_only: bool) -> List[Any]:
    version = wanted.get("version")
    if engine == "vllm-ascend":
        vrows = [r for r in m.vllm_ascend_rows if not version or _pypi_eq(r.version, version)]
        if stable_only and not version:
            vrows = [r for r in vrows if not Version(r.version).is_prerelease]
        # rows still in the published table first, each group highest first
        return sorted(vrows, key=lambda r: (r.status == "current", Version(r.version)), reverse=True)
    rows: Sequence[Any] = m.mindie_rows if engine == "mindie" else m.mindspeed_rows
    arows = [r for r in rows if not version or _ascend_eq(r.version, version.split("_core")[0])]
    if stable_only and not version:
        arows = [r for r in arows if (v := try_ascend(r.version)) is not None and v.stage == 2]
    return sorted(arows, key=lambda r: try_ascend(r.version).sort_key, reverse=True)  # type: ignore[union-attr]


def _pypi_eq(a: str, b: str) -> bool:
    va, vb = try_pypi(a), try_pypi(b.lstrip("v"))
    return va is not None and va == vb


def _ascend_eq(a: str, b: str) -> bool:
    va, vb = try_ascend(a), try_ascend(b)
    return va is not None and vb is not None and release_rank(va, vb) >= 0


# -- one candidate's stack --------------------------------------------------------------------

def _stack(m: Matrix, engine: str, row: Any, wanted: Dict[str, str],
           info: ChipInfo) -> Tuple[Optional[Dict[str, str]], str]:
    if engine == "vllm-ascend":
        assert isinstance(row, VllmAscendRow)
        base = {"cann": row.cann, "torch": row.torch, "torch_npu": row.torch_npu, "vllm": row.vllm[0]}
        build = builds_for(m, row.version)
        python_spec: Optional[str] = row.python
        image_python = build.python if build else None
    elif engine == "mindie":
        assert isinstance(row, MindieRow)
        base = {"cann": row.cann}
        pairs = mindie_pairs(m, row)
        if wanted.get("torch"):
            pairs = [p for p in pairs if _pypi_eq(p.torch, wanted["torch"])]
        if pairs:  # MindIE's own torch (2.1.RC1: 2.6.0 for the abi1 package), newest first
            base["torch"], base["torch_npu"] = pairs[0].torch, pairs[0].version
        python_spec = row.python
        image = next((i for i in m.mindie_images if i.family == info.family and _ascend_eq(i.mindie, row.version)),
                     None)
        image_python = image.python if image is not None else ("3.11" if row.python else None)
    else:
        assert isinstance(row, MindspeedRow)
        cann = mindspeed_cann(m, row) or row.cann[-1]
        base = {"cann": cann}
        pair = _pta_pair(m, row.pta, cann, wanted.get("torch") or row.torch)
        if pair is not None:
            base["torch"], base["torch_npu"] = pair
        python_spec, image_python = row.python, None
    stack: Dict[str, str] = {}
    stack.update(base)
    for name in ("cann", "torch", "torch_npu", "vllm"):
        if name in wanted:
            stack[name] = wanted[name]
    if "torch" not in stack or "torch_npu" not in stack:
        return None, Text(N_("no torch / torch_npu release is recorded for it"))
    python = wanted.get("python") or _pick_python(m, python_spec, stack["torch"], image_python)
    if python is None:
        return None, Text(N_("no Python version satisfies both the engine and PyTorch"))
    stack["python"] = python
    cann_v = try_ascend(stack["cann"])
    if cann_v is None:
        return None, Text(N_("cannot read CANN {cann}"), cann=repr(stack["cann"]))
    # MindIE 3.0.0 states "HDK: same as CANN 8.5.0": pick the driver of that release
    hdk_cann = try_ascend(getattr(row, "hdk_as_cann", None) or "") or cann_v
    driver = wanted.get("driver") or _pick_driver(m, hdk_cann, info)
    if driver is None:
        return None, Text(N_("no driver release is documented for CANN {cann}"), cann=stack["cann"])
    firmware = wanted.get("firmware")
    if firmware is None:
        driver_v = try_ascend(driver)
        found = hdk.firmware_for_hdk(m, driver_v, info.image_flavor) if driver_v else None
        firmware = found[0] if found else None
    ordered: Dict[str, str] = {"driver": driver}
    if firmware:
        ordered["firmware"] = firmware
    ordered["cann"] = stack["cann"]
    ordered["nnal"] = cann_v.release if not cann_v.pre else stack["cann"]
    ordered["python"] = stack["python"]
    ordered["torch"] = stack["torch"]
    ordered["torch_npu"] = stack["torch_npu"]
    if "vllm" in stack:
        ordered["vllm"] = stack["vllm"]
    ordered[engine] = row.version
    return ordered, ""


def _pta_pair(m: Matrix, pta: Optional[str], cann: str, torch: Optional[str]) -> Optional[Tuple[str, str]]:
    """(torch, torch_npu) of a PTA release — for ``torch`` when given, else the highest."""
    rows = [r for r in m.torch_npu_rows if pta and r.pta and _ascend_eq(r.pta, pta)]
    if not rows:
        cann_v = try_ascend(cann)
        pair = pytorch.recommended_pair(m, cann_v, torch) if cann_v else None
        return (pair.torch, pair.version) if pair else None
    if torch:
        wanted = try_pypi(torch)
        rows = [r for r in rows if wanted is not None and Version(r.torch) == Version(wanted.public)]
        if not rows:
            return None
    best = max(rows, key=lambda r: (r.origin == "table", Version(r.torch), Version(r.version)))
    return best.torch, best.version


def _pick_python(m: Matrix, spec: Optional[str], torch: str, image_python: Optional[str]) -> Optional[str]:
    torch_v = try_pypi(torch)
    torch_rows = [r for r in m.torch_python if torch_v is not None and Version(r.torch) == Version(torch_v.public)]
    torch_spec = torch_rows[0].python if torch_rows and torch_rows[0].python else None
    candidates = [p for p in PYTHONS if (spec is None or python_choice(spec, [p])) and
                  (torch_spec is None or python_choice(torch_spec, [p]))]
    if image_python and image_python in candidates:
        return image_python
    return candidates[0] if candidates and (spec or torch_spec) else None


def _pick_driver(m: Matrix, cann_v: Any, info: ChipInfo) -> Optional[str]:
    hit = hdk.recommended_driver(m, cann_v, info.image_flavor)
    if hit is not None:
        return hit[1]
    ordered = sorted(m.hdk_releases, key=lambda r: try_ascend(r.version).sort_key,  # type: ignore[union-attr]
                     reverse=True)
    compatible = [r.version for r in ordered if m.cann_vs_driver(cann_v.release, r.version).ok]
    return compatible[0] if compatible else None


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
        build = builds_for(m, row.version)
        if build is not None:
            notes.append(Text(N_("release image base: {image}"), image=build.base_image))
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


# -- install steps ----------------------------------------------------------------------------

MINDIE_ENV_SCRIPTS = ("source /usr/local/Ascend/ascend-toolkit/set_env.sh",
                      "source /usr/local/Ascend/nnal/atb/set_env.sh",
                      "source /usr/local/Ascend/mindie/set_env.sh",
                      "source /usr/local/Ascend/atb-models/set_env.sh")
MINDIE_RULES_SOURCE = ("hiascend MindIE service0348 (config.json and weights 640 or stricter, weight folders 750, "
                       "owned by the run user); https://hiascend.com/document/detail/zh/mindie/100/envdeployment/"
                       "instg/mindie_instg_0026.html (container: shared memory of at least 1 GB)")


def _per_arch(arches: Sequence[str], make: Any) -> List[str]:
    """One line per architecture; a second architecture is labelled as the alternative it is."""
    lines: List[str] = []
    for index, arch in enumerate(arches):
        line = make(arch)
        if line is None:
            lines.append(f"# no {arch} file name is recorded in the matrix")
            continue
        if len(arches) > 1:
            line += f"   # {arch}" if index == 0 else f"   # or, on {arch}"
        lines.append(line)
    return lines


def hdk_block(m: Matrix, family: str, arches: Sequence[str], driver: str, firmware: Optional[str]) -> List[str]:
    """Both install orders of one HDK release (Huawei: first install driver -> firmware; an upgrade,
    overwrite install or rollback firmware -> driver), each followed by one reboot."""
    from ascend_doctor.matrix.packages import FIRST_INSTALL, UPGRADE, PackageSet, convention_flags, convention_order

    sets = [PackageSet(family, arch, m) for arch in arches]
    fw_file = sets[0].hdk_firmware(firmware) if firmware else None
    lines: List[str] = []
    for mode, title in ((FIRST_INSTALL, "# first install (no Ascend driver on the machine): driver, then firmware"),
                        (UPGRADE, "# upgrade, overwrite install or rollback (a driver is installed): firmware, then "
                                  "driver")):
        lines.append(title)
        for part in convention_order(m, mode):
            if part == "driver":
                commands = {pk.arch: f"./{name} {convention_flags(m, 'driver')}"
                            for pk in sets if (name := pk.hdk_driver(driver))}
                if not commands:
                    lines.append(f"# no {family} driver file name is recorded: see the HDK {driver} download page")
                    continue
                lines.extend(_per_arch(arches, commands.get))
            elif fw_file:
                lines.append(f"./{fw_file} {convention_flags(m, 'firmware')}")
            else:
                lines.append(f"# the {family} firmware of HDK {driver} is not recorded in the matrix: "
                             f"ascend-doctor matrix lookup --driver {driver} --chip {family}, or the HDK download page")
        lines.append("reboot")
    return lines


def _steps(m: Matrix, engine: str, stack: Dict[str, str], info: ChipInfo, arches: Sequence[str],
           fixed: Dict[str, str], row: Any) -> List[InstallStep]:
    from ascend_doctor.matrix.packages import PackageSet
    from ascend_doctor.matrix.pip import torch_pair

    family = info.family
    sets = [PackageSet(family, arch, m) for arch in arches]
    driver = stack["driver"]
    firmware = stack.get("firmware")
    steps: List[InstallStep] = []
    if "driver" in fixed:
        check = [f"npu-smi info   # the banner must show Version {driver}"]
        if firmware:
            check.append(f"npu-smi info -t board -i 0   # Firmware Version {firmware}, Compatibility OK")
        steps.append(InstallStep(Text(N_("Keep the installed HDK: driver {driver}, firmware {firmware}"),
                                      driver=driver, firmware=firmware) if firmware else
                                 Text(N_("Keep the installed HDK: driver {driver}"), driver=driver),
                                 tuple(check), Text(N_("--driver keeps the driver installed on the machine: nothing "
                                                       "to install; the rest of the plan is chosen to work with it"))))
    else:
        lines = hdk_block(m, family, arches, driver, firmware)
        lines.append(f"npu-smi info   # after the reboot: Version {driver}")
        steps.append(InstallStep(Text(N_("Install the NPU driver {driver} and firmware {firmware} of one HDK "
                                         "release, then reboot once"), driver=driver,
                                      firmware=firmware or Text(N_("(not recorded)"))), tuple(lines),
                                 Text(N_("on the host, as root; in a container only the CANN and Python steps "
                                         "apply"))))
    cann = stack["cann"]
    nnal = stack["nnal"]
    toolkits = {pk.arch: pk.toolkit(cann) for pk in sets}
    kernels = {pk.arch: pk.kernels(cann) for pk in sets}
    nnals = {pk.arch: pk.nnal(nnal) for pk in sets}

    def install(files: Dict[str, Optional[str]]) -> List[str]:
        return _per_arch(arches, lambda a: f"./{files[a]} --install" if files.get(a) else None)

    steps.append(InstallStep(Text(N_("Install the CANN toolkit {cann}"), cann=cann),
                             tuple(install(toolkits) + ["source /usr/local/Ascend/ascend-toolkit/set_env.sh"])))
    if any(kernels.values()):
        steps.append(InstallStep(Text(N_("Install the operator package for {chip} ({family})"), chip=info.name,
                                      family=family), tuple(install(kernels))))
    else:
        steps.append(InstallStep(Text(N_("Install the operator package for {chip} ({family})"), chip=info.name,
                                      family=family),
                                 (f"# no {family} kernels/ops file name is recorded for CANN {cann}: see "
                                  f"`ascend-doctor matrix lookup --chip {info.name}` and the CANN download page",)))
    steps.append(InstallStep(Text(N_("Install NNAL {nnal} (ATB, needed for libatb.so)"), nnal=nnal),
                             tuple(install(nnals) + ["source /usr/local/Ascend/nnal/atb/set_env.sh"])))
    python = stack["python"]
    steps.append(InstallStep(Text(N_("Use Python {python}"), python=python), (f"python{python} -m venv ~/ascend-venv",
                                                       "source ~/ascend-venv/bin/activate")))
    arch = arches[0] if len(arches) == 1 else None
    pair = torch_pair(m, stack["torch"], stack["torch_npu"], arch)
    steps.append(InstallStep(Text(N_("Install PyTorch {torch} with torch_npu {torch_npu} (one command: never one "
                                     "without the other)"), torch=stack["torch"], torch_npu=stack["torch_npu"]),
                             tuple(pair.lines + [f"# {n}" for n in pair.notes]
                                   + ['python -c "import torch, torch_npu; print(torch_npu.npu.device_count())"'])))
    version = stack[engine]
    if engine == "vllm-ascend":
        steps.append(_vllm_step(m, info, stack, version, arch))
    elif engine == "mindie":
        steps.append(_mindie_step(m, info, stack, version, row))
    else:
        steps.append(InstallStep(Text(N_("Install MindSpeed {version}"), version=version),
                                 ("git clone https://github.com/Ascend/MindSpeed.git",
                                  "cd MindSpeed && pip install -e ."),
                                 Text(N_("check out the branch of release {version} (README 版本配套表)"),
                                      version=version)))
    return steps


def _vllm_step(m: Matrix, info: ChipInfo, stack: Dict[str, str], version: str, arch: Optional[str]) -> InstallStep:
    from ascend_doctor.matrix.pip import vllm_ascend

    family = m.family(info.family)
    image = family.vllm_ascend_image.template.replace("{version}", version) \
        if family is not None and family.vllm_ascend_image is not None else None
    wheel = vllm_ascend(m, stack.get("vllm"), version, arch)
    title = Text(N_("Install vLLM {vllm} and vLLM-Ascend {version}"), vllm=stack.get("vllm"), version=version)
    if info.family == "310P":
        # the default wheel and image carry A2 custom ops ("socversion Ascend910B1 of bin package does
        # not match … Ascend310P3"): the -310p image, or a build for the 310P
        soc = info.soc_version_default or "ascend310p1"
        commands = [f"docker pull {image}" if image else "# no 310P image is recorded",
                    "# or build from source for the 310P (not the PyPI wheel, built for A2):",
                    f"export SOC_VERSION={soc}",
                    f"git clone --depth 1 --branch v{version} https://github.com/vllm-project/vllm-ascend.git && "
                    "cd vllm-ascend && pip install -e .",
                    "# serve in float16: the 310P has no BF16",
                    "vllm serve <model> --dtype float16"]
        return InstallStep(title, tuple(commands), Text(N_("Atlas 300I Duo only ([Experimental] in the vLLM-Ascend "
                                                           "support list; the 300I Pro is not listed)")))
    if info.family == "A3":
        commands = [f"docker pull {image}" if image else "# no A3 image is recorded",
                    "# or the wheels (check that the custom operators were built for A3):"] + wheel.lines
        return InstallStep(title, tuple(commands + [f"# {n}" for n in wheel.notes]),
                           Text(N_("Atlas A3: the -a3 image; the plain tag is the Atlas A2 image")))
    commands = wheel.lines + [f"# {n}" for n in wheel.notes]
    return InstallStep(title, tuple(commands),
                       Text(N_("or run the release image {image}"), image=image) if image else None)


def _mindie_step(m: Matrix, info: ChipInfo, stack: Dict[str, str], version: str, row: Any) -> InstallStep:
    image = next((i.image for i in m.mindie_images
                  if i.family == info.family and _ascend_eq(i.mindie, version)), None)
    commands: List[str] = []
    if image:
        commands += [f"docker pull {image}", "# or install the packages on this machine:"]
    commands.append(f"# install the MindIE {version} run package for CANN {stack['cann']} and torch {stack['torch']} "
                    "(hiascend.com MindIE download page), then in every shell that starts the service:")
    commands += list(MINDIE_ENV_SCRIPTS)
    commands += ["chmod 640 /usr/local/Ascend/mindie/latest/mindie-service/conf/config.json",
                 "chmod 750 <weight dir> && chmod 640 <weight dir>/*   # owned by the user that runs the service"]
    rules = N_("MindIE refuses to start when config.json or the weights are more open than 640 (folders 750) or "
               "owned by another user; in a container give it --shm-size of at least 1 GB ({source})")
    if image:
        note = Text(rules, source=MINDIE_RULES_SOURCE)
    else:
        note = Text(N_("{rules}; no MindIE image tag for this release and chip is recorded (AscendHub: {url})"),
                    rules=Text(rules, source=MINDIE_RULES_SOURCE),
                    url="https://www.hiascend.com/developer/ascendhub/detail/af85b724a7e5469ebd7ea13c3439d48f")
    return InstallStep(Text(N_("Install MindIE {version}"), version=version), tuple(commands), note)
