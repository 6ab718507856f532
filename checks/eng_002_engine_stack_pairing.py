"""ASC-ENG-002: each installed engine matches the CANN / torch / torch_npu / vLLM it runs on."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable, Status

from ._support import verdict_finding

CHECK = CheckSpec(
    id="ASC-ENG-002",
    title="Engine paired with its CANN, torch and torch_npu",
    what=("For every engine installed -- vLLM-Ascend (with the vllm it plugs into), MindIE (version.info on disk), "
          "MindSpeed -- asks the compatibility matrix how its release pairs with the CANN toolkit in use, torch, "
          "torch_npu, Python and the driver. Released pairings PASS; merely compatible ones PASS with the "
          "recommended versions noted; documented mismatches FAIL; pairings no source covers WARN."),
    why=("vLLM-Ascend is built for one vLLM release and pins torch/torch_npu; MindIE 'must be used with' its CANN "
         "release; MindSpeed lists the CANN and PTA releases it supports. Off-matrix combinations fail at import "
         "('undefined symbol', '_OpNamespace ... has no attribute') or at the first fused operator."),
    fix=("Install one complete row of the engine's release matrix (`ascend-doctor matrix show vllm-ascend` / "
         "`mindie` / `mindspeed`): the vLLM, torch, torch_npu and CANN it was released with."),
)


def _installed(ctx: CheckContext) -> List[Tuple[str, str]]:
    engines = ctx.facts.get("engines")
    py = ctx.facts.try_get("python_env")
    found: List[Tuple[str, str]] = []
    vllm_ascend = py.package("vllm-ascend") if py is not None else None
    if vllm_ascend:
        found.append(("vllm-ascend", vllm_ascend))
    mindie = ctx.facts.try_get("mindie")
    mindie_version: Optional[str] = getattr(mindie, "version", None) or engines.installed.get("MindIE", {}).get(
        "mindie")
    if mindie_version:
        found.append(("mindie", mindie_version))
    for dist in ("mindspeed", "mindspeed-llm"):
        version = py.package(dist) if py is not None else None
        if version:
            found.append(("mindspeed", version))
            break
    return found


def run(ctx: CheckContext) -> Iterator[Finding]:
    installed = _installed(ctx)
    if not installed:
        raise NotApplicable("no vLLM-Ascend, MindIE or MindSpeed installed")
    query = getattr(ctx.matrix, "engine_vs_stack", None)
    if not callable(query):
        raise NotApplicable("the compatibility matrix in use has no engine table")
    py = ctx.facts.try_get("python_env")
    stack = ctx.facts.try_get("stack")
    toolkit = stack.active_toolkit(ctx.facts.try_get("env") or {}) if stack else None
    stack_args = {
        "cann": getattr(toolkit, "version", None),
        "torch": py.package("torch") if py is not None else None,
        "torch_npu": py.package("torch-npu") if py is not None else None,
        "python": getattr(py, "version", None),
        "driver": getattr(stack, "driver_version", None),
    }
    for engine, version in installed:
        extra = {"vllm": py.package("vllm") if py is not None else None} if engine == "vllm-ascend" else {}
        verdicts = query(engine, version, **stack_args, **extra)
        names = {"vllm-ascend": "vLLM-Ascend", "mindie": "MindIE", "mindspeed": "MindSpeed"}
        for aspect, verdict in verdicts:
            subject = f"{names[engine]} {version} / {aspect}"
            remediation = (f"Align {aspect} with {names[engine]} {version}: install one complete row of its release "
                           f"matrix (ascend-doctor matrix show {engine})")
            if len(installed) > 1 and aspect in ("torch", "torch_npu", "python"):
                others = ", ".join(f"{names[e]} {v}" for e, v in installed if e != engine)
                remediation += (f". {names[engine]} and {others} need different torch releases: give each engine its "
                                "own environment (venv or image) instead of changing this one")
            finding = verdict_finding(verdict, subject, remediation, unknown_status=Status.WARN)
            yield finding.scoped(f"{names[engine]} {aspect}")
