"""Every fixture pair (fixtures/pairs/*.yaml, tests/check_pairs.py) gives its check the statuses it names:
the pass case PASS, the fail case its FAIL, WARN or INFO."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ascend_doctor.cli import main

from . import check_pairs
from .clirunner import make_runner

PAIRS = check_pairs.pair_files()


def grade(folder: Path, check_id: str) -> List[str]:
    """The statuses ``check_id`` gives on a snapshot folder (one per scoped result)."""
    done = make_runner().invoke(main, ["check", "--from", str(folder), "--select", check_id, "--format", "json"],
                              catch_exceptions=False)
    assert done.exit_code in (0, 1, 3), done.output
    report: Dict[str, Any] = json.loads(done.stdout)
    return [r["status"] for r in report["results"] if r["id"] == check_id]


@pytest.mark.parametrize("pair", PAIRS, ids=[p.stem for p in PAIRS])
def test_pair(pair: Path, tmp_path: Path) -> None:
    check_id = check_pairs.load_pair(pair)["check"]
    for case, (folder, status) in check_pairs.materialise(pair, tmp_path).items():
        assert grade(folder, check_id) == [status], f"{pair.name}: {case}"


def test_a_pair_builds_two_machines_that_differ_only_in_its_files(tmp_path: Path) -> None:
    """The machinery on a shipped check, so it is tested even before any pair file exists."""
    pair = tmp_path / "sys_004_transparent_hugepages.yaml"
    thp = "/sys/kernel/mm/transparent_hugepage/enabled"
    pair.write_text(f"check: ASC-SYS-004\nbase: clean-a2-mindie\npass:\n  status: PASS\n  files:\n"
                    f"    {thp}: \"[always] madvise never\\n\"\nfail:\n  status: WARN\n  files:\n"
                    f"    {thp}: \"always [madvise] never\\n\"\n  env: {{HCCL_BUFFSIZE: '400'}}\n",
                    encoding="utf-8")
    built = check_pairs.materialise(pair, tmp_path / "out")
    assert {case: grade(folder, "ASC-SYS-004") for case, (folder, _status) in built.items()} == \
        {"pass": ["PASS"], "fail": ["WARN"]}
    fail_env = json.loads((built["fail"][0] / "env.json").read_text(encoding="utf-8"))
    assert fail_env["HCCL_BUFFSIZE"] == "400"
    assert not (built["pass"][0] / "expected.yaml").exists(), "a pair's machine is not a scenario of its own"


@pytest.mark.parametrize(("text", "problem"), [
    ("check: ASC-SYS-004\nbase: clean-a2-mindie\npass: {status: WARN}\nfail: {status: WARN}\n", "pass: status"),
    ("check: ASC-SYS-004\nbase: clean-a2-mindie\npass: {status: PASS}\nfail: {status: SKIP}\n", "fail: status"),
    ("check: ASC-SYS-004\nbase: clean-a2-mindie\npass: {status: PASS, file: {}}\nfail: {status: WARN}\n",
     "unknown keys"),
])
def test_a_malformed_pair_says_what_is_wrong(tmp_path: Path, text: str, problem: str) -> None:
    pair = tmp_path / "bad.yaml"
    pair.write_text(text, encoding="utf-8")
    with pytest.raises(AssertionError, match=problem):
        check_pairs.load_pair(pair)
