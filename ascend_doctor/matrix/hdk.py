"""HDK (driver, firmware) <-> CANN verdicts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.records import FirmwareRelease, HdkCannRow, HdkRelease, ReleaseCodeSample
from ascend_doctor.matrix.specs import (
    CodeRange,
    code_listed,
    firmware_in_ranges,
    format_code_ranges,
    format_firmware_ranges,
    most_specific_rows,
    parse_code_list,
    parse_driver_patterns,
    parse_firmware_ranges,
    release_rank,
    spec_matches,
    try_ascend,
)
from ascend_doctor.matrix.verdict import (
    TIER_INFERRED,
    TIER_PUBLISHED,
    Evidence,
    Verdict,
    VerdictKind,
    decide,
    unknown,
)
from ascend_doctor.versions import AscendVersion, ReleaseCode, VersionError

if TYPE_CHECKING:
    from ascend_doctor.matrix.tables import MatrixTables

# Verdict messages and suggestions are ascend_doctor.i18n_text.Text: English str for code and JSON,
# shown translated by the checks (N_ marks the templates for the catalogue).
ORIGIN_TEXT = {
    "official": N_("official release documentation"),
    "installer": N_("the Ascend installer (ascend-deployer)"),
    "quick_install": N_("the Ascend docs quick-install page"),
    "product": N_("a product release note"),
}


def _origin(row: HdkCannRow) -> Text:
    return Text(ORIGIN_TEXT[row.origin])


def _cannot_read(what: str, value: str) -> Verdict:
    return unknown(Text(N_("cannot read the {what} version {value}"), what=what, value=repr(value)))
ORIGIN_PRIORITY = {"official": 0, "installer": 1, "quick_install": 2, "product": 3}


def best_rank_rows(rows: Sequence[HdkCannRow], cann: AscendVersion) -> List[HdkCannRow]:
    """Rows naming this CANN; when a more specific spelling (an alpha, a patch) has rows, only those."""
    return most_specific_rows(rows, lambda row: row.cann, cann)


def _applies(row: HdkCannRow, product: Optional[str], flavor: Optional[str]) -> bool:
    if row.products and not (product and any(p.lower() in product.lower() for p in row.products)):
        return False
    return not (flavor and row.flavor and flavor not in row.flavor)


def _where(row: HdkCannRow) -> str:
    fields = {"origin": _origin(row), "flavor": "/".join(row.flavor), "products": "/".join(row.products)}
    if row.flavor and row.products:
        return Text(N_("{origin}, {flavor} column, {products}"), **fields)
    if row.flavor:
        return Text(N_("{origin}, {flavor} column"), **fields)
    if row.products:
        return Text(N_("{origin}, {products}"), **fields)
    return fields["origin"]


def recommended_driver(m: MatrixTables, cann: AscendVersion, flavor: Optional[str] = None,
                       product: Optional[str] = None) -> Optional[Tuple[HdkCannRow, str]]:
    """The HDK release a CANN release is paired with, preferring official > installer; without
    either, the driver the quick-install page installs with it (a working pairing, not "recommended")."""
    candidates = []
    for index, row in enumerate(m.hdk_cann_rows(cann)):
        usable = row.verdict == "recommended" or (row.origin == "quick_install" and row.verdict == "compatible")
        if not usable or not _applies(row, product, flavor):
            continue
        if row.products and not product:
            continue
        for spec in row.hdk:
            if try_ascend(spec) is not None:  # an exact release, not a range
                candidates.append((ORIGIN_PRIORITY[row.origin], index, row, spec))
    if not candidates:
        return None
    _, _, row, spec = min(candidates, key=lambda c: (c[0], c[1]))
    return row, spec


def family_of_flavor(m: MatrixTables, flavor: Optional[str]) -> Optional[str]:
    """The chip family of an image/package flavour (910b -> A2, a3 -> A3, 310p -> 310P, 910 -> 910)."""
    if not flavor:
        return None
    return next((f.family for f in m.chip_families if (f.image_flavor or "").lower() == flavor.lower()), None)


def firmware_by_family(m: MatrixTables, hdk: str) -> Dict[str, Tuple[str, Tuple[str, ...]]]:
    """{family: (firmware number, sources)} for an HDK release: each family's own number only."""
    from ascend_doctor.matrix.packages import PackageSet

    result: Dict[str, Tuple[str, Tuple[str, ...]]] = {}
    for family in dict.fromkeys(r.family for r in m.hdk_packages):
        pk = PackageSet(family, "aarch64", m)
        row = pk.hdk_row(hdk)
        if row is not None and row.firmware:
            result[family] = (row.firmware, row.source)
    return result


