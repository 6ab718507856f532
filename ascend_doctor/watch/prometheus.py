"""``watch --prometheus FILE``: write node_exporter textfile metrics so a scrape never sees half a file.

The textfile collector reads every ``*.prom`` file of its directory at each scrape, so the file
must never be seen half written: it is written to a hidden temporary file in the same folder
(``.NAME.tmpPID``, which the collector ignores because it does not end in ``.prom``) and renamed
over the target (node_exporter README, "Textfile Collector":
https://github.com/prometheus/node_exporter#textfile-collector). The metrics themselves are
ascend_doctor/render/prometheus.py's.
"""

from __future__ import annotations

import contextlib
import os
import stat


class PrometheusFileError(Exception):
    """The metrics file cannot be written where asked (one-line message)."""


def check_target(path: str) -> None:
    """Refuse a target that is not (or would not be) a regular file in an existing folder."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise PrometheusFileError(f"{path}: folder {folder} does not exist")
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as exc:
        raise PrometheusFileError(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise PrometheusFileError(f"{path}: exists and is not a regular file (a link, folder or device); "
                                  "refusing to replace it")


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` and rename it over ``path``."""
    check_target(path)
    folder, base = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{base}.tmp{os.getpid()}")
    try:
        if os.path.lexists(tmp):
            os.unlink(tmp)  # our own leftover from an interrupted write
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        _remove_quietly(tmp)
        raise PrometheusFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    except BaseException:
        _remove_quietly(tmp)  # Ctrl-C in the middle: leave no temporary file behind
        raise


def _remove_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
