"""The ``ascend-doctor`` console script.

``run`` is the script's entry: ``main``, then the end of the process without the interpreter's
teardown (``end_process``). ``ascend-doctor --version`` alone (install scripts run it to see what
is installed) is answered here, without importing click and the command tree, which cost more
than the interpreter's own start. Everything else, ``--version`` with other arguments included,
goes to ``ascend_doctor.cli``.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import Any

# Whether main() paused the cyclic garbage collector for the start-up (see end_of_startup).
_collector_paused = False


def run() -> None:
    """The console script: the command, then the end of the process (``end_process``)."""
    try:
        main()
    except SystemExit as stop:
        end_process(stop.code)
        raise
    end_process(0)


def end_process(code: Any) -> None:
    """End the process with ``code`` once what it wrote is out and its exit functions have run,
    without the interpreter's teardown; or return, and Python ends it the usual way.

    Teardown (every module's namespace cleared, every object freed one by one) took 10 ms of a
    110 ms ``check --from <fixture> --format json`` (3.11, median of 21 paired runs), and nothing
    the tool makes needs it: the files it writes are closed once written (safeio), and temporary
    folders are removed by the exit functions run here (``atexit``, which also holds those of
    ``weakref.finalize`` and ``logging``). Python's own end is kept whenever this cannot be sure:
    another thread still runs (Python would wait for it), the code is not a number (Python prints
    it), this Python has no way to run the exit functions from here, or a standard stream cannot
    be flushed (a closed pipe: Python reports it as it always did).
    """
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)  # CPython's, 3.0 onwards
    if code is None:
        code = 0
    if not isinstance(code, int) or isinstance(code, bool) or run_exit_functions is None:
        return
    threading = sys.modules.get("threading")  # never imported: no thread was started through it
    if threading is not None and threading.active_count() != 1:
        return
    if not _flushed():
        return
    run_exit_functions()
    if _flushed():
        os._exit(code & 0xFF)


def _flushed() -> bool:
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:  # a closed pipe: Python's own end reports it
        return False
    return True


def main() -> None:
    global _collector_paused
    # Start-up makes some 19,000 objects tracked by the collector (modules, classes, functions,
    # click's command tree) that live until exit, and the collector, run every 700 allocations,
    # went over them again and again: ~4 ms of a diagnose or `checks` run (3.11 and 3.9). It is
    # paused here and resumed, those objects set aside for good (gc.freeze), when the command is
    # about to run.
    if gc.isenabled():
        gc.disable()
        _collector_paused = True
    if sys.argv[1:] == ["--version"]:
        from ascend_doctor import i18n

        if i18n.set_language(None) == "en":  # other languages: click writes the line (its encodings)
            sys.stdout.write(version_line() + "\n")
            sys.stdout.flush()
            sys.exit(0)
    from ascend_doctor.cli import main as cli_main

    cli_main()


# The collector's first threshold once the command runs: a run's new objects are mostly data that
# lives until exit (the loaded matrix and check catalogue, facts, findings, the report), so young
# collections at Python's default (every 700 allocations) mostly move survivors along, and each
# tenth one goes over all of them again. Median collector CPU time of 7 runs after start-up (3.11),
# at 700 / 10,000 / 100,000: check --from healthy --format json 8.7 / 4.2 / 1.0 ms (a check run
# makes some 90,000 net allocations, so at 100,000 it meets no collection), matrix lookup
# 3.5 / 1.7 / 0.9. Cyclic garbage waits at most this many net allocations longer: a few MB at worst,
# and the peak RSS of check and of diagnose on a 40 MB log did not change (24 MB).
RUN_THRESHOLD = 100_000


def end_of_startup() -> None:
    """The command's own work begins (its module is imported, ``cli.LazyGroup.get_command``): the
    collector runs again from here, ignoring the objects made so far, which live until exit, and
    less often (RUN_THRESHOLD). Does nothing unless main() paused it (a test calling the CLI in its
    own process, for example)."""
    global _collector_paused
    if _collector_paused:
        _collector_paused = False
        gc.freeze()
        young, middle, old = gc.get_threshold()
        if 0 < young < RUN_THRESHOLD:  # 0: automatic collection disabled; a higher one was chosen
            gc.set_threshold(RUN_THRESHOLD, middle, old)
        gc.enable()


def version_line() -> str:
    """``ascend-doctor 0.1.0 (compatibility matrix 2026.11.29)``, naming the matrix a run would use
    when it is not the shipped one (same order as load_matrix); in the chosen language."""
    from ascend_doctor import __version__
    from ascend_doctor.i18n import gettext as _
    from ascend_doctor.matrix.meta import ENV_MATRIX, read_matrix_version, shipped_matrix_version, user_matrix_path

    shipped = shipped_matrix_version()
    pieces = [_("compatibility matrix {version}").format(version=shipped)]
    override = os.environ.get(ENV_MATRIX, "").strip()
    user = user_matrix_path()
    if override:
        pieces.append(_("using {version} from ${variable}").format(
            version=read_matrix_version(override) or _("unknown"), variable=ENV_MATRIX))
    elif os.path.isfile(user):
        from ascend_doctor.matrix.select import is_newer

        updated = read_matrix_version(user)
        if is_newer(updated, shipped):
            pieces.append(_("using updated {version} from {path}").format(version=updated, path=user))
    return f"ascend-doctor {__version__} (" + "; ".join(pieces) + ")"
