"""The error-signature database (compat_matrix/signatures.yaml): model, loader, validation.

The YAML is read with line numbers so that every problem is reported as ``file:line: message``,
the way people fix data files. Validation is strict (unknown keys, duplicate ids, patterns that
grep -E would not accept) because the file is edited by hand and a silent typo would make a
signature never match.

Loading is on the start-up path of every `check` (dmesg is scanned), so it does the least work
that gives the same answers: each pattern is parsed once (validation and the prefilter literals
share the tree) and compiled only when the scanner first needs it (``Signature.regex``).
Importing this module loads neither PyYAML nor the database.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from msgspec import Struct

from ascend_doctor.lazy import lazy_re
from ascend_doctor.logscan.literals import can_match_empty, parse_pattern, required_literals_of
from ascend_doctor.sourceref import internal_citation

SCHEMA_VERSION = 1
CATEGORIES = (
    "driver", "runtime", "hccl", "operator", "torch_npu", "oom", "env", "device", "container",
    "serving", "model",
)
ID_RE = lazy_re(r"^SIG-[A-Z0-9]+(?:-[A-Z0-9]+)+$")
DATE_RE = lazy_re(r"^\d{4}-\d{2}-\d{2}$")
MAX_DB_BYTES = 2 * 1024 * 1024

_REQUIRED = ("id", "pattern", "title", "meaning", "causes", "check_next", "fix", "specificity",
             "category", "source")
_OPTIONAL = ("generic", "fault", "family", "harmless")
# Context rules (docs/signatures.md "Context"): lists of other signature ids, judged per incident.
_CONTEXT = ("after_any", "requires_any", "unless_any", "overrides")

# Regex features that Python accepts but `grep -E` does not (or treats differently).
_NON_ERE = (
    (re.compile(r"\\[dDAZ]"), r"use [0-9] instead of \d (and no \A/\Z): the pattern must work with grep -E"),
    (re.compile(r"\(\?"), "no (?...) groups or flags: the pattern must work with grep -E"),
    (re.compile(r"[*+?}]\?"), "no lazy quantifiers: the pattern must work with grep -E"),
)


class SignatureDBError(Exception):
    """The database cannot be used; ``problems`` holds one ``file:line: message`` per issue."""

    def __init__(self, problems: List[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class Signature(Struct, frozen=True, dict=True):  # dict: the cached ``regex``
    id: str
    pattern: str
    title: str
    meaning: str
    causes: Tuple[str, ...]
    check_next: Tuple[str, ...]
    fix: Tuple[str, ...]
    specificity: int
    category: str
    source: Tuple[str, ...]
    generic: bool = False
    fault: bool = False
    # A code family (``EL[0-8][0-9]{3}``): reported only on lines where no other signature
    # matched, so the specific entry of a known code always wins over its family.
    family: bool = False
    # Context rules, judged within one incident (logscan/incidents.py): the entry counts only when
    # one of ``after_any`` matched on or before its first line, when one of ``requires_any`` matched
    # anywhere, and when none of ``unless_any`` matched; when it counts, the ``overrides`` entries
    # become its secondary symptoms (the same line read in its context says more than alone).
    after_any: Tuple[str, ...] = ()
    requires_any: Tuple[str, ...] = ()
    unless_any: Tuple[str, ...] = ()
    overrides: Tuple[str, ...] = ()
    # A line the signature's own text calls harmless (a fallback the runtime takes by itself): the log
    # checks grade it INFO, never WARN.
    harmless: bool = False
    line: int = 0  # where the entry starts in the YAML file (1-based)
    literals: FrozenSet[str] = frozenset()  # derived from ``pattern``

    @functools.cached_property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern. Compiled on first use: a scan compiles only the patterns whose
        prefilter literal occurs in the input (the loader has already checked that it parses)."""
        return re.compile(self.pattern)

    @property
    def fix_text(self) -> str:
        return "\n".join(self.fix)


class SignatureDB(Struct, frozen=True):
    schema_version: int
    version: str
    date: str
    signatures: Tuple[Signature, ...]
    path: str = ""

    def get(self, sig_id: str) -> Optional[Signature]:
        for sig in self.signatures:
            if sig.id == sig_id:
                return sig
        return None

    def __len__(self) -> int:
        return len(self.signatures)


