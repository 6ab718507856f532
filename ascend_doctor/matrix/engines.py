"""Serving/training engines (vLLM-Ascend, MindIE, MindSpeed) against the rest of the stack.

Which mismatches are INCOMPATIBLE and which are only UNKNOWN follows what each source says:
vLLM-Ascend is a plugin for one vLLM release and pins torch/torch_npu in requirements.txt; MindIE
"must be used with" its CANN release; a different CANN for vLLM-Ascend or MindSpeed is simply not
documented (UNKNOWN), even though the project recommends one complete row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from packaging.version import Version

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.pytorch import describe_python
from ascend_doctor.matrix.records import MindieRow, MindspeedRow, TorchNpuRow, VllmAscendBuild, VllmAscendRow
from ascend_doctor.matrix.specs import (
    pyspec,
    python_in,
    python_version,
    release_rank,
    same_public,
    spec_matches,
    try_ascend,
    try_pypi,
)
from ascend_doctor.matrix.verdict import Verdict, VerdictKind, unknown

if TYPE_CHECKING:
    from ascend_doctor.matrix.tables import MatrixTables

ENGINES = ("vllm-ascend", "mindie", "mindspeed")
ENGINE_NAMES = {"vllm-ascend": "vLLM-Ascend", "mindie": "MindIE", "mindspeed": "MindSpeed"}
_ALIASES = {"vllm_ascend": "vllm-ascend", "vllmascend": "vllm-ascend", "mindie-service": "mindie",
            "mindie_service": "mindie", "mindspeed-llm": "mindspeed"}

Result = List[Tuple[str, Verdict]]
# Verdict messages and suggestions are ascend_doctor.i18n_text.Text: English str for code and JSON,
# shown translated by the checks (N_ marks the templates for the catalogue).


def _cannot_read(what: str, value: str) -> Verdict:
    return unknown(Text(N_("cannot read the {what} version {value}"), what=what, value=repr(value)))


def _uses_cann(name: str, cann: str) -> Text:
    return Text(N_("{engine} uses CANN {cann}: "), engine=name, cann=cann)


def normalize_engine(engine: str) -> Optional[str]:
    key = (engine or "").strip().lower()
    key = _ALIASES.get(key, key)
    return key if key in ENGINES else None


def find_vllm_row(m: MatrixTables, version: str) -> Optional[VllmAscendRow]:
    wanted = try_pypi(version)
    if wanted is None:
        return None
    return next((r for r in m.vllm_ascend_rows if same_public(Version(r.version), wanted)), None)


def builds_for(m: MatrixTables, version: str) -> Optional[VllmAscendBuild]:
    wanted = try_pypi(version)
    if wanted is None:
        return None
    return next((b for b in m.vllm_builds if any(same_public(Version(t), wanted) for t in b.tags)), None)


def find_mindie_row(m: MatrixTables, version: str) -> Optional[MindieRow]:
    wanted = try_ascend(version.replace("MindIE", "").strip())
    if wanted is None:
        return None
    return next((r for r in m.mindie_rows if _ascend_same(r.version, version)), None)


def find_mindspeed_row(m: MatrixTables, version: str) -> Optional[MindspeedRow]:
    # published as 1.0.RC3_core_r0.6.0: the part before "_core" names the release
    base = version.split("_core")[0].strip()
    return next((r for r in m.mindspeed_rows if _ascend_same(r.version, base)), None)


def _ascend_same(row_version: str, actual_text: str) -> bool:
    row, actual = try_ascend(row_version), try_ascend(actual_text.replace("MindIE", "").strip())
    return row is not None and actual is not None and release_rank(row, actual) >= 0


def engine_vs_stack(m: MatrixTables, engine: str, version: str, *, cann: Optional[str] = None,
                    torch: Optional[str] = None, torch_npu: Optional[str] = None, vllm: Optional[str] = None,
                    python: Optional[str] = None, driver: Optional[str] = None) -> Result:
    key = normalize_engine(engine)
    if key is None:
        return [("engine", unknown(Text(N_("unknown engine {engine} (expected one of {engines})"),
                                        engine=repr(engine), engines=", ".join(ENGINES))))]
    if key == "vllm-ascend":
        return _vllm(m, version, cann, torch, torch_npu, vllm, python, driver)
    if key == "mindie":
        return _mindie(m, version, cann, torch, torch_npu, python, driver)
    return _mindspeed(m, version, cann, torch, torch_npu, python, driver)


# -- vLLM-Ascend ------------------------------------------------------------------------------

def _vllm(m: MatrixTables, version: str, cann: Optional[str], torch: Optional[str], torch_npu: Optional[str],
          vllm: Optional[str], python: Optional[str], driver: Optional[str]) -> Result:
    row = find_vllm_row(m, version)
    if row is None:
        return [("engine", unknown(Text(N_("vLLM-Ascend {version} is not in the matrix"), version=version),
                                   _nearest_vllm(m, version)))]
    name = f"vLLM-Ascend {row.version}"
    build = builds_for(m, row.version)
    sources = row.source + (build.source if build else ())
    result: Result = []
    if vllm:
        wanted = try_pypi(vllm)
        if wanted is None:
            result.append(("vllm", _cannot_read("vLLM", vllm)))
        elif any(same_public(Version(v), wanted) for v in row.vllm):
            result.append(("vllm", Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine} is the plugin for vLLM {vllm}"),
                                                                         engine=name, vllm=" / ".join(row.vllm)),
                                           row.source)))
        else:
            result.append(("vllm", Verdict(VerdictKind.INCOMPATIBLE,
                                           Text(N_("{engine} is the plugin for vLLM {vllm}, not {installed}"),
                                                engine=name, vllm=" / ".join(row.vllm), installed=vllm),
                                           row.source, f"pip install vllm=={row.vllm[0]}")))
    if cann:
        result.append(("cann", _cann_for_row(name, row.cann, cann, sources, strict=False)))
    from ascend_doctor.matrix.pip import torch_pair  # pip install lines: not needed by every query

    pair = torch_pair(m, row.torch, row.torch_npu).text()  # never torch without its torch_npu
    if torch:
        result.append(("torch", _pinned(name, "torch", row.torch, build.torch if build else None, torch, sources,
                                        pair)))
    if torch_npu:
        result.append(("torch_npu", _pinned(name, "torch-npu", row.torch_npu, build.torch_npu if build else None,
                                            torch_npu, sources, pair)))
    if python:
        result.append(("python", _python(name, row.python, python, build.python if build else None, sources)))
    if driver:
        verdict = m.cann_vs_driver(row.cann, driver).with_prefix(_uses_cann(name, row.cann))
        result.append(("driver", verdict.with_notes(_caveats(m, row.cann, driver))))
    return result


def _nearest_vllm(m: MatrixTables, version: str) -> Optional[str]:
    wanted = try_pypi(version)
    if wanted is None:
        return None
    same = [r.version for r in m.vllm_ascend_rows if Version(r.version).release[:3] == wanted.release[:3]]
    if same:
        return Text(N_("releases of the same line in the matrix: {versions}"), versions=", ".join(same))
    return _see_matrix("vllm-ascend")


def _see_matrix(engine: str) -> Text:
    return Text(N_("see `ascend-doctor matrix show {engine}`"), engine=engine)


def _pinned(name: str, package: str, row_value: str, pin: Optional[str], actual: str,
            sources: Tuple[str, ...], fix: str) -> Verdict:
    actual_v = try_pypi(actual)
    if actual_v is None:
        return _cannot_read(package, actual)
    fields = {"engine": name, "package": package, "version": row_value, "pin": pin, "installed": actual}
    if same_public(Version(row_value), actual_v):
        return Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine} is released with {package} {version}"), **fields),
                       sources)
    if pin:
        if pyspec(pin).contains(Version(actual_v.public), prereleases=True):
            return Verdict(VerdictKind.COMPATIBLE,
                           Text(N_("{engine} requires {package}{pin}; {installed} satisfies it"), **fields), sources)
        return Verdict(VerdictKind.INCOMPATIBLE,
                       Text(N_("{engine} requires {package}{pin} (its requirements.txt), not {installed}"), **fields),
                       sources, fix)
    return unknown(Text(N_("{engine} is released with {package} {version}; {installed} is not documented for it"),
                        **fields), fix, sources)


def _python(name: str, spec: str, actual: str, image_python: Optional[str], sources: Tuple[str, ...]) -> Verdict:
    contained = python_in(spec, actual)
    if contained is None:
        return _cannot_read("Python", actual)
    shown = describe_python(spec)
    if not contained:
        return Verdict(VerdictKind.INCOMPATIBLE, Text(N_("{engine} supports Python {pythons}, not {python}"),
                                                      engine=name, pythons=shown, python=actual), sources,
                       Text(N_("use Python {pythons}"), pythons=shown))
    found = python_version(actual)
    if image_python and found is not None and found.release[:2] == Version(image_python).release[:2]:
        return Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine}'s release image uses Python {python}"),
                                                     engine=name, python=image_python), sources)
    return Verdict(VerdictKind.COMPATIBLE, Text(N_("{engine} supports Python {pythons}"), engine=name, pythons=shown),
                   sources)


def _cann_for_row(name: str, row_cann: str, actual: str, sources: Tuple[str, ...], *, strict: bool,
                  rule_source: Sequence[str] = ()) -> Verdict:
    actual_v, row_v = try_ascend(actual), try_ascend(row_cann)
    if actual_v is None or row_v is None:
        return _cannot_read("CANN", actual)
    fields = {"engine": name, "cann": row_cann, "installed": actual}
    if release_rank(row_v, actual_v) >= 0:
        return Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine} is released with CANN {cann}"), **fields), sources)
    if strict:
        return Verdict(VerdictKind.INCOMPATIBLE, Text(N_("{engine} must be used with CANN {cann}, not {installed}"),
                                                      **fields),
                       sources + tuple(rule_source), Text(N_("install CANN {cann}"), cann=row_cann))
    return unknown(Text(N_("{engine} is released with CANN {cann}; CANN {installed} is not documented for it"),
                        **fields),
                   Text(N_("install CANN {cann} (select one complete row of the release matrix)"), cann=row_cann),
                   sources)


def _caveats(m: MatrixTables, cann: str, driver: str) -> List[str]:
    notes = []
    cann_v, driver_v = try_ascend(cann), try_ascend(driver)
    for caveat in m.caveats:
        if "vLLM-Ascend" not in caveat.feature or not (caveat.hdk or caveat.cann):
            continue
        hit_hdk = bool(caveat.hdk and driver_v is not None and spec_matches(caveat.hdk, driver_v))
        hit_cann = bool(caveat.cann and cann_v is not None and spec_matches(caveat.cann, cann_v))
        if hit_hdk or hit_cann:
            notes.append(f"{caveat.feature}: {caveat.message} ({'; '.join(caveat.source)})")
    return notes


# -- MindIE -----------------------------------------------------------------------------------

_MINDIE_RULE = ("MindIE release notes: MindIE与CANN版本必须配套使用 (MindIE must be used with its CANN release)",)


def _mindie(m: MatrixTables, version: str, cann: Optional[str], torch: Optional[str], torch_npu: Optional[str],
            python: Optional[str], driver: Optional[str]) -> Result:
    row = find_mindie_row(m, version)
    if row is None:
        pending = next((u for u in m.mindie_unconfirmed if _ascend_same(u.version, version)), None)
        if pending is not None:
            return [("engine", unknown(Text(N_("MindIE {version}'s CANN pairing is not confirmed (likely CANN "
                                               "{cann})"), version=pending.version, cann=pending.likely_cann),
                                       None, pending.source))]
        return [("engine", unknown(Text(N_("MindIE {version} is not in the matrix"), version=version),
                                   _see_matrix("mindie")))]
    name = f"MindIE {row.version}"
    result: Result = []
    if cann:
        result.append(("cann", _cann_for_row(name, row.cann, cann, row.source, strict=True,
                                             rule_source=_MINDIE_RULE)))
    if driver:
        result.append(("driver", _mindie_driver(m, row, driver)))
    pta_rows = [r for r in m.torch_npu_rows if row.pta and r.pta and _ascend_same(r.pta, row.pta)]
    if torch:
        result.append(("torch", _mindie_torch(m, name, row, pta_rows, torch)))
    if torch_npu:
        result.append(("torch_npu", _via_pta(m, name, row.pta, row.cann, pta_rows, torch_npu, row.torch)))
    if python:
        if row.python:
            result.append(("python", _python(name, row.python, python, None, row.python_source or row.source)))
        else:
            result.append(("python", _python_via_packages(m, name, torch_npu, torch, python)))
    return result


def mindie_pairs(m: MatrixTables, row: MindieRow) -> List[TorchNpuRow]:
    """The torch_npu releases of MindIE's PTA that build on a torch MindIE ships packages for
    (all of the PTA's when MindIE names no torch), table rows first, newest torch first."""
    pta_rows = [r for r in m.torch_npu_rows if row.pta and r.pta and _ascend_same(r.pta, row.pta)]
    if row.torch:
        pta_rows = [r for r in pta_rows if any(same_public(Version(r.torch), Version(t)) for t in row.torch)]
    return sorted(pta_rows, key=lambda r: (r.origin != "table", [-x for x in Version(r.torch).release],
                                           [-x for x in Version(r.version).release], -(Version(r.version).post or 0)))


def _pair_for_torch(m: MatrixTables, torch: str, rows: Sequence[TorchNpuRow]) -> Optional[str]:
    from ascend_doctor.matrix.pip import torch_pair

    hit = next((r for r in rows if same_public(Version(r.torch), Version(torch))), None)
    return torch_pair(m, hit.torch, hit.version).text() if hit is not None else None


def _mindie_driver(m: MatrixTables, row: MindieRow, driver: str) -> Verdict:
    name = f"MindIE {row.version}"
    driver_v = try_ascend(driver)
    if driver_v is None:
        return _cannot_read("driver", driver)
    if row.hdk:
        fields = {"engine": name, "hdks": ", ".join(row.hdk), "driver": driver}
        install = Text(N_("install HDK {hdk}"), hdk=row.hdk[0])
        listed = [h for h in row.hdk if (v := try_ascend(h)) is not None and release_rank(v, driver_v) >= 0]
        if listed:
            return Verdict(VerdictKind.COMPATIBLE, Text(N_("{engine} lists HDK {hdks}"), **fields), row.source)
        oldest = min((v for v in (try_ascend(h) for h in row.hdk) if v), key=lambda v: v.sort_key)
        if driver_v.sort_key < oldest.sort_key:
            return Verdict(VerdictKind.INCOMPATIBLE,
                           Text(N_("{engine} lists HDK {hdks}; driver {driver} is older than all of them"), **fields),
                           row.source, install, inferred=True)
        return unknown(Text(N_("{engine} lists HDK {hdks}; driver {driver} is not among them"), **fields),
                       install, row.source)
    cann = row.hdk_as_cann or row.cann
    prefix = (Text(N_("{engine}: HDK as for CANN {cann}: "), engine=name, cann=cann) if row.hdk_as_cann else
              _uses_cann(name, cann))
    return m.cann_vs_driver(cann, driver).with_prefix(prefix)


def _mindie_torch(m: MatrixTables, name: str, row: MindieRow, pta_rows: Sequence[TorchNpuRow], torch: str) -> Verdict:
    torch_v = try_pypi(torch)
    if torch_v is None:
        return _cannot_read("torch", torch)
    if row.torch:
        fields = {"engine": name, "torches": " / ".join(row.torch), "torch": torch}
        if any(same_public(Version(t), torch_v) for t in row.torch):
            return Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine} ships packages for torch {torches}"), **fields),
                           row.source)
        fix = _pair_for_torch(m, row.torch[-1], pta_rows) or f"torch {row.torch[-1]} with its torch_npu"
        if row.note:
            fix += f"\n# {name}: {row.note}"
        return Verdict(VerdictKind.INCOMPATIBLE, Text(N_("{engine} ships packages for torch {torches} only, not "
                                                         "{torch}"), **fields), row.source, fix)
    torches = sorted({r.torch for r in pta_rows}, key=Version)
    fields = {"engine": name, "pta": row.pta or "", "torches": ", ".join(torches), "torch": torch}
    if any(same_public(Version(t), torch_v) for t in torches):
        return Verdict(VerdictKind.COMPATIBLE, Text(N_("{engine} uses PTA {pta}, released for torch {torches}"),
                                                    **fields), row.source)
    if torches:
        return unknown(Text(N_("{engine} uses PTA {pta}, released for torch {torches}; not {torch}"), **fields),
                       _pair_for_torch(m, torches[-1], pta_rows), row.source)
    return unknown(Text(N_("no torch version is recorded for {engine}"), engine=name))


