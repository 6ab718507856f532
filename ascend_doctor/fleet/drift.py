"""The facts that must agree across the nodes of one cluster, read from a node report's ``facts``.

Every entry of :data:`DRIFT_KEYS` names one fact, the fleet check that grades it (``group``) and
how to read it from the ``facts`` section of a node report (docs/report-schema.json). A reader
returns the value as text, or ``None`` when the report does not say (an older report, a fact the
node could not establish): such a node is left out of that comparison, never counted as
different. A Python package the node's interpreter lacks reads as :data:`NOT_INSTALLED`, which
does count: one node without torch_npu among fifteen with it is exactly the odd one out.

Variables that must *differ* from node to node (``HCCL_IF_IP`` is each node's own address) are in
:data:`UNIQUE_ENV`: they are checked for uniqueness instead of agreement.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple

from msgspec import Struct

from ascend_doctor.i18n import N_

NOT_INSTALLED = "not installed"
UNSET = "unset"

# Groups, one fleet check each (checks/flt_*.py), in the order a person fixes them.
HARDWARE = "hardware"
HDK = "hdk"
CANN = "cann"
PYTHON = "python"
ENGINE = "engine"
NETWORK = "network"
HCCL_ENV = "hccl_env"
MODEL = "model"

# HCCL / collective-communication variables that must hold each node's own value.
UNIQUE_ENV = frozenset({"HCCL_IF_IP"})
MAX_ENV_NAMES = 64  # variables read from one report's hccl_env
MAX_VALUE_CHARS = 200  # a value longer than this is cut: drift needs equality, not the whole text

Reader = Callable[[Mapping[str, Any]], Optional[str]]


class DriftKey(Struct, frozen=True):
    key: str  # stable name, used in JSON ("driver", "package:torch-npu", "env:HCCL_EXEC_TIMEOUT")
    label: str  # for people ("driver", "torch_npu", "HCCL_EXEC_TIMEOUT"): N_-marked, shown with _()
    group: str
    read: Reader
    component: str  # FIX_COMPONENTS entry a fix for this key acts on
    subject: str = ""  # what inside the component (the pip distribution, the variable...)


def _text(value: Any) -> Optional[str]:
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text[:MAX_VALUE_CHARS] if text else None


def _mapping(facts: Mapping[str, Any], key: str) -> Optional[Mapping[str, Any]]:
    value = facts.get(key)
    return value if isinstance(value, dict) else None


def _chip_model(facts: Mapping[str, Any]) -> Optional[str]:
    chip = _mapping(facts, "chip")
    if chip is None:
        return None
    names = chip.get("names")
    if isinstance(names, list) and len(names) > 1:
        return " + ".join(sorted(str(n) for n in names))
    return _text(chip.get("name"))


def _chip_count(facts: Mapping[str, Any]) -> Optional[str]:
    chip = _mapping(facts, "chip")
    count = chip.get("chip_count") if chip else None
    if isinstance(count, int) and not isinstance(count, bool):
        return str(count)
    return None


def _plain(key: str) -> Reader:
    return lambda facts: _text(facts.get(key))


def _cann_toolkit(facts: Mapping[str, Any]) -> Optional[str]:
    installs = facts.get("cann")
    if not isinstance(installs, list):
        return None
    versions = sorted({str(c.get("version")) for c in installs
                       if isinstance(c, dict) and c.get("kind", "toolkit") == "toolkit" and c.get("version")})
    # An empty list is ambiguous in a report (no toolkit, or the stack could not be read): unknown.
    return ", ".join(versions) if versions else None


def _python_version(facts: Mapping[str, Any]) -> Optional[str]:
    python = _mapping(facts, "python")
    if python is None or python.get("error"):
        return None
    version = _text(python.get("version"))
    if version is None:
        return None
    # The minor version decides which wheels install; the patch level does not.
    return ".".join(version.split(".")[:2])


def _package(name: str) -> Reader:
    def read(facts: Mapping[str, Any]) -> Optional[str]:
        python = _mapping(facts, "python")
        if python is None or python.get("error"):
            return None
        packages = python.get("packages")
        if not isinstance(packages, dict):
            return None
        return _text(packages.get(name)) or NOT_INSTALLED

    return read


def _network(field_name: str) -> Reader:
    """A node-wide setting of the NPU network (``facts.network.<field>``): the node's devices'
    common value, or their values listed when the node itself is not uniform."""

    def read(facts: Mapping[str, Any]) -> Optional[str]:
        network = _mapping(facts, "network")
        if network is None:
            return None
        values = network.get(field_name)
        if isinstance(values, list):
            texts = sorted({t for t in (_text(v) for v in values) if t})
            return " / ".join(texts) if texts else None
        return _text(values)

    return read


def _manifest(facts: Mapping[str, Any]) -> Optional[str]:
    manifest = _mapping(facts, "model_manifest")
    if manifest is None:
        return None
    return _text(manifest.get("digest"))


DRIFT_KEYS: Tuple[DriftKey, ...] = (
    DriftKey("chip_model", N_("NPU model"), HARDWARE, _chip_model, "system"),
    DriftKey("chip_count", N_("NPU count"), HARDWARE, _chip_count, "system"),
    DriftKey("driver", N_("driver"), HDK, _plain("driver_version"), "hdk", "driver"),
    DriftKey("firmware", N_("firmware"), HDK, _plain("firmware_version"), "hdk", "firmware"),
    DriftKey("cann", N_("CANN toolkit"), CANN, _cann_toolkit, "cann", "toolkit"),
    DriftKey("kernels", N_("kernels/ops package"), CANN, _plain("kernels_version"), "kernels", "kernels"),
    DriftKey("nnal", N_("NNAL (ATB)"), CANN, _plain("nnal_version"), "nnal", "nnal"),
    DriftKey("python", N_("Python"), PYTHON, _python_version, "python", "python"),
    DriftKey("package:torch", N_("torch"), PYTHON, _package("torch"), "python", "torch"),
    DriftKey("package:torch-npu", N_("torch_npu"), PYTHON, _package("torch-npu"), "python", "torch-npu"),
    DriftKey("package:vllm", N_("vLLM"), ENGINE, _package("vllm"), "engine", "vllm"),
    DriftKey("package:vllm-ascend", N_("vLLM-Ascend"), ENGINE, _package("vllm-ascend"), "engine", "vllm-ascend"),
    DriftKey("package:mindie", N_("MindIE (Python)"), ENGINE, _package("mindie"), "engine", "mindie"),
    DriftKey("package:mindie-llm", N_("MindIE-LLM"), ENGINE, _package("mindie-llm"), "engine", "mindie-llm"),
    DriftKey("mindie", N_("MindIE"), ENGINE, _plain("mindie_version"), "engine", "mindie-server"),
    DriftKey("hccn_tls", N_("NPU network TLS switch"), NETWORK, _network("tls"), "system", "tls"),
    DriftKey("hccn_fec", N_("NPU network FEC mode"), NETWORK, _network("fec"), "system", "fec"),
    DriftKey("model_manifest", N_("model manifest"), MODEL, _manifest, "model", "manifest"),
)
KEYS_BY_NAME: Dict[str, DriftKey] = {k.key: k for k in DRIFT_KEYS}


def env_key(name: str) -> DriftKey:
    """The drift entry of one HCCL environment variable (read from ``facts.hccl_env``)."""
    return DriftKey(f"env:{name}", name, HCCL_ENV, lambda facts: env_value(facts, name), "environment", name)


def env_values(facts: Mapping[str, Any]) -> Optional[Dict[str, str]]:
    """The communication variables a node report carries (``facts.hccl_env``: HCCL_*, and the
    socket interface names of Gloo and TP), unset ones as :data:`UNSET`; None when the report
    carries no such section (an older ascend-doctor)."""
    env = facts.get("hccl_env")
    if not isinstance(env, dict):
        return None
    out: Dict[str, str] = {}
    for name, value in list(env.items())[:MAX_ENV_NAMES]:
        if isinstance(name, str) and name.strip():
            text = _text(value)
            out[name[:MAX_VALUE_CHARS]] = text if text is not None else UNSET
    return out


def env_value(facts: Mapping[str, Any], name: str) -> Optional[str]:
    values = env_values(facts)
    if values is None:
        return None
    return values.get(name, UNSET)


def read_values(facts: Mapping[str, Any]) -> Dict[str, str]:
    """Every drift fact of :data:`DRIFT_KEYS` a node report states: key -> value (unknown ones
    left out). HCCL variables are read apart, by :func:`env_values`."""
    out: Dict[str, str] = {}
    for spec in DRIFT_KEYS:
        value = spec.read(facts)
        if value is not None:
            out[spec.key] = value
    return out


def majority(values: Iterable[Tuple[str, str]]) -> Tuple[Optional[str], Dict[str, List[str]]]:
    """(the value most nodes share, value -> nodes) for (node, value) pairs.

    A tie has no majority (None): then no node is "the odd one" and the fix names every group."""
    groups: Dict[str, List[str]] = {}
    for node, value in values:
        groups.setdefault(value, []).append(node)
    if not groups:
        return None, groups
    ranked = sorted(groups.items(), key=lambda kv: len(kv[1]), reverse=True)
    if len(ranked) > 1 and len(ranked[0][1]) == len(ranked[1][1]):
        return None, groups
    return ranked[0][0], groups
