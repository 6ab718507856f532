"""The ``facts`` section of the report: the machine as support staff want to read it."""

from __future__ import annotations

from typing import Any, Dict, List

from ascend_doctor.facts import Facts
from ascend_doctor.jsonutil import jsonable

# Python distributions worth showing in a report (the rest of the environment is noise).
REPORTED_PACKAGES = (
    "torch", "torch-npu", "torchvision", "torchair", "transformers", "vllm", "vllm-ascend", "mindie",
    "mindie-llm", "mindspeed", "mindspore", "deepspeed", "numpy", "accelerate", "safetensors", "triton-ascend",
)


def report_facts(facts: Facts) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    smi = facts.maybe(Facts.npu_smi)
    out["npu_smi_version"] = getattr(smi, "version", None)
    out["devices"] = [jsonable(d) for d in (getattr(smi, "devices", None) or [])]
    out["processes"] = [jsonable(p) for p in (getattr(smi, "processes", None) or [])]
    chip = facts.maybe(Facts.npu_chip)
    out["chip"] = jsonable(chip) if chip else None

    stack = facts.maybe(Facts.stack)
    # The installed versions of what runs (with two stacks, the running one's), and what runs.
    running = facts.maybe(Facts.running_stack)
    out["driver_version"] = running.driver.installed if running else (stack.driver_version if stack else None)
    out["firmware_version"] = running.firmware.installed if running else (stack.firmware_version if stack else None)
    out["running"] = jsonable(running) if running else None
    cann: List[Dict[str, Any]] = []
    if stack:
        for install in stack.cann:
            cann.append({"kind": install.kind, "version": install.version, "arch": install.arch,
                         "path": install.path})
    out["cann"] = cann
    # Releases `ascend-doctor fleet` compares across nodes besides the toolkit (None: not installed
    # or not recorded; the nodes' own checks say which).
    kernels = facts.maybe(Facts.kernels)
    out["kernels_version"] = kernels.kernels_version if kernels is not None else None
    nnal = facts.maybe(Facts.nnal)
    out["nnal_version"] = nnal.version if nnal is not None else None
    mindie = facts.maybe(Facts.mindie)
    out["mindie_version"] = mindie.version if mindie is not None else None

    py = facts.maybe(Facts.python_env)
    if py is not None:
        packages = {name: py.package(name) for name in REPORTED_PACKAGES}
        out["python"] = {
            "executable": py.executable,
            "version": py.version,
            "packages": {k: v for k, v in packages.items() if v},
            "error": py.error,
        }
    else:
        out["python"] = None
    container = facts.maybe(Facts.container)
    out["container"] = jsonable(container) if container else None
    # Model facts only when the run was asked about a model (computing them reads the weights' headers).
    if facts.options.model_dir:
        model = facts.maybe(Facts.model)
        out["model"] = jsonable(model) if model is not None else None
    if facts.options.verify_manifest:
        manifest = facts.maybe(Facts.model_manifest_check)
        out["model_manifest"] = jsonable(manifest) if manifest is not None else None
    # The NPU network, HCCL's variables and the rank table: what `ascend-doctor fleet` compares across nodes.
    from ascend_doctor.facts import netsummary

    out["network"] = net = netsummary.network(facts)
    out["hccl_env"] = netsummary.hccl_env(facts)
    out["rank_table"] = netsummary.rank_table(facts, net)
    return out
