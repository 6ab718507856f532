#!/usr/bin/env python3
"""Count the uses of ``typing.Any`` in the checks and the facts (issue 23, "typed contexts").

    python tools/count_any.py              # the working tree: per file, then the total
    python tools/count_any.py --rev main   # a git revision, read with `git show` (no checkout)
    python tools/count_any.py --total      # the total only

A use is the name ``Any`` (or the attribute ``typing.Any`` / ``t.Any``) in the code, as the
parser sees it: the import that brings the name in, comments and strings do not count, since
they type nothing. An annotation written as a string (``"Dict[str, Any]"``) is parsed too, so
quoting a type cannot hide it.

The folders counted are ``checks/*.py`` and ``ascend_doctor/facts/**/*.py``: where a check reads
its facts. tests/test_count_any.py holds the total under a ceiling so that it cannot grow again.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set

ROOT = Path(__file__).resolve().parent.parent
# (folder, pattern, recursive): checks/ is flat; facts/ may grow sub-packages.
FOLDERS = (("checks", "*.py", False), ("ascend_doctor/facts", "*.py", True))


def count_module(source: str) -> int:
    """Uses of ``Any`` in one module's source (0 for a module that does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return 0
    quoted = _annotation_strings(tree)
    return _count_in_tree(tree, quoted)


def _count_in_tree(tree: ast.AST, quoted: Set[int]) -> int:
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "Any":
            found += 1
        elif isinstance(node, ast.Attribute) and node.attr == "Any" and isinstance(node.value, ast.Name):
            found += 1  # typing.Any, t.Any
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) in quoted:
            found += _count_in_annotation_string(node.value)
    return found


def _count_in_annotation_string(text: str) -> int:
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return 0
    return _count_in_tree(tree, _every_string(tree))


def _every_string(tree: ast.AST) -> Set[int]:
    return {id(n) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _annotation_strings(tree: ast.AST) -> Set[int]:
    """The string constants that stand where a type goes (``x: "Dict[str, Any]"``, ``-> "Any"``, a string
    inside an annotation's subscript), so that a quoted ``Any`` counts like an unquoted one."""
    roots: List[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
            roots.extend(a.annotation for a in every if a.annotation is not None)
            if node.returns is not None:
                roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    return {i for root in roots for i in _every_string(root)}


def _in_scope(path: str) -> bool:
    for folder, pattern, recursive in FOLDERS:
        prefix = folder + "/"
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix):]
        if not recursive and "/" in rest:
            continue
        if fnmatch.fnmatch(rest.rsplit("/", 1)[-1], pattern):
            return True
    return False


def working_tree_files(root: Path) -> Dict[str, str]:
    found: Dict[str, str] = {}
    for folder, pattern, recursive in FOLDERS:
        base = root / folder
        paths = base.rglob(pattern) if recursive else base.glob(pattern)
        for path in paths:
            found[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
    return found


def revision_files(root: Path, rev: str) -> Dict[str, str]:
    """The counted files as they are in git revision ``rev`` (``git ls-tree`` and ``git show``)."""
    listing = _git(root, "ls-tree", "-r", "--name-only", rev, "--", *(f for f, _p, _r in FOLDERS))
    found: Dict[str, str] = {}
    for path in listing.splitlines():
        if _in_scope(path):
            found[path] = _git(root, "show", f"{rev}:{path}")
    return found


def _git(root: Path, *args: str) -> str:
    return subprocess.run(("git", *args), cwd=root, check=True, capture_output=True, text=True).stdout


def counts(files: Dict[str, str]) -> Dict[str, int]:
    return {path: count_module(source) for path, source in sorted(files.items())}


def total(root: Path = ROOT, rev: Optional[str] = None) -> int:
    return sum(counts(revision_files(root, rev) if rev else working_tree_files(root)).values())


def _print(per_file: Dict[str, int], show_files: bool) -> Iterable[str]:
    if show_files:
        for path, n in per_file.items():
            if n:
                yield f"{n:5d}  {path}"
    yield f"{sum(per_file.values()):5d}  total ({len(per_file)} files)"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rev", help="count a git revision instead of the working tree")
    parser.add_argument("--total", action="store_true", help="print the total only")
    args = parser.parse_args(argv)
    files = revision_files(ROOT, args.rev) if args.rev else working_tree_files(ROOT)
    for line in _print(counts(files), not args.total):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
