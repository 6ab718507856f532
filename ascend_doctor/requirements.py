"""What a check needs before it can say anything: declared in ``CheckSpec.requires``, tested by
the runner, which reports an unmet requirement as SKIP with a generated reason. Checks therefore
do not open with "if there is no model, return".

A requirement is a short string:

``input:model`` / ``input:manifest`` / ``input:config`` / ``input:rank_table``
    an input given on the command line (``--model``, ``--verify``, ``--config`` or ``--vllm-args``,
    ``--rank-table``, or for the rank table the file ``RANK_TABLE_FILE`` names);
``fact:<name>``
    a fact that can be established here (its provider did not raise ``FactUnavailable``);
``npus``
    npu-smi answered and listed at least one NPU;
``family:<F>[,<F>...]``
    the host's NPUs are of one of these chip families (A2, A3, 310P, 310B, 910, 950); ``none`` in the
    list also accepts a record that names no chip at all (a paste of hccn_tool outputs alone: what
    the check reads says by itself that it applies);
``engine:<name>``
    a serving engine is installed (mindie, vllm-ascend, vllm, mindspeed);
``container`` / ``not-container``
    the run is (is not) inside a container.

The bare names of earlier versions (``model``, ``manifest``, ``serving_config``, ``npu_devices``)
still work.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence, Tuple

from ascend_doctor.checkapi import SuiteContext
from ascend_doctor.facts import Facts, FactUnavailable
from ascend_doctor.i18n import gettext as _
from ascend_doctor.options import RunOptions

ALIASES = {"model": "input:model", "manifest": "input:manifest", "serving_config": "input:config",
           "npu_devices": "npus"}
# How an input requirement is named to users, and the key the renderers fold "not asked for" by.
INPUT_FLAGS = {"model": "--model DIR", "manifest": "--verify MANIFEST", "config": "--config FILE / --vllm-args",
               "rank_table": "--rank-table FILE"}
# The evidence key an unmet input is reported under (renderers fold these "not asked for" skips).
_INPUT_KEYS = {"config": "serving_config"}
ENGINE_NAMES = {"mindie": "MindIE", "vllm-ascend": "vLLM-Ascend", "vllm": "vLLM", "mindspeed": "MindSpeed"}


class UnknownRequirement(ValueError):
    """A check declares a requirement the runner does not know: a bug, reported as ERROR."""


def normalize(requirement: str) -> str:
    return ALIASES.get(requirement, requirement)


def problems(requires: Sequence[str]) -> Sequence[str]:
    """Requirements that the runner would not understand (checked when the catalogue loads)."""
    out = []
    declared = Facts.declared()
    for raw in requires:
        req = normalize(raw)
        kind, _sep, arg = req.partition(":")
        if kind == "input" and arg in INPUT_FLAGS:
            continue
        if kind == "fact" and arg in declared:
            continue
        if kind == "family" and arg:
            continue
        if kind == "engine" and arg in ENGINE_NAMES:
            continue
        if req in ("npus", "container", "not-container"):
            continue
        out.append(f"unknown requirement {raw!r}")
    return out


def unmet(requires: Sequence[str], ctx: SuiteContext[object]) -> Optional[Tuple[str, str]]:
    """The first unmet requirement as (the key to report it under, the SKIP reason), or None.

    Requirements name the facts of one host: only a check of the ``check`` suite may declare them."""
    if not requires:
        return None
    facts = ctx.facts
    if not isinstance(facts, Facts):
        raise UnknownRequirement(f"requirements {', '.join(requires)} name a host's facts; this suite has none")
    for raw in requires:
        req = normalize(raw)
        kind, _sep, arg = req.partition(":")
        test = _TESTS.get(kind) if ":" in req else _TESTS.get(req)
        if test is None:
            raise UnknownRequirement(f"unknown requirement {raw!r} in CheckSpec.requires")
        reason = test(facts, ctx.options, arg)
        if reason:
            return (_INPUT_KEYS.get(arg, arg) if kind == "input" else req), reason
    return None


def _input(facts: Facts, options: RunOptions, name: str) -> Optional[str]:
    if name == "model":
        return None if options.model_dir else _("no model given (use --model DIR)")
    if name == "manifest":
        if not options.model_dir:
            return _("no model given (use --model DIR --verify MANIFEST)")
        return None if options.verify_manifest else _("no manifest given (use --verify MANIFEST)")
    if name == "config":
        if options.serving_config or options.vllm_args:
            return None
        return _('no serving configuration given (use --config FILE or --vllm-args "...")')
    if name == "rank_table":  # --rank-table, else the file RANK_TABLE_FILE (and the like) names
        from ascend_doctor.facts.ranktable import rank_table_location

        env = facts.maybe(Facts.env)
        if rank_table_location(options, env if env is not None else {}) is not None:
            return None
        return _("no rank table given (use --rank-table FILE, or set RANK_TABLE_FILE)")
    return _("unknown input {name}").format(name=repr(name))


def _fact(facts: Facts, options: RunOptions, name: str) -> Optional[str]:
    fact = Facts.declared().get(name)
    if fact is None:
        return _("unknown fact {name}").format(name=repr(name))
    try:
        facts.value(fact)
    except FactUnavailable as exc:
        return _("cannot be checked here: {reason}").format(reason=exc.reason)
    except Exception:
        return None  # a provider bug: let the check run and turn it into an ERROR
    return None


def _npus(facts: Facts, options: RunOptions, _arg: str) -> Optional[str]:
    info = facts.maybe(Facts.npu_smi)
    if info is None or not info.devices:
        return _("no NPU devices were listed by npu-smi")
    return None


def _family(facts: Facts, options: RunOptions, families: str) -> Optional[str]:
    wanted = [f.strip() for f in families.split(",") if f.strip()]
    chip = facts.maybe(Facts.npu_chip)
    if chip is None:
        if "none" in wanted:
            return None
        return _("needs an {families} NPU and npu-smi lists none").format(families="/".join(wanted))
    wanted = [f for f in wanted if f != "none"]
    if chip.family not in wanted:
        if not chip.family:
            return _("applies to {families} NPUs; this host has {chip} (unknown family)").format(
                families="/".join(wanted), chip=chip.name)
        return _("applies to {families} NPUs; this host has {chip} ({family})").format(
            families="/".join(wanted), chip=chip.name, family=chip.family)
    return None


def _engine(facts: Facts, options: RunOptions, name: str) -> Optional[str]:
    engines = facts.maybe(Facts.engines)
    label = ENGINE_NAMES.get(name, name)
    if engines is None or label not in engines.installed_engines():
        return _("{engine} is not installed here").format(engine=label)
    return None


def _container(facts: Facts, options: RunOptions, _arg: str) -> Optional[str]:
    info = facts.maybe(Facts.container)
    if info is not None and not getattr(info, "known", True):
        return _("whether this ran in a container: not in the pasted text")
    return None if info is not None and info.in_container else _("not running inside a container")


def _not_container(facts: Facts, options: RunOptions, _arg: str) -> Optional[str]:
    info = facts.maybe(Facts.container)
    if info is not None and info.in_container:
        return _("inside a container (this is checked on the host)")
    return None


_TESTS: Dict[str, Callable[[Facts, RunOptions, str], Optional[str]]] = {
    "input": _input, "fact": _fact, "npus": _npus, "family": _family, "engine": _engine,
    "container": _container, "not-container": _not_container,
}
