"""``snapshot``: record a machine as the union of what the fact providers declare they read.

Beside ``host/`` (which it uses) and above ``facts/`` (whose declarations it expands): ``run``
orchestrates, ``declared`` expands the declarations, ``recorder`` records the reads of the
providers it runs, ``tree`` writes the snapshot folder and ``records`` its JSON files.
"""

from __future__ import annotations

from typing import Any


def capture_snapshot(*args: Any, **kwargs: Any) -> Any:
    """See :func:`ascend_doctor.capture.run.capture_snapshot`."""
    from ascend_doctor.capture.run import capture_snapshot as run

    return run(*args, **kwargs)


def check_folder_target(output: str) -> str:
    """See :func:`ascend_doctor.capture.run.check_folder_target`."""
    from ascend_doctor.capture.run import check_folder_target as check

    return check(output)
