"""Facts about what sits on top of CANN: the kernels/ops package, NNAL/ATB, MindIE, the engines.

On-disk layout read here (sources in brackets):

* Kernels package, CANN <= 8.3 (``Ascend-cann-kernels-<chip>_<ver>_linux-<arch>.run``):
  ``<cann home>/opp_kernel/version.info`` with ``Version=`` / ``version_dir=`` (compat_facts §5.5;
  corpus ``version-files/notes-800IA2-opp_kernel-version.info-8.2.RC1.txt``; the ``latest/opp_kernel``
  link in ``version-files/toolkit-latest-ls-8.2.RC2-symlinks.txt``).
* CANN >= 8.5 ops package (``Ascend-cann-<chip>-ops_<ver>_linux-<arch>.run``): an
  ``ascend_ops_install.info`` next to the toolkit's, found by the ``stack`` provider (kind ``ops``).
* The chip the binary kernels were built for: one folder per SoC under
  ``<opp>/built-in/op_impl/ai_core/tbe/kernel/`` and ``.../tbe/kernel/config/<soc>/binary_info_config.json``
  -- the file whose absence gives ``EZ1001 ... binary_info_config.json failed, please check if the
  opp_kernel package is installed`` (vllm-ascend#237). SoC folder names seen in CANN trees and
  custom-op build scripts: ``ascend910b`` (A2), ``ascend910_93`` (A3), ``ascend310p``, ``ascend310b``,
  ``ascend910`` (public GitHub files under ``opp/built-in/op_impl/ai_core/tbe/kernel/config/<soc>/``).
* NNAL/ATB: ``<root>/nnal/atb/latest/version.info`` (``key : value``) and one library tree per C++
  ABI, ``<root>/nnal/atb/latest/atb/cxx_abi_0`` and ``cxx_abi_1``; ``set_env.sh`` exports
  ``ATB_HOME_PATH=<...>/cxx_abi_<n>`` where n is ``torch.compiled_with_cxx11_abi()`` of the
  ``python3`` on PATH, or 1 when that python3 cannot import torch (compat_facts §5.6; NNAL
  ``set_env.sh`` ``get_cxx_abi_option``).
* MindIE: ``<root>/mindie/latest/version.info``, ``<root>/atb-models/version.info`` (§5.6).
* Installed engines: distributions in the target Python; running engines: ``host.processes()``.
"""

from __future__ import annotations

import posixpath
import re
from typing import Dict, List, Optional, Tuple

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.engines import (
    EnginesFacts,
    KernelsFacts,
    MindieFacts,
    NnalFacts,
    RunningEngine,
    TorchAbi,
)
from ascend_doctor.facts.records.stack import CannInstall, StackFacts
from ascend_doctor.facts.stack import _read_parsed
from ascend_doctor.host.base import CommandResult, HostFileError, ProcessInfo
from ascend_doctor.i18n import gettext as _
from ascend_doctor.lazy import lazy_re

KERNEL_DIR = "built-in/op_impl/ai_core/tbe/kernel"
BINARY_INFO = "binary_info_config.json"

# Chip family (facts.npu.chip_family) -> the SoC folder its binary kernels are installed under.
SOC_FOLDER_BY_FAMILY: Dict[str, str] = {
    "A2": "ascend910b",
    "A3": "ascend910_93",
    "310P": "ascend310p",
    "310B": "ascend310b",
    "910": "ascend910",
}


def cann_home_of(install: CannInstall) -> str:
    """The directory holding opp/, runtime/...: the install.info folder without ``<arch>-linux``."""
    path = install.path.rstrip("/")
    if path.endswith("-linux"):
        return posixpath.dirname(path)
    return path


def _ascend_dirs(facts: Facts, directory: str) -> List[str]:
    try:
        names = facts.host.listdir(directory)
    except HostFileError:
        return []
    return [n for n in names if n.lower().startswith("ascend") and facts.host.is_dir(posixpath.join(directory, n))]


# Where an operator package (opp) may be: ASCEND_OPP_PATH, or a CANN home's opp folder
# (<root>/cann-8.x/opp, <root>/ascend-toolkit/<version>/opp).
_OPP_HOMES = ("{env_path}", "{root}/*/opp", "{root}/*/*/opp")


