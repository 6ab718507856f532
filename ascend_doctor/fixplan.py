"""One fix plan per report: every remediation merged into one ordered, deduplicated list of steps.

Findings propose ``FixAction``s (component, target version, commands, where). The plan

* orders steps the way a person applies them (``FIX_COMPONENTS``: hardware-facing packages, one
  reboot, CANN, kernels, NNAL, environment, Python packages, engine, configuration, model);
* merges identical steps, naming every finding each one fixes;
* resolves findings that pull one component in different directions: it picks the version that
  the most findings accept (``FixAction.accepts``), preferring one that keeps what runs and does
  not downgrade, says why, and keeps the other direction as the stated alternative;
* puts one reboot after the last host package step when any step needs it;
* makes one ``docker run`` of every container re-creation the findings ask for (the union of their
  flags), since a container is re-created once, with all of them.

Findings that carry no structured action still get a step, built from their remediation text and
filed under their area's component, so the plan covers every FAIL and WARN of the report.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from msgspec import structs

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import FIX_COMPONENTS, FixAction, Status
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n_text import localized
from ascend_doctor.report import PLANNED_STATUSES, FixStep, Result

if TYPE_CHECKING:
    from ascend_doctor.resolve.fixsteps import StackFix

# A finding's component -> the resolver's step kind that answers it.
STEP_KIND = {"hdk": "hdk", "cann": "cann", "kernels": "kernels", "nnal": "nnal", "torch": "torch", "python": "python",
             "engine": "engine"}

# Where a finding without structured actions is filed in the plan, by the area of its check id.
AREA_COMPONENT = {
    "SMI": "system", "DEV": "system", "SYS": "system", "CTR": "container", "DRV": "hdk", "FW": "hdk",
    "MIX": "hdk", "CANN": "cann", "OPS": "kernels", "NNAL": "nnal", "ARCH": "cann", "ENV": "environment",
    "PY": "python", "ENG": "engine", "CFG": "config", "MDL": "model", "NET": "system", "RT": "config",
    "LOG": "other", "SRV": "engine", "CORE": "other",
}
# Components whose versions move together: the driver and the firmware are one HDK.
CONFLICT_GROUP = {"hdk": "hdk", "driver": "hdk", "firmware": "hdk"}
# Lines of a free-text remediation that are commands a person pastes.
_COMMAND_STARTS = ("./", "pip ", "pip3 ", "python", "source ", "export ", "unset ", "docker ", "reboot", "mv ",
                   "chmod ", "chown ", "rm ", "ln ", "cp ", "mkdir ", "sudo ", "npu-smi ", "hccn_tool ",
                   "ascend-doctor ", "bash ", "sh ", "usermod ", "sysctl ", "echo ", "yum ", "apt", "dnf ",
                   "modprobe ", "systemctl ", "vllm ", "huggingface-cli ", "kill ", "ulimit ", "mount ", "cat ",
                   "sed ", "grep ", "ls ", "find ", "id ", "df ", "chgrp ", "lsmod", "dmesg", "stat ", "mkfifo ",
                   "hccn_tool", "npu-smi",
                   # a quoted word first: shellcmd quotes a file to fill in ('./<name>.run') or a path with spaces
                   "'./", "'/")


def _ref(result: Result) -> str:
    return f"{result.id} [{result.scope}]" if result.scope else result.id


def _component_order(component: str) -> int:
    return FIX_COMPONENTS.index(component) if component in FIX_COMPONENTS else len(FIX_COMPONENTS)


def _accepts(action: FixAction, version: str) -> bool:
    """Whether a version would fix the finding behind ``action``."""
    wanted = version.lower()
    for pattern in (action.target or "", *action.accepts):
        pat = pattern.lower()
        if not pat:
            continue
        if pat.endswith(".*"):
            stem = pat[:-2]
            if wanted == stem or wanted.startswith(stem + "."):
                return True
        elif wanted == pat:
            return True
    return False


class _Entry:
    """An action with the findings proposing it."""

    __slots__ = ("action", "kind", "refs", "statuses", "why")

    def __init__(self, action: FixAction) -> None:
        self.action = action
        self.refs: List[str] = []
        self.statuses: List[Status] = []
        self.why = ""
        self.kind = ""  # the resolver's step kind, for a version step


def _fallback_action(result: Result) -> Optional[FixAction]:
    """A step for a finding whose check gives only remediation text.

    Only the first block of commands is taken: remediation text often goes on with alternatives
    ("In a container, ...", "If several stacks ...") whose commands must not become plan steps.
    """
    text = result.remediation.strip()
    if not text:
        return None
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    commands: List[str] = []
    prose: List[str] = []
    for line in lines:
        if line.startswith("#"):
            continue
        if line.startswith(_COMMAND_STARTS):
            if line not in commands:
                commands.append(line)
            continue
        if commands:
            break  # an alternative or a note follows the first block of commands
        prose.append(line)
    # A remediation that is only commands is summarised by what it restores (the check's title).
    summary = prose[0] if prose else _("Goal: {title}").format(title=_(result.title))
    area = result.id.split("-")[1] if result.id.count("-") >= 2 else "CORE"
    return FixAction(component=AREA_COMPONENT.get(area, "other"), summary=summary.rstrip(":："),
                     commands=tuple(commands), where="either")


def _key(action: FixAction) -> Tuple[str, str, Tuple[str, ...], str]:
    return (action.component, action.summary, action.commands, action.where)


# The components of the resolver's version steps: a finding about a version gives no action of these
# kinds itself (its check saw one pairing; the resolver chose the whole stack).
VERSION_COMPONENTS = frozenset({"hdk", "driver", "firmware", "reboot", "cann", "kernels", "nnal", "python", "engine"})
# The resolver's step kinds as plan components.
STEP_COMPONENT = {"hdk": "hdk", "reboot": "reboot", "cann": "cann", "kernels": "kernels", "nnal": "nnal",
                  "python": "python", "cann_deps": "python", "torch": "python", "engine": "engine"}


def is_version_action(action: FixAction) -> bool:
    """An action that installs, removes or pins a version (or reboots for one): the resolver's to decide."""
    if action.target is not None or action.depends or action.component == "reboot":
        return True
    if action.component not in VERSION_COMPONENTS:
        return False
    return any(".run" in c or c.startswith(("pip ", "pip3 ", "reboot", "bash ")) or "uninstall" in c
               for c in action.commands)


