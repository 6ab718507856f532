"""``vllm_ascend/_build_info.py``: the chip family a vLLM-Ascend wheel (and so its image) was built for.

vLLM-Ascend's setup.py writes it at build time (github.com/vllm-project/vllm-ascend, setup.py
``gen_build_info``): in older releases as ``__soc_version__ = 'ASCEND910B1'`` (with
``__sleep_mode_enabled__``), on current main as ``__device_type__ = 'A3'``, the ``AscendDeviceType``
of the build's SOC_VERSION (vllm_ascend/device/hardware.py). The A2 image is built with
ascend910b1, the -a3 image with ascend910_9391, the -310p image with ascend310p1 (vLLM-Ascend FAQ 21).

Pure: the file's text in (never executed), a record out; the family uses the names of the
matrix's chip families (A2, A3, 310P, 950).
"""

from __future__ import annotations

import re
from typing import Any, Dict, Optional

from msgspec import Struct

from ascend_doctor.lazy import lazy_re

MAX_CHARS = 16 * 1024
_ASSIGN = lazy_re(r"^\s*(__[a-z_]+__)\s*=\s*(?:'([^'\n]{0,64})'|\"([^\"\n]{0,64})\"|(True|False))\s*$", re.M)
_DEVICE_TYPES = {"A2": "A2", "A3": "A3", "_310P": "310P", "310P": "310P", "A5": "950"}
_SOC_FAMILIES = (
    (re.compile(r"^ascend910b", re.I), "A2"),
    (re.compile(r"^ascend910_93", re.I), "A3"),
    (re.compile(r"^ascend310p", re.I), "310P"),
    (re.compile(r"^ascend950", re.I), "950"),
    (re.compile(r"^910b$", re.I), "A2"),  # setup.py's short SOC names (soc_version_map)
    (re.compile(r"^910c$", re.I), "A3"),
    (re.compile(r"^310p$", re.I), "310P"),
)


class VllmBuildInfo(Struct, frozen=True):
    device_type: Optional[str]  # as written (A2, A3, _310P, A5), newer builds
    soc_version: Optional[str]  # as written (ASCEND910B1 ...), older builds
    family: Optional[str]  # A2 / A3 / 310P / 950, None when neither field names one

    def to_dict(self) -> Dict[str, Any]:
        return {"device_type": self.device_type, "soc_version": self.soc_version, "family": self.family}


def soc_family(soc_version: str) -> Optional[str]:
    for pattern, family in _SOC_FAMILIES:
        if pattern.match(soc_version.strip()):
            return family
    return None


def parse_vllm_build_info(text: str) -> VllmBuildInfo:
    values: Dict[str, str] = {}
    for match in _ASSIGN.finditer(text[:MAX_CHARS]):
        values.setdefault(match.group(1), next(g for g in match.groups()[1:] if g is not None))
    device_type = values.get("__device_type__")
    soc_version = values.get("__soc_version__")
    family = _DEVICE_TYPES.get(device_type or "")
    if family is None and soc_version:
        family = soc_family(soc_version)
    return VllmBuildInfo(device_type, soc_version, family)


_SCM_NODE = lazy_re(r"^g([0-9a-f]{7,40})$")


def scm_commit(version: str) -> Optional[str]:
    """The git commit a setuptools_scm development version names, None for a release.

    vLLM and vLLM-Ascend built from a checkout that is not a release tag carry it in the local label:
    ``0.11.0rc1.dev626+g358194625`` (vllm-ascend#4989), ``0.9.2.dev0+g0740d1021.d20251029`` (a modified tree,
    vllm-ascend#3906), ``0.7.4.dev0+ged6e907.d20250606`` (vLLM, vllm-ascend#1144)."""
    text = (version or "").strip()
    if "+" not in text or len(text) > 128:
        return None
    for part in text.split("+", 1)[1].lower().split("."):
        match = _SCM_NODE.match(part)
        if match:
            return match.group(1)
    return None