def default_path() -> str:
    """The database shipped with the package."""
    import ascend_doctor.compat_matrix as pkg

    return os.path.join(os.path.dirname(os.path.abspath(pkg.__file__)), "signatures.yaml")


@functools.lru_cache(maxsize=4)
def _load_cached(path: str, mtime_ns: int, size: int) -> SignatureDB:
    return _load_uncached(path)


def load_signatures(path: Optional[str] = None) -> SignatureDB:
    """Load and validate the database; raises SignatureDBError with every problem found."""
    path = path or default_path()
    try:
        st = os.stat(path)
    except OSError as exc:
        raise SignatureDBError([f"{path}: cannot read: {exc.strerror or exc}"]) from exc
    return _load_cached(path, st.st_mtime_ns, st.st_size)


def _load_uncached(path: str) -> SignatureDB:
    if path == default_path():  # the shipped database: its compiled form while it matches the YAML
        from ascend_doctor.datacache import signature_db

        compiled: Optional[SignatureDB] = signature_db(path)
        if compiled is not None:
            return compiled
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_DB_BYTES + 1)
    except OSError as exc:
        raise SignatureDBError([f"{path}: cannot read: {exc.strerror or exc}"]) from exc
    if len(data) > MAX_DB_BYTES:
        raise SignatureDBError([f"{path}: larger than {MAX_DB_BYTES} bytes, refusing to parse"])
    db, problems = parse_signatures(data.decode("utf-8", errors="replace"), path)
    if problems or db is None:
        raise SignatureDBError(problems or [f"{path}: no signatures"])
    return db


# -- YAML with line numbers ----------------------------------------------------------------------


class _Located:
    """A YAML value with the line it came from."""

    __slots__ = ("line", "value")

    def __init__(self, value: Any, line: int) -> None:
        self.value = value
        self.line = line


def _compose(text: str, path: str) -> Tuple[Optional[_Located], List[str]]:
    import yaml  # on use: a process that scans no log never needs PyYAML for this

    from ascend_doctor import boundedyaml
    from ascend_doctor.boundedjson import TooComplex

    try:
        # libyaml's loader when present (same line marks, ~5x faster); nesting and aliases bounded.
        root = boundedyaml.compose(text, what="the file", max_aliases=0)
    except TooComplex as exc:
        return None, [f"{path}: {exc}"]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else path
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [f"{where}: invalid YAML: {problem}"]
    except RecursionError:
        return None, [f"{path}: invalid YAML: nested too deeply"]
    if root is None:
        return None, [f"{path}:1: empty file"]
    converter = _Converter(path)
    try:
        return converter.convert(root), converter.problems
    except RecursionError:
        return None, [f"{path}: nested too deeply (the database is a list of flat entries)"]


_STR_TAG = "tag:yaml.org,2002:str"


class _Converter:
    """Turns the composed YAML nodes of one file into ``_Located`` values."""

    def __init__(self, path: str) -> None:
        import yaml

        self.yaml = yaml
        self.path = path
        self.problems: List[str] = []
        self.seen: Set[int] = set()
        # One constructor for the whole file is enough: each node is converted once (aliases
        # are refused), so no constructed value carries over from one scalar to another.
        self.constructor = yaml.constructor.SafeConstructor()

    def convert(self, node: Any) -> _Located:
        yaml, path, problems = self.yaml, self.path, self.problems
        line = node.start_mark.line + 1
        if id(node) in self.seen:  # an alias: refuse, so a hostile file cannot expand exponentially
            problems.append(f"{path}:{line}: YAML anchors/aliases are not allowed")
            return _Located(None, line)
        self.seen.add(id(node))
        if isinstance(node, yaml.ScalarNode) and node.tag == _STR_TAG:
            # What the safe constructor would return for a string, without its bookkeeping.
            return _Located(node.value, line)
        if isinstance(node, yaml.MappingNode):
            out: Dict[str, _Located] = {}
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
                if not isinstance(key, str):
                    problems.append(f"{path}:{key_node.start_mark.line + 1}: keys must be plain strings")
                    continue
                if key in out:
                    problems.append(f"{path}:{key_node.start_mark.line + 1}: duplicate key {key!r}")
                out[key] = self.convert(value_node)
            return _Located(out, line)
        if isinstance(node, yaml.SequenceNode):
            return _Located([self.convert(item) for item in node.value], line)
        # Other scalars: resolve with the safe constructor so ints/bools/nulls come out typed.
        try:
            value = self.constructor.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            problems.append(f"{path}:{line}: {exc}")
            value = None
        return _Located(value, line)


