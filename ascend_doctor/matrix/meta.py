"""Where the matrix files live, and the matrix version read cheaply.

Imported by ``ascend-doctor --version``: stdlib only, no YAML parsing (a regex over the head of
the file), so the CLI starts fast.
"""

from __future__ import annotations

import importlib.util
import os
import re
from typing import Optional

SHIPPED_PACKAGE = "ascend_doctor.compat_matrix"
META_FILE = "matrix.yaml"
USER_FILE = "matrix.yaml"  # the installed bundle in the user data folder
ENV_MATRIX = "ASCEND_DOCTOR_MATRIX"
ENV_DATA_DIR = "ASCEND_DOCTOR_DATA_DIR"
_HEAD_BYTES = 4096
_VERSION_RE = re.compile(r"""^version:[ \t]*["']?([0-9A-Za-z.+_-]+)["']?[ \t]*(?:#.*)?$""", re.MULTILINE)


def shipped_matrix_dir() -> str:
    """The directory of the matrix shipped with the package (``compat_matrix/`` in a checkout)."""
    spec = importlib.util.find_spec(SHIPPED_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        return next(iter(spec.submodule_search_locations))
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
