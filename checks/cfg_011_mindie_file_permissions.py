"""ASC-CFG-011: MindIE's config and weight files have the modes and owner MindIE accepts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import LIVE, absent_phrase, origin_kind
from ascend_doctor.i18n import N_, _
from ascend_doctor.shellcmd import argv, shaped
from ascend_doctor.shellcmd import quote as shell_quote

from ._context import HostCheckContext

if TYPE_CHECKING:
    from ascend_doctor.facts.records.file_modes import FileModes, PathMode
    from ascend_doctor.parsers.id_output import IdInfo

CHECK = CheckSpec(
    id="ASC-CFG-011",
    title="MindIE config and weights are at most 640 (folders 750) and owned by the run user",
    requires=("fact:file_modes",),
    what=("For MindIE deployments (--config with MindIE's config.json, or --model on a host with MindIE): the "
          "permission bits of config.json, of each weight folder and of the files in it, and their owner, compared "
          "with what mindieservice_daemon accepts: files no wider than 640, folders no wider than 750, owned by the "
          "user that runs it (the user running this check, from `id`)."),
    why=("MindIE Server checks the mode and owner of its configuration and model files before it starts and exits "
         "with \"Check Other group permission failed: Current permission is 4, but required no greater than 0\" "
         "(or an owner mismatch) followed by \"Failed to init endpoint\": the most common MindIE start failure "
         "after copying weights as root or with a 644/755 umask (hiascend MindIE service0348; forum thread "
         "02104167047335054008)."),
    fix=("chmod 640 <config.json>; chmod 750 <weight folder>; chmod 640 <weight folder>/*; chown -R <run user>: "
         "<weight folder> (and the config) as root. The check prints the commands for the paths it found."),
    tags=("serving", "mindie"),
)

FILE_MAX = 0o640
DIR_MAX = 0o750
_DIGITS = (("owner", 6), ("group", 3), ("other", 0))


# The same comparison for people, in the run's language (too_wide's English goes to the evidence).
_DIGIT_TEXT = {"owner": N_("owner {have} > {allowed}"), "group": N_("group {have} > {allowed}"),
               "other": N_("other {have} > {allowed}")}


def too_wide(mode: int, limit: int, shown: bool = False) -> List[str]:
    """Which permission digits exceed the limit, as MindIE compares them (each digit numerically).
    ``shown``: worded for people in the run's language instead of the evidence's English."""
    out = []
    for name, shift in _DIGITS:
        have, allowed = (mode >> shift) & 7, (limit >> shift) & 7
        if have > allowed:
            out.append(_(_DIGIT_TEXT[name]).format(have=have, allowed=allowed) if shown
                       else f"{name} {have} > {allowed}")
    return out


def _applies(ctx: HostCheckContext) -> bool:
    config = ctx.facts.maybe(Facts.serving_config)
    if config is not None and getattr(config, "kind", "") == "mindie":
        return True
    engines = ctx.facts.maybe(Facts.engines)
    return bool(engines is not None and "MindIE" in engines.installed_engines())


def _q(path: str) -> str:
    return shell_quote(path)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    if not _applies(ctx):
        raise NotApplicable(_("MindIE's permission rules apply to MindIE deployments: give --config with MindIE's "
                              "config.json, or run on a host with MindIE installed"))
    modes = ctx.facts.file_modes
    user = ctx.facts.maybe(Facts.run_user)
    known = [e for e in modes.entries if e.known]
    unknown = [e for e in modes.entries if not e.known]
    if not known:
        if modes.entries:
            raise NotApplicable(_("the file modes and owners of {paths} are {absent} (record a model folder with "
                                  "`ascend-doctor snapshot --model DIR`, or run the check on the machine)").format(
                                      paths=", ".join(e.path for e in modes.entries[:3]),
                                      absent=absent_phrase(ctx.facts)))
        raise NotApplicable(_("none of the MindIE paths given exists here: {paths}").format(
            paths=", ".join(modes.missing)))
    wide: List[Tuple[PathMode, List[str]]] = []
    foreign: List[PathMode] = []
    for entry in known:
        limit = DIR_MAX if entry.is_dir else FILE_MAX
        over = too_wide(entry.mode or 0, limit)
        if over:
            wide.append((entry, over))
        if user is not None and entry.uid != user.uid:
            foreign.append(entry)
    unseen = [e.path for e in unknown] + list(modes.missing)
    why = _("not found") if origin_kind(ctx.facts) == LIVE else absent_phrase(ctx.facts)
    unseen_paths = ", ".join(unseen[:3]) + (" ..." if len(unseen) > 3 else "")
    if not wide and not foreign:
        if user is not None:
            message = _("{count} MindIE path(s) within 640/750, owned by {user}").format(
                count=len(known), user=user.user or user.uid)
        else:
            message = _("{count} MindIE path(s) within 640/750 (owner not compared: `id` not known)").format(
                count=len(known))
        if unseen:
            message += "; " + _("not judged ({why}): {paths}").format(why=why, paths=unseen_paths)
        yield Finding.passed(message, checked=len(known))
        return
    finding = _finding(wide, foreign, user, modes)
    extra = (" " + _("Not judged ({why}): {paths}.").format(why=why, paths=unseen_paths)) if unseen else ""
    yield Finding(finding.status, finding.message + extra,
                  finding.remediation, finding.evidence, finding.scope, finding.actions)


def _id_word(value: str, shape: str) -> str:
    return value if value.isdigit() else shaped(value, shape, f"run {shape}")


def _finding(wide: List[Tuple[PathMode, List[str]]], foreign: List[PathMode], user: Optional[IdInfo],
             modes: FileModes) -> Finding:
    parts: List[str] = []
    commands: List[str] = []
    if wide:
        first = wide[0][0]
        limit = DIR_MAX if first.is_dir else FILE_MAX
        parts.append(_("{count} path(s) wider than MindIE allows, e.g. {path} is {mode} ({over}; limit "
                       "{limit})").format(count=len(wide), path=first.path, mode=f"{first.mode:03o}",
                                          over=", ".join(too_wide(first.mode or 0, limit, shown=True)),
                                          limit=f"{limit:o}"))
        dirs = [e.path for e, _over in wide if e.is_dir]
        files = [e.path for e, _over in wide if not e.is_dir]
        commands += [f"chmod 750 {_q(p)}" for p in dirs[:20]]
        commands += _chmod_files(files)
    if foreign and user is not None:  # only paths compared with a known run user are foreign
        owner = user.user or str(user.uid)
        group = user.group or (str(user.gid) if user.gid is not None else "")
        first = foreign[0]
        parts.append(_("{count} path(s) not owned by the run user {owner} (uid {uid}), e.g. {path} (uid "
                       "{path_uid})").format(count=len(foreign), owner=owner, uid=user.uid, path=first.path,
                                             path_uid=first.uid))
        targets = _owner_targets(foreign)
        # The user and group come from `id`: only a name of that shape, or a numeric id, goes into the command.
        who = _id_word(owner, "user") + (":" + _id_word(group, "group") if group else "")
        commands += [argv("chown", "-R", who, t) for t in targets]
    message = _("MindIE would refuse to start: {problems}.").format(problems="; ".join(parts))
    run_as = (user.user or str(user.uid)) if user else _("the run user")
    fix = (_("As root (or the files' owner), then start MindIE as {user}:").format(user=run_as) + "\n  "
           + "\n  ".join(commands))
    evidence: Dict[str, object] = {
        "too_wide": [{"path": e.path, "mode": oct(e.mode or 0), "over": o} for e, o in wide[:50]],
        "not_owned": [{"path": e.path, "uid": e.uid} for e in foreign[:50]],
        "truncated": modes.truncated}
    action = FixAction("config", _("Set MindIE's file modes (640/750) and owner"), tuple(commands), where="either",
                       direction="set", subject="MindIE file permissions")
    return Finding(Status.FAIL, message, fix, evidence, None, (action,))


def _chmod_files(files: List[str]) -> List[str]:
    """One chmod per folder of files (``chmod 640 DIR/*`` when a whole folder is too wide)."""
    by_dir: Dict[str, List[str]] = {}
    for path in files:
        folder, _sep, _name = path.rpartition("/")
        by_dir.setdefault(folder or "/", []).append(path)
    out: List[str] = []
    for folder, paths in by_dir.items():
        if len(paths) > 3:
            out.append(f"find {_q(folder)} -maxdepth 1 -type f -exec chmod 640 {{}} +")
        else:
            out += [f"chmod 640 {_q(p)}" for p in paths]
    return out


def _owner_targets(entries: List[PathMode]) -> List[str]:
    """The fewest paths to chown -R: a weight folder covers what is inside it."""
    paths = sorted({e.path for e in entries}, key=len)
    out: List[str] = []
    for path in paths:
        if not any(path == t or path.startswith(t.rstrip("/") + "/") for t in out):
            out.append(path)
    return out[:20]