@provider("kernels", reads=Reads(
    files=("{root}/*/*/opp_kernel/version.info", "{root}/*/opp_kernel/version.info"),
    present=tuple(f"{opp}{rel}" for opp in _OPP_HOMES
                  for rel in ("", "/" + posixpath.dirname(KERNEL_DIR), f"/{KERNEL_DIR}/config/*/{BINARY_INFO}")),
    listings=tuple(f"{opp}/{KERNEL_DIR}{rel}" for opp in _OPP_HOMES for rel in ("", "/config")),
    host=("env",)))
def kernels(facts: Facts) -> KernelsFacts:
    from ascend_doctor.parsers.cann_component_info import parse_component_version_info

    stack: StackFacts = facts.stack
    env = dict(facts.host.env())
    toolkit = stack.active_toolkit(env)
    notes: List[str] = []
    home = cann_home_of(toolkit) if toolkit else None
    opp = (env.get("ASCEND_OPP_PATH") or "").rstrip("/") or (posixpath.join(home, "opp") if home else None)
    if toolkit is None and not opp:
        raise FactUnavailable(_("no CANN toolkit found, so there is no kernels package to look for"))
    opp_kernel = _read_parsed(facts, posixpath.join(home, "opp_kernel", "version.info"),
                              parse_component_version_info) if home else None
    homes = {home} if home else set()
    ops = tuple(c for c in stack.cann if c.kind == "ops" and not c.error
                and (not homes or cann_home_of(c) in homes or (toolkit and c.version == toolkit.version)))
    soc_folders: List[str] = []
    soc_configs: List[str] = []
    tbe_present = False
    if opp:
        tbe_present = facts.host.is_dir(posixpath.join(opp, posixpath.dirname(KERNEL_DIR)))
        kernel_dir = posixpath.join(opp, KERNEL_DIR)
        soc_folders = _ascend_dirs(facts, kernel_dir)
        config_dir = posixpath.join(kernel_dir, "config")
        soc_configs = [s for s in _ascend_dirs(facts, config_dir)
                       if facts.host.exists(posixpath.join(config_dir, s, BINARY_INFO))]
        if not facts.host.is_dir(opp):
            notes.append(_("{path} (the operator package directory) does not exist").format(path=opp))
    return KernelsFacts(home, toolkit.version if toolkit else None, opp, opp_kernel, ops,
                        tuple(soc_folders), tuple(soc_configs), tbe_present, tuple(notes))


# -- NNAL / ATB -------------------------------------------------------------------------------
_ABI_DIR = lazy_re(r"cxx_abi_([01])$")


def abi_of_path(path: Optional[str]) -> Optional[int]:
    match = _ABI_DIR.search((path or "").rstrip("/"))
    return int(match.group(1)) if match else None


@provider("nnal", reads=Reads(
    files=("{root}/nnal/atb/latest/version.info",),
    present=("{root}/nnal/atb", "{root}/nnal/atb/latest", "{env_path}"),
    listings=("{root}/nnal/atb/latest/atb",),
    host=("env",)))
def nnal(facts: Facts) -> NnalFacts:
    from ascend_doctor.parsers.colon_version_info import parse_colon_version_info

    host = facts.host
    stack: StackFacts = facts.stack
    env = dict(host.env())
    atb_home = env.get("ATB_HOME_PATH") or None
    candidates = [posixpath.join(r, "nnal", "atb") for r in stack.roots]
    if atb_home and "/nnal/atb/" in atb_home:
        candidates.insert(0, atb_home.split("/nnal/atb/")[0] + "/nnal/atb")
    root = next((c for c in candidates if host.is_dir(c)), None)
    version_file = None
    latest_target = None
    abi_dirs: Tuple[int, ...] = ()
    if root:
        latest = posixpath.join(root, "latest")
        version_file = _read_parsed(facts, posixpath.join(latest, "version.info"), parse_colon_version_info)
        link = host.readlink(latest)
        latest_target = link if link else None
        atb = posixpath.join(latest, "atb")
        try:
            abi_dirs = tuple(sorted({a for a in (abi_of_path(n) for n in host.listdir(atb)) if a is not None}))
        except HostFileError:
            abi_dirs = ()
        from ascend_doctor.facts.origin import absence_is_evidence

        if not absence_is_evidence(facts):
            abi_dirs = ()  # pasted text: only the folder ATB_HOME_PATH names is known, not the others
    return NnalFacts(root, version_file, latest_target, abi_dirs, atb_home, abi_of_path(atb_home),
                     host.is_dir(atb_home) if atb_home else None)


