"""Shared shape of the serving-environment recommendations (ASC-ENV-010 and up).

These checks never FAIL: a variable that differs from what the research documents is a
recommendation (WARN) with its source, because deployments tune them for good reasons.
"""

from __future__ import annotations

from typing import Dict, List, Sequence

from ascend_doctor.checkapi import CheckContext, Finding, NotApplicable


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
    return Finding.warn(
        f"recommendation: {shown}; the DeepSeek serving guides set {variable}={value} -- {why} "
        f"(source: {'; '.join(sources)})",
        f"export {variable}={value}   # in the engine's environment (container -e, MindIE env file, launch script)",
        variable=variable, current=current or None, recommended=value, sources=list(sources))


def followed(variable: str, current: str, sources: Sequence[str]) -> Finding:
    return Finding.passed(f"{variable}={current} (as recommended by {'; '.join(sources)})",
                          variable=variable, sources=list(sources))
