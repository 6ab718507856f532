"""Checks across rows: duplicates, versions that no table names, inconsistent pairings."""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from packaging.version import Version

from ascend_doctor.matrix.chip_records import normalize_chip_name
from ascend_doctor.matrix.errors import Problem
from ascend_doctor.matrix.records import (
    CannRelease,
    ChipEntry,
    ChipFamily,
    FirmwareRelease,
    HdkPackageRow,
    HdkRelease,
    PtaRelease,
    ReleaseCodeSample,
    Row,
    TorchNpuRow,
    TorchPython,
    VllmAscendRow,
)
from ascend_doctor.matrix.schema import field_specs
from ascend_doctor.matrix.specs import ascend, ascend_spec, release_rank, try_ascend, try_pypi
from ascend_doctor.versions import AscendVersion


def crosscheck(sections: Dict[str, List[Row]]) -> List[Problem]:
    problems: List[Problem] = []
    problems.extend(_duplicates(sections))
    resolvers = _resolvers(sections)
    for rows in sections.values():
        for row in rows:
            problems.extend(_references(row, resolvers))
    problems.extend(_release_code_sides(sections.get("release_codes", []), resolvers))
    problems.extend(_pta_consistency(sections))
    problems.extend(_chips(sections))
    problems.extend(_package_names(sections))
    return problems


def _problem(row: Row, name: str, message: str) -> Problem:
    return Problem(row.loc.file, row.line(name), f"{row.path}.{name}" if name else row.path, message)


# -- duplicates -------------------------------------------------------------------------------

def _duplicates(sections: Dict[str, List[Row]]) -> List[Problem]:
    problems = []
    for rows in sections.values():
        seen: Dict[Any, Row] = {}
        for row in rows:
            key_fields = type(row).KEY
            if not key_fields:
                continue
            key = tuple(_normalized(row, name) for name in key_fields)
            if key in seen:
                first = seen[key]
                shown = ", ".join(f"{n}={getattr(row, n)!r}" for n in key_fields if getattr(row, n))
                problems.append(_problem(row, "", f"duplicate entry ({shown}); first at {first.loc}"))
            else:
                seen[key] = row
    return problems


def _normalized(row: Row, name: str) -> Any:
    value = getattr(row, name)
    if value is None:
        return None
    spec = field_specs(type(row)).get(name)
    kind = spec.kind if spec is not None else None
    try:
        return kind.normalize(value) if kind is not None else value
    except Exception:  # an unparsable value was already reported; compare it as text
        return str(value)


# -- references -------------------------------------------------------------------------------

Resolver = Callable[[str], bool]


def _resolvers(sections: Dict[str, List[Row]]) -> Dict[str, Resolver]:
    cann: List[AscendVersion] = []
    for row in sections.get("cann_releases", []):
        assert isinstance(row, CannRelease)
        cann.extend(v for v in (try_ascend(row.version), *(try_ascend(c) for c in row.community)) if v)
    hdk = [v for v in (try_ascend(r.version) for r in sections.get("hdk_releases", [])
                       if isinstance(r, HdkRelease)) if v]
    pta = [v for v in (try_ascend(r.pta) for r in sections.get("pta_releases", [])
                       if isinstance(r, PtaRelease)) if v]
    torch = [v for v in (try_pypi(r.torch) for r in sections.get("torch_python", [])
                         if isinstance(r, TorchPython)) if v]
    torch_npu = [v for v in (try_pypi(r.version) for r in sections.get("torch_npu", [])
                             if isinstance(r, TorchNpuRow)) if v]
    vllm_ascend = [v for v in (try_pypi(r.version) for r in sections.get("vllm_ascend", [])
                               if isinstance(r, VllmAscendRow)) if v]
    families = {r.family for r in sections.get("chip_families", []) if isinstance(r, ChipFamily)}

    def ascend_in(table: Sequence[AscendVersion]) -> Resolver:
        def resolve(text: str) -> bool:
            try:
                spec = ascend_spec(text)
            except ValueError:
                return True  # reported by the field check
            if not spec.is_exact:
                return True  # ranges and wildcards need not name a listed release
            actual = ascend(text)
            # the table must name the release; a patch build of it (24.1.rc2.2) counts
            return any(release_rank(listed, actual) >= 0 or release_rank(actual, listed) >= 0
                       for listed in table)
        return resolve

    def pypi_in(table: Sequence[Any]) -> Resolver:
        publics = {Version(listed.public) for listed in table}  # a local label (+cpu) does not matter

        def resolve(text: str) -> bool:
            version = try_pypi(text)
            return version is None or Version(version.public) in publics
        return resolve

    return {
        "cann": ascend_in(cann),
        "hdk": ascend_in(hdk),
        "pta": ascend_in(pta),
        "torch": pypi_in(torch),
        "torch_npu": pypi_in(torch_npu),
        "vllm_ascend": pypi_in(vllm_ascend),
        "family": lambda text: text in families,
    }


_TABLE_NAMES = {
    "cann": "cann_releases",
    "hdk": "hdk_releases",
    "pta": "pta_releases",
    "torch": "torch_python",
    "torch_npu": "torch_npu",
    "vllm_ascend": "vllm_ascend",
    "family": "chip_families",
}


