"""The runner isolates checks: preconditions, NotApplicable, crashes, selection and exit codes."""

from __future__ import annotations

import importlib
from typing import Iterator, List

import pytest

from ascend_doctor import registry, runner
from ascend_doctor.checkapi import Check, CheckContext, CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.facts import FactUnavailable
from ascend_doctor.options import RunOptions
from ascend_doctor.report import Result, exit_code_for


class _Host:
    """The smallest host: nothing installed, nothing to run."""

    def info(self):  # type: ignore[no-untyped-def]
        from ascend_doctor.host.base import HostInfo

        return HostInfo("snapshot", "h", "aarch64", None, None)

    def run_many(self, commands, timeout=None):  # type: ignore[no-untyped-def]
        return [self.run(c) for c in commands]

    def run(self, argv, timeout=None):  # type: ignore[no-untyped-def]
        from ascend_doctor.host.base import CommandResult, CommandStatus

        return CommandResult(tuple(argv), CommandStatus.NOT_FOUND)

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        raise AttributeError(name)


def _spec(cid: str, requires: tuple = ()) -> CheckSpec:
    return CheckSpec(id=cid, title=cid, what="w", why="y", fix="f", requires=requires)


def _run_ok(ctx: CheckContext) -> Iterator[Finding]:
    yield Finding.passed("fine")


def _run_crash(ctx: CheckContext) -> Iterator[Finding]:
    raise ZeroDivisionError("boom")
    yield  # pragma: no cover


def _run_na(ctx: CheckContext) -> Iterator[Finding]:
    raise NotApplicable("not here")
    yield  # pragma: no cover


def _run_unavailable(ctx: CheckContext) -> Iterator[Finding]:
    raise FactUnavailable("npu-smi: command not found")
    yield  # pragma: no cover


def _run_empty(ctx: CheckContext) -> Iterator[Finding]:
    return iter(())


@pytest.fixture
def fake_catalogue(monkeypatch: pytest.MonkeyPatch) -> List[Check]:
    checks = [
        Check(_spec("ASC-TST-001"), _run_ok, "t1"),
        Check(_spec("ASC-TST-002"), _run_crash, "t2"),
        Check(_spec("ASC-TST-003"), _run_na, "t3"),
        Check(_spec("ASC-TST-004"), _run_unavailable, "t4"),
        Check(_spec("ASC-TST-005", ("model",)), _run_ok, "t5"),
        Check(_spec("ASC-TST-006", ("no-such-precondition",)), _run_ok, "t6"),
        Check(_spec("ASC-TST-007"), _run_empty, "t7"),
    ]
    monkeypatch.setattr(runner, "load_catalogue", lambda: (checks, ["ascend_doctor.checks.bad: cannot be imported"]))
    monkeypatch.setattr(runner, "_facts_section", lambda facts: {})
    return checks


def _statuses(report) -> dict:  # type: ignore[no-untyped-def]
    return {r.id: r.status for r in report.results}


def test_each_outcome_is_isolated(fake_catalogue: List[Check]) -> None:
    report = runner.run_checks(_Host(), None, RunOptions())  # type: ignore[arg-type]
    got = _statuses(report)
    assert got["ASC-TST-001"] is Status.PASS
    assert got["ASC-TST-002"] is Status.ERROR
    crash = next(r for r in report.results if r.id == "ASC-TST-002")
    assert "ZeroDivisionError: boom" in crash.message and crash.evidence["exception"] == "ZeroDivisionError"
    assert got["ASC-TST-003"] is Status.SKIP
    assert got["ASC-TST-004"] is Status.SKIP
    assert got["ASC-TST-005"] is Status.SKIP  # no --model
    assert got["ASC-TST-006"] is Status.ERROR  # unknown precondition is a bug, reported
    assert got["ASC-TST-007"] is Status.ERROR  # a check must say something
    assert got["ASC-CORE-001"] is Status.ERROR  # the module that failed to load
    assert report.exit_code is ExitCode.INCOMPLETE


