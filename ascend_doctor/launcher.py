"""The ``ascend-doctor`` console script.

``run`` pauses the garbage collector for the start-up, runs the command line, and sets what is left
aside for the exit (collector.py).
``ascend-doctor --version`` alone (install scripts run it to see what is installed) is answered
here, without importing click and the command tree, which cost more than the interpreter's own
start. Everything else, ``--version`` with other arguments included, goes to ``ascend_doctor.cli``.
"""

from __future__ import annotations

import sys

from ascend_doctor import collector


def run() -> None:
    collector.pause()
    try:
        _run()
    finally:
        collector.finish()


def _run() -> None:
    if sys.argv[1:] == ["--version"]:
        from ascend_doctor import i18n

        if i18n.set_language(None) == "en":  # other languages: click writes the line (its encodings)
            from ascend_doctor.versioninfo import version_line

            sys.stdout.write(version_line() + "\n")
            sys.stdout.flush()
            sys.exit(0)
    from ascend_doctor.cli import main

    main()
