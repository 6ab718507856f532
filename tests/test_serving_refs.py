"""compat_matrix/serving_refs.yaml: published DeepSeek serving results, validated by `matrix validate`, and the
grade a measurement gets against them (within the band, slower with the sources' causes, not comparable)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Dict

import yaml

from ascend_doctor.cli import main
from ascend_doctor.endpoint.references import NOT_COMPARABLE, SLOWER, WITHIN, Measured, grade
from ascend_doctor.matrix.serving_refs import RefQuery, load_refs, parse_refs

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
REFS = ROOT / "compat_matrix" / "serving_refs.yaml"


def shipped() -> Dict[str, Any]:
    data: Dict[str, Any] = yaml.safe_load(REFS.read_text(encoding="utf-8"))
    return data


def test_the_shipped_table_is_valid_sourced_and_has_at_least_15_rows() -> None:
    rows, problems = parse_refs(shipped())
    assert problems == [] and len(rows) >= 15 and len(rows) == len(load_refs())
    assert all(r.source.startswith("https://") and r.measured_by for r in rows)
    assert {r.engine for r in rows} == {"vllm-ascend", "mindie", "sglang"}
    assert {r.chip for r in rows} >= {"a2", "a3"}


def test_schema_problems_name_the_row_and_key() -> None:
    data = shipped()
    broken = copy.deepcopy(data)
    broken["references"][0]["chip"] = "910x"
    broken["references"][1]["source"] = "seed 003"
    broken["references"][2]["metrics"] = {"tpot_ms": -1}
    broken["references"][3]["id"] = broken["references"][4]["id"]
    del broken["references"][5]["measured_by"]
    _rows, problems = parse_refs(broken)
    paths = {p.path for p in problems}
    assert {"references[0].chip", "references[1].source", "references[2].metrics.tpot_ms",
            "references[5].measured_by"} <= paths
    assert any("duplicate id" in p.message for p in problems)
    assert parse_refs([])[1][0].message == "top level must be a mapping"


def test_matrix_validate_checks_the_table_beside_a_split_matrix(tmp_path: Path) -> None:
    runner = make_runner()
    ok = runner.invoke(main, ["matrix", "validate", str(ROOT / "compat_matrix" / "matrix.yaml")])
    assert ok.exit_code == 0, ok.output
    for path in (ROOT / "compat_matrix").glob("*.yaml"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    data = shipped()
    data["references"][0]["deployment"] = "sideways"
    (tmp_path / "serving_refs.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    bad = runner.invoke(main, ["matrix", "validate", str(tmp_path / "matrix.yaml")])
    assert bad.exit_code == 1 and "references[0].deployment" in bad.output


R1_A2_PD = RefQuery(chip="a2", cards=64, family="deepseek-r1", precision="w8a8", deployment="pd", engine="vllm-ascend")


def test_within_band_slower_with_causes_and_not_comparable() -> None:
    rows = load_refs()
    at_reference = Measured(concurrency=8, input_tokens=7000, output_tokens=2000, tpot_ms=45.0, ttft_s=3.9)
    within = grade(rows, R1_A2_PD, at_reference)
    assert within.verdict == WITHIN and within.row is not None
    assert within.row.id == "vllm-ascend-a2-r1-w8a8-pd64-7k-2k-c8"
    slow = grade(rows, R1_A2_PD, Measured(8, 7000, 2000, tpot_ms=120.0, ttft_s=3.7))
    assert slow.verdict == SLOWER and slow.slower_pct is not None and 180 < slow.slower_pct < 190
    assert slow.causes and "MindIE" in slow.causes[0]
    other_lengths = grade(rows, R1_A2_PD, Measured(8, 100, 256, tpot_ms=40.0))
    assert other_lengths.verdict == NOT_COMPARABLE and "input 100 tokens vs" in other_lengths.reason
    duo = grade(rows, RefQuery(chip="310p", family="deepseek-r1", precision="w8a8"), at_reference)
    assert duo.verdict == NOT_COMPARABLE and duo.missing == ("chip=310p",)
    unknown = grade(rows, RefQuery(chip="a2"), at_reference)
    assert unknown.missing == ("family not given", "precision not given")


def test_eager_graph_and_mtp_rows_name_their_causes() -> None:
    rows = load_refs()
    query = RefQuery(chip="a2", cards=64, family="deepseek-r1", precision="w8a8", deployment="pd")
    graded = grade(rows, query, Measured(100, 3500, 1500, tpot_ms=None, output_tps=200.0))
    assert graded.verdict == SLOWER and graded.row is not None and graded.row.concurrency == 100
    assert any("eager" in cause for cause in graded.causes)