def _via_pta(m: MatrixTables, name: str, pta: Optional[str], cann: str, pta_rows: Sequence[TorchNpuRow],
             torch_npu: str, torches: Sequence[str] = ()) -> Verdict:
    npu_v = try_pypi(torch_npu)
    if npu_v is None:
        return _cannot_read("torch_npu", torch_npu)
    versions = [r.version for r in pta_rows]
    hit = next((r for r in pta_rows if try_pypi(r.version) == npu_v), None)
    if hit is not None and torches and not any(same_public(Version(hit.torch), Version(t)) for t in torches):
        # MindIE 2.1.RC1 ships packages for torch 2.1.0 (abi0) and 2.6.0 (abi1) only: PTA 7.1.0's
        # torch_npu 2.5.1.post1 is a release of its PTA, but not one MindIE runs with
        fits = [r for r in pta_rows if any(same_public(Version(r.torch), Version(t)) for t in torches)]
        return Verdict(VerdictKind.INCOMPATIBLE,
                       Text(N_("{engine} ships packages for torch {torches} only; torch_npu {torch_npu} (PTA {pta}) is "
                               "built for torch {torch}"), engine=name, torches=" / ".join(torches),
                            torch_npu=torch_npu, pta=pta, torch=hit.torch), hit.source,
                       _pair_for_torch(m, fits[0].torch, fits) if fits else None)
    if hit is not None:
        return Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine} uses PTA {pta}, which includes torch_npu "
                                                        "{torch_npu}"), engine=name, pta=pta, torch_npu=torch_npu),
                       tuple(dict.fromkeys(s for r in pta_rows for s in r.source)))
    verdict = m.torch_npu_vs_cann(torch_npu, cann)
    if verdict.ok:
        return verdict.with_prefix(_uses_cann(name, cann))
    hint = (Text(N_("torch_npu for PTA {pta}: {versions}"), pta=pta, versions=", ".join(versions)) if versions else
            verdict.suggestion)
    return unknown(Text(N_("{engine} uses PTA {pta} / CANN {cann}; torch_npu {torch_npu} is not one of its releases"),
                        engine=name, pta=pta or "?", cann=cann, torch_npu=torch_npu),
                   hint, verdict.sources)


