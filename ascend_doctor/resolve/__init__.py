"""One resolver for every plan: from what a machine holds and the matrix, one target stack.

``resolve(matrix, state)`` answers both ``matrix plan`` (a fresh install: an empty state with the
caller's pins) and the fix plan of ``check`` (the machine's state). The installed engine's release
row is the anchor when there is one; what runs is kept wherever it satisfies the constraints; a
chip's and a product's hardware requirements are hard constraints. When nothing fits, the answer
names the requirements that conflict, the way pip does.

The search itself is resolvelib's (the resolver inside pip): ``provider.StackProvider`` turns the
matrix into candidates and requirements; this module turns resolvelib's answer into a
``TargetStack``: a version per component with the reason it was chosen and its sources.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.resolve.model import (
    DOWNGRADE,
    INSTALL,
    KEEP,
    RESOLVED,
    UPGRADE,
    Pick,
    StackState,
    TargetStack,
    joined,
)

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix

__all__ = ["Pick", "StackState", "TargetStack", "resolve"]

# Enough for this graph (7 components, tens of candidates each); a bound so that bad data cannot spin.
MAX_ROUNDS = 2000


def resolve(m: Matrix, state: StackState, *, engine: Optional[str] = None, stable_only: bool = False,
            want: Sequence[str] = (), pins: Optional[Dict[str, str]] = None) -> TargetStack:
    """The one target stack for ``state``.

    ``engine``: the engine to plan for when the state has none installed. ``want``: components to
    resolve besides those the machine has and the engine needs (``matrix plan`` wants them all).
    ``pins``: versions the caller fixed for components to install (``matrix plan --cann 8.2.RC1``).
    """
    from resolvelib import BaseReporter, Resolver
    from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep

    from ascend_doctor.resolve import engines as engine_rows
    from ascend_doctor.resolve.provider import (
        Need,
        StackProvider,
        chip_needs,
        equal_to,
        same_ascend,
        same_public,
        same_pypi,
    )

    chip = m.chip(state.chip) if state.chip else (m.chip(state.family) if state.family else None)
    key = None
    if state.engine or engine:
        from ascend_doctor.matrix.engines import normalize_engine  # only when an engine is asked about

        key = normalize_engine(state.engine or engine or "")
    provider = StackProvider(m, state, chip, key)
    needs: List[Need] = list(chip_needs(chip))
    notes: List[str] = []
    if key is not None:
        usable, why, sources = engine_rows.supports_chip(provider, key)
        if not usable:
            return TargetStack(state, key, {}, conflicts=(
                Text(N_("{reason} ({sources})"), reason=why, sources="; ".join(sources)) if sources else why,))
        installed = state.engine_version if state.engine == key else None
        pinned = installed if (installed and (state.engine == key)) else None
        if pinned:
            if not any(c.version and engine_rows._same(key, c.version, pinned) for c in provider._pool("engine")):
                notes.append(Text(N_("{engine} is not in the matrix: the plan cannot take its release row as the "
                                     "anchor"), engine=engine_rows.label(key, pinned)))
                key = None
                provider.engine = None
            else:
                version = pinned
                engine_key = key

                def same_engine(a: Optional[str], b: Optional[str]) -> bool:
                    return bool(a and b and engine_rows._same(engine_key, a, b))

                needs.append(Need("engine", engine_rows.label(key, version), equal_to(version, same_engine),
                                  by=Text(N_("this machine (installed)")) if "engine" not in state.pinned else
                                  Text(N_("the caller"))))
        elif stable_only:
            stable_key = key

            def stable(version: str) -> bool:
                return _stable(stable_key, version)

            needs.append(Need("engine", Text(N_("a stable release")), stable, by="--stable"))
        if key is not None and not pinned:
            needs.append(Need("engine", Text(N_("any {engine} release"), engine=engine_rows.ENGINE_LABEL.get(key, key)),
                              lambda v: True, by=Text(N_("the plan")), open=True))
    fixed = {c: state.get(c) for c in state.pinned if c != "engine"}
    fixed.update(pins or {})
    for component, value in fixed.items():
        if component == "driver":
            component = "hdk"
        if not value or component == "firmware":
            continue
        same: Callable[[Optional[str], Optional[str]], bool] = (
            same_ascend if component in ("cann", "hdk") else (same_public if component == "torch" else same_pypi))
        if component == "python":
            same = same_minor
        needs.append(Need(component, f"{component} {value}", equal_to(value, same), by=Text(N_("the caller"))))
    wanted = set(want)
    for component in ("hdk", "cann", "torch", "torch_npu", "python"):
        if state.get(component):
            wanted.add(component)
    if key == "vllm-ascend":
        wanted.add("vllm")
    if key is not None:
        wanted.update(("hdk", "cann", "torch", "torch_npu", "python"))
    if "torch" in wanted or "torch_npu" in wanted:
        wanted.update(("torch", "torch_npu", "python"))
    if "cann" in wanted:
        wanted.add("hdk")
    for component in RESOLVED:
        if component in wanted and component != "engine":
            needs.append(Need(component, Text(N_("a {component} release"), component=component), lambda v: True,
                              by=Text(N_("the plan")), open=True))
    resolver: Any = Resolver(provider, BaseReporter())
    try:
        result = resolver.resolve(needs, max_rounds=MAX_ROUNDS)
    except ResolutionImpossible as exc:
        return TargetStack(state, key, {}, conflicts=tuple(_conflict_lines(list(exc.causes))), notes=tuple(notes))
    except ResolutionTooDeep:
        return TargetStack(state, key, {}, conflicts=(Text(N_("no stack found within the search bound")),),
                           notes=tuple(notes))
    picks: Dict[str, Pick] = {}
    for name, cand in result.mapping.items():
        criterion = result.criteria.get(name)
        infos = list(criterion.information) if criterion is not None else []
        picks[name] = _pick(name, cand, state, infos, _why_moved(provider, name, result.mapping, infos))
    firmware = _firmware(m, state, picks.get("hdk"), chip, provider.firmware_release())
    return TargetStack(state, key, picks, firmware=firmware, notes=tuple(notes))


def same_minor(a: Optional[str], b: Optional[str]) -> bool:
    """Python 3.11.6 is Python 3.11."""
    return ".".join((a or "").split(".")[:2]) == ".".join((b or "").split(".")[:2])


def _stable(engine: str, version: str) -> bool:
    from ascend_doctor.matrix.specs import try_ascend, try_pypi

    if engine == "vllm-ascend":
        parsed = try_pypi(version)
        return parsed is not None and not parsed.is_prerelease
    parsed_a = try_ascend(version)
    return parsed_a is not None and parsed_a.stage == 2


def _needs_text(by: str, what: str) -> str:
    return Text(N_("{who} needs {what}"), who=by, what=what)


def _why(infos: Sequence[Any]) -> Tuple[List[str], Tuple[str, ...]]:
    """The requirements that chose a version, each once, with their sources."""
    parts: List[str] = []
    keys: List[Tuple[str, str]] = []
    sources: List[str] = []
    for info in infos:
        need = info.requirement
        if need.open:
            continue
        key = (str(need.by), str(need.what))
        if key not in keys:
            keys.append(key)
            parts.append(_needs_text(need.by, need.what))
        sources.extend(s for s in need.sources if s not in sources)
    return parts, tuple(sources)


def _why_moved(provider: Any, name: str, mapping: Any, infos: Sequence[Any]) -> Tuple[str, Optional[Any]]:
    """Why the installed version of ``name`` is not kept: the first requirement it fails, its own or another's
    (the text, and the requirement when it is one of ``infos``)."""
    kept = next((c for c in provider._pool(name) if c.kept), None)
    current = provider.state.get(name)
    if kept is None and current:
        # the pool did not offer it as kept (a driver whose firmware is of a newer release): judge it as it is
        from ascend_doctor.resolve.provider import Candidate

        kept = Candidate(name, current, kept=True)
        if provider.state.driver_firmware_nok and name == "hdk":
            return Text(N_("npu-smi's board query reports the installed driver {driver} and its firmware not "
                           "compatible"), driver=current), None
        fw_release = provider.firmware_release() if name == "hdk" else None
        if fw_release:
            return Text(N_("the running firmware is HDK {release}'s: the driver moves to that release"),
                        release=fw_release), None
    if kept is None:
        return "", None
    for info in infos:
        if not provider._meets(info.requirement, kept):
            need = info.requirement
            return Text(N_("the installed {component} {version} does not fit: {reason}"), component=name,
                        version=kept.version, reason=_needs_text(need.by, need.what)), need
    for need in kept.needs:
        chosen = mapping.get(need.name)
        if chosen is not None and not provider._meets(need, chosen):
            return Text(N_("the installed {component} {version} needs {what}, which does not fit with {other} "
                           "{other_version}"), component=name, version=kept.version, what=need.what,
                        other=need.name, other_version=chosen.version), None
    return "", None


def _pick(name: str, cand: Any, state: StackState, infos: Sequence[Any],
          moved: Tuple[str, Optional[Any]] = ("", None)) -> Pick:
    current = state.get(name)
    text, failed = moved
    parts, sources = _why(infos if failed is None else [i for i in infos if i.requirement is not failed])
    if text and not cand.kept:
        parts = [text, *parts]  # the requirement that moved it first, named once
    why = joined(parts)
    reason: str
    if cand.kept:
        change = KEEP
        if why:
            reason = (Text(N_("runs on this machine and fits: {why}"), why=why) if name == "hdk" else
                      Text(N_("installed and fits: {why}"), why=why))
        else:
            reason = (Text(N_("runs on this machine and nothing requires another version")) if name == "hdk" else
                      Text(N_("installed and nothing requires another version")))
    else:
        change = INSTALL if not current else _direction(name, current, cand.version)
        reason = why or Text(N_("the newest release that fits the rest of the stack"))
    return Pick(name, cand.version, change, reason, tuple(sources) + tuple(cand.sources), current, cand.uncertain,
                _short(name, cand, infos, moved))


def _plain_by(infos: Sequence[Any]) -> Optional[str]:
    """Who asked for the version, when that is plain data (a release, a product): the most specific first."""
    for info in reversed(list(infos)):
        need = info.requirement
        if not need.open and not isinstance(need.by, Text) and need.by:
            return str(need.by)
    return None


def _short(name: str, cand: Any, infos: Sequence[Any], moved: Tuple[str, Optional[Any]]) -> str:
    text, failed = moved
    if text and not cand.kept:
        if failed is not None and not isinstance(failed.by, Text):
            return Text(N_("the installed {component} does not fit what {by} needs"), component=name,
                        by=str(failed.by))
        if isinstance(text, Text) and all(not isinstance(v, Text) for v in text.fields.values()):
            return text
        return Text(N_("the installed {component} does not fit the rest of the stack"), component=name)
    if cand.kept:
        return (Text(N_("runs on this machine and fits the rest of the stack")) if name == "hdk" else
                Text(N_("installed and fits the rest of the stack")))
    by = _plain_by(infos)
    return (Text(N_("what {by} needs"), by=by) if by else
            Text(N_("the newest release that fits the rest of the stack")))


def _direction(name: str, current: str, target: str) -> str:
    from ascend_doctor.matrix.specs import try_ascend, try_pypi

    if name in ("cann", "hdk"):
        a, b = try_ascend(current), try_ascend(target)
        if a is not None and b is not None:
            return UPGRADE if tuple(b.sort_key) > tuple(a.sort_key) else DOWNGRADE
        return UPGRADE
    pa, pb = try_pypi(current), try_pypi(target)
    if pa is not None and pb is not None:
        return UPGRADE if pb > pa else DOWNGRADE
    return UPGRADE


def _firmware(m: Matrix, state: StackState, hdk_pick: Optional[Pick], chip: Any,
              fw_release: Optional[str] = None) -> Optional[Pick]:
    """The firmware of the target HDK: the running one when it is of the same release as the target driver
    (or, with a kept driver, pairs with it and its release is not known), else the number the chosen HDK
    release ships for this family (None when no source gives it)."""
    from ascend_doctor.matrix import hdk as hdk_mod
    from ascend_doctor.matrix.specs import try_ascend
    from ascend_doctor.resolve.provider import same_ascend

    if hdk_pick is None:
        return None
    flavor = chip.image_flavor if chip is not None else None
    if state.firmware and fw_release and same_ascend(fw_release, hdk_pick.version):
        return Pick("firmware", state.firmware, KEEP, Text(N_("runs and is the firmware of HDK {release}"),
                                                           release=fw_release), (),
                    state.firmware)
    other_release = bool(fw_release) and not same_ascend(fw_release, hdk_pick.version)
    if hdk_pick.change == KEEP and state.firmware and not other_release:
        verdict = m.driver_vs_firmware(hdk_pick.version, state.firmware)
        if verdict.ok:
            return Pick("firmware", state.firmware, KEEP, Text(N_("runs and pairs with the running driver")),
                        verdict.sources,
                        state.firmware)
    parsed = try_ascend(hdk_pick.version)
    found = hdk_mod.firmware_for_hdk(m, parsed, flavor) if parsed is not None else None
    if found is None:
        return None
    version, sources = found
    if hdk_pick.change == KEEP and not state.firmware:
        # the driver stays and the machine's firmware was not read: nothing to install, only what to expect
        return Pick("firmware", version, KEEP, Text(N_("the firmware of HDK {release} (not read from the machine)"),
                                                    release=hdk_pick.version),
                    sources, None)
    if state.firmware and _same_firmware(state.firmware, version):
        return Pick("firmware", state.firmware, KEEP, Text(N_("the firmware of HDK {release}"),
                                                           release=hdk_pick.version), sources,
                    state.firmware)
    change = INSTALL if not state.firmware else _direction("hdk", state.firmware, version)
    return Pick("firmware", version, change, Text(N_("the firmware shipped in HDK {release}"),
                                                  release=hdk_pick.version), sources,
                state.firmware)


def _same_firmware(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


MAX_CONFLICT_LINES = 4


def _conflict_lines(causes: Sequence[Any]) -> List[str]:
    """pip's way: each requirement that could not be met, with who asked for it (the first few: an engine
    pinned to a release no row can satisfy would otherwise list every release it tried)."""
    lines: List[str] = []
    for cause in causes:
        need = cause.requirement
        parent = cause.parent
        who = f"{parent.name} {parent.version}" if parent is not None else need.by
        if parent is not None and parent.name == "engine":
            who = need.by
        line = _needs_text(who, need.what)
        if line not in lines:
            lines.append(line)
    if len(lines) > MAX_CONFLICT_LINES:
        lines = lines[:MAX_CONFLICT_LINES] + [Text(N_("and {count} more requirements that cannot be met together"),
                                                   count=len(lines) - MAX_CONFLICT_LINES)]
    return lines
