"""Which matrix a run uses: ``--matrix FILE`` > ``$ASCEND_DOCTOR_MATRIX`` > an updated copy newer
than the shipped one > the shipped matrix. Every Matrix carries its ``origin`` for the report."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ascend_doctor.matrix.errors import MatrixError
from ascend_doctor.matrix.meta import (
    ENV_MATRIX,
    read_matrix_version,
    shipped_matrix_path,
    user_matrix_path,
)

if TYPE_CHECKING:  # imported where a Matrix is made: resolving a chip name needs only the chip tables
    from ascend_doctor.matrix.chips import ChipIndex
    from ascend_doctor.matrix.loader import Document
    from ascend_doctor.matrix.model import Matrix

_CACHE: Dict[Tuple[str, bool, bool], Tuple[Tuple[Tuple[str, int, int], ...], Document]] = {}


def _stamp(paths: List[str]) -> Tuple[Tuple[str, int, int], ...]:
    stamps = []
    for path in paths:
        try:
            st = os.stat(path)
            stamps.append((path, st.st_mtime_ns, st.st_size))
        except OSError:
            stamps.append((path, -1, -1))
    return tuple(stamps)


def load_document_cached(path: str, *, allow_include: bool = True, cross_check: bool = True) -> Document:
    """Parse once per process while the files do not change (checks call load_matrix repeatedly)."""
    key = (os.path.abspath(path), allow_include, cross_check)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == _stamp(cached[1].files):
        return cached[1]
    doc = None
    if allow_include and not cross_check:  # the shipped matrix: its compiled form while it matches the YAML
        from ascend_doctor.datacache import matrix_document

        doc = matrix_document(path)
    if doc is None:
        from ascend_doctor.matrix.loader import load_document

        doc = load_document(path, allow_include=allow_include, cross_check=cross_check)
    _CACHE[key] = (_stamp(doc.files), doc)
    return doc


def open_matrix(path: str, origin: str, *, allow_include: bool = True) -> Matrix:
    from ascend_doctor.matrix.model import Matrix

    # The shipped matrix is cross-checked by the test suite (tests/test_matrix_validate.py).
    doc = load_document_cached(path, allow_include=allow_include, cross_check=origin != "shipped")
    if doc.problems or doc.meta is None:
        raise MatrixError(doc.problems)
    return Matrix(doc, origin)


def is_newer(candidate: Optional[str], reference: Optional[str]) -> bool:
    """PEP 440 comparison of matrix versions; an unreadable candidate is never newer."""
    if not candidate:
        return False
    from packaging.version import InvalidVersion, Version

    try:
        cand = Version(candidate)
    except InvalidVersion:
        return False
    try:
        return reference is None or cand > Version(reference)
    except InvalidVersion:
        return True


def _updated_copy_in_use(shipped: str, user: str) -> bool:
    """Whether the updated copy (``matrix update``) is newer than the shipped matrix, so tried first."""
    return os.path.isfile(user) and is_newer(read_matrix_version(user), read_matrix_version(shipped))


def load_chip_index(path: Optional[str] = None) -> ChipIndex:
    """The chip names of the matrix ``load_matrix(path)`` gives (its ``chip_index``). For the shipped
    matrix, only its compiled chip tables are read (plan --chip needs no more); any other matrix,
    or a compiled file that no longer matches the YAML, is loaded whole as before."""
    if not path and not _matrix_from_environment():
        shipped = shipped_matrix_path()
        if not _updated_copy_in_use(shipped, user_matrix_path()):
            from ascend_doctor.datacache import matrix_chips

            tables = matrix_chips(shipped)
            if tables is not None:
                from ascend_doctor.matrix.chips import ChipIndex

                return ChipIndex(*tables)
    return load_matrix(path).chip_index


def load_matrix(path: Optional[str] = None) -> Matrix:
    """The matrix for this run. Raises MatrixError when an explicitly chosen file is invalid."""
    return load_chosen_matrix(path, _matrix_from_environment())


def _matrix_from_environment() -> Optional[str]:
    """$ASCEND_DOCTOR_MATRIX, read where every run option is read (options.read_environment)."""
    from ascend_doctor.options import read_environment

    return read_environment().matrix


def load_chosen_matrix(path: Optional[str], env_path: Optional[str]) -> Matrix:
    """``load_matrix`` with $ASCEND_DOCTOR_MATRIX as the caller read it (a run's options record,
    options.py): ``path`` (--matrix), else ``env_path``, else the updated copy or the shipped matrix."""
    if path:
        return open_matrix(path, f"file: {path}")
    env = (env_path or "").strip()
    if env:
        return open_matrix(env, f"env {ENV_MATRIX}: {env}")
    shipped = shipped_matrix_path()
    user = user_matrix_path()
    warnings: List[str] = []
    if _updated_copy_in_use(shipped, user):
        try:
            return open_matrix(user, f"user: {user}", allow_include=False)
        except MatrixError as exc:
            # a broken update must never stop the doctor: fall back to what shipped, say so
            warnings.append(f"ignored the updated matrix {user}: {exc}")
    matrix = open_matrix(shipped, "shipped")
    matrix.warnings.extend(warnings)
    return matrix
