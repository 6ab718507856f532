"""A short answer where the question is short (issue 25, item 5): ``matrix lookup`` with two or more
versions answers each pair first (compatible, incompatible or unknown, with its source), the tables of
everything that goes with each version only with -v, and a note repeated on many rows once. JSON keeps
everything and carries the verdict too. Assertions are on verdicts, components and counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
from click.testing import Result

from ascend_doctor.cli import main

from .clirunner import make_runner


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    monkeypatch.setenv("COLUMNS", "160")


def lookup(*args: str) -> Result:
    result = make_runner().invoke(main, ["matrix", "lookup", *args])
    assert result.exit_code == 0, result.output[-2000:]
    return result


def lookup_json(*args: str) -> Dict[str, Any]:
    data: Dict[str, Any] = json.loads(lookup(*args, "--format", "json").stdout)
    return data


def pair_of(data: Dict[str, Any], first: str, second: str) -> Dict[str, Any]:
    found = [p for p in data["pairs"] if [c["component"] for c in p["components"]] == [first, second]]
    assert len(found) == 1, data.get("pairs")
    return dict(found[0])


def test_cann_with_an_older_driver_is_incompatible_with_what_it_supports() -> None:
    """The review's question: CANN 8.5.0's release note lists HDK 25.0.X-25.5.X only."""
    data = lookup_json("--cann", "8.5.0", "--driver", "24.1.rc2.2")
    pair = pair_of(data, "cann", "driver")
    assert data["verdict"] == pair["verdict"] == "incompatible"
    assert [c["version"] for c in pair["components"]] == ["8.5.0", "24.1.rc2.2"]
    assert pair["sources"] and all("compat_facts" not in s for s in pair["sources"])
    assert {"25.0.X", "25.5.X"} <= set(pair["supported"])
    assert not any(v.startswith("<") for v in pair["supported"])
    assert pair["notes"]  # the release code that says otherwise is kept, not hidden
    # JSON keeps everything: both tables are still there
    assert [r["subject"] for r in data["results"]] == ["CANN 8.5.0", "driver 24.1.rc2.2"]
    assert len(data["results"][0]["answers"]) > 20


def test_the_pair_comes_first_and_the_tables_only_with_v() -> None:
    short = lookup("--cann", "8.5.0", "--driver", "24.1.rc2.2").stdout.splitlines()
    assert len(short) < 20  # was 411 lines
    assert short[2].endswith(": incompatible")  # after the matrix line and a blank one
    assert "-v" in short[-1]
    full = lookup("--cann", "8.5.0", "--driver", "24.1.rc2.2", "-v").stdout.splitlines()
    assert full[: len(short) - 2] == short[: len(short) - 2]  # the same answer, then the tables
    assert len(full) > 200


def test_unknown_stays_apart_from_incompatible() -> None:
    unknown = lookup_json("--cann", "99.0", "--driver", "24.1.rc2")
    assert unknown["verdict"] == pair_of(unknown, "cann", "driver")["verdict"] == "unknown"
    assert "supported" not in pair_of(unknown, "cann", "driver")
    not_listed = lookup_json("--cann", "8.5.0", "--driver", "25.1.rc1")  # between two documented lines
    assert pair_of(not_listed, "cann", "driver")["verdict"] == "unknown"
    works = lookup_json("--cann", "8.5.0", "--driver", "25.3.rc1")
    assert works["verdict"] == "compatible"


def test_every_pair_the_matrix_relates_is_answered_and_the_worst_leads() -> None:
    data = lookup_json("--cann", "8.1.RC1", "--driver", "24.1.rc2", "--torch-npu", "2.1.0.post8", "--vllm-ascend",
                       "0.9.1", "--mindie", "2.1.RC1", "--chip", "910B3")
    pairs = {tuple(c["component"] for c in p["components"]): p["verdict"] for p in data["pairs"]}
    assert pairs == {
        ("cann", "driver"): "compatible", ("cann", "torch_npu"): "unknown",
        ("vllm-ascend", "cann"): "unknown", ("vllm-ascend", "torch_npu"): "incompatible",
        ("vllm-ascend", "driver"): "compatible", ("mindie", "cann"): "incompatible",
        ("mindie", "driver"): "compatible", ("mindie", "torch_npu"): "unknown"}
    assert data["verdict"] == "incompatible"


def test_an_engine_not_in_the_matrix_is_unknown_with_everything() -> None:
    data = lookup_json("--vllm-ascend", "0.0.1", "--cann", "8.5.0")
    assert [(p["components"][1]["component"], p["verdict"]) for p in data["pairs"]] == [("cann", "unknown")]


def test_one_version_is_answered_as_before() -> None:
    data = lookup_json("--cann", "8.0.RC3")
    assert "pairs" not in data and "verdict" not in data
    lines = lookup("--cann", "8.0.RC3").stdout.splitlines()
    assert len(lines) > 50 and any(line.startswith("driver ") for line in lines)  # the table, no -v needed


def _note_counts(text: str, notes: List[str]) -> Dict[str, int]:
    return {note: text.count(note) for note in notes}


def test_a_note_repeated_on_many_rows_is_said_once() -> None:
    data = lookup_json("--cann", "8.5.0")
    notes = [n for a in data["results"][0]["answers"] for n in a.get("notes", [])]
    repeated = sorted({n for n in notes if notes.count(n) > 1})
    assert repeated  # the release note's support-list note is on every driver row
    text = lookup("--cann", "8.5.0").stdout
    assert set(_note_counts(text, repeated).values()) == {1}
    with_pair = lookup("--cann", "8.5.0", "--driver", "24.1.rc2.2", "-v").stdout
    assert set(_note_counts(with_pair, repeated).values()) == {1}


def test_the_docs_show_the_real_answer() -> None:
    """docs/matrix.md's example is this command's output, byte for byte."""
    command = "$ ascend-doctor matrix lookup --cann 8.5.0 --driver 24.1.rc2.2\n"
    doc = (Path(__file__).resolve().parent.parent / "docs" / "matrix.md").read_text(encoding="utf-8")
    shown = doc.split(command, 1)[1].split("```", 1)[0]
    assert shown == lookup("--cann", "8.5.0", "--driver", "24.1.rc2.2").stdout
