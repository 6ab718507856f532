"""What a machine holds, from its facts, as the resolver's ``StackState``.

What runs beats what files say: the driver and firmware are npu-smi's when it answered (the
running-stack fact), the files' otherwise. A CANN toolkit counts only when its install record says
toolkit (an operator tree alone is not a toolkit). A value the facts could not give stays None: the
resolver then neither keeps nor moves it on a guess.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from ascend_doctor.resolve.model import StackState

if TYPE_CHECKING:
    from ascend_doctor.facts import Facts

# The engine names the engines fact uses, and the resolver's.
ENGINE_KEYS = {"vLLM-Ascend": "vllm-ascend", "MindIE": "mindie", "MindSpeed": "mindspeed"}
ENGINE_DISTRIBUTIONS = {"vllm-ascend": ("vllm-ascend", "vllm_ascend"), "mindie": ("mindie", "mindie-llm"),
                        "mindspeed": ("mindspeed",)}


def state_from_facts(facts: Facts) -> StackState:
    from ascend_doctor.facts import Facts as F

    chip = facts.maybe(F.npu_chip)
    host_info = facts.maybe(F.host_info)
    arch = _arch(getattr(host_info, "arch", None))
    running = facts.maybe(F.running_stack)
    driver = running.driver.effective if running is not None else None
    firmware = running.firmware.effective if running is not None else None
    if running is not None and running.firmware_by_npu and len(running.firmware_by_npu) == 1:
        firmware = next(iter(running.firmware_by_npu))
    stack = facts.maybe(F.stack)
    env = facts.maybe(F.env) or {}
    toolkit = stack.active_toolkit(env) if stack is not None else None
    cann = getattr(toolkit, "version", None)
    kernels_facts = facts.maybe(F.kernels)
    kernels = getattr(kernels_facts, "kernels_version", None) if kernels_facts is not None else None
    nnal_facts = facts.maybe(F.nnal)
    nnal = nnal_facts.version if nnal_facts is not None and nnal_facts.installed else None
    py = facts.maybe(F.python_env)
    python = torch = torch_npu = vllm = None
    if py is not None and not py.error:
        python = py.version
        torch = py.package("torch")
        torch_npu = py.package("torch-npu")
        vllm = py.package("vllm")
    engine, engine_version = _engine(facts, py)
    boards = facts.maybe(F.npu_boards)
    nok = bool(boards is not None and "NOK" in boards.compatibility())
    engines = _installed_engines(facts)
    container = facts.maybe(F.container)
    unseen: List[str] = []
    if py is None or py.error:
        unseen += ["python", "torch", "torch_npu"]
    if cann is None and not (env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")):
        unseen.append("cann")  # without set_env.sh, a CANN installed in another folder cannot be seen
    return StackState(
        chip=getattr(chip, "name", None), family=getattr(chip, "family", None), arch=arch,
        driver=driver, firmware=firmware, cann=cann, kernels=kernels, nnal=nnal, python=python, torch=torch,
        torch_npu=torch_npu, vllm=vllm, engine=engine, engine_version=engine_version,
        in_container=bool(getattr(container, "in_container", False)), engines=engines, driver_firmware_nok=nok,
        unseen=tuple(unseen))


def _installed_engines(facts: Facts) -> Tuple[str, ...]:
    from ascend_doctor.facts import Facts as F

    engines = facts.maybe(F.engines)
    if engines is None:
        return ()
    found = [ENGINE_KEYS[name] for name, packages in engines.installed.items() if packages and name in ENGINE_KEYS]
    if engines.mindie_on_disk and "mindie" not in found:
        found.append("mindie")
    return tuple(found)


def _arch(text: Optional[str]) -> Optional[str]:
    if not text:
        return None
    lowered = text.strip().lower()
    return {"arm64": "aarch64", "amd64": "x86_64", "x64": "x86_64"}.get(lowered, lowered)


def _engine(facts: Facts, py: Any) -> Tuple[Optional[str], Optional[str]]:
    """The one serving engine installed, with its version: vLLM-Ascend from its distribution, MindIE from
    its version file. Two engines, or none: (None, None) — the plan then anchors on no engine."""
    from ascend_doctor.facts import Facts as F

    engines = facts.maybe(F.engines)
    if engines is None:
        return None, None
    found: List[Tuple[str, Optional[str]]] = []
    for name, packages in engines.installed.items():
        key = ENGINE_KEYS.get(name)
        if key is None or not packages:
            continue
        version = next((packages[d] for d in ENGINE_DISTRIBUTIONS[key] if d in packages), None)
        if key == "mindie" and engines.mindie_on_disk:
            version = engines.mindie_on_disk  # the release (2.1.RC1), not a wheel's own number
        version = version or next(iter(packages.values()), None)
        found.append((key, version))
    if engines.mindie_on_disk and not any(k == "mindie" for k, _v in found):
        found.append(("mindie", engines.mindie_on_disk))
    if len(found) != 1:
        return None, None
    return found[0]
