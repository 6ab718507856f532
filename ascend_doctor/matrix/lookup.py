"""``matrix lookup``: everything the matrix pairs with one version, each answer with its verdict."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set, Tuple

from msgspec import Struct, field
from packaging.version import Version

from ascend_doctor.matrix import engines, hdk, pytorch
from ascend_doctor.matrix.specs import (
    parse_driver_patterns,
    release_rank,
    same_public,
    spec_matches,
    try_ascend,
    try_pypi,
)
from ascend_doctor.matrix.verdict import Verdict, VerdictKind, unknown

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix


class Answer(Struct, frozen=True):
    component: str  # driver, firmware, cann, torch_npu, torch, python, vllm-ascend, mindie, …
    version: str
    verdict: Verdict

    def to_dict(self) -> Dict[str, Any]:
        return {"component": self.component, "version": self.version, **self.verdict.to_dict()}


class LookupResult(Struct):
    subject: str  # "CANN 8.0.RC3"
    answers: List[Answer] = field(default_factory=list)
    facts: List[Tuple[str, str]] = field(default_factory=list)  # plain information lines
    found: bool = True

    def to_dict(self) -> Dict[str, Any]:
        return {"subject": self.subject, "found": self.found, "facts": [{"name": k, "value": v} for k, v in self.facts],
                "answers": [a.to_dict() for a in self.answers]}


def _rec(message: str, sources: Tuple[str, ...], **kwargs: Any) -> Verdict:
    return Verdict(VerdictKind.RECOMMENDED, message, sources, **kwargs)


def _compat(message: str, sources: Tuple[str, ...], **kwargs: Any) -> Verdict:
    return Verdict(VerdictKind.COMPATIBLE, message, sources, **kwargs)


# -- CANN -------------------------------------------------------------------------------------

# Chip families whose products have HDK lines of their own (hdk_cann rows with `products`).
_PRODUCT_LINE_FAMILIES = ("950",)


def _products_apply(m: Matrix, products: Tuple[str, ...], chip: Optional[str]) -> bool:
    """A product-only pairing row (Atlas 350 / 850 / 950 SuperPoD) applies only when --chip names that
    hardware's family (the 950 series); for A2/A3/310P, and without --chip, it does not."""
    info = m.chip(chip) if chip else None
    return info is not None and info.family in _PRODUCT_LINE_FAMILIES