def test_select_and_ignore_are_prefixes(fake_catalogue: List[Check]) -> None:
    report = runner.run_checks(_Host(), None, RunOptions(select=("asc-tst-00",), ignore=("ASC-TST-002",)))  # type: ignore[arg-type]
    ids = {r.id for r in report.results}
    assert "ASC-TST-002" not in ids and "ASC-TST-001" in ids


def test_exit_codes() -> None:
    def res(status: Status) -> Result:
        return Result("ASC-X-001", "t", status, "m")

    assert exit_code_for([res(Status.PASS), res(Status.SKIP)]) is ExitCode.OK
    assert exit_code_for([res(Status.WARN)]) is ExitCode.OK
    assert exit_code_for([res(Status.WARN)], "warn") is ExitCode.FINDINGS
    assert exit_code_for([res(Status.FAIL), res(Status.ERROR)]) is ExitCode.FINDINGS
    assert exit_code_for([res(Status.ERROR), res(Status.WARN)]) is ExitCode.INCOMPLETE
    assert exit_code_for([]) is ExitCode.INCOMPLETE  # nothing judged is never "ready" (hostile_inputs_2.md, 9)


def test_real_catalogue_is_well_formed() -> None:
    checks, problems = registry.load_catalogue()
    assert not problems, problems
    ids = [c.spec.id for c in checks]
    assert len(ids) == len(set(ids))
    for check in checks:
        spec = check.spec
        assert spec.id.startswith("ASC-")
        assert len(spec.what) > 20 and len(spec.why) > 20 and len(spec.fix) > 10, spec.id
        assert check.module.rsplit(".", 1)[-1].split("_")[0].upper() == spec.area, (check.module, spec.id)


def test_every_declared_fact_has_its_provider_with_declared_reads() -> None:
    """The Facts class body is the registry: each declaration names the module whose function of
    the same name provides it, marked with @provider (which carries what it reads)."""
    import pkgutil

    import ascend_doctor.facts as facts_pkg
    from ascend_doctor.facts import Facts
    from ascend_doctor.facts.reads import Reads

    declared = Facts.declared()
    assert declared
    for name, fact in declared.items():
        func = fact.provider()
        assert func.__name__ == name and func.__module__ == fact.module, name
        assert isinstance(fact.reads(), Reads), name
    # no provider module defines a provider that the registry does not declare
    for mod in pkgutil.iter_modules(facts_pkg.__path__):
        module = importlib.import_module(f"ascend_doctor.facts.{mod.name}")
        for attr, value in vars(module).items():
            if callable(value) and "fact_reads" in getattr(value, "__dict__", {}):
                assert attr in declared and declared[attr].module == module.__name__, attr


def _code_only(source: str) -> str:
    """The source with every string literal blanked: a remediation may tell the user to run
    ``python3 -c "...open(p)..."``; only code that runs in the check matters here."""
    import io
    import tokenize

    # From Python 3.12 (PEP 701) an f-string is tokens of its own: its literal text is FSTRING_MIDDLE
    # (its {fields} are code, and stay); before 3.12 the whole f-string is one STRING.
    literal = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    lines = source.splitlines(keepends=True)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in literal:
            continue
        (row, col), (end_row, end_col) = token.start, token.end
        for number in range(row, end_row + 1):
            line = lines[number - 1]
            start = col if number == row else 0
            stop = end_col if number == end_row else len(line.rstrip("\n"))
            lines[number - 1] = line[:start] + " " * (stop - start) + line[stop:]
    return "".join(lines)


def test_checks_judge_facts_and_never_touch_the_host() -> None:
    """Probe -> parse -> judge: a check reads facts and the matrix; only providers use the host."""
    import re
    from pathlib import Path

    checks_dir = Path(__file__).resolve().parent.parent / "checks"
    forbidden = re.compile(r"facts\.host\b|^\s*import (subprocess|psutil|socket)\b|^\s*from (subprocess|psutil) |"
                           r"\bopen\(|\bos\.(path|listdir|stat|scandir)\b", re.MULTILINE)
    offenders = []
    for path in sorted(checks_dir.glob("*.py")):
        for match in forbidden.finditer(_code_only(path.read_text(encoding="utf-8"))):
            offenders.append(f"{path.name}: {match.group(0).strip()}")
    assert not offenders, "checks must go through facts:\n" + "\n".join(offenders)