_VERSION_COMMAND = ("pip install", "pip3 install", ".run", "uninstall", "docker pull")


def covered(result: Result, stack: StackFix) -> bool:
    """A finding the resolver answers: of a check about versions, planned, and proposing a version change
    (an install, an upgrade, a removal). Its other advice (read npu-smi, look at a file) is its own."""
    from ascend_doctor.resolve.fixsteps import ALWAYS_VERSION

    components = stack.covers(result.id)
    if not components or result.status not in PLANNED_STATUSES:
        return False
    if result.evidence.get("env_loaded") is False:
        return False  # it cannot tell "not installed" from "installed elsewhere": its conditional advice stays
    if result.evidence.get("machine_arch"):
        return False  # a package of the wrong architecture: the resolver chooses versions, not builds
    picks = stack.target.picks
    if not any(stack.step_for(c) is not None or c in picks or (c in ("kernels", "nnal") and "cann" in picks)
               for c in components):
        return False  # the resolution says nothing about what it is about (an engine with no matrix row)
    if result.id in ALWAYS_VERSION or any(is_version_action(a) for a in result.actions):
        return True
    return any(word in result.remediation for word in _VERSION_COMMAND)


def _own_actions(result: Result, stack: Optional[StackFix]) -> List[FixAction]:
    """The actions a finding brings to the plan: for a finding about a version the resolver chose, only
    those that are not version steps (a container mount, a read of npu-smi); otherwise all of them (or one
    built from its remediation text)."""
    actions = list(result.actions)
    if stack is not None and covered(result, stack):
        return [a for a in actions if not is_version_action(a)]
    if not actions:
        fallback = _fallback_action(result)
        actions = [fallback] if fallback is not None else []
    return actions