def lookup_cann(m: Matrix, cann: str, chip: Optional[str] = None) -> LookupResult:
    result = LookupResult(f"CANN {cann}")
    cann_v = try_ascend(cann)
    if cann_v is None or not m.knows_cann(cann_v):
        result.found = False
        result.facts.append(("status", f"CANN {cann} is not in the matrix" if cann_v else "not an Ascend version"))
        return result
    seen: Set[str] = set()
    other_products: List[str] = []
    for hrow in sorted(m.hdk_cann_rows(cann_v), key=lambda r: hdk.ORIGIN_PRIORITY[r.origin]):
        if hrow.products and not _products_apply(m, hrow.products, chip):
            # another product's HDK line (Atlas 350 / 850 / 950): never "recommended" for A2/A3/300I Duo
            other_products.extend(f"HDK {spec} ({'/'.join(hrow.products)})" for spec in hrow.hdk)
            seen.update(spec.lower() for spec in hrow.hdk)
            continue
        for spec in hrow.hdk:
            message = hdk._row_message(hrow, spec)
            result.answers.append(Answer("driver", spec, Verdict(VerdictKind(hrow.verdict), message, hrow.source,
                                                                 notes=(hrow.note,) if hrow.note else ())))
            seen.add(spec.lower())
            if hrow.firmware:
                columns = f" ({'/'.join(hrow.flavor)})" if hrow.flavor else ""
                result.answers.append(Answer("firmware", hrow.firmware, Verdict(
                    VerdictKind(hrow.verdict),
                    f"the firmware installed with driver {spec} for CANN {hrow.cann}{columns}", hrow.source)))
    for hrel in m.hdk_releases:
        if hrel.version.lower() in seen:
            continue
        verdict = m.cann_vs_driver(cann, hrel.version)
        if verdict.kind is not VerdictKind.UNKNOWN:
            result.answers.append(Answer("driver", hrel.version, verdict))
        elif verdict.message.startswith(f"HDK {hrel.version} is not in") or any(
                "co-existence list" in n for n in verdict.notes):
            # shown so that nobody reads a co-listing as a pairing: the answer is "unknown"
            result.answers.append(Answer("driver", hrel.version, verdict))
    for trow in pytorch.rows_for_cann(m, cann_v):
        where = f"branch {trow.branch}" if trow.branch else pytorch.ORIGIN_TEXT[trow.origin]
        result.answers.append(Answer("torch_npu", f"{trow.version} (torch {trow.torch})",
                                     _rec(f"released for CANN {trow.cann} ({where})", trow.source)))
    for statement in m.torch_npu_cann:
        if any(_same_ascend(c, cann) for c in statement.cann):
            for nrow in m.torch_npu_rows:
                if nrow.pta and any(_same_ascend(p, nrow.pta) for p in statement.pta) \
                        and not _same_ascend(nrow.cann, cann):
                    result.answers.append(Answer("torch_npu", f"{nrow.version} (torch {nrow.torch})", Verdict(
                        VerdictKind(statement.verdict), f"PTA {nrow.pta} lists CANN {cann} as compatible",
                        statement.source, notes=(statement.note,) if statement.note else (),
                        uncertain=statement.uncertain)))
    for vrow in m.vllm_ascend_rows:
        if _same_ascend(vrow.cann, cann):
            result.answers.append(Answer("vllm-ascend", vrow.version, _rec(
                f"vLLM-Ascend {vrow.version} (vLLM {' / '.join(vrow.vllm)}, torch {vrow.torch}, torch_npu "
                f"{vrow.torch_npu}, Python {vrow.python})" + (" [removed row]" if vrow.status == "removed" else ""),
                vrow.source)))
    for mrow in m.mindie_rows:
        if _same_ascend(mrow.cann, cann):
            result.answers.append(Answer("mindie", mrow.version, _rec(f"MindIE {mrow.version} must be used with CANN "
                                                                       f"{mrow.cann}", mrow.source)))
    for srow in m.mindspeed_rows:
        if any(_same_ascend(c, cann) for c in srow.cann):
            own = engines.mindspeed_cann(m, srow)
            kind = VerdictKind.RECOMMENDED if own and _same_ascend(own, cann) else VerdictKind.COMPATIBLE
            result.answers.append(Answer("mindspeed", srow.version, Verdict(
                kind, f"MindSpeed {srow.version} (PTA {srow.pta}) lists CANN {', '.join(srow.cann)}", srow.source)))
    for label, rows in (("mindstudio", m.mindstudio), ("mindspore", m.mindspore)):
        for prow in rows:
            if any(_same_ascend(c, cann) for c in prow.cann):
                result.answers.append(Answer(label, prow.version, _rec(
                    f"{label} {prow.version} names CANN {', '.join(prow.cann)}", prow.source)))
    for pta in m.pta_releases:
        if _same_ascend(pta.cann, cann):
            result.facts.append(("PTA (Ascend Extension for PyTorch)", f"{pta.pta}"))
    for crel in m.cann_releases:
        if _same_ascend(crel.version, cann) and crel.community:
            result.facts.append(("community spellings", ", ".join(crel.community)))
    if other_products:
        result.facts.append(("other products (Atlas 350/850/950)", "not applicable to A2/A3/300I Duo: "
                             + ", ".join(dict.fromkeys(other_products))))
    rec = m.recommended_for_cann(cann)
    if rec.get("driver"):
        label = ("driver the quick-install page installs with it (works; no release pairing is recorded)"
                 if rec["driver_origin"] == "quick_install" else "recommended driver")
        result.facts.append((label, f"{rec['driver']} ({hdk.ORIGIN_TEXT[rec['driver_origin']]})"))
    result.facts.append(("NNAL", rec.get("nnal", cann)))
    return result


def _release_sort_key(version: str) -> Tuple[Any, ...]:
    parsed = try_ascend(version)
    return (1, parsed.sort_key) if parsed is not None else (0, version)


