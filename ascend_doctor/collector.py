"""The cyclic garbage collector paused while the tool starts (public ``gc`` calls only).

Start-up makes some 19,000 objects tracked by the collector (modules, classes, functions, click's
command tree) that live until exit, and the collector, run every 700 allocations, went over them
again and again: ~4 ms of a diagnose or ``checks`` run (3.11 and 3.9). The console script pauses it
(``pause``); once the command's module is imported (``cli.LazyGroup.get_command``) ``resume`` sets
the objects made so far aside for good (``gc.freeze``) and runs it again, less often. When the command
is done (``finish``) everything still alive is set aside as well: the interpreter's exit collects the
unfrozen objects again before it frees them, which cost a ``check`` 10 ms on Python 3.9 and 4 ms on
3.11 (median of 7 paired runs; the matrix, facts and report made by the command are most of them).
Objects are still freed by their reference counts at exit; only cycles are left to the process's end.
"""

from __future__ import annotations

import gc

# The collector's first threshold once the command runs: a run's new objects are mostly data that
# lives until exit (the loaded matrix and check catalogue, facts, findings, the report), so young
# collections at Python's default (every 700 allocations) mostly move survivors along. Median
# collector CPU time of 7 runs after start-up (3.11), at 700 / 10,000 / 100,000: check --from
# healthy --format json 8.7 / 4.2 / 1.0 ms, matrix lookup 3.5 / 1.7 / 0.9. Cyclic garbage waits at
# most this many net allocations longer: a few MB at worst (peak RSS of check, and of diagnose on a
# 40 MB log, unchanged at 24 MB).
RUN_THRESHOLD = 100_000

_paused = False


def pause() -> None:
    """Stop the collector for the start-up (the console script; not a test calling the CLI)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """The command's own work begins: the collector runs again, ignoring the objects made so far,
    and less often (RUN_THRESHOLD). Does nothing unless ``pause`` stopped it."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        young, middle, old = gc.get_threshold()
        if 0 < young < RUN_THRESHOLD:  # 0: automatic collection disabled; a higher one was chosen
            gc.set_threshold(RUN_THRESHOLD, middle, old)
        gc.enable()


def finish() -> None:
    """The command is done (the console script, after it returned or exited): what is alive now lives
    until the process ends, so the exit need not walk it looking for cycles."""
    gc.freeze()
