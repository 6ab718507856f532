"""Read a matrix file (a bundle, or a meta file with ``include``) into validated records.

Everything that can go wrong with a file — too big, not UTF-8, YAML syntax, wrong types, missing
sources, duplicates, references to unknown versions — becomes a ``Problem`` with file and line.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re
from ascend_doctor.matrix.errors import MatrixError, Problem
from ascend_doctor.matrix.records import REQUIRED_SECTIONS, SECTIONS, Meta, Row
from ascend_doctor.matrix.schema import Ctx, Invalid, Nested, convert_rows, describe, line_of, mapping_items

SCHEMA_VERSION = 1
MAX_MATRIX_BYTES = 5 * 1024 * 1024
META_KEYS = ("schema_version", "version", "date", "title", "include")

if TYPE_CHECKING:
    import yaml
else:  # imported by every run for Document; PyYAML is needed only when a file is parsed (boundedyaml)
    from ascend_doctor.lazy import lazy_module

    yaml = lazy_module("yaml")


class Document(Struct):
    """A parsed matrix: meta, rows per section, and every problem found."""

    path: str
    meta: Optional[Meta]
    sections: Dict[str, List[Row]] = field(default_factory=dict)
    problems: List[Problem] = field(default_factory=list)
    files: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def display_name(path: str) -> str:
    """How a file is named in problems: as given when relative, else its full path."""
    return path


def read_text(path: str, name: str) -> Tuple[Optional[str], List[Problem]]:
    """The file's text, refusing directories, FIFOs, devices, /proc files (never a blocking
    read: ``safeio``), huge files and non-UTF-8 bytes. Problems never quote the content."""
    from ascend_doctor import safeio

    try:
        data = safeio.read_regular(path, MAX_MATRIX_BYTES)
    except safeio.InputTooLarge:
        return None, [Problem(name, 0, "", f"larger than {MAX_MATRIX_BYTES // (1024 * 1024)} MB; not a matrix file")]
    except safeio.InputRefused as exc:
        return None, [Problem(name, 0, "", exc.reason)]
    except IsADirectoryError:
        return None, [Problem(name, 0, "", "is a directory, not a matrix file")]
    except FileNotFoundError:
        return None, [Problem(name, 0, "", "no such file")]
    except PermissionError:
        return None, [Problem(name, 0, "", "permission denied")]
    except OSError as exc:
        return None, [Problem(name, 0, "", f"cannot read: {exc.strerror or exc}")]
    if len(data) > MAX_MATRIX_BYTES:
        return None, [Problem(name, 0, "", f"larger than {MAX_MATRIX_BYTES // (1024 * 1024)} MB; not a matrix file")]
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, [Problem(name, line, "", "not UTF-8 text")]


def compose_text(text: str, name: str) -> Tuple[Optional[yaml.Node], List[Problem]]:
    """Compose one YAML document into nodes (no Python objects are constructed)."""
    from ascend_doctor import boundedyaml
    from ascend_doctor.boundedjson import TooComplex

    try:
        # Bounded nesting and alias expansion (matrices use anchors; bombs are refused here).
        node = boundedyaml.compose(text, what="the file", max_chars=MAX_MATRIX_BYTES)
    except TooComplex as exc:
        return None, [Problem(name, 0, "", str(exc))]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        what = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        return None, [Problem(name, line, "", f"YAML syntax error: {what}")]
    except yaml.YAMLError as exc:
        return None, [Problem(name, 0, "", f"YAML error: {exc}")]
    except RecursionError:
        return None, [Problem(name, 0, "", "YAML nesting is too deep")]
    if node is None:
        return None, [Problem(name, 0, "", "empty file")]
    return node, []


def load_document(path: str, *, allow_include: bool = True, cross_check: bool = True) -> Document:
    """Parse and validate a matrix file. Never raises for bad input: see ``Document.problems``.

    ``cross_check=False`` skips the whole-matrix reference checks (every version referenced exists
    in its table...). Only the shipped matrix is loaded that way at run time: the test suite
    cross-checks it before release, and skipping saves a noticeable part of `check` start-up.
    Files from elsewhere (--matrix, the environment, an update) are always cross-checked.
    """
    name = display_name(path)
    doc = Document(path=path, meta=None, files=[path])
    text, problems = read_text(path, name)
    if text is None:
        doc.problems.extend(problems)
        return doc
    root, problems = compose_text(text, name)
    if root is None:
        doc.problems.extend(problems)
        return doc
    ctx = Ctx(name)
    refused_include = False
    section_nodes: Dict[str, Tuple[str, yaml.Node, Ctx]] = {}
    meta_nodes: Dict[str, yaml.Node] = {}
    try:
        _split_root(root, ctx, meta_nodes, section_nodes, is_meta_file=True)
        doc.meta = _convert_meta(root, meta_nodes, ctx)
        include = doc.meta.include if doc.meta else ()
        if include and not allow_include:
            ctx.problem(meta_nodes.get("include"), "include",
                        "a bundle must be self-contained: `include` is not allowed here "
                        "(build one with `ascend-doctor matrix bundle`)")
            refused_include = True
        elif include:
            # A refused include leaves sections missing: say why, not "missing required section".
            refused_include = _load_includes(path, include, doc, section_nodes)
        for section, (_file, node, section_ctx) in section_nodes.items():
            doc.sections[section] = convert_rows(SECTIONS[section], node, section, section_ctx)
    except Invalid as exc:  # node budget exhausted
        ctx.problem(exc.node, "", exc.message)
    doc.problems.extend(ctx.problems)
    included = {id(c): c for _f, _n, c in section_nodes.values() if c is not ctx}
    for sub_ctx in included.values():
        doc.problems.extend(sub_ctx.problems)
    if not refused_include and not any(p.message.startswith("YAML") for p in doc.problems):
        for section in REQUIRED_SECTIONS:
            if section not in section_nodes:
                doc.problems.append(Problem(name, 0, section, "missing required section"))
        if cross_check:
            from ascend_doctor.matrix.crosscheck import crosscheck

            doc.problems.extend(crosscheck(doc.sections))
            _check_serving_refs(path, include, doc)
    order = {name: index for index, name in enumerate([ctx.file, *(c.file for c in included.values())])}
    doc.problems = sorted(_dedupe(doc.problems), key=lambda p: (order.get(p.file, len(order)), p.line))
    return doc


def _check_serving_refs(path: str, include: Tuple[str, ...], doc: Document) -> None:
    """A split matrix (one with ``include``) is validated with the published serving results
    beside it (serving_refs.yaml, its own schema: ascend_doctor/matrix/serving_refs.py)."""
    import os

    from ascend_doctor.matrix.serving_refs import DATA_FILE, check_file

    refs = os.path.join(os.path.dirname(os.path.abspath(path)), DATA_FILE)
    if include and os.path.isfile(refs) and not os.path.islink(refs):
        doc.problems.extend(check_file(refs))


_SECTION_NAME = lazy_re(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")


def _split_root(root: yaml.Node, ctx: Ctx, meta_nodes: Dict[str, yaml.Node],
                section_nodes: Dict[str, Tuple[str, yaml.Node, Ctx]], *, is_meta_file: bool) -> None:
    if not isinstance(root, yaml.MappingNode):
        ctx.problem(root, "", f"the top level must be a mapping of sections, got {describe(root)}")
        return
    for key, key_node, value_node in mapping_items(root, "", ctx):
        if key in META_KEYS:
            if is_meta_file:
                meta_nodes[key] = value_node
            else:
                ctx.problem(key_node, key, "belongs in the meta file (matrix.yaml), not in an included file")
        elif key in SECTIONS:
            if key in section_nodes:
                first_file, first_node, _ = section_nodes[key]
                ctx.problem(key_node, key, f"section already defined in {first_file}:{line_of(first_node)}")
            else:
                section_nodes[key] = (ctx.file, value_node, ctx)
        elif _SECTION_NAME.match(key):
            ctx.problem(key_node, key, "unknown section (see docs/matrix.md for the schema)")
        else:  # not a name at all (a file that is no matrix): never echo file content
            ctx.problem(key_node, "", "unknown top-level entry, not a section name (see docs/matrix.md for the schema)")


def _convert_meta(root: yaml.Node, meta_nodes: Dict[str, yaml.Node], ctx: Ctx) -> Optional[Meta]:
    mapping = yaml.MappingNode("tag:yaml.org,2002:map", [], start_mark=root.start_mark, end_mark=root.end_mark)
    for key, node in meta_nodes.items():
        mapping.value.append((yaml.ScalarNode("tag:yaml.org,2002:str", key, node.start_mark, node.end_mark), node))
    meta: Optional[Meta]
    try:
        meta = Nested(Meta).convert(mapping, "", ctx)
    except Invalid:
        meta = None
    version_node = meta_nodes.get("schema_version")
    if (isinstance(version_node, yaml.ScalarNode) and version_node.tag == "tag:yaml.org,2002:int"
            and version_node.value.strip() != str(SCHEMA_VERSION)):
        ctx.problem(version_node, "schema_version",
                    f"unsupported schema_version {version_node.value} (this ascend-doctor reads "
                    f"{SCHEMA_VERSION}; upgrade ascend-doctor or use a matching matrix)")
    return meta


def _load_includes(path: str, include: Tuple[str, ...], doc: Document,
                   section_nodes: Dict[str, Tuple[str, yaml.Node, Ctx]]) -> bool:
    """Read the included siblings; True when one was refused (a symlink out of the folder)."""
    refused = False
    base = os.path.dirname(os.path.abspath(path))
    prefix = os.path.dirname(path)
    for name in include:
        full = os.path.join(base, name)
        shown = os.path.join(prefix, name) if prefix else name
        doc.files.append(full)
        if os.path.dirname(os.path.realpath(full)) != os.path.realpath(base):
            # A sibling that is a symlink out of the folder (chips.yaml -> /etc/shadow): not read,
            # so its content can never come back as "unknown section" lines.
            doc.problems.append(Problem(shown, 0, "", "is a symbolic link leading outside the matrix folder; "
                                                      "refused (include only files of this folder)"))
            refused = True
            continue
        text, problems = read_text(full, shown)
        if text is None:
            doc.problems.extend(problems)
            continue
        root, problems = compose_text(text, shown)
        if root is None:
            doc.problems.extend(problems)
            continue
        sub_ctx = Ctx(shown)
        try:
            _split_root(root, sub_ctx, {}, section_nodes, is_meta_file=False)
        except Invalid as exc:
            sub_ctx.problem(exc.node, "", exc.message)
        doc.problems.extend(sub_ctx.problems)
        sub_ctx.problems = []  # section conversion appends afresh
    return refused


def _dedupe(problems: List[Problem]) -> List[Problem]:
    seen = set()
    result = []
    for problem in problems:
        if problem not in seen:
            seen.add(problem)
            result.append(problem)
    return result


def require_valid(doc: Document) -> Document:
    if doc.problems:
        raise MatrixError(doc.problems)
    return doc