def build_fix_plan(results: Sequence[Result], stack: Optional[StackFix] = None) -> List[FixStep]:
    """One ordered plan. ``stack``: the resolver's version steps for the machine (the runner's
    ``check``); every finding about a version is answered by them."""
    entries: Dict[Tuple[str, str, Tuple[str, ...], str], _Entry] = {}
    resolved: List[_Entry] = []
    if stack is not None:
        for index, step in enumerate(stack.steps):
            # the resolver's texts are English Text; the report shows them in the run's language
            # (a step's note is for `matrix plan`: image bases and caveats from the matrix's English data)
            action = FixAction(STEP_COMPONENT.get(step.component, "other"), localized(step.title), step.commands,
                               step.where, step.target, "", "", f"{index:02d}")
            entry = _Entry(action)
            entry.why = localized(step.why) if step.why else ""
            entry.kind = step.component
            resolved.append(entry)
    for result in results:
        if result.status not in PLANNED_STATUSES:
            continue
        if stack is not None and covered(result, stack):
            for component in stack.covers(result.id):
                kind = STEP_KIND.get(component, component)
                for entry in resolved:
                    if entry.kind == kind and _ref(result) not in entry.refs:
                        entry.refs.append(_ref(result))
                        entry.statuses.append(result.status)
            if (stack.target.conflicts and resolved and "engine" in stack.covers(result.id)
                    and _ref(result) not in resolved[0].refs):
                resolved[0].refs.append(_ref(result))
                resolved[0].statuses.append(result.status)
        actions = _own_actions(result, stack)
        for action in actions:
            entry = entries.setdefault(_key(action), _Entry(action))
            ref = _ref(result)
            if ref not in entry.refs:
                entry.refs.append(ref)
                entry.statuses.append(result.status)
    chosen = _resolve_conflicts(_same_commands_once(_same_goal_once(list(entries.values()))))
    chosen = _restate_dependents(chosen)
    # the resolver's steps are one block: a CANN change brings its kernels, NNAL and Python dependencies
    # whether or not a finding named them
    chosen += [(e, e.why, e.action.alternative) for e in resolved]
    chosen = _one_reboot(chosen)
    chosen = _one_container(chosen)
    # A re-created container comes before what is set inside it.
    chosen.sort(key=lambda e: (_component_order(e[0].action.component), not _is_docker_run(e[0]), _severity(e[0]),
                               e[0].action.subject))
    return [FixStep(order=n, component=e.action.component, summary=e.action.summary, commands=e.action.commands,
                    where=e.action.where, fixes=tuple(e.refs), target=e.action.target, why=why,
                    alternative=alternative, subject=e.action.subject)
            for n, (e, why, alternative) in enumerate(chosen, start=1)]


def _severity(entry: _Entry) -> int:
    """INFO-only steps after the ones that fix problems, within a component."""
    return 1 if all(s is Status.INFO for s in entry.statuses) else 0


def _resolve_conflicts(entries: List[_Entry]) -> List[Tuple[_Entry, str, str]]:
    """Keep one entry per (conflict group, subject) among those that set a version."""
    groups: Dict[Tuple[str, str], List[_Entry]] = {}
    out: List[Tuple[_Entry, str, str]] = []
    for entry in entries:
        action = entry.action
        if action.target is None:
            out.append((entry, "", action.alternative))
            continue
        group = CONFLICT_GROUP.get(action.component, action.component)
        groups.setdefault((group, action.subject), []).append(entry)
    for members in groups.values():
        targets = {e.action.target for e in members}
        if len(targets) == 1:
            # Several findings, one version: one step (the first wording) fixing them all.
            first = members[0]
            for other in members[1:]:
                _absorb(first, other)
            out.append((first, "", first.action.alternative))
            continue
        out.append(_choose(members))
    return out


def _absorb(into: _Entry, other: _Entry) -> None:
    for ref, status in zip(other.refs, other.statuses):
        if ref not in into.refs:
            into.refs.append(ref)
            into.statuses.append(status)


def _choose(members: List[_Entry]) -> Tuple[_Entry, str, str]:
    """The version most findings accept; ties go to the one that does not downgrade."""

    def score(entry: _Entry) -> Tuple[int, int, int]:
        version = entry.action.target or ""
        satisfied = sum(len(m.refs) for m in members if _accepts(m.action, version))
        not_downgrade = 0 if entry.action.direction == "downgrade" else 1
        fails = sum(1 for m in members if _accepts(m.action, version) for s in m.statuses if s is Status.FAIL)
        return (satisfied, fails, not_downgrade)

    ranked = sorted(members, key=score, reverse=True)
    best = ranked[0]
    version = best.action.target or ""
    unsatisfied: List[str] = []
    for member in members:
        if member is best:
            continue
        if _accepts(member.action, version):
            _absorb(best, member)
        else:
            unsatisfied.extend(member.refs)
    others = [m for m in ranked[1:] if not _accepts(m.action, version)]
    subject = best.action.subject or best.action.component
    # Each piece one message, joined with "; " (a report read back in the other language is
    # translated piece by piece).
    reasons = [_("findings asked for different {subject} versions ({versions})").format(
        subject=subject, versions=", ".join(sorted({m.action.target or "?" for m in members})))]
    if best.action.direction != "downgrade" and any(m.action.direction == "downgrade" for m in members):
        reasons.append(_("{version} fixes {findings} without a downgrade").format(
            version=version, findings=", ".join(best.refs)))
    else:
        reasons.append(_("{version} fixes {findings}").format(version=version, findings=", ".join(best.refs)))
    alternatives = [best.action.alternative] if best.action.alternative else []
    for other in others:
        commands = "; ".join(other.action.commands)
        if commands:
            text = _("{step} ({commands}) — for {findings}").format(
                step=other.action.summary, commands=commands, findings=", ".join(other.refs))
        else:
            text = _("{step} — for {findings}").format(step=other.action.summary, findings=", ".join(other.refs))
        alternatives.append(text if not alternatives else _("or: {alternative}").format(alternative=text))
    if unsatisfied:
        reasons.append(_("still open after it: {findings}").format(findings=", ".join(unsatisfied)))
    return best, "; ".join(reasons), " | ".join(alternatives)


