"""The signature database: shipped file is valid and sourced; bad files give file:line errors."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any, Dict, List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.logscan.literals import MIN_NEEDLE, plan_needles, required_literals, trie_pattern
from ascend_doctor.logscan.signatures import (
    CATEGORIES,
    SignatureDBError,
    default_path,
    load_signatures,
    parse_signatures,
)

REPO = Path(__file__).resolve().parent.parent

GOOD_ENTRY = """\
  - id: SIG-TEST-ONE
    category: runtime
    pattern: 'EL9999|some text'
    title: "t"
    meaning: "m"
    causes: ["c"]
    check_next: ["npu-smi info"]
    fix: ["echo fix"]
    specificity: 10
    source: "https://example.invalid/doc"
"""


def db_text(entries: str = GOOD_ENTRY, head: str = 'schema_version: 1\nversion: "1"\ndate: "2026-01-01"\n') -> str:
    return head + "signatures:\n" + entries


def problems_of(text: str) -> List[str]:
    db, problems = parse_signatures(text, "sig.yaml")
    assert db is None, "expected the text to be rejected"
    return problems


def test_shipped_database_loads() -> None:
    db = load_signatures()
    assert len(db) >= 90
    assert db.schema_version == 1 and db.version and db.date
    assert {sig.category for sig in db.signatures} <= set(CATEGORIES)
    assert len({sig.id for sig in db.signatures}) == len(db)


def test_issue_codes_are_covered() -> None:
    """The codes the issue names each have a signature that matches them."""
    db = load_signatures()
    lines = [f"EL{n:04d}: x" for n in range(1, 16)] + [
        "EE1001 x", "error code is 507033", "ErrCode=507899", "error code is 207004", "EI0002: x", "EI0006: x",
        "Getting socket times out", "EZ1001 x", "EZ9999 x", "call aclnnInplaceZero failed, error code is 561103",
        "ERR00100 PTA call acl api failed", "ERR99999 UNKNOWN applicaiton exception",
        "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB",
        "OSError: libatb.so: cannot open shared object file: No such file or directory",
        "ASCEND_OPP_PATH environment variable is not set.", "Heartbeat Lost Occurred",
        "PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer",
        "dcmi module initialize failed. ret is -8005",
        "dcmi model initialized failed, because the device is used. ret is -8020",
    ]
    for line in lines:
        assert any(sig.regex.search(line) for sig in db.signatures), f"no signature matches {line!r}"


def test_every_entry_is_sourced() -> None:
    for sig in load_signatures().signatures:
        assert sig.source, sig.id
        for ref in sig.source:
            if ref.startswith(("https://", "http://")):
                continue
            assert (REPO / ref).is_file(), f"{sig.id}: source {ref} is not a file of this repository"


def test_every_entry_is_complete() -> None:
    for sig in load_signatures().signatures:
        assert sig.causes and sig.check_next and sig.fix, sig.id
        assert sig.title and sig.meaning, sig.id


def test_every_pattern_has_a_prefilter_literal() -> None:
    """A signature without a literal is checked on every line: slow. Keep every pattern literal-led."""
    for sig in load_signatures().signatures:
        assert sig.literals, f"{sig.id}: no required literal in {sig.pattern!r}"
        assert min(len(lit) for lit in sig.literals) >= MIN_NEEDLE, (sig.id, sig.literals)


@pytest.mark.skipif(shutil.which("grep") is None, reason="grep not installed")
def test_patterns_work_with_grep_extended(tmp_path: Path) -> None:
    db = load_signatures()
    for sig in db.signatures:
        pattern_file = tmp_path / "p.txt"
        pattern_file.write_text(sig.pattern + "\n", encoding="utf-8")
        done = subprocess.run(["grep", "-E", "-c", "-f", str(pattern_file), "/dev/null"],
                              capture_output=True, text=True, timeout=10)
        assert done.returncode in (0, 1), f"{sig.id}: grep -E rejects {sig.pattern!r}: {done.stderr}"


def test_required_literals() -> None:
    assert required_literals("EL0004") == {"EL0004"}
    assert required_literals(r"\b507033\b") == {"507033"}
    # The regex parser factors out the common prefix "ret": each alternative still holds a literal.
    alternation = required_literals("ret is -8020|retCode: -8020")
    assert alternation is not None
    for text in ("ret is -8020", "retCode: -8020"):
        assert any(lit in text for lit in alternation)
    assert required_literals(r"aclmdlLoadFromFile: .*failed") == {"aclmdlLoadFromFile: "}
    assert required_literals("a(bc)?d") in ({"a"}, {"d"})
    assert required_literals("[0-9]+") is None
    assert required_literals("(") is None


def test_needle_plan_covers_every_literal() -> None:
    literals = {lit for sig in load_signatures().signatures for lit in sig.literals}
    plan = plan_needles(literals)
    for lit in literals:
        needles = plan.needles_of[lit]
        assert needles and all(n in lit for n in needles), lit
    for pivot, group in plan.by_pivot.items():
        assert all(n.startswith(pivot) for n in group)


def _nested_trie_pattern(words: List[str]) -> str:
    """The pattern trie_pattern makes, the obvious way: a trie of nested dicts."""
    import re

    root: Dict[str, Any] = {}
    for word in words:
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: Dict[str, Any]) -> str:
        keys = sorted(k for k in node if k)
        if not keys:
            return ""
        alternatives = [re.escape(k) + build(node[k]) for k in keys]
        body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        return "(?:" + body + ")?" if "" in node else body

    return build(root)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="ab.(\\é\n", max_size=5), max_size=8))
def test_trie_pattern_is_the_nested_trie(words: List[str]) -> None:
    assert trie_pattern(words) == _nested_trie_pattern(words)


def test_trie_pattern_of_the_shipped_needles_is_the_nested_trie() -> None:
    db = load_signatures()
    plan = plan_needles({lit for sig in db.signatures for lit in sig.literals})
    for needles in plan.by_pivot.values():
        assert trie_pattern(needles) == _nested_trie_pattern(list(needles))


def test_trie_pattern_matches_exactly_its_words() -> None:
    import re

    words = ["EL0004", "EL0005", "EE1001", "E", "x.y"]
    regex = re.compile(trie_pattern(words))
    for word in words:
        assert regex.fullmatch(word)
    assert not regex.fullmatch("EL0006")
    assert not regex.fullmatch("xzy")


def test_default_path_is_packaged() -> None:
    assert Path(default_path()).is_file()


# -- rejected files, each with file:line --------------------------------------------------------


def test_good_minimal_file() -> None:
    db, problems = parse_signatures(db_text(), "sig.yaml")
    assert problems == [] and db is not None
    sig = db.get("SIG-TEST-ONE")
    assert sig is not None and sig.line == 5 and sig.source == ("https://example.invalid/doc",)


@pytest.mark.parametrize("entry_change,expected", [
    (("specificity: 10", "specificity: 1000"), "sig.yaml:13: specificity must be an integer 0..100"),
    (("specificity: 10", "specificity: true"), "sig.yaml:13: specificity must be an integer 0..100"),
    (("category: runtime", "category: cuda"), "sig.yaml:6: category must be one of"),
    (("id: SIG-TEST-ONE", "id: sig-test"), "sig.yaml:5: id must look like"),
    (("pattern: 'EL9999|some text'", r"pattern: '\d+ failed'"), r"sig.yaml:7: pattern '\\d+ failed': use [0-9]"),
    (("pattern: 'EL9999|some text'", "pattern: '(?i)abc'"), "sig.yaml:7: pattern '(?i)abc': no (?...)"),
    (("pattern: 'EL9999|some text'", "pattern: 'abc+?'"), "lazy quantifiers"),
    (("pattern: 'EL9999|some text'", "pattern: 'abc('"), "does not compile"),
    (("pattern: 'EL9999|some text'", "pattern: 'x*'"), "matches the empty string"),
    (("pattern: 'EL9999|some text'", "pattern: ''"), "sig.yaml:7: pattern must be a non-empty string"),
    (('causes: ["c"]', "causes: []"), "sig.yaml:10: causes must be a non-empty list"),
    (('causes: ["c"]', 'causes: ["c", 3]'), "sig.yaml:10: causes entries must be non-empty strings"),
    (('fix: ["echo fix"]', 'fix: "echo fix"'), "sig.yaml:12: fix must be a non-empty list"),
    (('source: "https://example.invalid/doc"', 'source: "my notes"'), "must be a URL or a repository path"),
    (('source: "https://example.invalid/doc"', 'source: "/etc/passwd"'), "must be a URL or a repository path"),
    (("    specificity: 10\n", "    specificity: 10\n    severity: high\n"), "sig.yaml:14: unknown key 'severity'"),
    (("    specificity: 10\n", "    specificity: 10\n    fault: yes please\n"),
     "sig.yaml:14: fault must be true or false"),
    (('    title: "t"\n', ""), "sig.yaml:5: missing title"),
])
def test_bad_entry(entry_change: tuple, expected: str) -> None:
    old, new = entry_change
    assert old in GOOD_ENTRY
    problems = problems_of(db_text(GOOD_ENTRY.replace(old, new)))
    assert any(expected in p for p in problems), problems


def test_duplicate_id_names_both_lines() -> None:
    problems = problems_of(db_text(GOOD_ENTRY + GOOD_ENTRY))
    assert problems == ["sig.yaml:15: duplicate id SIG-TEST-ONE (first at line 5)"]


def test_duplicate_key() -> None:
    problems = problems_of(db_text(GOOD_ENTRY.replace('    title: "t"\n', '    title: "t"\n    title: "u"\n')))
    assert any("sig.yaml:9: duplicate key 'title'" in p for p in problems), problems


@pytest.mark.parametrize("text,expected", [
    ("", "sig.yaml:1: empty file"),
    ("- a\n- b\n", "top level must be a mapping"),
    ("signatures: [\n", "sig.yaml:2: invalid YAML"),
    ('schema_version: 2\nversion: "1"\ndate: "2026-01-01"\nsignatures:\n' + GOOD_ENTRY, "schema_version must be 1"),
    ('version: "1"\ndate: "2026-01-01"\nsignatures:\n' + GOOD_ENTRY, "missing schema_version"),
    ('schema_version: 1\nversion: "1"\ndate: "01/01/2026"\nsignatures:\n' + GOOD_ENTRY, "date must be YYYY-MM-DD"),
    ('schema_version: 1\nversion: "1"\ndate: "2026-01-01"\nsignatures: []\n', "'signatures' must be a non-empty list"),
    ('schema_version: 1\nversion: "1"\ndate: "2026-01-01"\nextra: 1\nsignatures:\n' + GOOD_ENTRY,
     "sig.yaml:4: unknown top-level key 'extra'"),
    ('schema_version: 1\nversion: "1"\ndate: "2026-01-01"\nsignatures:\n  - 42\n', "each signature must be a mapping"),
])
def test_bad_file(text: str, expected: str) -> None:
    problems = problems_of(text)
    assert any(expected in p for p in problems), problems


def test_alias_bomb_is_refused_quickly() -> None:
    bomb = textwrap.dedent("""\
        a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
        d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
        e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
        f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
        g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
        signatures: [*g, *g, *g, *g, *g, *g, *g, *g, *g]
        """)
    problems = problems_of(bomb)
    assert any("anchors/aliases are not allowed" in p for p in problems)


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SignatureDBError) as info:
        load_signatures(str(tmp_path / "nope.yaml"))
    assert "cannot read" in info.value.problems[0]


def test_load_reports_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "sig.yaml"
    path.write_text(db_text(GOOD_ENTRY.replace("category: runtime", "category: gpu")), encoding="utf-8")
    with pytest.raises(SignatureDBError) as info:
        load_signatures(str(path))
    assert info.value.problems[0].startswith(f"{path}:6: category must be one of")


def test_load_refuses_huge_file(tmp_path: Path) -> None:
    path = tmp_path / "sig.yaml"
    path.write_bytes(b"#" * (3 * 1024 * 1024))
    with pytest.raises(SignatureDBError) as info:
        load_signatures(str(path))
    assert "refusing to parse" in info.value.problems[0]
