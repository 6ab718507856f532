"""Where the matrix files live, and the matrix version read cheaply.

Imported by ``ascend-doctor --version``: stdlib only, no YAML parsing (a regex over the head of
the file), so the CLI starts fast.
"""

from __future__ import annotations

import importlib
import os
import re
from typing import Optional

from ascend_doctor.lazy import lazy_re

SHIPPED_PACKAGE = "ascend_doctor.compat_matrix"
META_FILE = "matrix.yaml"
USER_FILE = "matrix.yaml"  # the installed bundle in the user data folder
ENV_MATRIX = "ASCEND_DOCTOR_MATRIX"
ENV_DATA_DIR = "ASCEND_DOCTOR_DATA_DIR"
_HEAD_BYTES = 4096
_VERSION_RE = lazy_re(r"""^version:[ \t]*["']?([0-9A-Za-z.+_-]+)["']?[ \t]*(?:#.*)?$""", re.MULTILINE)


def shipped_matrix_dir() -> str:
    """The directory of the matrix shipped with the package (``compat_matrix/`` in a checkout)."""
    # The package itself, not importlib.util.find_spec: that imports importlib.util/abc (1 ms on
    # Python 3.9) and the package's __init__ is an empty marker.
    try:
        package = importlib.import_module(SHIPPED_PACKAGE)
    except ImportError:
        package = None
    locations = list(getattr(package, "__path__", None) or ())
    if locations:
        return str(locations[0])
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(here, "compat_matrix")


def shipped_matrix_path() -> str:
    return os.path.join(shipped_matrix_dir(), META_FILE)


def user_data_dir() -> str:
    """``$ASCEND_DOCTOR_DATA_DIR``, else ``$XDG_DATA_HOME/ascend-doctor``, else ``~/.local/share/ascend-doctor``."""
    explicit = os.environ.get(ENV_DATA_DIR)
    if explicit:
        return explicit
    xdg = os.environ.get("XDG_DATA_HOME")
    base = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "ascend-doctor")


def user_matrix_path() -> str:
    return os.path.join(user_data_dir(), USER_FILE)


def read_matrix_version(path: str) -> Optional[str]:
    """The top-level ``version:`` of a matrix file, from its first 4 KB; None if absent/unreadable."""
    from ascend_doctor import safeio

    try:  # never a blocking read: ASCEND_DOCTOR_MATRIX may name a FIFO
        with safeio.open_regular(path) as fh:
            head = fh.read(_HEAD_BYTES)
    except OSError:
        return None
    match = _VERSION_RE.search(head.decode("utf-8", "replace"))
    return match.group(1) if match else None


def shipped_matrix_version() -> str:
    return read_matrix_version(shipped_matrix_path()) or "unknown"