@functools.lru_cache(maxsize=4096)  # a lookup compares the same spellings hundreds of times
def _same_ascend(a: str, b: str) -> bool:
    va, vb = try_ascend(a), try_ascend(b)
    return va is not None and vb is not None and (release_rank(va, vb) >= 0 or release_rank(vb, va) >= 0)


# -- driver -----------------------------------------------------------------------------------

def lookup_driver(m: Matrix, driver: str, chip: Optional[str] = None) -> LookupResult:
    result = LookupResult(f"driver {driver}" + (f" ({chip})" if chip else ""))
    info = m.chip(chip) if chip else None
    driver_v = try_ascend(driver)
    if driver_v is None:
        result.found = False
        result.facts.append(("status", "not an Ascend version"))
        return result
    if not m.knows_hdk(driver_v):
        result.facts.append(("status", f"HDK {driver_v.release} is not in the HDK table; pairings below come from "
                                       "ranges and release codes"))
    for release in m.cann_releases:
        if release.prerelease:
            continue
        # with --chip, a pairing row of another family's column (the 910b/310p quick-install rows and their
        # Ascend-hdk-910b-npu-firmware file) does not apply: cann_vs_driver narrows by the chip's flavour
        verdict = hdk.cann_vs_driver(m, release.version, driver, chip=chip) if info is not None else \
            m.cann_vs_driver(release.version, driver)
        if verdict.kind is not VerdictKind.UNKNOWN:
            result.answers.append(Answer("cann", release.version, verdict))
    per_family = hdk.firmware_by_family(m, driver)
    chip_family = m.family(info.family) if info is not None else None
    if info is not None:
        per_family = {f: v for f, v in per_family.items() if f == info.family}
        if not per_family:
            result.facts.append(("firmware", f"unknown for {info.family}: no source gives the {info.family} firmware "
                                 f"of HDK {driver_v.release} (firmware numbers differ by family: see that HDK's "
                                 "download page)"))
            for other in _family_firmware_rows(m, info.family, driver_v):
                result.facts.append((f"{info.family} firmware of a nearby build", other))
        if chip_family is not None and chip_family.hdk_package is not None:
            result.facts.append((f"{info.family} firmware package", chip_family.hdk_package.firmware))
    numbers: Dict[str, List[str]] = {}
    for family, (number, _) in per_family.items():
        numbers.setdefault(number, []).append(family)
    for number, families in numbers.items():
        sources = tuple(dict.fromkeys(s for f in families for s in per_family[f][1]))
        result.answers.append(Answer("firmware", number, _rec(
            f"the firmware of HDK {driver_v.release} for {', '.join(families)}", sources)))
    if per_family and info is None:
        missing = [f.family for f in m.chip_families if f.hdk_package is not None and f.family not in per_family]
        if missing:
            result.facts.append(("firmware not recorded for", f"{', '.join(missing)} (firmware numbers differ by "
                                 "family; see the HDK download page)"))
    for fw in m.firmware_releases:
        if fw.firmware in numbers:
            continue
        if info is not None and not _firmware_for_family(fw, info.image_flavor):
            continue  # another family's number (7.7.0.1.231 is A2/310P, not A3)
        patterns = parse_driver_patterns(fw.compatible_version_drv) if fw.compatible_version_drv else []
        if any(p.matches(driver) for p in patterns):
            result.answers.append(Answer("firmware", fw.firmware, _compat(
                f"firmware {fw.firmware} (HDK {fw.hdk}) accepts driver {driver} ({fw.compatible_version_drv})",
                fw.source)))
    for row in m.code_alignment:
        if any((v := try_ascend(h)) is not None and v.same_release(driver_v) for h in row.hdk) and row.cann:
            # M8: the CANN of the same release code is the driver's natural pair (an inference)
            result.facts.append(("same release code", f"{row.code}: CANN {', '.join(row.cann)} (inference from "
                                 f"release codes; {'; '.join(row.source)})"))
    for sample in hdk._samples(m, ("driver",), driver_v, include_uncertain=True)[:1]:
        doubt = " [uncertain: a documentation example; not used for verdicts]" if sample.uncertain else ""
        if sample.compatible_version_fw:
            result.facts.append(("firmware range (compatible_version_fw)", f"{sample.compatible_version_fw} "
                                 f"(from a {sample.version} version.info){doubt}"))
        result.facts.append(("release code", f"{sample.innerversion}; compatible_version "
                                             f"{sample.compatible_version}{doubt}"))
    for mrow in m.mindie_rows:
        if any((v := try_ascend(h)) is not None and release_rank(v, driver_v) >= 0 for h in mrow.hdk):
            result.answers.append(Answer("mindie", mrow.version, _compat(
                f"MindIE {mrow.version} lists HDK {', '.join(mrow.hdk)}", mrow.source)))
    for motor in m.mindie_motor:
        if any((v := try_ascend(h)) is not None and release_rank(v, driver_v) >= 0 for h in motor.hdk):
            result.answers.append(Answer("mindie-motor", motor.version, _compat(
                f"MindIE Motor {motor.version} names HDK {', '.join(motor.hdk)}", motor.source)))
    for caveat in m.caveats:
        if caveat.hdk and spec_matches(caveat.hdk, driver_v):
            result.facts.append(("caveat", f"{caveat.feature}: {caveat.message}"))
    return result


