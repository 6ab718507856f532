"""`ascend-doctor probe URL` end to end against our own server, one planted fault per test:
the grade, the figures in the report, the exit code, the redaction. Each test takes a few
seconds at most (small --max-tokens, --requests, --concurrency and --timeout)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from ascend_doctor.cli import main

from .clirunner import make_runner
from .fake_openai_server import REASONING, Behaviour, FakeServer
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


def probe(url: str, *args: str, env: Any = None) -> Tuple[Any, Dict[str, Any]]:
    result = make_runner().invoke(main, ["probe", url, *FAST, "--format", "json", *args], catch_exceptions=False,
                                env=env)
    report = json.loads(result.stdout) if result.stdout.strip().startswith("{") else {}
    return result, report


def by_id(report: Dict[str, Any]) -> Dict[str, List[Dict[str, Any]]]:
    out: Dict[str, List[Dict[str, Any]]] = {}
    for r in report["results"]:
        out.setdefault(r["id"], []).append(r)
    return out


def status(report: Dict[str, Any], check_id: str) -> str:
    """The worst status a check gave."""
    order = ["PASS", "SKIP", "INFO", "WARN", "ERROR", "FAIL"]
    return max((r["status"] for r in by_id(report)[check_id]), key=order.index)


def test_a_healthy_endpoint_passes_with_figures(serve: Any) -> None:
    server = serve(reasoning=REASONING, token_delay_s=0.002)
    result, report = probe(server.url, "--max-tokens", "200")
    assert result.exit_code == 0, result.output
    validate_report(report)
    for check_id in ("ASC-SRV-001", "ASC-SRV-002", "ASC-SRV-003", "ASC-SRV-004", "ASC-SRV-006", "ASC-SRV-007",
                     "ASC-SRV-008", "ASC-SRV-009", "ASC-SRV-010"):
        assert status(report, check_id) == "PASS", by_id(report)[check_id]
    assert status(report, "ASC-SRV-011") == "SKIP"  # no --stress
    facts = report["facts"]
    assert facts["engine"] == "vllm" and facts["model"] == "deepseek-r1-distill-qwen-7b"
    assert facts["sequential"]["ttft_s"]["count"] == 2 and facts["concurrent"]["sent"] == 4
    ttft = by_id(report)["ASC-SRV-006"][0]
    assert "TTFT p50" in ttft["message"] and "7B model on one 910B" in ttft["message"]
    assert ttft["evidence"]["threshold_ms"] == 500.0
    decode = by_id(report)["ASC-SRV-007"][0]
    assert "tokens/s" in decode["message"] and decode["evidence"]["tokens_counted_by"] == "server usage"
    # The deterministic request: temperature 0, a fixed seed, no top_p (seed 003 §5.4).
    first = server.completions()[0]
    assert first["temperature"] == 0 and first["seed"] == 42 and "top_p" not in first and not first["stream"]
    streamed = server.completions()[1]
    assert streamed["stream"] and streamed["stream_options"] == {"include_usage": True}
    assert report["host"]["source"] == "endpoint" and report["host"]["hostname"].startswith("127.0.0.1:")


def test_slow_first_token_warns_against_the_threshold(serve: Any) -> None:
    server = serve(first_token_delay_s=0.25)
    result, report = probe(server.url, "--max-ttft-ms", "100", "--concurrency", "1")
    assert result.exit_code == 0  # a WARN does not fail by default
    ttft = by_id(report)["ASC-SRV-006"][0]
    assert ttft["status"] == "WARN" and "above 100 ms" in ttft["message"] and "--max-ttft-ms" in ttft["message"]
    assert ttft["evidence"]["ttft_s"]["p50"] >= 0.25
    assert status(report, "ASC-SRV-008") == "SKIP"  # --concurrency 1
    strict, _ = probe(server.url, "--max-ttft-ms", "100", "--concurrency", "1", "--fail-on", "warn",
                      "--select", "ASC-SRV-006")
    assert strict.exit_code == 1


def test_slow_decoding_warns(serve: Any) -> None:
    server = serve(token_delay_s=0.05)
    _, report = probe(server.url, "--concurrency", "1", "--max-tokens", "8", "--select", "ASC-SRV-007")
    decode = by_id(report)["ASC-SRV-007"][0]
    assert decode["status"] == "WARN" and "below 30 tokens/s" in decode["message"]
    assert decode["evidence"]["decode_tps"]["p50"] < 30


def test_healthy_but_not_serving_fails_within_the_timeout(serve: Any) -> None:
    server = serve(hang_completions=True)
    started = time.monotonic()
    result, report = probe(server.url, "--timeout", "1")
    assert time.monotonic() - started < 6
    assert result.exit_code == 1
    validate_report(report)
    assert status(report, "ASC-SRV-003") == "PASS"
    serving = by_id(report)["ASC-SRV-004"][0]
    assert serving["status"] == "FAIL" and serving["message"].startswith("healthy but not serving")
    assert "npu-smi info" in serving["remediation"] and "--timeout" in serving["remediation"]
    for later in ("ASC-SRV-006", "ASC-SRV-007", "ASC-SRV-008", "ASC-SRV-010"):
        assert status(report, later) == "SKIP", later
    assert "stopped early" in report["notes"][0]


def test_reasoning_cut_by_max_tokens_warns_with_the_fix(serve: Any) -> None:
    server = serve(reasoning=REASONING * 10)
    _, report = probe(server.url, "--max-tokens", "16")
    cut = by_id(report)["ASC-SRV-009"][0]
    assert cut["status"] == "WARN" and "finish_reason \"length\"" in cut["message"]
    assert "--max-tokens 2048" in cut["remediation"] and "reasoning_content" in cut["remediation"]
    assert cut["evidence"]["cut_while_reasoning"] >= 1


def test_reasoning_inline_in_content_is_a_recommendation(serve: Any) -> None:
    server = serve(reasoning=REASONING, reasoning_field="think_tags")
    _, report = probe(server.url, "--max-tokens", "200", "--select", "ASC-SRV-009")
    inline = by_id(report)["ASC-SRV-009"][0]
    assert inline["status"] == "INFO" and "--reasoning-parser deepseek_r1" in inline["remediation"]


def test_refusals_under_load_are_a_warning(serve: Any) -> None:
    server = serve(max_in_flight=1, token_delay_s=0.02)
    result, report = probe(server.url, "--concurrency", "4")
    load = by_id(report)["ASC-SRV-008"][0]
    assert load["status"] == "WARN" and "refused" in load["message"] and "HTTP 429" in load["message"]
    assert "--max-num-seqs" in load["remediation"]
    assert load["evidence"]["outcomes"]["refused"] >= 1
    assert result.exit_code == 0


def test_a_stream_dropped_mid_reply_fails(serve: Any) -> None:
    server = serve(drop_after_tokens=3)
    result, report = probe(server.url)
    streamed = by_id(report)["ASC-SRV-006"][0]
    assert streamed["status"] == "FAIL" and "none of 2 streamed requests" in streamed["message"]
    assert "dropped" in streamed["message"]
    assert status(report, "ASC-SRV-004") == "PASS"  # the non-streamed request is fine
    assert result.exit_code == 1


def test_repeated_text_warns_with_the_seeds_remedies(serve: Any) -> None:
    server = serve(answer="重复的片段，" * 40)
    _, report = probe(server.url, "--max-tokens", "120")
    rep = by_id(report)["ASC-SRV-010"][0]
    loop = "重复的片段" * 2
    assert rep["status"] == "WARN" and any(loop[i:i + 4] in rep["message"] for i in range(5))
    for remedy in ("temperature ≤ 0.6", "repetition_penalty ≈ 1.05", "per group"):
        assert remedy in rep["remediation"], remedy
    assert rep["evidence"]["threshold"] == 0.3


def test_an_unreachable_endpoint_fails_and_skips_the_rest() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result, report = probe(f"http://127.0.0.1:{port}/v1")
    assert result.exit_code == 1
    validate_report(report)
    assert status(report, "ASC-SRV-001") == "FAIL"
    assert "ss -ltnp" in by_id(report)["ASC-SRV-001"][0]["remediation"]
    assert status(report, "ASC-SRV-004") == "SKIP"


def test_api_key_from_the_environment_is_used_and_never_printed(serve: Any) -> None:
    key = "sk-probe-secret-42"
    server = serve(api_key=key)
    _refused, report = probe(server.url, "--select", "ASC-SRV-002")
    assert by_id(report)["ASC-SRV-002"][0]["status"] == "FAIL"
    assert "ASCEND_DOCTOR_API_KEY" in by_id(report)["ASC-SRV-002"][0]["remediation"]
    result = make_runner().invoke(main, ["probe", server.url, *FAST, "-v"], env={"ASCEND_DOCTOR_API_KEY": key})
    assert result.exit_code == 0, result.output
    assert key not in result.output and key not in result.stderr


def test_credentials_in_the_url_are_masked_everywhere(serve: Any) -> None:
    server = serve()
    url = server.url.replace("http://", "http://admin:pa55word@") + "/v1?api_key=sk-in-query"
    result, report = probe(url)
    text = json.dumps(report) + result.stderr
    assert "pa55word" not in text and "sk-in-query" not in text and "admin:" not in text
    assert report["host"]["origin"].startswith("http://***@127.0.0.1:")
    plain = make_runner().invoke(main, ["probe", url, *FAST[:-1]])  # progress lines on stderr too
    assert "pa55word" not in plain.output + plain.stderr and "probe: GET http://***@" in plain.stderr


def test_save_then_compare(serve: Any, tmp_path: Path) -> None:
    server = serve(reasoning=REASONING)
    saved = tmp_path / "answer.json"
    result, report = probe(server.url, "--save", str(saved), "--select", "ASC-SRV-005", "--max-tokens", "200")
    assert result.exit_code == 0 and status(report, "ASC-SRV-005") == "PASS"
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["request"]["temperature"] == 0 and data["request"]["seed"] == 42 and "top_p" not in data["request"]
    assert data["answer"]["reasoning"] == REASONING
    same, report = probe(server.url, "--compare", str(saved), "--select", "ASC-SRV-005", "--max-tokens", "5")
    assert same.exit_code == 0 and status(report, "ASC-SRV-005") == "PASS"
    replayed = [b for b in server.completions() if not b["stream"]][-1]
    assert replayed["max_tokens"] == 200  # the saved request is replayed, not --max-tokens
    server.behaviour.answer_by_seed[42] = "RAG 就是把检索到的资料塞进提示词里。"
    _changed, report = probe(server.url, "--compare", str(saved), "--select", "ASC-SRV-005")
    diff = by_id(report)["ASC-SRV-005"][0]
    assert diff["status"] == "WARN" and "first difference at character" in diff["message"]
    assert diff["evidence"]["first_difference"] is not None


def test_bad_compare_and_save_targets_are_usage_errors(serve: Any, tmp_path: Path) -> None:
    server = serve()
    junk = tmp_path / "junk.json"
    junk.write_text("{not json", encoding="utf-8")
    result = make_runner().invoke(main, ["probe", server.url, "--compare", str(junk)])
    assert result.exit_code == 2 and "not JSON" in result.stderr
    result = make_runner().invoke(main, ["probe", server.url, "--save", str(tmp_path)])
    assert result.exit_code == 2 and "not a regular file" in result.stderr
    result = make_runner().invoke(main, ["probe", "ftp://example.com"])
    assert result.exit_code == 2
    assert server.completions() == []  # nothing was sent


def test_a_server_that_refuses_seed_and_stream_options_is_retried_without(serve: Any) -> None:
    server = serve(reject_seed=True, reject_stream_options=True)
    _result, report = probe(server.url, "--select", "ASC-SRV-004,ASC-SRV-006")
    assert status(report, "ASC-SRV-004") == "PASS" and status(report, "ASC-SRV-006") == "PASS"
    assert report["facts"]["deterministic"]["dropped_fields"] == ["seed"]
    assert report["facts"]["sequential"]["outcomes"] == {"ok": 2}


def test_hostile_json_from_the_server_is_graded_not_a_traceback(serve: Any) -> None:
    deep = serve(models_raw="[" * 200_000, stream_raw="data: " + "{\"a\":" * 50_000 + "\n\n")
    result, report = probe(deep.url, "--model", "deepseek-r1-distill-qwen-7b")
    assert result.exit_code == 1, result.output
    validate_report(report)
    models = by_id(report)["ASC-SRV-002"][0]
    assert models["status"] == "FAIL" and "nested too deeply" in models["message"]
    streamed = by_id(report)["ASC-SRV-006"][0]
    assert streamed["status"] == "FAIL" and "not JSON" in streamed["message"]


def test_mindie_style_endpoint_with_completions_api_only(serve: Any) -> None:
    server = serve(engine="mindie", chat_api=False, max_model_len=None)
    result, report = probe(server.url)
    assert result.exit_code == 0, result.output
    assert report["facts"]["engine"] == "mindie" and report["facts"]["api"] == "completions"
    health = by_id(report)["ASC-SRV-003"][0]
    assert health["status"] == "PASS" and "/v2/health/ready" in health["message"]
    assert report["facts"]["deterministic"]["path"] == "/v1/completions"


def test_mindie_health_on_another_port_is_skipped_with_the_way_to_reach_it(serve: Any) -> None:
    server = serve(engine="mindie", health="absent")
    _, report = probe(server.url, "--select", "ASC-SRV-003")
    health = by_id(report)["ASC-SRV-003"][0]
    assert health["status"] == "SKIP" and "--health-url" in health["remediation"] and "1026" in health["remediation"]
    dead = serve(health="dead")
    result, report = probe(dead.url, "--select", "ASC-SRV-003")
    assert status(report, "ASC-SRV-003") == "FAIL" and "503" in by_id(report)["ASC-SRV-003"][0]["message"]
    assert result.exit_code == 1


@pytest.mark.parametrize(("behaviour", "expected", "words"), [
    ({"max_in_flight": 1, "token_delay_s": 0.02}, "PASS", "refused (429/503)"),
    ({"error_500_above_prompt_tokens": 500}, "FAIL", "out of memory"),
    ({"die_above_prompt_tokens": 500}, "FAIL", "no longer answers"),
    ({"prompt_token_limit": 500}, "WARN", "too long"),
])
def test_stress_tells_clean_refusals_from_failures(serve: Any, behaviour: Dict[str, Any], expected: str,
                                                   words: str) -> None:
    server = serve(max_model_len=1024, **behaviour)
    started = time.monotonic()
    _result, report = probe(server.url, "--stress", "--duration", "1", "--stress-concurrency", "4",
                           "--select", "ASC-SRV-011")
    assert time.monotonic() - started < 10
    validate_report(report)
    stress = by_id(report)["ASC-SRV-011"][0]
    assert stress["status"] == expected, stress
    assert words in stress["message"]
    facts = report["facts"]["stress"]
    if expected == "PASS":
        assert facts["phase"]["outcomes"].get("refused", 0) >= 1 and facts["alive_after"] is True
    assert facts["target_prompt_tokens"] == 1024 - 16 and "max_model_len 1024" in facts["target_source"]
    assert facts["tokens_per_unit"] is not None  # calibrated from the server's prompt_tokens


def test_stress_without_max_model_len_uses_the_documented_default(serve: Any) -> None:
    server = serve(engine="mindie", max_model_len=None)
    _, report = probe(server.url, "--stress", "--duration", "1", "--stress-concurrency", "2",
                      "--select", "ASC-SRV-011")
    facts = report["facts"]["stress"]
    assert facts["target_prompt_tokens"] == 2048 and "maxInputTokenLen" in facts["target_source"]
    assert status(report, "ASC-SRV-011") == "PASS" and facts["alive_after"] is True
    prompts = [b for b in server.completions() if b.get("max_tokens") == 16]
    assert prompts, "no stress request was sent"


def test_other_report_formats(serve: Any) -> None:
    server = serve()
    for fmt, marker in (("text", "ASC-SRV-004"), ("markdown", "ASC-SRV-004"), ("junit", "<testsuite"),
                        ("html", "<html")):
        result = make_runner().invoke(main, ["probe", server.url, *FAST, "--format", fmt])
        assert result.exit_code == 0 and marker in result.stdout, (fmt, result.output[-500:])


def test_ctrl_c_prints_what_was_measured_and_exits_130(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_doctor.endpoint import measure

    server = serve()

    def interrupted(self: Any, facts: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(measure.Probe, "_concurrent", interrupted)
    result, report = probe(server.url)
    assert result.exit_code == 130
    validate_report(report)
    assert report["facts"]["interrupted"] is True and "interrupted (Ctrl-C)" in report["notes"][0]
    assert status(report, "ASC-SRV-006") == "PASS"  # measured before the interruption
    assert "interrupted" in by_id(report)["ASC-SRV-008"][0]["message"]


def test_a_real_sigint_ends_a_hanging_probe_at_once(serve: Any, tmp_path: Path) -> None:
    server = serve(hang_completions=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "ascend_doctor", "probe", server.url, "--timeout", "60",
                             "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not server.completions():
            time.sleep(0.05)
        assert server.completions(), "the probe never sent a completion"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert time.monotonic() - sent < 3
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err.decode()
    report = json.loads(out.decode())
    validate_report(report)
    assert report["facts"]["interrupted"] is True
    assert by_id(report)["ASC-SRV-001"][0]["status"] == "PASS"
    assert "interrupted" in by_id(report)["ASC-SRV-004"][0]["message"]