# -- validation -------------------------------------------------------------------------------


def parse_signatures(text: str, path: str = "<signatures>") -> Tuple[Optional[SignatureDB], List[str]]:
    """Parse and validate database text. Returns (db or None, problems)."""
    root, problems = _compose(text, path)
    if root is None:
        return None, problems
    if not isinstance(root.value, dict):
        return None, problems + [f"{path}:{root.line}: top level must be a mapping"]
    top: Dict[str, _Located] = root.value
    for key in top:
        if key not in ("schema_version", "version", "date", "signatures"):
            problems.append(f"{path}:{top[key].line}: unknown top-level key {key!r}")
    schema = top.get("schema_version")
    if schema is None:
        problems.append(f"{path}:{root.line}: missing schema_version")
    elif schema.value != SCHEMA_VERSION or isinstance(schema.value, bool):
        problems.append(f"{path}:{schema.line}: schema_version must be {SCHEMA_VERSION}")
    version = _text_field(top, "version", path, root.line, problems)
    date = _text_field(top, "date", path, root.line, problems)
    if date and not DATE_RE.match(date):
        problems.append(f"{path}:{top['date'].line}: date must be YYYY-MM-DD")
    entries = top.get("signatures")
    if entries is None or not isinstance(entries.value, list) or not entries.value:
        line = entries.line if entries is not None else root.line
        return None, problems + [f"{path}:{line}: 'signatures' must be a non-empty list"]
    signatures: List[Signature] = []
    ids: Dict[str, int] = {}
    for item in entries.value:
        sig = _signature(item, path, problems)
        if sig is None:
            continue
        if sig.id in ids:
            problems.append(f"{path}:{sig.line}: duplicate id {sig.id} (first at line {ids[sig.id]})")
            continue
        ids[sig.id] = sig.line
        signatures.append(sig)
    for sig in signatures:
        for key in _CONTEXT:
            for ref in getattr(sig, key):
                if ref not in ids:
                    problems.append(f"{path}:{sig.line}: {key} names {ref}, which is not a signature id")
                elif ref == sig.id:
                    problems.append(f"{path}:{sig.line}: {key} names the entry itself")
    if problems:
        return None, problems
    return SignatureDB(SCHEMA_VERSION, version or "", date or "", tuple(signatures), path), []


def _text_field(mapping: Dict[str, _Located], key: str, path: str, line: int, problems: List[str]) -> str:
    item = mapping.get(key)
    if item is None:
        problems.append(f"{path}:{line}: missing {key}")
        return ""
    if not isinstance(item.value, str) or not item.value.strip():
        problems.append(f"{path}:{item.line}: {key} must be a non-empty string")
        return ""
    return item.value


def _string_list(
    item: _Located, key: str, path: str, problems: List[str], allow_scalar: bool = False
) -> Tuple[str, ...]:
    value = item.value
    if allow_scalar and isinstance(value, str):
        value = [_Located(value, item.line)]
    if not isinstance(value, list) or not value:
        problems.append(f"{path}:{item.line}: {key} must be a non-empty list of strings")
        return ()
    out: List[str] = []
    for element in value:
        if not isinstance(element.value, str) or not element.value.strip():
            problems.append(f"{path}:{element.line}: {key} entries must be non-empty strings")
            continue
        out.append(element.value)
    return tuple(out)