def _firmware_for_family(fw: Any, flavor: Optional[str]) -> bool:
    """Whether a firmware_releases row is this chip family's (its flavour column); a row that names no
    family cannot be shown as one family's firmware."""
    return flavor is not None and flavor.lower() in (f.lower() for f in fw.flavor)


def _family_firmware_rows(m: Matrix, family: str, driver_v: Any) -> List[str]:
    """The family's recorded firmware numbers of other builds of the same HDK release (25.0.RC1.3 on A3)."""
    rows = []
    for row in (r for r in m.hdk_packages if r.family == family):
        listed = try_ascend(row.hdk)
        if listed is not None and listed.same_release(driver_v):
            rows.append(f"driver {row.driver} ships firmware {row.firmware} ({'; '.join(row.source[:1])})")
    return rows


# -- torch_npu --------------------------------------------------------------------------------

def lookup_torch_npu(m: Matrix, torch_npu: str) -> LookupResult:
    result = LookupResult(f"torch_npu {torch_npu}")
    npu_v = try_pypi(torch_npu)
    if npu_v is None:
        result.found = False
        result.facts.append(("status", "not a PyPI version"))
        return result
    rows = pytorch.rows_for_torch_npu(m, npu_v)
    vrows = pytorch.vllm_rows_for_torch_npu(m, npu_v)
    if not rows and not vrows:
        result.found = False
        result.facts.append(("status", f"torch_npu {torch_npu} is not in the matrix"))
    for row in rows:
        where = f"branch {row.branch}" if row.branch else pytorch.ORIGIN_TEXT[row.origin]
        result.answers.append(Answer("torch", row.torch, _rec(f"built for PyTorch {row.torch} ({where})", row.source)))
        result.answers.append(Answer("cann", row.cann, _rec(f"released for CANN {row.cann} ({where})", row.source,
                                                           notes=(row.note,) if row.note else ())))
        for statement in m.torch_npu_cann:
            if row.pta and any(_same_ascend(p, row.pta) for p in statement.pta):
                for cann in statement.cann:
                    if not _same_ascend(cann, row.cann):
                        result.answers.append(Answer("cann", cann, Verdict(
                            VerdictKind(statement.verdict), f"PTA {row.pta} lists CANN {cann} as compatible",
                            statement.source, notes=(statement.note,) if statement.note else (),
                            uncertain=statement.uncertain)))
        if row.status:
            result.facts.append(("status", f"{row.status} ({pytorch.ORIGIN_TEXT[row.origin]})"))
    for vrow in vrows:
        result.answers.append(Answer("vllm-ascend", vrow.version, _rec(
            f"vLLM-Ascend {vrow.version} uses it with CANN {vrow.cann} and torch {vrow.torch}", vrow.source)))
    for entry in m.torch_npu_python:
        if any(try_pypi(v) == npu_v for v in entry.torch_npu):
            result.answers.append(Answer("python", pytorch.describe_python(entry.python), _compat(
                f"Python {pytorch.describe_python(entry.python)}", entry.source)))
            break
    else:
        for row in rows[:1]:
            for trow in m.torch_python:
                if trow.python and same_public(Version(trow.torch), Version(row.torch)):
                    result.answers.append(Answer("python", pytorch.describe_python(trow.python), _compat(
                        f"PyTorch {trow.torch} supports Python {pytorch.describe_python(trow.python)}", trow.source)))
    return result