@provider("mindie", reads=Reads(
    files=("{root}/mindie/latest/version.info", "{root}/atb-models/version.info")))
def mindie(facts: Facts) -> MindieFacts:
    from ascend_doctor.parsers.colon_version_info import parse_colon_version_info

    stack: StackFacts = facts.stack
    for root in stack.roots:
        found = _read_parsed(facts, posixpath.join(root, "mindie", "latest", "version.info"),
                             parse_colon_version_info)
        if found:
            models = _read_parsed(facts, posixpath.join(root, "atb-models", "version.info"),
                                  parse_colon_version_info)
            return MindieFacts(root, found, models)
    return MindieFacts(None, None, None)


# -- engines ----------------------------------------------------------------------------------
# Distributions that identify an engine in the target Python (PEP 503 names). mindie-turbo is
# left out on purpose: it is an accelerator plugin *for vLLM-Ascend* (vLLM-Ascend v0.7.3 docs:
# "don't forget to install mindie-turbo"), not the MindIE server.
ENGINE_PACKAGES: Dict[str, Tuple[str, ...]] = {
    "vLLM-Ascend": ("vllm-ascend",),
    "vLLM": ("vllm",),
    "MindIE": ("mindie", "mindie-llm", "mindie-service", "mindieclient", "mindie-torch", "mindie-motor"),
    "MindSpeed": ("mindspeed", "mindspeed-llm", "mindspeed-rl", "mindspeed-mm"),
}

# Process names / command-line words of running engines. MindIE: the service daemon and its
# backend workers (``mindie_llm_back`` in npu-smi's process table, corpus
# fixture-2x910B4-mindie_llm_back); vLLM: ``vllm serve`` / the OpenAI api_server entry point and
# its ``VLLMWorker_*`` processes (corpus fixture-A3-26.0.rc1-VLLMWorker_PP, gpustat-fixture-2x910B2C).
_MINDIE_PROC = lazy_re(r"mindieservice_daemon|mindie_llm|mindie-service|mindie_service", re.I)
_VLLM_PROC = lazy_re(r"^VLLMWorker|^vllm$|vllm\.entrypoints|(^|/)vllm\s+serve\b|\bvllm serve\b", re.I)


def classify_process(proc: ProcessInfo) -> Optional[str]:
    """"MindIE" / "vLLM" when the process is one of their servers or workers, else None."""
    cmdline = " ".join(proc.cmdline)
    text = f"{proc.name} {cmdline}"
    if _MINDIE_PROC.search(text):
        return "MindIE"
    if _VLLM_PROC.search(proc.name) or _VLLM_PROC.search(cmdline):
        return "vLLM"
    return None


def engine_of_process_name(name: str) -> Optional[str]:
    """"MindIE" / "vLLM" for a process name as npu-smi's process table prints it
    (``mindie_llm_back``, ``VLLMWorker_TP``), else None."""
    if _MINDIE_PROC.search(name):
        return "MindIE"
    if _VLLM_PROC.search(name):
        return "vLLM"
    return None


@provider("engines", reads=Reads(host=("python", "processes")))
def engines(facts: Facts) -> EnginesFacts:
    py = facts.maybe(Facts.python_env)
    installed: Dict[str, Dict[str, str]] = {}
    for engine, dists in ENGINE_PACKAGES.items():
        found = {}
        for dist in dists:
            version = py.package(dist) if py is not None else None
            if version:
                found[dist] = version
        installed[engine] = found
    mindie_facts = facts.maybe(Facts.mindie)
    procs = facts.host.processes()
    running: List[RunningEngine] = []
    for proc in procs or []:
        kind = classify_process(proc)
        if kind:
            running.append(RunningEngine(kind, proc.pid, proc.name, " ".join(proc.cmdline)[:300]))
    return EnginesFacts(installed, getattr(mindie_facts, "version", None), tuple(running), procs is not None,
                        getattr(py, "error", None))


# -- torch C++ ABI ----------------------------------------------------------------------------
TORCH_CONFIG = "share/cmake/Torch/TorchConfig.cmake"
_CMAKE_ABI = lazy_re(r"_GLIBCXX_USE_CXX11_ABI=([01])")
# Prints torch's package directory without importing torch (find_spec does not run __init__).
TORCH_DIR_PROBE = ("import importlib.util as u; s = u.find_spec('torch'); "
                   "print((s.submodule_search_locations or [''])[0] if s else '')")


