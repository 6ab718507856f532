"""Environment dumps people paste into issues: vllm-ascend ``collect_env.py`` and relatives.

Layouts seen (samples in ``tests/samples/collect-env/``):

* vllm-ascend ``collect_env.py``: ``Label: value`` lines, ``[pip3] name==version`` lines,
  ``vLLM Ascend Version:``, an ``ENV Variables:`` block of ``NAME=value``, an ``NPU:`` block with
  the ``npu-smi info`` table and a ``CANN:`` block holding ``ascend_toolkit_install.info``;
* upstream vLLM's sectioned form (``=====`` banners, ``Label    : value``);
* ``llamafactory-cli env`` (``- Label: value`` bullets, ``CANN version:``);
* text whose line breaks were collapsed into spaces by a web mirror: only the main
  ``Label: version`` fields are searched for, with a warning.

Everything is optional; a dump with none of the Python/PyTorch/vLLM/CANN fields raises
:class:`VersionFileError`.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers.install_info import CannInstallInfo, parse_cann_install_info
from ascend_doctor.parsers.version_text import JsonRecord, VersionFileError, capped, clean_lines

COLLECT_ENV_KIND = "collect_env output"

_LABEL = lazy_re(r"^(?:[-*]\s+)?(?P<label>[A-Za-z`][A-Za-z0-9 ()_/.`'\-]{0,60}?)\s*:\s*(?P<value>.*)$")
_PACKAGE = lazy_re(r"^\[(?P<tool>pip3?|conda)\]\s+(?P<name>[A-Za-z0-9_.\-]+)(?:\s*==\s*|\s+)(?P<version>\S+)")
_ENV = lazy_re(r"^(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>.*)$")
_CANN_LINE = lazy_re(r"^[a-z_]+=")
_NPU_SMI = lazy_re(r"npu-smi\s+(?P<tool>\S+)\s+Version:\s*(?P<version>\S+)")
_BANNER = lazy_re(r"^={10,}$")
# Fields searched for anywhere when line breaks were lost.
_COLLAPSED = {
    "pytorch version": re.compile(r"PyTorch version:\s*(\S+)"),
    "python version": re.compile(r"Python version:\s*(\S+)"),
    "vllm version": re.compile(r"vLLM Version:\s*(\S+)"),
    "vllm ascend version": re.compile(r"vLLM Ascend Version:\s*(\S+)"),
    "cann version": re.compile(r"CANN version:\s*(\S+)"),
    "python platform": re.compile(r"Python platform:\s*(\S+)"),
    "os": re.compile(r"\bOS:\s*(.{1,80}?\((?:aarch64|x86_64)\))"),
}
_MAIN_LABELS = ("pytorch version", "python version", "vllm version", "vllm ascend version", "cann version")


class CollectEnv(JsonRecord, Struct, frozen=True):
    layout: str  # vllm-ascend | vllm-sectioned | llamafactory | collect_env | collapsed
    python_version: Optional[str] = None  # 3.11.13
    python_platform: Optional[str] = None  # Linux-5.10.0-...-aarch64-with-glibc2.35 (kernel of the HOST)
    os: Optional[str] = None  # Ubuntu 22.04.5 LTS (aarch64) (userland of the container)
    arch: Optional[str] = None
    cpu_model: Optional[str] = None
    torch_version: Optional[str] = None  # 2.7.1+cpu
    torch_npu_version: Optional[str] = None  # 2.7.1.dev20250911
    vllm_version: Optional[str] = None  # 0.11.2 (git suffix dropped)
    vllm_ascend_version: Optional[str] = None
    cann_version: Optional[str] = None  # from the CANN: block, else "CANN version:"
    cann: Optional[CannInstallInfo] = None
    npu_type: Optional[str] = None  # llamafactory's "NPU type"
    npu_smi_version: Optional[str] = None  # from the npu-smi table header
    npu_smi_text: Optional[str] = None  # the npu-smi table, for the npu-smi parser
    packages: Dict[str, str] = field(default_factory=dict)  # normalised name (torch_npu) -> version
    env: Dict[str, str] = field(default_factory=dict)
    labels: Dict[str, str] = field(default_factory=dict)  # every "Label: value", lower-case label
    warnings: Tuple[str, ...] = ()


def _first_word(value: Optional[str]) -> Optional[str]:
    if (value or "").strip().lower().startswith("could not collect"):
        return None
    words = (value or "").split()
    return words[0] if words and words[0] not in ("-", "N/A") else None


def _normalise(name: str) -> str:
    return name.lower().replace("-", "_")


def parse_collect_env(text: str) -> CollectEnv:
    """Parse a pasted environment dump. Raises :class:`VersionFileError` when nothing is recognised."""
    lines = clean_lines(text, COLLECT_ENV_KIND)
    labels: Dict[str, str] = {}
    packages: Dict[str, str] = {}
    env: Dict[str, str] = {}
    warnings: List[str] = []
    npu_lines: List[str] = []
    cann_lines: List[str] = []
    cann_open = False
    layout = "collect_env"
    for number, line in lines:
        if cann_open and _CANN_LINE.match(line):
            cann_lines.append(line)
            continue
        cann_open = False
        if line.startswith("package_name=") and not cann_lines:
            cann_open = True
            cann_lines.append(line)
            continue
        if line[0] in "+|":
            npu_lines.append(line)
            continue
        if _BANNER.match(line):
            layout = "vllm-sectioned"
            continue
        package = _PACKAGE.match(line)
        if package and package.group("name").lower() == "could":
            continue  # "[conda] Could not collect"
        if package:
            packages.setdefault(_normalise(package.group("name")), package.group("version"))
            continue
        variable = _ENV.match(line)
        if variable:
            if variable.group("name") in env:
                warnings.append(f"line {number}: {variable.group('name')} set twice; the last value wins")
            env[variable.group("name")] = variable.group("value")
            continue
        label = _LABEL.match(line)
        if label:
            key = label.group("label").replace("`", "").strip().lower()
            labels.setdefault(key, label.group("value").strip())
    if layout == "collect_env":
        if "vllm ascend version" in labels or "cann" in labels or "env variables" in labels:
            layout = "vllm-ascend"
        elif "npu type" in labels or "llamafactory version" in labels:
            layout = "llamafactory"
    if not any(key in labels for key in _MAIN_LABELS) and not packages and not cann_lines:
        whole = "\n".join(line for _, line in lines)
        for key, pattern in _COLLAPSED.items():
            found = pattern.search(whole)
            if found:
                labels[key] = found.group(1)
        if not any(key in labels for key in _MAIN_LABELS):
            first = lines[0]
            raise VersionFileError(COLLECT_ENV_KIND, "no PyTorch/Python/vLLM/CANN version field", first[0], first[1])
        layout = "collapsed"
        warnings.append("line breaks look collapsed; only the main version fields were read")

    cann: Optional[CannInstallInfo] = None
    if cann_lines:
        try:
            cann = parse_cann_install_info("\n".join(cann_lines))
        except VersionFileError as exc:
            warnings.append(f"CANN block unreadable: {exc}")
    npu_text = "\n".join(npu_lines) + "\n" if npu_lines else None
    smi = _NPU_SMI.search(npu_text or "")
    os_name = labels.get("os")
    arch = labels.get("architecture")
    if not arch and os_name and os_name.endswith(")"):
        arch = os_name.rsplit("(", 1)[-1].rstrip(")") or None
    if not arch and cann:
        arch = cann.arch
    cpu_model = _first_word(labels.get("model name")) and labels.get("model name")
    return CollectEnv(
        layout=layout,
        python_version=_first_word(labels.get("python version")),
        python_platform=labels.get("python platform") or labels.get("platform"),
        os=os_name,
        arch=arch,
        cpu_model=cpu_model or labels.get("bios model name"),
        torch_version=_first_word(labels.get("pytorch version")) or packages.get("torch"),  # torch.__version__ first
        torch_npu_version=packages.get("torch_npu"),
        vllm_version=_first_word(labels.get("vllm version")),
        vllm_ascend_version=_first_word(labels.get("vllm ascend version")),
        cann_version=(cann.version if cann else None) or _first_word(labels.get("cann version")),
        cann=cann,
        npu_type=labels.get("npu type"),
        npu_smi_version=smi.group("version") if smi else None,
        npu_smi_text=npu_text,
        packages=packages,
        env=env,
        labels=labels,
        warnings=capped(warnings),
    )


__all__ = ["CollectEnv", "VersionFileError", "parse_collect_env"]