def _restate_dependents(chosen: List[Tuple[_Entry, str, str]]) -> List[Tuple[_Entry, str, str]]:
    """A step computed for a version the plan replaces (a torch pair for the old CANN while another step
    installs a new CANN) is restated for the new version, so no step undoes another."""
    targets: Dict[str, str] = {}
    for entry, _why, _alt in chosen:
        if entry.action.target and entry.action.component in ("cann", "hdk", "python", "engine"):
            targets.setdefault(entry.action.component, entry.action.target)
    out: List[Tuple[_Entry, str, str]] = []
    for entry, why, alternative in chosen:
        action = entry.action
        for dependency in action.depends:
            component, _sep, version = dependency.partition("=")
            new = targets.get(component)
            if new and version and new.lower() != version.lower():
                label = {"cann": "CANN", "hdk": "HDK"}.get(component, component)
                restated = FixAction(
                    action.component,
                    _("After the {component} {new} step, install what pairs with {component} {new} (this "
                      "finding's fix was for {component} {old})").format(component=label, new=new, old=version),
                    (shellcmd.argv("ascend-doctor", "matrix", "lookup", f"--{component}", new),), action.where, None,
                    action.direction,
                    action.alternative, action.subject)
                replacement = _Entry(restated)
                replacement.refs, replacement.statuses = entry.refs, entry.statuses
                entry = replacement
                why = (why + "; " if why else "") + _("computed for {component} {old}, which the plan replaces").format(
                    component=label, old=version)
                break
        out.append((entry, why, alternative))
    return out


def _one_reboot(chosen: List[Tuple[_Entry, str, str]]) -> List[Tuple[_Entry, str, str]]:
    """Every step that needs a reboot shares one reboot step, after the last package step."""
    reboots = [c for c in chosen if c[0].action.component == "reboot"]
    if len(reboots) <= 1:
        return chosen
    keep = reboots[0]
    for extra in reboots[1:]:
        _absorb(keep[0], extra[0])
    return [c for c in chosen if c[0].action.component != "reboot"] + [keep]


# docker run options that take their value as the next word (``--device /dev/x``; ``--shm-size=1g``
# is one word either way).
_VALUE_FLAGS = frozenset({"--device", "-v", "--volume", "-e", "--env", "--ulimit", "--group-add", "--net",
                          "--network", "--shm-size", "-u", "--user", "--mount", "--cap-add", "--security-opt"})


def _docker_flags(command: str) -> Tuple[List[Tuple[str, ...]], str]:
    """(the options of a ``docker run`` line, each with its value, in order; its trailing comment).

    The line is split as bash would split it (``shlex``), so a quoted value stays one word, and the merged
    line is built again from words: nothing a check quoted is unquoted on the way."""
    body, _sep, comment = command.partition("  #")
    try:
        words = shlex.split(body)
    except ValueError:  # not a line this module can read: keep it whole as one opaque flag
        return [], comment.strip()
    flags: List[Tuple[str, ...]] = []
    i = 2  # after "docker run"
    while i < len(words):
        word = words[i]
        if word in ("...", "<image>", "'<image>'") or not word.startswith("-"):
            i += 1
            continue
        if word in _VALUE_FLAGS and i + 1 < len(words):
            flags.append((word, words[i + 1]))
            i += 2
            continue
        flags.append((word,))
        i += 1
    return flags, comment.strip()


def _is_docker_run(entry: _Entry) -> bool:
    """A step that is one ``docker run`` line (whichever check asked for it: SMI-001 and DRV-001 inside a
    container ask for a re-created container too)."""
    return len(entry.action.commands) == 1 and entry.action.commands[0].startswith("docker run ")