# -- engines ----------------------------------------------------------------------------------

def lookup_vllm_ascend(m: Matrix, version: str) -> LookupResult:
    result = LookupResult(f"vLLM-Ascend {version}")
    row = engines.find_vllm_row(m, version)
    if row is None:
        result.found = False
        hint = engines._nearest_vllm(m, version)
        result.facts.append(("status", f"vLLM-Ascend {version} is not in the matrix" + (f"; {hint}" if hint else "")))
        return result
    src = row.source
    for v in row.vllm:
        result.answers.append(Answer("vllm", v, _rec(f"vLLM-Ascend {row.version} is the plugin for vLLM {v}", src)))
    result.answers.append(Answer("cann", row.cann, _rec("the row's stable CANN", src)))
    result.answers.append(Answer("torch", row.torch, _rec("the row's PyTorch", src)))
    result.answers.append(Answer("torch_npu", row.torch_npu, _rec("the row's torch_npu", src)))
    result.answers.append(Answer("python", row.python, _compat(f"Python {pytorch.describe_python(row.python)}", src)))
    for label, value in (("triton-ascend", row.triton_ascend), ("mooncake", row.mooncake),
                         ("mindie-turbo", row.mindie_turbo)):
        if value:
            result.answers.append(Answer(label, value, _rec(f"the row's {label}", src)))
    cann_v = try_ascend(row.cann)
    hit = hdk.recommended_driver(m, cann_v) if cann_v else None
    if hit is not None:
        hrow, spec = hit
        result.answers.append(Answer("driver", spec, Verdict(
            VerdictKind(hrow.verdict),
            f"CANN {row.cann} is paired with driver {spec} ({hdk.ORIGIN_TEXT[hrow.origin]}; vLLM-Ascend has no HDK "
            "table of its own)", hrow.source)))
    if cann_v is not None:
        lowest = _lowest_documented_hdk(m, cann_v)
        if lowest:
            result.facts.append(("lowest HDK documented with CANN " + row.cann, lowest))
    for family in m.chip_families:
        if family.vllm_ascend_image is not None:
            result.facts.append((f"release image ({family.family})",
                                 family.vllm_ascend_image.template.replace("{version}", row.version)))
    build = engines.builds_for(m, row.version)
    if build is not None:
        result.facts.append(("release image base", build.base_image))
        pins = ", ".join(f"{n}{p}" for n, p in (("torch", build.torch), ("torch-npu", build.torch_npu)) if p)
        if pins:
            result.facts.append(("requirements.txt pins", pins))
    result.facts.append(("status", row.status + (f"; {row.note}" if row.note else "")))
    return result


def _lowest_documented_hdk(m: Matrix, cann_v: Any) -> Optional[str]:
    """The oldest exact HDK release a pairing row names for this CANN, with where it comes from."""
    found = []
    for row in m.hdk_cann_rows(cann_v):
        if row.verdict == "incompatible" or row.products:
            continue
        for spec in row.hdk:
            version = try_ascend(spec)
            if version is not None:
                where = f"{row.listed_by}'s list" if row.listed_by else hdk.ORIGIN_TEXT[row.origin]
                found.append((version.sort_key, spec, where))
    if not found:
        return None
    _, spec, where = min(found)
    return f"{spec} ({where})"


