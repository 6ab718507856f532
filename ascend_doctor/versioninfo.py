"""The ``--version`` line, shared by the console script's fast path (launcher.py) and the command line."""

from __future__ import annotations

import os


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
