"""Issue 21, item 3, read from the source: a check does not write a command as an f-string around a value.

An f-string whose text starts with a command word (``mv ``, ``hccn_tool ``, ``./``...) may hold only values
that cannot carry shell syntax: a call that quotes or shapes (``argv``, ``quote``, ``shaped``...), a constant
(an UPPER_CASE name), or an integer field the parsers produce (a device, NPU or chip id). Anything else is a
value read from a machine until shown otherwise: build the command with ``ascend_doctor.shellcmd``, or add the
expression to ``REVIEWED`` with the reason it is safe. tests/test_injection_payloads.py runs the commands; this
test catches a new f-string command before a fixture happens to print it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import FrozenSet, Iterator, List, Tuple

from .payload_util import SPAN_STARTS

CHECKS = Path(__file__).resolve().parent.parent / "checks"
COMMAND_STARTS = (*SPAN_STARTS, "./")

# Calls that return a quoted word, a shaped value or a command shellcmd built.
QUOTING_CALLS = frozenset({"argv", "quote", "shell_quote", "q", "_q", "shaped", "one_line", "comment", "export",
                           "source", "pipe", "chain", "with_comment", "convention_flags"})
# Integer fields of the parsed records (npu-smi and hccn_tool ids are ints there), under the names checks use.
INTEGER_FIELDS = frozenset({"n", "d", "device_id", "npu_id", "chip_id", "dev.npu_id", "dev.chip_id"})

# (file, expression): why the value cannot carry shell syntax.
REVIEWED = {
    ("_model_fixes.py", "q"): "q = shell_quote(path) two lines above",
    ("_stack_help.py", "name"): "a file name the matrix's template made from a version fits() checked",
    ("_stack_help.py", "action"): "the caller's literal flags (--install, --upgrade)",
    ("_stack_help.py", "package.firmware.replace('{firmware}', '<firmware>')"): "the matrix's file-name template",
    ("ctr_003_visible_devices_scope.py", "flags"): "--device flags made from integer device ids",
    ("drv_003_run_user_group.py", "gid"): "pipe(argv(...), argv(...)) above",
    ("mdl_003_flash_attn.py", "targets"): "shell_quote() of each path, joined",
    ("flt_009_hccl_environment.py", "name"): "a variable name of the drift table (fleet/drift.py), not a value",
}

# Files the lead is rewriting around the resolver (issue 21 item 2): the payload test lists their live sinks
# in LEAD_OWNED_SINKS; this test reads them again once the lead removes a file from this set.
LEAD_OWNED_FILES: FrozenSet[str] = frozenset()


def _call_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return ""


def _safe(expr: ast.expr, file: str) -> bool:
    text = ast.unparse(expr)
    if isinstance(expr, ast.Constant) or text in INTEGER_FIELDS or (file, text) in REVIEWED:
        return True
    if isinstance(expr, (ast.Name, ast.Attribute)):
        leaf = expr.id if isinstance(expr, ast.Name) else expr.attr
        return leaf.isupper()
    return _call_name(expr) in QUOTING_CALLS


def unquoted_values(path: Path) -> Iterator[Tuple[int, str, str]]:
    """(line, the f-string's start, the expression) for each value an f-string command holds unchecked."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant)):
            continue
        head = str(node.values[0].value).lstrip()
        if not head.startswith(COMMAND_STARTS):
            continue
        for part in node.values:
            if isinstance(part, ast.FormattedValue) and not _safe(part.value, path.name):
                yield node.lineno, head[:40], ast.unparse(part.value)


def test_no_check_writes_a_command_around_an_unchecked_value() -> None:
    found: List[str] = []
    for path in sorted(CHECKS.glob("*.py")):
        if path.name in LEAD_OWNED_FILES:
            continue
        found += [f"checks/{path.name}:{line}: {{{expr}}} in {head!r}" for line, head, expr in unquoted_values(path)]
    assert not found, "build these commands with ascend_doctor.shellcmd (or review them in REVIEWED):\n" + \
        "\n".join(found)


def test_the_reviewed_list_names_live_code() -> None:
    """An entry whose expression no longer appears is stale: remove it."""
    live = {(path.name, expr) for path in sorted(CHECKS.glob("*.py")) for _l, _h, expr in _all_values(path)}
    assert not set(REVIEWED) - live


def _all_values(path: Path) -> Iterator[Tuple[int, str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    yield node.lineno, "", ast.unparse(part.value)


def test_the_detector_sees_a_hostile_fstring(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('def f(path, n):\n    return f"mv {path} /tmp/", f"hccn_tool -i {n} -ip -g"\n', encoding="utf-8")
    assert [expr for _line, _head, expr in unquoted_values(sample)] == ["path"]