def lookup_mindie(m: Matrix, version: str) -> LookupResult:
    result = LookupResult(f"MindIE {version}")
    row = engines.find_mindie_row(m, version)
    if row is None:
        pending = next((u for u in m.mindie_unconfirmed if _same_ascend(u.version, version)), None)
        result.found = False
        if pending is not None:
            result.answers.append(Answer("cann", pending.likely_cann, unknown(
                f"likely CANN {pending.likely_cann}, not confirmed by any primary source", None, pending.source)))
        else:
            result.facts.append(("status", f"MindIE {version} is not in the matrix"))
        return result
    src = row.source
    result.answers.append(Answer("cann", row.cann, _rec(f"MindIE {row.version} must be used with CANN {row.cann}",
                                                        src)))
    for h in row.hdk:
        result.answers.append(Answer("driver", h, _compat(f"MindIE {row.version} lists HDK {h}", src)))
    if row.hdk_as_cann:
        result.facts.append(("HDK", f"same as for CANN {row.hdk_as_cann}"))
        rec = m.recommended_for_cann(row.hdk_as_cann)
        if rec.get("driver"):
            result.answers.append(Answer("driver", rec["driver"], _rec(
                f"HDK as for CANN {row.hdk_as_cann}: paired with driver {rec['driver']}", tuple(rec["driver_source"]
                                                                                               .split("; ")))))
    if row.builds:
        _mindie_builds(result, row)
    else:
        for t in row.torch:
            result.answers.append(Answer("torch", t, _rec(f"MindIE {row.version} ships packages for torch {t}",
                                                          src)))
    if row.python:
        result.answers.append(Answer("python", pytorch.describe_python(row.python), _compat(
            f"MindIE {row.version} needs Python {pytorch.describe_python(row.python)} (install guide)",
            row.python_source or src)))
    for image in m.mindie_images:
        if _same_ascend(image.mindie, row.version):
            result.facts.append((f"image ({image.family})", image.image))
    shipped = tuple(b.torch for b in row.builds) or row.torch
    if row.pta:
        result.facts.append(("PTA", row.pta))
        for trow in m.torch_npu_rows:
            if not (trow.pta and _same_ascend(trow.pta, row.pta)):
                continue
            label = f"{trow.version} (torch {trow.torch})"
            if shipped and not any(same_public(Version(trow.torch), Version(t)) for t in shipped):
                # a PTA release MindIE does not ship packages for (torch 2.8.0 with MindIE 2.2.RC1)
                result.answers.append(Answer("torch_npu", label, Verdict(
                    VerdictKind.INCOMPATIBLE, f"a PTA {row.pta} release, but MindIE {row.version} ships packages "
                    f"for torch {' / '.join(shipped)} only", trow.source + src)))
                continue
            if any(b.torch_npu and try_pypi(b.torch_npu) == try_pypi(trow.version) for b in row.builds):
                continue  # already answered with its package
            how = (f"PTA {row.pta} release for torch {trow.torch}, which MindIE {row.version} ships packages for"
                   if shipped else f"PTA {row.pta} release (MindIE {row.version} names no torch release)")
            verdict = _rec(how, trow.source) if shipped else _compat(how, trow.source)
            result.answers.append(Answer("torch_npu", label, verdict))
    for label, value in (("mindspore", row.mindspore), ("mindcluster", row.mindcluster)):
        if value:
            result.facts.append((label, value))
    if row.note:
        result.facts.append(("note", row.note))
    return result


def _abi_label(build: Any) -> str:
    return f"abi{build.abi}" if build.abi is not None else "the release's build"


def _with_abi(version: str, build: Any) -> str:
    """``2.1.0 (abi0)``; a release with one build (no ABI variant named) keeps the plain version."""
    return f"{version} (abi{build.abi})" if build.abi is not None else version


def _mindie_builds(result: LookupResult, row: Any) -> None:
    """Each run package of a MindIE release with the torch and torch_npu it is built for."""
    for build in row.builds:
        label = _abi_label(build)
        package = build.package_name(row.version, "{arch}")
        if package:
            result.answers.append(Answer("mindie-package", package, _rec(
                f"MindIE {row.version} run package for torch {build.torch} ({label}); {{arch}}: aarch64 or x86_64",
                build.source, notes=(build.note,) if build.note else ())))
        result.answers.append(Answer("torch", _with_abi(build.torch, build), _rec(
            f"MindIE {row.version} ships a package for torch {build.torch} ({label})", build.source,
            notes=(build.note,) if build.note and not package else ())))
        if build.torch_npu:
            pta = f" (PTA {build.pta})" if build.pta else ""
            result.answers.append(Answer("torch_npu", _with_abi(build.torch_npu, build), _rec(
                f"the torch_npu release for torch {build.torch}{pta}, paired with MindIE {row.version}'s {label} "
                "package", build.source)))
        if build.python:
            result.answers.append(Answer("python", _with_abi(build.python, build), _rec(
                f"MindIE {row.version} with torch {build.torch}: Python {build.python}", build.source)))


