"""Shared shape of the serving-environment recommendations (ASC-ENV-010 and up).

These checks never FAIL, and a plain recommendation is INFO, not WARN: a variable that differs
from what the research documents is advice with its source, because deployments tune them for good
reasons, and a healthy engine host must pass a strict gate (--fail-on warn; advice review row 26).
"""

from __future__ import annotations

from typing import Dict, List, Sequence

from ascend_doctor.checkapi import Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import export as shellcmd_export

from ._context import HostCheckContext


def serving_engines(ctx: HostCheckContext) -> List[str]:
    """The DeepSeek serving engines installed here; NotApplicable when there is none."""
    engines = ctx.facts.engines
    found = [e for e in engines.installed_engines() if e in ("MindIE", "vLLM-Ascend")]
    if not found:
        raise NotApplicable(_("no DeepSeek serving engine (MindIE, vLLM-Ascend) is installed here"))
    return found


def environment(ctx: HostCheckContext) -> Dict[str, str]:
    return dict(ctx.facts.maybe(Facts.env) or {})


def recommend(variable: str, value: str, current: str, why: str, sources: Sequence[str]) -> Finding:
    """``why``: translated by the caller; ``sources`` are citations and stay as written."""
    export = shellcmd_export(variable, value)
    fields = {"variable": variable, "current": current, "value": value, "why": why, "sources": "; ".join(sources)}
    message = (_("recommendation: {variable}={current}; the DeepSeek serving guides set {variable}={value} -- {why} "
                 "(source: {sources})") if current else
               _("recommendation: {variable} is not set; the DeepSeek serving guides set {variable}={value} -- {why} "
                 "(source: {sources})")).format(**fields)
    return Finding.info(
        message,
        f"{export}   # " + _("in the engine's environment (container -e, MindIE env file, launch script)"),
        variable=variable, current=current or None, recommended=value, sources=list(sources)).with_actions(
        FixAction("environment", _("Set {variable}={value} in the engine's environment (recommended)").format(
            variable=variable, value=value), (export,), where="either", target=value, subject=variable,
            direction="set"))


def followed(variable: str, current: str, sources: Sequence[str]) -> Finding:
    return Finding.passed(_("{variable}={current} (as recommended by {sources})").format(
        variable=variable, current=current, sources="; ".join(sources)), variable=variable, sources=list(sources))