def _signature(item: _Located, path: str, problems: List[str]) -> Optional[Signature]:
    line = item.line
    if not isinstance(item.value, dict):
        problems.append(f"{path}:{line}: each signature must be a mapping")
        return None
    fields: Dict[str, _Located] = item.value
    before = len(problems)
    for key in fields:
        if key not in _REQUIRED and key not in _OPTIONAL and key not in _CONTEXT:
            problems.append(f"{path}:{fields[key].line}: unknown key {key!r}")
    for key in _REQUIRED:
        if key not in fields:
            problems.append(f"{path}:{line}: missing {key}")
    if len(problems) > before:
        return None

    sig_id = fields["id"].value
    if not isinstance(sig_id, str) or not ID_RE.match(sig_id):
        problems.append(f"{path}:{fields['id'].line}: id must look like SIG-<AREA>-<NAME> (upper case), got {sig_id!r}")
        sig_id = str(sig_id)
    for key in ("title", "meaning", "pattern"):
        if not isinstance(fields[key].value, str) or not fields[key].value.strip():
            problems.append(f"{path}:{fields[key].line}: {key} must be a non-empty string")
    category = fields["category"].value
    if category not in CATEGORIES:
        problems.append(f"{path}:{fields['category'].line}: category must be one of {', '.join(CATEGORIES)}")
    specificity = fields["specificity"].value
    if isinstance(specificity, bool) or not isinstance(specificity, int) or not 0 <= specificity <= 100:
        problems.append(f"{path}:{fields['specificity'].line}: specificity must be an integer 0..100")
        specificity = 0
    flags = {}
    for key in _OPTIONAL:
        value = fields[key].value if key in fields else False
        if not isinstance(value, bool):
            problems.append(f"{path}:{fields[key].line}: {key} must be true or false")
            value = False
        flags[key] = value
    causes = _string_list(fields["causes"], "causes", path, problems)
    check_next = _string_list(fields["check_next"], "check_next", path, problems)
    fix = _string_list(fields["fix"], "fix", path, problems)
    source = _string_list(fields["source"], "source", path, problems, allow_scalar=True)
    context = {key: _string_list(fields[key], key, path, problems) if key in fields else () for key in _CONTEXT}
    for ref in source:
        if not (ref.startswith(("https://", "http://")) or _looks_like_repo_path(ref)):
            problems.append(f"{path}:{fields['source'].line}: source {ref!r} must be a URL or a repository path")
        elif internal_citation(ref) is not None:
            problems.append(f"{path}:{fields['source'].line}: source {ref!r} cites a project-internal "
                            f"{internal_citation(ref)}: cite the public page (issue, doc, repository) instead")

    pattern = fields["pattern"].value if isinstance(fields["pattern"].value, str) else ""
    parsed = _check_pattern(pattern, path, fields["pattern"].line, problems)
    literals = required_literals_of(parsed) if parsed is not None else None
    if len(problems) > before or parsed is None:
        return None
    return Signature(
        id=sig_id,
        pattern=pattern,
        title=fields["title"].value.strip(),
        meaning=fields["meaning"].value.strip(),
        causes=causes,
        check_next=check_next,
        fix=fix,
        specificity=int(specificity),
        category=category,
        source=source,
        generic=flags["generic"],
        fault=flags["fault"],
        family=flags["family"],
        after_any=context["after_any"],
        requires_any=context["requires_any"],
        unless_any=context["unless_any"],
        overrides=context["overrides"],
        harmless=flags["harmless"],
        line=line,
        literals=literals or frozenset(),
    )


def _looks_like_repo_path(ref: str) -> bool:
    return "/" in ref and " " not in ref and not ref.startswith("/") and ".." not in ref.split("/")


def _check_pattern(pattern: str, path: str, line: int, problems: List[str]) -> Any:
    """The parsed pattern, or None after recording why it is refused.

    Parsing is the stage of ``re.compile`` that rejects malformed patterns (with the same
    message); the rest of compiling waits for the first scan that needs the pattern.
    """
    if not pattern:
        return None
    for bad, why in _NON_ERE:
        if bad.search(pattern):
            problems.append(f"{path}:{line}: pattern {pattern!r}: {why}")
            return None
    try:
        parsed = parse_pattern(pattern)
    except (re.error, OverflowError, RecursionError) as exc:  # e.g. a{99999999999}, 2000 nested groups
        problems.append(f"{path}:{line}: pattern {pattern!r} does not compile: {exc}")
        return None
    if can_match_empty(parsed) and re.compile(pattern).search("") is not None:
        problems.append(f"{path}:{line}: pattern {pattern!r} matches the empty string (it would match every line)")
        return None
    return parsed
