"""``key : value`` version files of NNAL/ATB, MindIE and atb-models (compat_facts §5.6).

::

    /usr/local/Ascend/nnal/atb/latest/version.info     /usr/local/Ascend/mindie/latest/version.info
        Ascend-cann-atb : 8.2.RC1                      Ascend-mindie : MindIE 2.1.RC1.B152
        Ascend-cann-atb Version : 8.2.RC1.B150         mindie-rt: 2.1.RC1.B152
        Platform : aarch64                             mindie-sd:2.1.RC1.B152
        branch : br_release_cann_8.2.RC1_20251226      Platform : aarch64
        commit id : f10dc20391d8...

    /usr/local/Ascend/atb-models/version.info
        MindIE-ATB Tag/Branch : master
        MindIE-ATB Version :
        ATB-Models Version : 2.0.T3.B010
        Platform : aarch64

How the convenience fields are chosen:

* ``product``: the first ``Ascend-…`` key that is not a ``… Version`` key; failing that, the
  name in front of the first non-empty ``<name> Version`` key (``ATB-Models``).
* ``full_version``: ``<product> Version`` when present, else the version word in the product's
  value (``MindIE 2.1.RC1.B152`` → ``2.1.RC1.B152``).
* ``version``: the release of ``full_version`` without build tag (``8.2.RC1``, ``2.1.RC1``).
* ``components``: every other key whose value carries a version (``mindie-rt`` …).
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.parsers.version_text import (
    JsonRecord,
    Pairs,
    VersionFileError,
    read_pairs,
    safe_version,
    version_token,
)

COLON_KIND = "NNAL/MindIE 'key : value' version.info"
_SUFFIX = " version"


class ColonVersionInfo(JsonRecord, Struct, frozen=True):
    product: Optional[str] = None  # Ascend-cann-atb, Ascend-mindie, ATB-Models
    version: Optional[str] = None  # the release: 8.2.RC1, 2.1.RC1, 8.0.T63
    full_version: Optional[str] = None  # with build tag: 8.2.RC1.B150, 2.1.RC1.B152
    platform: Optional[str] = None  # aarch64 / x86_64
    branch: Optional[str] = None
    commit: Optional[str] = None
    components: Dict[str, str] = field(default_factory=dict)  # mindie-rt -> 2.1.RC1.B152
    raw: Dict[str, str] = field(default_factory=dict)
    warnings: Tuple[str, ...] = ()


def _is_version_key(key: str) -> bool:
    return key.lower().endswith(_SUFFIX) and len(key) > len(_SUFFIX)


def _product(pairs: Pairs) -> Tuple[Optional[str], Optional[str]]:
    """(product name, its plain value) per the module doc."""
    for key, value, _ in pairs.items:
        if key.lower().startswith("ascend-") and not _is_version_key(key):
            return key, value
    for key, value, _ in pairs.items:
        if _is_version_key(key) and value:
            return key[: -len(_SUFFIX)].strip(), None
    return None, None


def parse_colon_version_info(text: str) -> ColonVersionInfo:
    """Parse an NNAL/ATB, MindIE or atb-models ``version.info``.

    Raises :class:`VersionFileError` when no ``Ascend-…``, ``… Version`` or ``Platform`` key is found.
    """
    pairs = read_pairs(text, COLON_KIND, style=":")
    if not any(key.lower().startswith("ascend-") or _is_version_key(key) or key.lower() == "platform"
               for key, _, _ in pairs.items):
        raise pairs.fail("no 'Ascend-<product> :', '<name> Version :' or 'Platform :' line")
    product, plain = _product(pairs)
    full = None
    if product:
        full = pairs.value(f"{product} Version") or version_token(plain)
    parsed = safe_version(full)
    version = parsed.release if parsed else None
    if version is None and plain:
        version = version_token(plain) or plain
    branch = pairs.value("branch")
    if branch is None:
        branch = next((v for k, v, _ in pairs.items if k.lower().endswith("tag/branch") and v), None)
    skip = {k.lower() for k in (product or "", f"{product} Version", "Platform", "branch", "commit id")}
    components = {key: value for key, value in pairs.raw.items()
                  if key.lower() not in skip and not key.lower().endswith("tag/branch") and version_token(value)}
    return ColonVersionInfo(product=product, version=version, full_version=full,
                            platform=pairs.value("Platform"), branch=branch, commit=pairs.value("commit id"),
                            components=components, raw=pairs.raw, warnings=pairs.warnings)


__all__ = ["ColonVersionInfo", "VersionFileError", "parse_colon_version_info"]