def abi_from_torch_version(version: str) -> Optional[int]:
    """The ABI the Ascend images pair with a torch release (an inference, see ``source`` text).

    torch 2.5.1 images carry ``cxx_abi_0`` (CANN 8.1.RC1 image), MindIE 2.1.RC1 ships its abi1
    package for torch 2.6.0 and its abi0 package for torch 2.1.0, and the torch 2.7.1+ images
    (CANN 8.3/8.5/9.x) use ``cxx_abi_1`` (compat_facts §4, §5.6; corpus collect-env 4480).
    """
    match = re.match(r"^\s*(\d+)\.(\d+)", version or "")
    if not match:
        return None
    major, minor = int(match.group(1)), int(match.group(2))
    return 1 if (major, minor) >= (2, 6) else 0


def _site_candidates(executable: str, py_version: Optional[str]) -> List[str]:
    match = re.match(r"^(\d+)\.(\d+)", py_version or "")
    if not match:
        return []
    xy = f"python{match.group(1)}.{match.group(2)}"
    prefix = posixpath.dirname(posixpath.dirname(executable))
    out = [posixpath.join(prefix, "lib", xy, "site-packages"), posixpath.join(prefix, "lib", xy, "dist-packages"),
           posixpath.join(prefix, "local", "lib", xy, "dist-packages"), f"/usr/local/lib/{xy}/dist-packages",
           f"/usr/local/lib/{xy}/site-packages"]
    seen: List[str] = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return seen


def _abi_from_config(facts: Facts, torch_dir: str) -> Optional[Tuple[int, str]]:
    path = posixpath.join(torch_dir, TORCH_CONFIG)
    try:
        text = facts.host.read_text(path, max_bytes=256 * 1024)
    except HostFileError:
        return None
    match = _CMAKE_ABI.search(text)
    return (int(match.group(1)), path) if match else None


@provider("torch_abi", reads=Reads(
    commands=(("{python}", "-c", TORCH_DIR_PROBE),),
    # Where the probe says torch is, when it is not in a site folder of the interpreter.
    files=("{python_site}/torch/share/cmake/Torch/TorchConfig.cmake", "/**/torch/share/cmake/Torch/TorchConfig.cmake"),
    present=("{python}",),
    host=("python",), adaptive=True))
def torch_abi(facts: Facts) -> TorchAbi:
    py = facts.python_env
    version = py.package("torch")
    if not version:
        raise FactUnavailable(_("torch is not installed in the target Python"))
    exe = py.executable
    dirs: List[str] = []
    if exe:
        for candidate_exe in (exe, facts.host.realpath(exe)):
            for site in _site_candidates(candidate_exe, py.version):
                torch_dir = posixpath.join(site, "torch")
                if torch_dir not in dirs:
                    dirs.append(torch_dir)
    for torch_dir in dirs:
        found = _abi_from_config(facts, torch_dir)
        if found:
            return TorchAbi(found[0], f"_GLIBCXX_USE_CXX11_ABI={found[0]} in {found[1]}", False, version)
    if exe:
        result: CommandResult = facts.command((exe, "-c", TORCH_DIR_PROBE))
        where = result.stdout.strip().splitlines()[-1].strip() if result.ok and result.stdout.strip() else ""
        if where.startswith("/"):
            found = _abi_from_config(facts, where)
            if found:
                return TorchAbi(found[0], f"_GLIBCXX_USE_CXX11_ABI={found[0]} in {found[1]}", False, version)
    abi = abi_from_torch_version(version)
    if abi is None:
        raise FactUnavailable(_("cannot tell the C++ ABI of torch {version}").format(version=version))
    return TorchAbi(abi, _("inferred from torch {version} (torch >= 2.6 images use cxx_abi_1, older ones "
                           "cxx_abi_0); run `python3 -c 'import torch; print(torch.compiled_with_cxx11_abi())'` "
                           "to confirm").format(version=version), True, version)


__all__ = [
    "SOC_FOLDER_BY_FAMILY",
    "EnginesFacts",
    "KernelsFacts",
    "MindieFacts",
    "NnalFacts",
    "RunningEngine",
    "TorchAbi",
    "abi_from_torch_version",
    "abi_of_path",
    "cann_home_of",
    "classify_process",
]
