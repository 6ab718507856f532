"""``matrix show|lookup|plan|validate|bundle|update``: each result as text or JSON.

JSON carries every field, and every document states which matrix it came from (the contracts:
docs/matrix-*-schema.json). The text of show, lookup and plan is rich tables
(render/matrix_tables.py, imported only for text); validate, bundle and update print plain lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n import ngettext
from ascend_doctor.i18n_text import localized
from ascend_doctor.render import JSON, TEXT, unknown_format

if TYPE_CHECKING:
    from ascend_doctor.matrix.loader import Document
    from ascend_doctor.matrix.lookup import LookupResult
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.matrix.pairs import PairAnswer
    from ascend_doctor.matrix.plan import StackPlan
    from ascend_doctor.matrix.records import Row
    from ascend_doctor.matrix.update import UpdateResult


class MatrixShow(Struct, frozen=True):
    """``matrix show [COMPONENT]``: the sections asked for (None: the list of components)."""

    matrix: Matrix
    sections: Optional[Tuple[str, ...]]
    component: Optional[str]


class MatrixLookup(Struct, frozen=True):
    """``matrix lookup``: what goes with each version asked about; with two or more, the verdict on each
    pair first (the short answer), the tables only with ``verbose``."""

    matrix: Matrix
    results: Tuple[LookupResult, ...]
    pairs: Tuple[PairAnswer, ...] = ()
    verbose: bool = False


class MatrixPlan(Struct, frozen=True):
    """``matrix plan``: a recommended stack and its install order."""

    matrix: Matrix
    plan: StackPlan


class ValidatedFile(Struct, frozen=True):
    """One file ``matrix validate`` read: the path as given and what the loader made of it."""

    path: str
    document: Document

    @property
    def valid(self) -> bool:
        return not self.document.problems


class MatrixBundle(Struct, frozen=True):
    """``matrix bundle``: the self-contained bundle made from a split matrix."""

    source: str
    version: Optional[str]
    text: str


def render_matrix_show(result: MatrixShow, fmt: str) -> str:
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document(_show_json(result))
    if fmt == TEXT:
        from ascend_doctor.render.matrix_tables import show_to_text

        return show_to_text(result.matrix, result.sections)
    raise unknown_format(fmt)


def render_matrix_lookup(result: MatrixLookup, fmt: str) -> str:
    if fmt == JSON:
        from ascend_doctor.matrix.pairs import overall
        from ascend_doctor.render.json import json_document

        data: Dict[str, Any] = {"matrix": result.matrix.identity()}
        if result.pairs:  # JSON keeps everything: the short answer and the tables
            data["verdict"] = overall(list(result.pairs))
            data["pairs"] = [p.to_dict() for p in result.pairs]
        data["results"] = [r.to_dict() for r in result.results]
        return json_document(data)
    if fmt == TEXT:
        from ascend_doctor.render.matrix_tables import lookup_to_text

        return lookup_to_text(result.matrix, result.results, pairs=result.pairs, verbose=result.verbose)
    raise unknown_format(fmt)


def render_matrix_plan(result: MatrixPlan, fmt: str) -> str:
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document({"matrix": result.matrix.identity(), "plan": result.plan.to_dict()})
    if fmt == TEXT:
        from ascend_doctor.render.matrix_tables import plan_to_text

        return plan_to_text(result.matrix, result.plan)
    raise unknown_format(fmt)


def render_matrix_validate(files: Tuple[ValidatedFile, ...], fmt: str) -> str:
    """Every problem as ``file:line key.path: message``, then one verdict line per file."""
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document({"files": [_validated_json(f) for f in files]})
    if fmt == TEXT:
        lines: List[str] = []
        for checked in files:
            doc, path = checked.document, checked.path
            if doc.problems:
                lines.extend(localized(p) for p in doc.problems)
                lines.append(ngettext("{path}: {count} problem", "{path}: {count} problems", len(doc.problems)).format(
                    path=path, count=len(doc.problems)))
            else:
                assert doc.meta is not None
                lines.append(ngettext("{path}: OK — matrix {version} ({date}), {entries} entries in {sections} "
                                      "sections, {files} file",
                                      "{path}: OK — matrix {version} ({date}), {entries} entries in {sections} "
                                      "sections, {files} files", len(doc.files)).format(
                    path=path, version=doc.meta.version, date=doc.meta.date, entries=_entries(doc),
                    sections=len(doc.sections), files=len(doc.files)))
        return "\n".join(lines)
    raise unknown_format(fmt)


def render_matrix_bundle(bundle: MatrixBundle, fmt: str) -> str:
    """The bundle itself (text), or the bundle with its size and SHA-256 (JSON)."""
    if fmt == JSON:
        import hashlib

        from ascend_doctor.render.json import json_document

        data = bundle.text.encode("utf-8")
        return json_document({"from": bundle.source, "version": bundle.version, "bytes": len(data),
                              "sha256": hashlib.sha256(data).hexdigest(), "bundle": bundle.text})
    if fmt == TEXT:
        return bundle.text
    raise unknown_format(fmt)


def render_matrix_update(result: UpdateResult, fmt: str) -> str:
    if fmt == JSON:
        from ascend_doctor.render.json import json_document

        return json_document(result.to_dict())
    if fmt == TEXT:
        if result.previous:
            installed = _("installed matrix {version} ({date}) from {origin} (replaced {previous})").format(
                version=result.version, date=result.date, origin=result.origin, previous=result.previous)
        else:
            installed = _("installed matrix {version} ({date}) from {origin}").format(
                version=result.version, date=result.date, origin=result.origin)
        return (installed + "\n  " + _("file: {path}").format(path=result.path) + f"\n  sha256: {result.sha256}\n  "
                + _("shipped matrix: {version}; later runs use the newer of the two").format(version=result.shipped))
    raise unknown_format(fmt)


# -- JSON -------------------------------------------------------------------------------------

def _jsonable(value: Any) -> Any:
    if isinstance(value, Struct):
        return {name: _jsonable(getattr(value, name)) for name in value.__struct_fields__
                if name not in ("loc", "lines", "path")}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _row_json(row: Row) -> Dict[str, Any]:
    data = _jsonable(row)
    data["where"] = str(row.loc)
    return dict(data)


def _show_json(result: MatrixShow) -> Dict[str, Any]:
    from ascend_doctor.matrix.components import COMPONENTS

    m, sections = result.matrix, result.sections
    data: Dict[str, Any] = {"matrix": m.identity()}
    if m.warnings:
        data["warnings"] = list(m.warnings)
    if sections is None:
        data["components"] = {name: {"sections": list(secs), "description": desc,
                                     "rows": sum(len(m.sections.get(s, [])) for s in secs)}
                              for name, (secs, desc) in COMPONENTS.items()}
        return data
    data["component"] = result.component
    data["sections"] = {s: [_row_json(r) for r in m.sections.get(s, [])] for s in sections}
    return data


def _entries(doc: Document) -> int:
    return sum(len(v) for v in doc.sections.values())


def _validated_json(checked: ValidatedFile) -> Dict[str, Any]:
    doc = checked.document
    return {"file": checked.path, "valid": checked.valid, "version": doc.meta.version if doc.meta else None,
            "date": doc.meta.date if doc.meta else None, "entries": _entries(doc), "files": doc.files,
            "problems": [{"file": p.file, "line": p.line, "path": p.path, "message": p.message}
                         for p in doc.problems]}
