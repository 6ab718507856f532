"""Shared shape of the serving-environment recommendations (ASC-ENV-010 and up).

These checks never FAIL, and a plain recommendation is INFO, not WARN: a variable that differs
from what the research documents is advice with its source, because deployments tune them for good
reasons, and a healthy engine host must pass a strict gate (--fail-on warn; advice review row 26).
"""

from __future__ import annotations

from typing import Dict, List, Sequence

from ascend_doctor.checkapi import CheckContext, Finding, FixAction, NotApplicable


def serving_engines(ctx: CheckContext) -> List[str]:
    """The DeepSeek serving engines installed here; NotApplicable when there is none."""
    engines = ctx.facts.get("engines")
    found = [e for e in engines.installed_engines() if e in ("MindIE", "vLLM-Ascend")]
    if not found:
        raise NotApplicable("no DeepSeek serving engine (MindIE, vLLM-Ascend) is installed here")
    return found


def environment(ctx: CheckContext) -> Dict[str, str]:
    return dict(ctx.facts.try_get("env") or {})


def recommend(variable: str, value: str, current: str, why: str, sources: Sequence[str]) -> Finding:
    shown = f"{variable}={current}" if current else f"{variable} is not set"
    export = f"export {variable}={value}"
    return Finding.info(
        f"recommendation: {shown}; the DeepSeek serving guides set {variable}={value} -- {why} "
        f"(source: {'; '.join(sources)})",
        f"{export}   # in the engine's environment (container -e, MindIE env file, launch script)",
        variable=variable, current=current or None, recommended=value, sources=list(sources)).with_actions(
        FixAction("environment", f"Set {variable}={value} in the engine's environment (recommended)", (export,),
                  where="either", target=value, subject=variable, direction="set"))


def followed(variable: str, current: str, sources: Sequence[str]) -> Finding:
    return Finding.passed(f"{variable}={current} (as recommended by {'; '.join(sources)})",
                          variable=variable, sources=list(sources))