def _python_via_packages(m: MatrixTables, name: str, torch_npu: Optional[str], torch: Optional[str],
                         python: str) -> Verdict:
    if torch_npu:
        return m.torch_npu_vs_python(torch_npu, python)
    if torch:
        return m.torch_vs_python(torch, python)
    return unknown(Text(N_("{engine} does not state a Python range; give --torch or --torch-npu to judge Python"),
                        engine=name))


# -- MindSpeed --------------------------------------------------------------------------------

def _mindspeed(m: MatrixTables, version: str, cann: Optional[str], torch: Optional[str], torch_npu: Optional[str],
               python: Optional[str], driver: Optional[str]) -> Result:
    row = find_mindspeed_row(m, version)
    if row is None:
        return [("engine", unknown(Text(N_("MindSpeed {version} is not in the matrix"), version=version),
                                   _see_matrix("mindspeed")))]
    name = f"MindSpeed {row.version}"
    own_cann = mindspeed_cann(m, row)
    result: Result = []
    if cann:
        cann_v = try_ascend(cann)
        listed = [c for c in row.cann if cann_v is not None and (v := try_ascend(c)) and release_rank(v, cann_v) >= 0]
        fields: Dict[str, Any] = {"engine": name, "pta": row.pta, "cann": own_cann, "canns": ", ".join(row.cann),
                                  "installed": cann}
        if cann_v is None:
            result.append(("cann", _cannot_read("CANN", cann)))
        elif listed and own_cann and _ascend_same(own_cann, cann):
            result.append(("cann", Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine} (PTA {pta}) is released with "
                                                                            "CANN {cann}"), **fields), row.source)))
        elif listed:
            result.append(("cann", Verdict(VerdictKind.COMPATIBLE, Text(N_("{engine} lists CANN {canns}"), **fields),
                                           row.source)))
        else:
            result.append(("cann", unknown(Text(N_("{engine} lists CANN {canns}, not {installed}"), **fields),
                                           Text(N_("install CANN {cann}"), cann=own_cann or row.cann[-1]),
                                           row.source)))
    if torch:
        torch_v = try_pypi(torch)
        fields = {"engine": name, "torch": row.torch or "", "installed": torch}
        if torch_v is None:
            result.append(("torch", _cannot_read("torch", torch)))
        elif row.torch and same_public(Version(row.torch), torch_v):
            result.append(("torch", Verdict(VerdictKind.RECOMMENDED, Text(N_("{engine} is built on PyTorch {torch}"),
                                                                          **fields), row.source)))
        elif row.torch:
            rows = [r for r in m.torch_npu_rows if row.pta and r.pta and _ascend_same(r.pta, row.pta)]
            result.append(("torch", Verdict(VerdictKind.INCOMPATIBLE,
                                            Text(N_("{engine} is built on PyTorch {torch}, not {installed}"), **fields),
                                            row.source,
                                            _pair_for_torch(m, row.torch, rows)
                                            or f"torch {row.torch} with the torch_npu of PTA {row.pta}")))
        else:
            result.append(("torch", unknown(Text(N_("{engine} does not state a PyTorch version"), engine=name))))
    pta_rows = [r for r in m.torch_npu_rows if row.pta and r.pta and _ascend_same(r.pta, row.pta)]
    if torch_npu:
        result.append(("torch_npu", _via_pta(m, name, row.pta, own_cann or row.cann[-1], pta_rows, torch_npu)))
    if python:
        if row.python:
            result.append(("python", _python(name, row.python, python, None, row.source)))
        else:
            result.append(("python", _python_via_packages(m, name, torch_npu, torch, python)))
    if driver:
        cann_for_driver = own_cann or row.cann[-1]
        result.append(("driver", m.cann_vs_driver(cann_for_driver, driver)
                       .with_prefix(_uses_cann(name, cann_for_driver))))
    return result


def mindspeed_cann(m: MatrixTables, row: MindspeedRow) -> Optional[str]:
    """The CANN release of a MindSpeed row's PTA, when the row lists it."""
    if not row.pta:
        return None
    for pta in m.pta_releases:
        if _ascend_same(pta.pta, row.pta) and any(_ascend_same(c, pta.cann) for c in row.cann):
            return pta.cann
    return None


def python_choice(spec: str, candidates: Sequence[str]) -> Optional[str]:
    """The highest of ``candidates`` (``3.12``…) inside ``spec``."""
    inside = [c for c in candidates if python_in(spec, c)]
    return max(inside, key=Version) if inside else None
