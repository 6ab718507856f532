"""bench/hostile_replay.py (the replay of the hostile-input review) stays whole and counts right.

The replay itself is a script (minutes, gigabytes, root); these tests cover its bookkeeping:
every one of the review's 265 attempts is there exactly once, the input tricks produce what they
claim, and the totals follow the review's rules.
"""

from __future__ import annotations

import gzip
import importlib.util
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
    rows = [a.row for a in replay.ATTEMPTS]
    assert len(rows) == 265 and len(set(rows)) == 265
    assert set(rows) == {str(n) for n in range(1, 238)} | {f"M{n}" for n in range(1, 29)}
    assert len({a.id for a in replay.ATTEMPTS}) == 265
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
