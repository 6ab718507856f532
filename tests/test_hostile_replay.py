"""bench/hostile_replay.py (the replay of both hostile-input reviews) stays whole and counts right.

The replay itself is a script (minutes, gigabytes, root); these tests cover its bookkeeping:
every one of the first review's 265 attempts is there exactly once, the second review's bulk run
and every defect's reproduction are there, the input tricks produce what they claim, the shell
reading of printed commands finds what a shell would run, the totals follow the reviews' rules,
and a few of the second review's attempts run for real.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "hostile_replay.py"


@pytest.fixture(scope="module")
def replay() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hostile_replay", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hostile_replay"] = module  # dataclasses resolve their annotations through it
    spec.loader.exec_module(module)
    return module


def test_every_attempt_of_the_review_is_replayed_once(replay: ModuleType) -> None:
    rows = [a.row for a in replay.ATTEMPTS if a.review == 1]
    assert len(rows) == 265 and len(set(rows)) == 265
    assert set(rows) == {str(n) for n in range(1, 238)} | {f"M{n}" for n in range(1, 29)}
    assert len({a.id for a in replay.ATTEMPTS}) == len(replay.ATTEMPTS)  # ids unique across both reviews
    # the /dev rows run only in the private namespace
    assert {a.row for a in replay.ATTEMPTS if a.dev} == {"179", "M5", "M6", "M7", "M8", "M9", "M10"}


def test_repeating_gzip_is_the_stream_it_claims(replay: ModuleType) -> None:
    data = replay.gzip_repeating(b"header", b"A", 5 * 4096 + 17, chunk=4096)
    assert gzip.decompress(data) == b"header" + b"A" * (5 * 4096 + 17)


def test_a_header_bomb_is_a_small_archive_with_a_huge_declared_header(replay: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "bomb.tar.gz"
    member = replay.tarfile.TarInfo("././@LongLink")
    member.type = tarfile.GNUTYPE_LONGNAME
    member.size = 1 << 20
    path.write_bytes(replay.gzip_repeating(replay.block_of(replay.SNAP_EVIL) + member.tobuf(tarfile.USTAR_FORMAT),
                                           b"A", 1 << 20, chunk=1 << 16))
    raw = gzip.decompress(path.read_bytes())
    # snapshot.json (a header and one data block), then the long-name header declaring 1 MiB, then the As
    assert raw[1024:1024 + 13] == b"././@LongLink" and len(raw) == 3 * 512 + (1 << 20)
    assert path.stat().st_size < 10_000


def _outcome(replay: ModuleType, row: str, kinds: list, dup_of: str = "", leaked: tuple = ()):  # type: ignore[no-untyped-def]
    flags = [(k, "x") for k in kinds]
    verdict = next((k for k in replay.SEVERITY if k in kinds), "OK")
    return replay.Outcome(row, f"id-{row}", verdict, flags, [], 0, 0.0, "", list(leaked), dup_of or None)


def test_totals_follow_the_review_rules(replay: ModuleType) -> None:
    outcomes = [
        _outcome(replay, "25", ["TRACEBACK", "CRASH", "PARTIAL"]),
        _outcome(replay, "37", ["CRASH"]),
        _outcome(replay, "97", ["HANG"]),
        _outcome(replay, "M24", ["HANG"], dup_of="97"),  # the review did not count it twice
        _outcome(replay, "M1", ["LEAK"], leaked=("a", "b")),
        _outcome(replay, "160", ["LEAK"], leaked=("c",)),
        _outcome(replay, "62", []),
    ]
    table = replay.totals(outcomes)
    assert table["tracebacks"]["after"] == 1
    assert table["uncaught"]["after"] == 2 and table["uncaught"]["which"] == ["25", "37"]
    assert table["hangs"]["after"] == 1 and table["hangs"]["which"] == ["97"]
    assert table["leaks"]["after"] == 3
    assert table["partial"]["which"] == ["25"]
    assert table["attempts"]["before"] == 265 and table["leaks"]["before"] == 24


def test_the_second_review_is_registered(replay: ModuleType) -> None:
    second = [a for a in replay.ATTEMPTS if a.review == 2]
    review2 = sys.modules["hostile_replay2"]
    fixtures = review2.bulk_fixtures()
    assert len(fixtures) >= 70  # the review mutated 77
    for mode in review2.BULK_MODES:
        assert {a.row for a in second if a.row.startswith(f"2:{mode}:")} == {f"2:{mode}:{f.name}" for f in fixtures}
    # every defect of hostile_inputs_2.md (1-13) has at least one reproduction
    defects = {a.row.split(":")[1].split("-")[0].rstrip("abcde") for a in second if a.row.startswith("2:D")}
    assert defects == {f"D{n}" for n in range(1, 14)}
    assert len(second) <= review2.REVIEW2_TOTALS["attempts"]


@pytest.mark.parametrize("line,runs", [
    ("export HCCL_CONNECT_TIMEOUT=1800$(touch pwnX)", True),
    ("export HCCL_SOCKET_IFNAME=eth0;touch pwnX;", True),
    ("export HCCL_CONNECT_TIMEOUT=1800\ntouch pwnX\n#", True),
    ("mv '/data/models/x'$(touch pwnX)'.V3' /tmp/y", True),  # naive single quotes: broken out of
    ("rsync -a N:/m'$(touch pwnA)'`touch pwnX`.x/F .", True),
    ("export HCCL_CONNECT_TIMEOUT='1800$(touch pwnX)'", False),
    ("mv '/data/models/x'\"'\"'$(touch pwnX)'\"'\"'.V3' /tmp/y", False),  # shlex.quote
    ("echo \"a touch pwnX\"", False),
    ("# ascend-doctor matrix lookup --driver 23.0.7$(touch pwnX)", False),  # a comment: not run as is
    ("export X=\"$(touch pwnX)\"", True),  # double quotes do not stop a substitution
])
def test_the_shell_reading_of_printed_commands(replay: ModuleType, line: str, runs: bool) -> None:
    review2 = sys.modules["hostile_replay2"]
    assert review2.payload_runs(line.replace("\\n", "\n"), "pwnX") is runs


def test_pasteable_lines_of_a_report(replay: ModuleType) -> None:
    review2 = sys.modules["hostile_replay2"]
    report = {"results": [{"remediation": "Rename it: mv '/a'$(touch pwnX)'.V3' /b and set it.\n  Don't worry",
                           "actions": [{"commands": ["# ascend-doctor matrix lookup --driver 1$(touch pwnY)"]}]}]}
    found = review2.injected(json.dumps(report).encode(), "pwnX")
    assert found == ["mv '/a'$(touch pwnX)'.V3' /b and set it."]
    assert review2.injected(json.dumps(report).encode(), "pwnY")  # a suggested command, run without its '#'


def test_totals_of_the_second_review(replay: ModuleType) -> None:
    outcomes = [
        _outcome(replay, "2:D1a", ["INJECTION"]),
        _outcome(replay, "2:D9a", ["EXIT CODE"]),
        _outcome(replay, "2:D11a", ["DATA LOSS"]),
        _outcome(replay, "2:D13a", []),
    ]
    table = replay.totals(outcomes, review=2)
    assert table["injections"]["after"] == 1 and table["injections"]["before"] == 16
    assert table["exit_codes"]["which"] == ["2:D9a"] and table["exit_codes"]["before"] == 3
    assert table["partial"]["after"] == 1 and table["attempts"]["before"] == 384


@pytest.mark.slow
def test_a_small_part_of_the_second_review_runs(replay: ModuleType, tmp_path: Path) -> None:
    """Three attempts for real: the redaction and snapshot --model rows this checkout fixed, and one whose
    outcome depends on other work (only its bookkeeping is checked)."""
    out = tmp_path / "replay.json"
    only = "R2-D13-redact-fix-plan-address,R2-D12-snapshot-model-secrets,R2-D2-address-subst"
    assert replay.main(["--review", "2", "--only", only, "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    verdicts = {a["id"]: a["verdict"] for a in data["attempts"]}
    assert verdicts["R2-D13-redact-fix-plan-address"] == "OK"
    assert verdicts["R2-D12-snapshot-model-secrets"] == "OK"
    assert verdicts["R2-D2-address-subst"] in ("OK", "INJECTION")
    assert data["totals_by_review"]["2"]["attempts"]["after"] == 3