def firmware_for_hdk(m: MatrixTables, hdk: AscendVersion,
                     flavor: Optional[str] = None) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """The firmware number shipped in an HDK release, with its sources.

    With a flavour (chip family), only that family's number: A3 numbers differ from A2's, so an
    A2 number is never given for an A3. Without one, the number when every family that records
    the release agrees on it.
    """
    found = firmware_by_family(m, hdk.original or str(hdk))
    family = family_of_flavor(m, flavor)
    if flavor:
        return found.get(family) if family else None
    numbers = {fw for fw, _ in found.values()}
    if len(numbers) != 1:
        return None
    firmware = numbers.pop()
    sources: List[str] = []
    for _number, srcs in found.values():
        sources.extend(s for s in srcs if s not in sources)
    return firmware, tuple(sources)


def suggestion_for_cann(m: MatrixTables, cann: AscendVersion, flavor: Optional[str] = None) -> Optional[str]:
    hit = recommended_driver(m, cann, flavor)
    if hit is None:
        return None
    row, spec = hit
    if row.verdict != "recommended":
        return Text(N_("{origin} installs driver {driver} with CANN {cann} (a working pairing)"), origin=_origin(row),
                    driver=spec, cann=row.cann)
    return Text(N_("CANN {cann} is paired with driver {driver} (recommended; {origin})"), cann=row.cann, driver=spec,
                origin=_origin(row))


def hdk_release_row(m: MatrixTables, version: AscendVersion) -> Optional[HdkRelease]:
    for row in m.hdk_releases:
        listed = try_ascend(row.version)
        if listed is not None and listed.same_release(version):
            return row
    return None


# -- CANN <-> driver --------------------------------------------------------------------------

def cann_vs_driver(m: MatrixTables, cann: str, driver: str, *, cann_innerversion: Optional[str] = None,
                   cann_compatible: Sequence[str] = (), driver_innerversion: Optional[str] = None,
                   driver_compatible: Sequence[str] = (), product: Optional[str] = None,
                   chip: Optional[str] = None) -> Verdict:
    cann_v, driver_v = try_ascend(cann), try_ascend(driver)
    if cann_v is None:
        return _cannot_read("CANN", cann)
    if driver_v is None:
        return _cannot_read("driver", driver)
    flavor = None
    if chip:
        info = m.chip(chip)
        flavor = info.image_flavor if info is not None else None
    hdk_row = hdk_release_row(m, driver_v)
    if hdk_row is not None and hdk_row.products and not (
            product and any(p.lower() in product.lower() for p in hdk_row.products)):
        return unknown(Text(N_("HDK {driver} is the HDK numbering of {products}: not comparable with the HDK releases "
                               "CANN {cann} is documented with"), driver=driver, products="/".join(hdk_row.products),
                            cann=cann), None, hdk_row.source)
    evidence: List[Evidence] = []
    notes: List[str] = []
    if cann_v.pre and not m.knows_cann_exactly(cann_v):
        notes.append(f"community/pre-release {cann} is read as CANN {cann_v.release}")
    exhaustive: List[HdkCannRow] = []
    official_hit = False
    for row in m.hdk_cann_rows(cann_v):
        if row.exhaustive and _applies(row, product, flavor):
            exhaustive.append(row)
        if not any(spec_matches(spec, driver_v) for spec in row.hdk):
            continue
        if not _applies(row, product, flavor):
            if row.products:
                notes.append(f"for {'/'.join(row.products)}, CANN {row.cann} is paired with HDK {', '.join(row.hdk)}")
            continue
        official_hit = official_hit or row.origin == "official"
        evidence.append(Evidence(VerdictKind(row.verdict), _row_message(row, driver), row.source, TIER_PUBLISHED,
                                 (row.note,) if row.note else ()))
    code_evidence = _code_evidence(m, cann_v, driver_v, cann, driver, cann_innerversion, cann_compatible,
                                   driver_innerversion, driver_compatible)
    if exhaustive and not official_hit:
        # The release's own support list does not name this HDK: weaker evidence (release codes,
        # co-existence lists) cannot turn that into a pairing; the list wins.
        listed = ", ".join(dict.fromkeys(spec for row in exhaustive for spec in row.hdk))
        message = Text(N_("HDK {driver} is not in CANN {cann}'s official HDK list ({listed})"), driver=driver,
                       cann=cann, listed=listed)
        extra = [f"{code_evidence.message} (release codes; the official list wins)"] if code_evidence else []
        return unknown(message, suggestion_for_cann(m, cann_v, flavor),
                       tuple(s for row in exhaustive for s in row.source)).with_notes(
            notes + extra + _colisting(m, cann_v, driver_v, cann, driver))
    if code_evidence is not None:
        evidence.append(code_evidence)
    notes.extend(_colisting(m, cann_v, driver_v, cann, driver))
    known = m.knows_cann(cann_v)
    if not known and not evidence:
        verdict = unknown(Text(N_("CANN {cann} is not in the matrix"), cann=cann),
                          suggestion_for_cann(m, cann_v, flavor))
    else:
        verdict = decide(evidence, Text(N_("no source pairs CANN {cann} with driver {driver}"), cann=cann,
                                        driver=driver), suggestion_for_cann(m, cann_v, flavor))
        if verdict.kind is VerdictKind.UNKNOWN and verdict.suggestion is None:
            verdict = unknown(verdict.message, Text(N_("see `ascend-doctor matrix lookup --cann {cann}`"), cann=cann))
    return verdict.with_notes(notes)