def _references(row: Row, resolvers: Dict[str, Resolver]) -> Iterable[Problem]:
    for name, spec in field_specs(type(row)).items():
        table = spec.ref
        value = getattr(row, name)
        if not table or value is None:
            continue
        values = value if isinstance(value, tuple) else (value,)
        for item in values:
            if not resolvers[table](item):
                yield _problem(row, name, f"{item!r} is not listed in {_TABLE_NAMES[table]}")


def _release_code_sides(rows: List[Row], resolvers: Dict[str, Resolver]) -> Iterable[Problem]:
    for row in rows:
        assert isinstance(row, ReleaseCodeSample)
        table = "hdk" if row.side == "driver" else "cann"
        if not resolvers[table](row.version):
            yield _problem(row, "version", f"{row.version!r} is not listed in {_TABLE_NAMES[table]}")


def _pta_consistency(sections: Dict[str, List[Row]]) -> Iterable[Problem]:
    pta_cann = {}
    for row in sections.get("pta_releases", []):
        assert isinstance(row, PtaRelease)
        version = try_ascend(row.pta)
        if version is not None:
            pta_cann[version.sort_key] = row.cann
    for row in sections.get("torch_npu", []):
        assert isinstance(row, TorchNpuRow)
        pta = try_ascend(row.pta) if row.pta else None
        if pta is None or pta.sort_key not in pta_cann:
            continue
        expected = try_ascend(pta_cann[pta.sort_key])
        actual = try_ascend(row.cann)
        if expected and actual and not expected.same_release(actual):
            yield _problem(row, "cann", f"PTA {row.pta} ships for CANN {pta_cann[pta.sort_key]}, not {row.cann}")
        if row.branch and row.pta and not row.branch.lower().endswith("-" + row.pta.lower()):
            yield _problem(row, "branch", f"branch {row.branch!r} does not end with the PTA version {row.pta!r}")
        if row.branch and try_pypi(row.torch) is not None and not row.branch.startswith(f"v{row.torch}-"):
            yield _problem(row, "branch", f"branch {row.branch!r} does not start with v{row.torch}-")


def _chips(sections: Dict[str, List[Row]]) -> Iterable[Problem]:
    names: Dict[str, Row] = {}
    for row in sections.get("chips", []):
        assert isinstance(row, ChipEntry)
        for name in (row.name, *row.aliases):
            key = normalize_chip_name(name)
            if key in names and names[key] is not row:
                yield _problem(row, "aliases" if name != row.name else "name",
                               f"chip name {name!r} is already used by {names[key].path} ({names[key].loc})")
            names[key] = row
        for pattern in row.patterns:
            error = _regex_error(pattern)
            if error:
                yield _problem(row, "patterns", f"invalid pattern {pattern!r}: {error}")


def _regex_error(pattern: str) -> Optional[str]:
    try:
        re.compile(pattern)
    except re.error as exc:
        return str(exc)
    return None


# -- package names ----------------------------------------------------------------------------

_TEMPLATE_FIELDS = {
    "driver": ("{version}", "{arch}"), "firmware": ("{firmware}",),
    "noarch": ("{cann}",), "legacy": ("{cann}", "{arch}"), "ops": ("{cann}", "{arch}"),
}


def _package_names(sections: Dict[str, List[Row]]) -> Iterable[Problem]:
    """File-name templates carry their placeholders; a family's HDK table agrees with the firmware table."""
    families: Dict[str, ChipFamily] = {}
    for row in sections.get("chip_families", []):
        assert isinstance(row, ChipFamily)
        families[row.family] = row
        for attr, struct in (("hdk_package", row.hdk_package), ("kernels_package", row.kernels_package)):
            for name, needed in _TEMPLATE_FIELDS.items():
                template = getattr(struct, name, None) if struct is not None else None
                missing = [n for n in needed if template and n not in template]
                if missing:
                    yield _problem(row, attr, f"{name} template {template!r} lacks {', '.join(missing)}")
        if row.vllm_ascend_image is not None and "{version}" not in row.vllm_ascend_image.template:
            yield _problem(row, "vllm_ascend_image", "the image template lacks {version}")
    owners: Dict[Any, str] = {}
    for row in sections.get("firmware_releases", []):
        assert isinstance(row, FirmwareRelease)
        version = try_ascend(row.firmware)
        if version is not None:
            owners[version.sort_key] = row.hdk
    for row in sections.get("hdk_packages", []):
        assert isinstance(row, HdkPackageRow)
        family = families.get(row.family)
        if family is not None and family.hdk_package is None:
            yield _problem(row, "family", f"family {row.family} has HDK releases but no hdk_package file names")
        fw = try_ascend(row.firmware) if row.firmware else None
        hdk = try_ascend(row.hdk)
        if fw is None or hdk is None:
            continue
        owner = try_ascend(owners.get(fw.sort_key, ""))
        if owner is not None and not owner.same_release(hdk):
            yield _problem(row, "firmware", f"firmware {row.firmware} belongs to HDK {owners[fw.sort_key]} in "
                                            f"firmware_releases, not {row.hdk}")
