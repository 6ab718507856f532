"""Exit codes: a documented contract for install scripts and CI gates.

The codes are the same for every command; what makes a command end with each is written once,
here (``COMMAND_EXIT_CODES``), and README.md "Exit codes" prints this table
(``tests/test_exit_codes.py`` compares the two and runs every command into each of its codes).

The rule a gate relies on: 0 only when something was judged and nothing at or above the
threshold was found. A run that judged nothing (every check SKIP, no check left by
``--select``/``--ignore``, a probe with no model to ask, no node report) is never 0.
"""

from __future__ import annotations

import enum
from typing import Dict, List


class ExitCode(enum.IntEnum):
    OK = 0  # nothing at or above the --fail-on threshold
    FINDINGS = 1  # at least one FAIL (or WARN with --fail-on warn)
    USAGE = 2  # bad command line (click's own code for usage errors)
    INCOMPLETE = 3  # the doctor could not finish, a check ended in ERROR and nothing failed, or every check was SKIP,
    # or too little could be judged to call the machine ready (coverage.py: "not enough to judge")
    INTERRUPTED = 130  # Ctrl-C (SIGINT): children killed, nothing written (128 + 2, as shells report it)
    TERMINATED = 143  # SIGTERM: the same clean stop (128 + 15)


_REPORT_CODES = {
    ExitCode.OK: "ready: something was judged and nothing is at or above --fail-on",
    ExitCode.FINDINGS: "a FAIL (or a WARN with --fail-on warn)",
    ExitCode.USAGE: "usage error, also --select/--ignore matching no check or leaving none (the closest ids are "
                    "named), -o naming a link, a device, a folder or an input",
    ExitCode.INCOMPLETE: "nothing judged or not finished: a check ended in ERROR and nothing failed, every "
                         "check was SKIP, an input could not be read, or nothing failed but fewer than a quarter "
                         "of the checks that apply could be judged (not enough to judge: a sparse paste)",
    ExitCode.INTERRUPTED: "Ctrl-C",
    ExitCode.TERMINATED: "SIGTERM",
}

# Command -> the codes it can end with and, where it says more than the code's name, why.
COMMAND_EXIT_CODES: Dict[str, Dict[ExitCode, str]] = {
    "check": _REPORT_CODES,
    "probe": {
        **_REPORT_CODES,
        ExitCode.FINDINGS: "a FAIL (or a WARN with --fail-on warn); an endpoint that refuses connections is a "
                           "FAIL of ASC-SRV-001",
        ExitCode.INCOMPLETE: "nothing judged: no model to ask (/v1/models lists none and no --model), every "
                             "selected check SKIP, or a check ended in ERROR (--save could not write) and nothing "
                             "failed",
        ExitCode.INTERRUPTED: "Ctrl-C (the report of what was measured is still printed)",
    },
    "fleet": {
        **_REPORT_CODES,
        ExitCode.OK: "every node ready and nothing the selected fleet checks compare differs",
        ExitCode.FINDINGS: "a node or a difference at or above --fail-on; --select grades the selected checks only, "
                           "so a node's own FAIL counts only when ASC-FLT-001 is selected",
        ExitCode.INCOMPLETE: "no node report found, a report unreadable or a node's check unfinished (and nothing "
                             "failed)",
    },
    "report render": {
        ExitCode.OK: "rendered",
        ExitCode.USAGE: "usage error (also -o naming a link, a device or the report read)",
        ExitCode.INCOMPLETE: "the report cannot be used (missing, not JSON, not ours, a newer schema)",
    },
    "report diff": {
        ExitCode.OK: "no regression",
        ExitCode.FINDINGS: "at least one regression",
        ExitCode.USAGE: "usage error (also -o naming a link, a device or either report)",
        ExitCode.INCOMPLETE: "a report cannot be used",
    },
    "watch": {
        ExitCode.OK: "no alert raised at the end (--once, --count, --replay)",
        ExitCode.FINDINGS: "an alert still raised at the end",
        ExitCode.USAGE: "usage error (also -o or --prometheus naming a link, a device or a file of --replay; a "
                        "--replay folder without captures)",
        ExitCode.INCOMPLETE: "no readable sample (npu-smi missing, hung or unreadable)",
        ExitCode.INTERRUPTED: "Ctrl-C",
        ExitCode.TERMINATED: "SIGTERM",
    },
    "snapshot": {
        ExitCode.OK: "written",
        ExitCode.USAGE: "usage error (-o naming a link, a device or a non-empty folder)",
        ExitCode.INCOMPLETE: "could not write",
        ExitCode.INTERRUPTED: "Ctrl-C (nothing partial left)",
        ExitCode.TERMINATED: "SIGTERM",
    },
    "diagnose": {
        ExitCode.OK: "no known signature found",
        ExitCode.FINDINGS: "at least one signature found",
        ExitCode.USAGE: "usage error",
        ExitCode.INCOMPLETE: "the input could not be read",
    },
    "plan": {
        ExitCode.OK: "fits",
        ExitCode.FINDINGS: "does not fit",
        ExitCode.USAGE: "usage error",
        ExitCode.INTERRUPTED: "Ctrl-C",
    },
    "model inspect": {
        ExitCode.OK: "nothing that stops loading",
        ExitCode.FINDINGS: "at least one problem that stops loading (a missing shard)",
        ExitCode.USAGE: "usage error",
    },
    "model manifest": {
        ExitCode.OK: "written",
        ExitCode.USAGE: "usage error",
        ExitCode.INCOMPLETE: "a file could not be hashed (nothing written)",
        ExitCode.INTERRUPTED: "Ctrl-C",
        ExitCode.TERMINATED: "SIGTERM",
    },
    "model verify": {
        ExitCode.OK: "identical",
        ExitCode.FINDINGS: "differences found",
        ExitCode.USAGE: "usage error",
        ExitCode.INCOMPLETE: "the manifest cannot be used",
        ExitCode.INTERRUPTED: "Ctrl-C",
        ExitCode.TERMINATED: "SIGTERM",
    },
    "matrix": {
        ExitCode.OK: "done",
        ExitCode.FINDINGS: "validation failed, incompatible, or an update rejected",
        ExitCode.USAGE: "usage error",
        ExitCode.INCOMPLETE: "could not finish (network, disk)",
    },
    "checks, explain": {
        ExitCode.OK: "printed",
        ExitCode.USAGE: "usage error (an unknown check id)",
    },
}


def exit_code_table() -> str:
    """README.md's "Exit codes" table (Markdown): one row per command, one column per code."""
    codes = list(ExitCode)
    lines: List[str] = ["| command | " + " | ".join(str(int(c)) for c in codes) + " |",
                        "|---|" + "---|" * len(codes)]
    for command, meanings in COMMAND_EXIT_CODES.items():
        cells = [meanings.get(code, "—").replace("|", "/") for code in codes]
        lines.append(f"| `{command}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)