def _row_message(row: HdkCannRow, driver: str) -> str:
    fields = {"cann": row.cann, "hdk": ", ".join(row.hdk), "driver": driver, "where": _where(row),
              "flavor": "/".join(row.flavor), "product": row.listed_by}
    if row.verdict == "recommended":
        return Text(N_("CANN {cann} is paired with driver {hdk} ({where})"), **fields)
    if row.origin == "quick_install":
        return (Text(N_("works: the Ascend docs quick-install page installs driver {hdk} with CANN {cann} ({flavor} "
                        "column; a working pairing, not the 1:1 release pairing)"), **fields) if row.flavor else
                Text(N_("works: the Ascend docs quick-install page installs driver {hdk} with CANN {cann} (a working "
                        "pairing, not the 1:1 release pairing)"), **fields))
    if row.origin == "product" and row.listed_by:
        return Text(N_("{product}'s release note lists CANN {cann} with HDK {hdk} (a product's version list)"),
                    **fields)
    if row.verdict == "compatible":
        return Text(N_("CANN {cann} supports driver {driver}: HDK {hdk} ({where})"), **fields)
    return Text(N_("CANN {cann} does not support driver {driver} (HDK {hdk}; {where})"), **fields)


def _samples(m: MatrixTables, sides: Tuple[str, ...], version: AscendVersion, *,
             include_uncertain: bool = False) -> List[ReleaseCodeSample]:
    """Real version files of this release. Samples marked uncertain (a documentation example whose
    codes look mixed) are not evidence: the release-code alignment speaks for that release instead."""
    return m.memo(("release_code_samples", sides, version, include_uncertain),
                  lambda: _find_samples(m, sides, version, include_uncertain))


def _find_samples(m: MatrixTables, sides: Tuple[str, ...], version: AscendVersion,
                  include_uncertain: bool) -> List[ReleaseCodeSample]:
    result = []
    for sample in m.release_codes:
        sample_v = try_ascend(sample.version)
        if sample.uncertain and not include_uncertain:
            continue
        if sample.side in sides and sample_v is not None and sample_v.same_release(version) \
                and sample_v.pre == version.pre:
            result.append(sample)
    result.sort(key=lambda s: s.uncertain)  # certain samples first
    return result


def _aligned_code(m: MatrixTables, side: str, version: AscendVersion) -> Optional[Tuple[ReleaseCode, Tuple[str, ...]]]:
    for row in m.code_alignment:
        names = row.cann if side == "cann" else row.hdk
        for name in names:
            named = try_ascend(name)
            if named is not None and named.same_release(version):
                return ReleaseCode.parse(row.code), row.source
    return None


def _side_codes(m: MatrixTables, side: str, version: AscendVersion, given_code: Optional[str],
                given_list: Sequence[str], host_file: str
                ) -> Tuple[Optional[ReleaseCode], List[CodeRange], List[str], List[str]]:
    """(own code, compatible ranges, sources, notes) for one side, host data first."""
    sources: List[str] = []
    notes: List[str] = []
    code = ReleaseCode.try_parse(given_code) if given_code else None
    ranges: List[CodeRange] = []
    if given_list:
        try:
            ranges = parse_code_list(list(given_list))
        except VersionError as exc:
            notes.append(f"ignored this host's {host_file} compatible_version: {exc}")
    if code is not None or ranges:
        sources.append(f"this host's {host_file}")
    samples = _samples(m, ("cann", "nnae") if side == "cann" else ("driver",), version)
    if code is None and samples:
        code = ReleaseCode.parse(samples[0].innerversion)
        sources.extend(s for s in samples[0].source if s not in sources)
    if not ranges and samples:
        ranges = parse_code_list(samples[0].compatible_version)
        sources.extend(s for s in samples[0].source if s not in sources)
    if code is None:
        aligned = _aligned_code(m, side, version)
        if aligned is not None:
            code = aligned[0]
            sources.extend(s for s in aligned[1] if s not in sources)
    return code, ranges, sources, notes