def lookup_chip(m: Matrix, name: str) -> LookupResult:
    info = m.chip(name)
    result = LookupResult(f"chip {name}")
    if info is None:
        result.found = False
        result.facts.append(("status", f"{name!r} is not a chip name the matrix knows"))
        return result
    result.facts.extend([
        ("name", info.name), ("family", info.family), ("description", info.description),
        ("memory per chip (MB)", ", ".join(str(x) for x in info.memory_mb) or "not recorded"),
        ("SoC", f"{info.soc_version or '-'} (enum {info.soc_enum if info.soc_enum is not None else '-'})"),
    ])
    if info.soc_version_default:
        result.facts.append(("SOC_VERSION default for builds", info.soc_version_default))
    if info.image_flavor:
        result.facts.append(("image / package flavor", info.image_flavor))
    family = m.family(info.family)
    if family is not None and family.hdk_package is not None:
        result.facts.append(("HDK driver file", family.hdk_package.driver + "   ({arch}: aarch64 or x86-64)"))
        result.facts.append(("HDK firmware file", family.hdk_package.firmware))
    if info.kernels_package:
        if info.kernels_package.noarch:
            result.facts.append(("kernels package (CANN < 8.0.RC3)", info.kernels_package.noarch))
        if info.kernels_package.legacy:
            result.facts.append(("kernels package (CANN 8.0.RC3 - 8.3)", info.kernels_package.legacy + "   ({arch}: "
                                 "aarch64 or x86_64)"))
        if info.kernels_package.ops:
            result.facts.append(("ops package (CANN >= 8.5)", info.kernels_package.ops))
    if family is not None and family.vllm_ascend_image is not None:
        result.facts.append(("vLLM-Ascend image", family.vllm_ascend_image.template))
    # the same image records `matrix lookup --mindie` and the MindIE plans read (one source of tags)
    for image in sorted((i for i in m.mindie_images if i.family == info.family),
                        key=lambda i: _release_sort_key(i.mindie), reverse=True):
        result.facts.append((f"MindIE image ({image.mindie})", image.image))
    if info.dies_per_npu:
        result.facts.append(("dies per NPU", str(info.dies_per_npu)))
    for note in info.notes:
        result.facts.append(("note", note))
    for dtype, dsup in info.dtypes.items():
        value = dsup.supported
        if value is True or value == "partial":
            kind = VerdictKind.COMPATIBLE
        elif value is False:
            kind = VerdictKind.INCOMPATIBLE
        else:
            kind = VerdictKind.UNKNOWN
        text = {True: "supported", False: "not supported", "partial": "partial"}.get(value, "no source")
        result.answers.append(Answer("dtype", dtype, Verdict(kind, f"{dtype}: {text}" + (
            f" — {dsup.note}" if dsup.note else ""), dsup.source)))
    for engine, esup in info.engines.items():
        kind = {"supported": VerdictKind.COMPATIBLE, "experimental": VerdictKind.COMPATIBLE,
                "unsupported": VerdictKind.INCOMPATIBLE}.get(esup.support, VerdictKind.UNKNOWN)
        result.answers.append(Answer(engine, esup.support, Verdict(
            kind, f"{engines.ENGINE_NAMES[engine]}: {esup.support}" + (f" — {esup.note}" if esup.note else ""),
            esup.source)))
    for req in info.requirements:
        result.facts.append(("requirement", f"{req.applies_to}: CANN {req.cann or 'any'}, HDK {req.hdk or 'any'}"))
    return result


def lookup(m: Matrix, *, cann: Optional[str] = None, driver: Optional[str] = None, torch_npu: Optional[str] = None,
           vllm_ascend: Optional[str] = None, mindie: Optional[str] = None,
           chip: Optional[str] = None) -> List[LookupResult]:
    results = []
    if cann:
        results.append(lookup_cann(m, cann, chip))
    if driver:
        results.append(lookup_driver(m, driver, chip))
    if torch_npu:
        results.append(lookup_torch_npu(m, torch_npu))
    if vllm_ascend:
        results.append(lookup_vllm_ascend(m, vllm_ascend))
    if mindie:
        results.append(lookup_mindie(m, mindie))
    if chip:
        results.append(lookup_chip(m, chip))
    return results
