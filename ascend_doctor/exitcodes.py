"""Exit codes: a documented contract for install scripts (see README, "Exit codes")."""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    OK = 0  # nothing at or above the --fail-on threshold
    FINDINGS = 1  # at least one FAIL (or WARN with --fail-on warn)
    USAGE = 2  # bad command line (click's own code for usage errors)
    INCOMPLETE = 3  # the doctor could not finish, a check ended in ERROR and nothing failed, or every check was SKIP
    INTERRUPTED = 130  # Ctrl-C (SIGINT): children killed, nothing written (128 + 2, as shells report it)
    TERMINATED = 143  # SIGTERM: the same clean stop (128 + 15)