def _code_evidence(m: MatrixTables, cann_v: AscendVersion, driver_v: AscendVersion, cann: str, driver: str,
                   cann_innerversion: Optional[str], cann_compatible: Sequence[str],
                   driver_innerversion: Optional[str], driver_compatible: Sequence[str]) -> Optional[Evidence]:
    c_code, c_ranges, c_sources, c_notes = _side_codes(m, "cann", cann_v, cann_innerversion, cann_compatible,
                                                       "ascend_toolkit_install.info")
    d_code, d_ranges, d_sources, d_notes = _side_codes(m, "driver", driver_v, driver_innerversion,
                                                       driver_compatible, "driver version.info")
    sources = tuple(dict.fromkeys(c_sources + d_sources))
    notes = tuple(c_notes + d_notes) + (
        "inference from release codes: the installer's exact rule is not documented (either side listing "
        "the other is accepted)",)
    cann_lists_driver = code_listed(d_code, c_ranges) if d_code and c_ranges else None
    driver_lists_cann = code_listed(c_code, d_ranges) if c_code and d_ranges else None
    if cann_lists_driver:
        assert d_code is not None
        return Evidence(VerdictKind.COMPATIBLE,
                        Text(N_("CANN {cann}'s compatible_version {ranges} lists driver {driver} ({code})"), cann=cann,
                             ranges=format_code_ranges(c_ranges), driver=driver, code=d_code.base),
                        sources, TIER_INFERRED, notes)
    if driver_lists_cann:
        assert c_code is not None
        return Evidence(VerdictKind.COMPATIBLE,
                        Text(N_("driver {driver}'s compatible_version {ranges} lists CANN {cann} ({code})"),
                             driver=driver, ranges=format_code_ranges(d_ranges), cann=cann, code=c_code.base),
                        sources, TIER_INFERRED, notes)
    if cann_lists_driver is False and driver_lists_cann is False:
        assert c_code is not None and d_code is not None
        return Evidence(VerdictKind.INCOMPATIBLE,
                        Text(N_("neither lists the other: CANN {cann} ({cann_code}) accepts {cann_ranges}, driver "
                                "{driver} ({driver_code}) accepts {driver_ranges}"), cann=cann, cann_code=c_code.base,
                             cann_ranges=format_code_ranges(c_ranges), driver=driver, driver_code=d_code.base,
                             driver_ranges=format_code_ranges(d_ranges)),
                        sources, TIER_INFERRED, notes)
    return None


def _colisting(m: MatrixTables, cann_v: AscendVersion, driver_v: AscendVersion, cann: str, driver: str) -> List[str]:
    """Co-existence lists naming both: a note only. They list which CANN and which HDK releases a
    product works with, not which HDK a CANN works with (compat_facts §1.1), so they decide nothing."""
    result = []
    for listing in m.lists_naming_cann(cann_v):
        hdk_hit = any(release_rank(v, driver_v) >= 0 for v in (try_ascend(h) for h in listing.hdk) if v)
        if hdk_hit:
            result.append(f"{listing.product} lists both CANN {cann} and HDK {driver} (a co-existence list, not a "
                          f"compatibility statement; {'; '.join(listing.source)})")
    return result


# -- driver <-> firmware ----------------------------------------------------------------------

