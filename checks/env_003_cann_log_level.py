"""ASC-ENV-003: CANN logging is not left at a debugging level."""

from __future__ import annotations

from typing import Dict, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import _

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-ENV-003",
    title="CANN logs at the default level (not DEBUG/INFO, not printed to the screen)",
    what=("Reads ASCEND_GLOBAL_LOG_LEVEL (0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR = the default, 4 NULL) and "
          "ASCEND_SLOG_PRINT_TO_STDOUT (1 = every log line printed instead of written to the log files)."),
    why=("Levels 0 and 1 are for debugging: CANN's environment variable reference warns that \"after the log level "
         "is set to DEBUG, service performance may be affected due to heavy log traffic\", and the plog folders "
         "(~/ascend/log) fill the disk. With ASCEND_SLOG_PRINT_TO_STDOUT=1 the logs are not kept in files but "
         "printed to the console, flooding the service or container log. Both are typically left over from a "
         "debugging session; MindIE's own set_env.sh sets ASCEND_GLOBAL_LOG_LEVEL=3 and "
         "ASCEND_SLOG_PRINT_TO_STDOUT=0."),
    fix=("export ASCEND_GLOBAL_LOG_LEVEL=3 (or unset it) and unset ASCEND_SLOG_PRINT_TO_STDOUT (or set 0) in the "
         "shell, service unit or container that runs the engine; remove them from ~/.bashrc / the entrypoint."),
    tags=("serving",),
)

LEVELS = {"0": "DEBUG", "1": "INFO", "2": "WARNING", "3": "ERROR", "4": "NULL"}


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    env: Dict[str, str] = ctx.facts.maybe(Facts.env) or {}
    level = (env.get("ASCEND_GLOBAL_LOG_LEVEL") or "").strip()
    stdout = (env.get("ASCEND_SLOG_PRINT_TO_STDOUT") or "").strip()
    problems: List[str] = []
    commands: List[str] = []
    if level in ("0", "1"):
        problems.append(_("ASCEND_GLOBAL_LOG_LEVEL={level} ({name}): heavy log traffic slows the service and fills "
                          "the plog folders").format(level=level, name=LEVELS[level]))
        commands.append("export ASCEND_GLOBAL_LOG_LEVEL=3")
    if stdout == "1":
        problems.append(_("ASCEND_SLOG_PRINT_TO_STDOUT=1: every CANN log line goes to the console instead of the "
                          "log files"))
        commands.append("unset ASCEND_SLOG_PRINT_TO_STDOUT")
    if problems:
        fix = (_("In the shell, service unit or container that runs the engine (and remove the old values from "
                 "~/.bashrc or the entrypoint):") + "\n  " + "\n  ".join(commands))
        action = FixAction("environment", _("Put CANN logging back to its default level"), tuple(commands),
                           where="either", direction="set")
        yield Finding(Status.WARN, _("CANN logging left at a debugging setting: {problems}.").format(
                          problems="; ".join(problems)), fix,
                      {"ASCEND_GLOBAL_LOG_LEVEL": level or None, "ASCEND_SLOG_PRINT_TO_STDOUT": stdout or None},
                      None, (action,))
        return
    if not level and not stdout:
        require_stated(ctx.facts, "ASCEND_GLOBAL_LOG_LEVEL")
    if not level:
        shown = _("ASCEND_GLOBAL_LOG_LEVEL not set (ERROR, the default)")
    elif level in LEVELS:
        shown = f"ASCEND_GLOBAL_LOG_LEVEL={level} ({LEVELS[level]})"
    else:
        shown = _("ASCEND_GLOBAL_LOG_LEVEL={level} (not a valid level: the default applies)").format(level=level)
    yield Finding.passed(shown + (f", ASCEND_SLOG_PRINT_TO_STDOUT={stdout}" if stdout else ""))