def _one_container(chosen: List[Tuple[_Entry, str, str]]) -> List[Tuple[_Entry, str, str]]:
    """Every container re-creation becomes one ``docker run`` with the union of the flags asked for."""
    runs = [c for c in chosen if _is_docker_run(c[0])]
    if len(runs) <= 1:
        return chosen
    flags: List[Tuple[str, ...]] = []
    comments: List[str] = []
    for entry, _why, _alternative in runs:
        found, comment = _docker_flags(entry.action.commands[0])
        flags.extend(f for f in found if f not in flags)
        if comment and comment not in comments:
            comments.append(comment)
    if any(f[0] == "--device" and f[-1].startswith("/dev/davinci") and "<" not in f[-1] for f in flags):
        # The NPUs of the job are known from one finding: the placeholder of another adds nothing.
        flags = [f for f in flags if "<" not in f[-1] or f[0] != "--device"]
        comments = [c for c in comments if "davinci" not in c]
    words = [w for flag in flags for w in flag]
    command = shellcmd.argv("docker", "run", *words, shellcmd.Placeholder("image"), "...")
    if comments:
        command = shellcmd.with_comment(command, "; ".join(c.lstrip("# ") for c in comments))
    merged = _Entry(FixAction("container", _("Re-create the container with every flag these findings need"),
                              (command,), where="host"))
    for entry, _why, _alternative in runs:
        _absorb(merged, entry)
    why = _("{count} steps asked for a re-created container: one docker run carries all their flags").format(
        count=len(runs))
    return [c for c in chosen if not _is_docker_run(c[0])] + [(merged, why, "")]


def _same_goal_once(entries: List[_Entry]) -> List[_Entry]:
    """Findings that ask for the same thing in the same words are one step with all their commands,
    each once: one check's finding per NPU ("Find and stop what holds the busy NPUs", one line per
    process), or two checks that see the same missing driver. A person reads the goal once and pastes
    every line under it, instead of eight steps that differ in a pid."""
    out: List[_Entry] = []
    seen: Dict[Tuple[str, str, Optional[str]], _Entry] = {}
    for entry in entries:
        action = entry.action
        if action.target or action.accepts or _is_docker_run(entry):  # versions and containers merge later
            out.append(entry)
            continue
        key = (action.summary, action.where, action.subject or None)
        first = seen.get(key)
        if first is None:
            seen[key] = entry
            out.append(entry)
            continue
        # A line is pasted once even when two findings comment it differently.
        have = {_command_body(c) for c in first.action.commands}
        added = tuple(c for c in action.commands if _command_body(c) not in have)
        if added:
            first.action = structs.replace(first.action, commands=first.action.commands + added)
        _absorb(first, entry)
    return out


def _command_body(command: str) -> str:
    """A command without its trailing ``  # comment``: what the shell runs."""
    return command.partition("  #")[0].strip()


def _same_commands_once(entries: List[_Entry]) -> List[_Entry]:
    """Two findings that word a step differently but give the same commands are one step (the first
    wording kept, both findings named): a person pastes the commands once."""
    out: List[_Entry] = []
    seen: Dict[Tuple[str, Tuple[str, ...], str, Optional[str]], _Entry] = {}
    for entry in entries:
        action = entry.action
        if not action.commands or action.target or action.accepts:  # versioned steps meet in the conflict step
            out.append(entry)
            continue
        key = (action.component, action.commands, action.where, action.subject or None)
        first = seen.get(key)
        if first is None:
            seen[key] = entry
            out.append(entry)
        else:
            _absorb(first, entry)
    return out



def point_findings(results: Sequence[Result], plan: Sequence[FixStep], stack: Optional[StackFix]) -> List[Result]:
    """Findings about a version say where the plan answers them instead of carrying a command of their own:
    the step that fixes them, or what the target stack keeps and why."""
    if stack is None:
        return list(results)
    from ascend_doctor.resolve.fixsteps import kept_text

    out: List[Result] = []
    for result in results:
        components = stack.covers(result.id)
        if not covered(result, stack):
            out.append(result)
            continue
        ref = _ref(result)
        steps = [step for step in plan if ref in step.fixes]
        if steps:
            lines = [_("Fix plan step {order}: {summary}").format(order=step.order, summary=step.summary)
                     for step in steps]
            why = next((step.why for step in steps if step.why), "")
            text = "\n".join(lines) + ("\n" + _("Why: {why}").format(why=why) if why else "")
        elif len(stack.target.state.engines) > 1 and set(components) & {"torch", "engine", "python"}:
            text = _("Two serving engines share this environment ({engines}): give each its own environment or "
                     "container (ASC-ENG-001) instead of changing torch under one of them.").format(
                engines=", ".join(stack.target.state.engines))
        else:
            kept = kept_text(stack.target, components)
            text = (_("The plan's target stack keeps {kept}: nothing to install for this finding.").format(kept=kept)
                    if kept else _("The plan's target stack does not move this component."))
        actions = tuple(a for a in result.actions if not is_version_action(a))
        out.append(structs.replace(result, remediation=text, actions=actions))
    return out
