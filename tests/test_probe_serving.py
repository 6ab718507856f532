"""`probe` against our own server told to be fast, slow, hung but healthy, or to collapse past a concurrency:
the concurrency sweep finds the planted cliff, the grade against published results, the engine's /metrics,
and the client's own CPU. Bounded: small --max-tokens, --sweep-requests and --timeout."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from ascend_doctor.cli import main
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint.sweep import SweepPoint, find_cliff, sparkline
from ascend_doctor.matrix import serving_refs
from ascend_doctor.matrix.serving_refs import ServingRef

from .clirunner import make_runner
from .fake_openai_server import Behaviour, FakeServer
from .report_schema import validate_report

FAST = ("--requests", "2", "--concurrency", "2", "--max-tokens", "24", "--timeout", "3", "--no-progress")


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: List[FakeServer] = []

    def start(**behaviour: Any) -> FakeServer:
        server = FakeServer(Behaviour(**behaviour)).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def probe(url: str, *args: str) -> Tuple[Any, Dict[str, Any]]:
    result = make_runner().invoke(main, ["probe", url, *FAST, "--format", "json", *args], catch_exceptions=False)
    report = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return result, report


def result_of(report: Dict[str, Any], check_id: str) -> Dict[str, Any]:
    found: Dict[str, Any] = next(r for r in report["results"] if r["id"] == check_id)
    return found


def test_a_fast_server_has_no_cliff_and_the_series_names_its_definitions(serve: Any) -> None:
    server = serve(token_delay_s=0.002)
    result, report = probe(server.url, "--sweep", "1,4,8", "--sweep-requests", "8")
    assert result.exit_code == 0, result.output
    validate_report(report)
    sweep = result_of(report, "ASC-SRV-012")
    assert sweep["status"] == "PASS" and "no cliff" in sweep["message"]
    series = sweep["evidence"]["series"]
    assert [p["concurrency"] for p in series] == [1, 4, 8] and all(p["ok"] for p in series)
    assert all(p["tokens_counted_by"] == "server usage" for p in series)
    assert "excluding the first" in sweep["evidence"]["definitions"]["tpot"]
    assert len(sweep["evidence"]["sparkline"]) == 3 and len(sweep["evidence"]["table"]) == 4
    assert [p["concurrency"] for p in report["facts"]["sweep"]] == [1, 4, 8]
    assert result_of(report, "ASC-SRV-015")["status"] in ("PASS", "WARN")  # the server shares our process here


def test_the_sweep_finds_a_planted_collapse(serve: Any) -> None:
    server = serve(token_delay_s=0.002, collapse_above=4, collapse_token_delay_s=0.06)
    _, report = probe(server.url, "--sweep", "1,4,16", "--sweep-requests", "16", "--timeout", "10")
    cliff = result_of(report, "ASC-SRV-012")
    assert cliff["status"] == "WARN", cliff
    assert cliff["evidence"]["cliff"]["concurrency"] == 16 and cliff["evidence"]["cliff"]["previous"] == 4
    assert "--max-num-seqs" in cliff["remediation"] and "Cap concurrency at 4" in cliff["remediation"]


def test_sweep_levels_are_validated() -> None:
    bad = make_runner().invoke(main, ["probe", "http://127.0.0.1:9", "--sweep", "1,x"])
    assert bad.exit_code == 2 and "--sweep" in bad.output
    huge = make_runner().invoke(main, ["probe", "http://127.0.0.1:9", "--sweep", "1,99999"])
    assert huge.exit_code == 2


SMALL_REF = ServingRef(id="test-a2-r1-w8a8-pd64-c2", chip="a2", hardware="test", cards=64, model="DeepSeek-R1",
                       family="deepseek-r1", precision="w8a8", deployment="pd", engine="vllm-ascend",
                       input_tokens=60, output_tokens=24, concurrency=2, metrics=(("tpot_ms", 25.0),),
                       measured_by="test row", source="https://example.invalid/row",
                       slower_causes=("eager mode (test cause)",))


@pytest.fixture
def small_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serving_refs, "load_refs", lambda: (SMALL_REF,))


REF_ARGS = ("--chip", "a2", "--cards", "64", "--precision", "w8a8", "--deployment", "pd", "--like-reference")


def test_a_server_at_the_published_speed_is_within_the_band(serve: Any, small_table: None) -> None:
    server = serve(model="DeepSeek-R1", token_delay_s=0.025)
    _, report = probe(server.url, *REF_ARGS)
    graded = result_of(report, "ASC-SRV-013")
    assert graded["status"] == "PASS", graded
    assert graded["evidence"]["grade"]["reference"]["id"] == "test-a2-r1-w8a8-pd64-c2"
    assert report["facts"]["reference"]["id"] == "test-a2-r1-w8a8-pd64-c2"
    streamed = [b for b in server.completions() if b.get("stream")]
    assert streamed and all(b["max_tokens"] == 24 and b["ignore_eos"] for b in streamed)  # the row's lengths
    assert report["facts"]["concurrent"]["concurrency"] == 2


def test_a_slow_server_is_slower_by_a_figure_with_the_sources_causes(serve: Any, small_table: None) -> None:
    server = serve(model="DeepSeek-R1", token_delay_s=0.08)
    _, report = probe(server.url, *REF_ARGS)
    graded = result_of(report, "ASC-SRV-013")
    assert graded["status"] == "WARN" and "slower than published" in graded["message"]
    assert graded["evidence"]["grade"]["slower_pct"] > 100
    assert "eager mode (test cause)" in graded["remediation"]


def test_no_comparable_reference_names_the_missing_key(serve: Any, small_table: None) -> None:
    server = serve(model="DeepSeek-R1")
    _, report = probe(server.url, "--chip", "310p", "--precision", "w8a8")
    graded = result_of(report, "ASC-SRV-013")
    assert graded["status"] == "INFO" and "chip=310p" in graded["message"]
    untold = probe(server.url)[1]
    assert result_of(untold, "ASC-SRV-013")["status"] == "SKIP"


def test_hung_but_healthy_engine_is_caught_by_its_metrics(serve: Any) -> None:
    server = serve(hang_completions=True, metrics=True)
    result, report = probe(server.url, "--timeout", "1")
    assert result.exit_code == 1
    alive = result_of(report, "ASC-SRV-014")
    assert alive["status"] == "FAIL" and alive["message"].startswith("hung")
    metrics = alive["evidence"]["metrics"]
    assert metrics["tokens_moved"] is False and metrics["running"] >= 1
    assert "pull/14240" in report["checks"]["ASC-SRV-014"]["why"] if "checks" in report else True


def test_a_working_engine_moves_its_token_counter(serve: Any) -> None:
    server = serve(metrics=True)
    _, report = probe(server.url)
    alive = result_of(report, "ASC-SRV-014")
    assert alive["status"] == "PASS" and alive["evidence"]["metrics"]["tokens_moved"] is True
    no_metrics = probe(serve().url)[1]
    assert result_of(no_metrics, "ASC-SRV-014")["status"] == "SKIP"


def point(concurrency: int, tps: float, tpot: float) -> SweepPoint:
    return SweepPoint(concurrency, 4, 4, 0, 0.1, tpot, tpot, tps, 0.1, True)


def test_cliff_rules_and_sparkline() -> None:
    rising = [point(1, 30, 0.03), point(4, 110, 0.035), point(16, 400, 0.04), point(64, 420, 0.15)]
    assert find_cliff(rising) is None  # saturates: TPOT x3.75 for concurrency x4
    falling = rising + [point(256, 120, 0.5)]
    cliff = find_cliff(falling)
    assert cliff is not None and (cliff.concurrency, cliff.previous, cliff.kind) == (256, 64, "throughput")
    jump = [point(1, 30, 0.03), point(2, 31, 0.09)]
    assert find_cliff(jump) is not None and find_cliff(jump).kind == "tpot"  # type: ignore[union-attr]
    assert sparkline([1.0, 4.0, 8.0, None]) == "▂▅█ "


def test_client_cpu_share_is_measured_per_phase() -> None:
    phase = rec.LoadPhase("concurrency 4", 4, 8, wall_s=2.0, client_cpu_s=1.8)
    assert phase.client_cpu_share == pytest.approx(0.9)
    assert phase.to_dict()["client_cpu_share"] == 0.9


def test_text_shows_the_table_and_html_draws_the_chart(serve: Any, tmp_path: Any) -> None:
    server = serve(token_delay_s=0.002)
    text = make_runner().invoke(main, ["probe", server.url, *FAST, "--sweep", "1,2,4", "--sweep-requests", "4",
                                     "--select", "ASC-SRV-012"], catch_exceptions=False)
    assert "TPOT p50 ms" in text.stdout and "no cliff" in text.stdout
    page = tmp_path / "probe.html"
    make_runner().invoke(main, ["probe", server.url, *FAST, "--sweep", "1,2,4", "--sweep-requests", "4",
                              "--select", "ASC-SRV-012", "--format", "html", "-o", str(page)], catch_exceptions=False)
    html = page.read_text(encoding="utf-8")
    assert '<section id="charts">' in html and "<svg" in html and "<polyline" in html
    assert "http://" not in html.split('<section id="charts">')[1].split("</section>")[0].replace(
        "http://www.w3.org/2000/svg", "")  # nothing loaded from elsewhere
