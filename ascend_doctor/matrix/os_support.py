"""The operating systems Huawei lists for the NPU driver, per chip family (ASC-DRV-004).

Data: ``compat_matrix/os_support.yaml`` (shipped as ``ascend_doctor.compat_matrix``), every entry
with its source. Matching is deliberately plain: the listed OS name must appear in the host's
``os-release`` name and the listed version as a whole token (``22.03`` matches
``openEuler 22.03 (LTS-SP3)``, ``22.04`` matches ``Ubuntu 22.04.5 LTS``). A host whose name and
major version match but whose qualifier (``V10 SP3``) cannot be read is a *partial* match, which
the check words as "cannot be confirmed".
"""

from __future__ import annotations

import functools
import re
from typing import Any, List, Mapping, Optional, Tuple

from msgspec import Struct

DATA_PACKAGE = "ascend_doctor.compat_matrix"
DATA_FILE = "os_support.yaml"
SCHEMA_VERSION = 1

MATCH = "match"
PARTIAL = "partial"


class OsSupportDataError(ValueError):
    """The shipped YAML is malformed (an editing or packaging mistake)."""


class SupportedOs(Struct, frozen=True):
    name: str
    version: str
    arch: Optional[str] = None
    kernel: Optional[str] = None
    install: Optional[str] = None  # binary | source
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"


class OsSupportEntry(Struct, frozen=True):
    family: str
    products: str
    release: str
    source: str
    os: Tuple[SupportedOs, ...]
    note: str = ""


class OsMatch(Struct, frozen=True):
    kind: str  # MATCH | PARTIAL
    supported: SupportedOs
    entry: OsSupportEntry


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-]+", "", text.lower())


def _version_tokens(version: str) -> List[str]:
    return [t for t in re.split(r"\s+", version.strip()) if t]


def _has_token(haystack: str, token: str) -> bool:
    """``token`` as a whole word/number of ``haystack`` (a point release may follow: 22.04 -> 22.04.5)."""
    return re.search(r"(?<![\w.])" + re.escape(token.lower()) + r"(?![\w])", haystack.lower()) is not None


def match_os(host_os: str, host_arch: Optional[str], supported: SupportedOs) -> Optional[str]:
    """MATCH, PARTIAL (name and first version token agree, the rest cannot be read) or None."""
    if supported.arch and host_arch and supported.arch != host_arch:
        return None
    if _norm(supported.name) not in _norm(host_os):
        return None
    tokens = _version_tokens(supported.version)
    if not tokens or not _has_token(host_os, tokens[0]):
        return None
    if all(_has_token(host_os, t) for t in tokens[1:]):
        return MATCH
    return PARTIAL


def find(entries: Tuple[OsSupportEntry, ...], family: str, host_os: str,
         host_arch: Optional[str]) -> List[OsMatch]:
    """Every listed OS of ``family`` the host matches, full matches first."""
    found: List[OsMatch] = []
    for entry in entries:
        if entry.family != family:
            continue
        for supported in entry.os:
            kind = match_os(host_os, host_arch, supported)
            if kind:
                found.append(OsMatch(kind, supported, entry))
    return sorted(found, key=lambda m: 0 if m.kind == MATCH else 1)


def families(entries: Tuple[OsSupportEntry, ...]) -> List[str]:
    out: List[str] = []
    for entry in entries:
        if entry.family not in out:
            out.append(entry.family)
    return out


def _str(value: Any, where: str, required: bool = True) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool) or str(value).strip() == "":
        raise OsSupportDataError(f"{DATA_FILE}: {where} must be a non-empty string")
    return str(value)


def parse_os_support(data: Any) -> Tuple[OsSupportEntry, ...]:
    """Validate the document and build the records (raises ``OsSupportDataError``)."""
    if not isinstance(data, Mapping):
        raise OsSupportDataError(f"{DATA_FILE}: top level must be a mapping")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise OsSupportDataError(f"{DATA_FILE}: schema_version must be {SCHEMA_VERSION}")
    raw = data.get("entries")
    if not isinstance(raw, list) or not raw:
        raise OsSupportDataError(f"{DATA_FILE}: entries must be a non-empty list")
    out: List[OsSupportEntry] = []
    for index, item in enumerate(raw):
        where = f"entries[{index}]"
        if not isinstance(item, Mapping):
            raise OsSupportDataError(f"{DATA_FILE}: {where} must be a mapping")
        source = _str(item.get("source"), f"{where}.source")
        oses = item.get("os")
        if not isinstance(oses, list) or not oses:
            raise OsSupportDataError(f"{DATA_FILE}: {where}.os must be a non-empty list")
        listed: List[SupportedOs] = []
        for j, os_item in enumerate(oses):
            w = f"{where}.os[{j}]"
            if not isinstance(os_item, Mapping):
                raise OsSupportDataError(f"{DATA_FILE}: {w} must be a mapping")
            install = _str(os_item.get("install"), f"{w}.install", required=False) or None
            if install not in (None, "binary", "source"):
                raise OsSupportDataError(f"{DATA_FILE}: {w}.install must be binary or source")
            listed.append(SupportedOs(
                name=_str(os_item.get("name"), f"{w}.name"), version=_str(os_item.get("version"), f"{w}.version"),
                arch=_str(os_item.get("arch"), f"{w}.arch", required=False) or None,
                kernel=_str(os_item.get("kernel"), f"{w}.kernel", required=False) or None,
                install=install, note=_str(os_item.get("note"), f"{w}.note", required=False)))
        out.append(OsSupportEntry(
            family=_str(item.get("family"), f"{where}.family"),
            products=_str(item.get("products"), f"{where}.products"),
            release=_str(item.get("release"), f"{where}.release"), source=source, os=tuple(listed),
            note=_str(item.get("note"), f"{where}.note", required=False)))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def load_os_support() -> Tuple[OsSupportEntry, ...]:
    from ascend_doctor.datacache import yaml_data

    compiled, data = yaml_data(DATA_FILE)  # the YAML as parsed at build time, while it is current
    if not compiled:
        import importlib.resources

        import yaml

        data = yaml.safe_load(importlib.resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text(encoding="utf-8"))
    return parse_os_support(data)