def driver_vs_firmware(m: MatrixTables, driver: str, firmware: str, *,
                       compatible_version_fw: Sequence[Tuple[str, str]] = (),
                       firmware_compatible_drv: Sequence[Tuple[str, str]] = ()) -> Verdict:
    driver_v, firmware_v = try_ascend(driver), try_ascend(firmware)
    if driver_v is None:
        return _cannot_read("driver", driver)
    if firmware_v is None:
        return _cannot_read("firmware", firmware)
    if firmware_v.major >= 20:  # an HDK number (firmware package_version), not the 7.x firmware number
        if firmware_v.same_release(driver_v):
            return Verdict(VerdictKind.RECOMMENDED,
                           Text(N_("driver {driver} and firmware package {firmware} come from the same HDK release"),
                                driver=driver, firmware=firmware))
        return unknown(Text(N_("driver {driver} and firmware package {firmware} are from different HDK releases; "
                               "compare the firmware's own Version= (7.x) number instead"), driver=driver,
                            firmware=firmware))
    evidence: List[Evidence] = []
    owners = [fw for fw in m.firmware_releases if _same_firmware(fw, firmware_v)]
    for fw in owners:
        hdk_v = try_ascend(fw.hdk)
        if hdk_v is not None and hdk_v.same_release(driver_v):
            evidence.append(Evidence(VerdictKind.RECOMMENDED,
                                     Text(N_("firmware {firmware} is the firmware of HDK {hdk}, as is driver {driver}"),
                                          firmware=firmware, hdk=fw.hdk, driver=driver),
                                     fw.source, TIER_PUBLISHED, (fw.note,) if fw.note else ()))
    if compatible_version_fw:
        evidence.append(_fw_range_evidence(firmware_v, firmware, driver, list(compatible_version_fw),
                                           ("this host's driver version.info (compatible_version_fw)",),
                                           TIER_PUBLISHED))
    else:
        for sample in _samples(m, ("driver",), driver_v)[:1]:
            if sample.compatible_version_fw:
                ranges = parse_firmware_ranges(sample.compatible_version_fw)
                evidence.append(_fw_range_evidence(firmware_v, firmware, driver,
                                                   [(lo.original, hi.original) for lo, hi in ranges],
                                                   sample.source, TIER_INFERRED))
    patterns = list(firmware_compatible_drv)
    pattern_sources: Tuple[str, ...] = ("this host's firmware version.info (compatible_version_drv)",)
    if not patterns:
        for fw in owners:
            if fw.compatible_version_drv:
                patterns = [(p.low, p.high) for p in parse_driver_patterns(fw.compatible_version_drv)]
                pattern_sources = fw.source
                break
    if patterns:
        parsed = parse_driver_patterns(patterns)
        listed = "".join(str(p) for p in parsed)
        fields = {"firmware": firmware, "driver": driver, "listed": listed}
        if any(p.matches(driver) for p in parsed):
            evidence.append(Evidence(VerdictKind.COMPATIBLE,
                                     Text(N_("firmware {firmware} accepts driver {driver} ({listed})"), **fields),
                                     pattern_sources, TIER_PUBLISHED))
        else:
            evidence.append(Evidence(VerdictKind.INCOMPATIBLE,
                                     Text(N_("firmware {firmware} does not accept driver {driver} (it lists {listed})"),
                                          **fields), pattern_sources, TIER_PUBLISHED))
    paired = firmware_for_hdk(m, driver_v)
    suggestion = (Text(N_("driver {driver} ships with firmware {firmware}"), driver=driver_v.release,
                       firmware=paired[0]) if paired else None)
    verdict = decide(evidence, Text(N_("no source pairs driver {driver} with firmware {firmware}"), driver=driver,
                                    firmware=firmware), suggestion)
    if verdict.kind is VerdictKind.UNKNOWN and owners:
        hdks = ", ".join(sorted({fw.hdk for fw in owners}))
        verdict = unknown(Text(N_("firmware {firmware} belongs to HDK {hdks}; nothing says it works with driver "
                                  "{driver}"), firmware=firmware, hdks=hdks, driver=driver),
                          suggestion, tuple(s for fw in owners for s in fw.source))
    return verdict


def _same_firmware(fw: FirmwareRelease, firmware: AscendVersion) -> bool:
    version = try_ascend(fw.firmware)
    return version is not None and version == firmware


def _fw_range_evidence(firmware_v: AscendVersion, firmware: str, driver: str, pairs: List[Tuple[str, str]],
                       sources: Tuple[str, ...], tier: int) -> Evidence:
    try:
        ranges = parse_firmware_ranges(pairs)
    except VersionError:
        return Evidence(VerdictKind.UNKNOWN, "unreadable compatible_version_fw", sources, 0)
    fields = {"firmware": firmware, "driver": driver, "ranges": format_firmware_ranges(ranges)}
    if firmware_in_ranges(firmware_v, ranges):
        return Evidence(VerdictKind.COMPATIBLE, Text(N_("firmware {firmware} is within driver {driver}'s range "
                                                        "{ranges}"), **fields), sources, tier)
    return Evidence(VerdictKind.INCOMPATIBLE, Text(N_("firmware {firmware} is outside driver {driver}'s range "
                                                      "{ranges}"), **fields), sources, tier)
