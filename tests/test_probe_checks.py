"""The ASC-SRV-* checks over hand-made measurements: each grade, its figures and the threshold
source; the probe report's schema; the answer file. No network."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from ascend_doctor.endpoint import answerfile
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint.grading import probe_report
from ascend_doctor.endpoint.measure import filler, finish, parse_models
from ascend_doctor.endpoint.thresholds import thresholds_from_options
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.options import RunOptions
from ascend_doctor.render.json import report_to_json

from .report_schema import PROBE_SCHEMA_PATH, SCHEMA_PATH, validate_report


def reply(outcome: str = rec.OK, ttft: float = 0.1, tokens: int = 40, tps: float = 50.0, content: str = "answer",
          reasoning: str = "", finish: Optional[str] = "stop", detail: str = "", source: Optional[str] = None
          ) -> rec.Reply:
    r = rec.Reply(outcome=outcome, status=200 if outcome == rec.OK else None, detail=detail, stream=True,
                  ttft_s=ttft, total_s=ttft + tokens / tps, completion_tokens=tokens, text_chunks=tokens,
                  finish_reason=finish, reasoning_source=source or ("reasoning_content" if reasoning else None))
    r.last_token_s = ttft + (tokens - 1) / tps
    r.gaps_s = [1 / tps] * (tokens - 1)
    r.keep_text(content, reasoning)
    return r


def phase(name: str, concurrency: int, replies: List[rec.Reply], wall: float = 2.0) -> rec.LoadPhase:
    p = rec.LoadPhase(name, concurrency, len(replies), list(replies), wall)
    return p


def served_facts(**settings: Any) -> rec.ProbeFacts:
    facts = rec.ProbeFacts(rec.ProbeSettings(url="http://10.0.0.5:1025", **settings), engine="mindie", model="r1")
    facts.reachability = rec.HttpCheck("http://10.0.0.5:1025", 200)
    facts.models = rec.ModelsInfo(rec.HttpCheck("http://10.0.0.5:1025/v1/models", 200), [rec.ServedModel("r1")])
    facts.health = rec.HealthInfo(healthy=None)
    facts.deterministic = rec.Deterministic({"model": "r1", "max_tokens": 256, "temperature": 0, "seed": 42},
                                            reply(ttft=0.0))
    facts.sequential = phase("concurrency 1", 1, [reply(), reply(ttft=0.12)])
    facts.concurrent = phase("concurrency 16", 16, [reply(ttft=0.3) for _ in range(32)], wall=8.0)
    return facts


def grade(facts: rec.ProbeFacts, fail_on: str = "fail") -> Dict[str, Any]:
    finish(facts)
    report = probe_report(facts, RunOptions(fail_on=fail_on), 1.0)
    data: Dict[str, Any] = json.loads(report_to_json(report))
    validate_report(data)
    data["by_id"] = {}
    for r in data["results"]:
        data["by_id"].setdefault(r["id"], []).append(r)
    return data


def test_a_healthy_measurement_passes_and_mindie_health_is_skipped_with_the_way() -> None:
    data = grade(served_facts())
    statuses = {k: v[0]["status"] for k, v in data["by_id"].items()}
    assert statuses["ASC-SRV-003"] == "SKIP" and statuses["ASC-SRV-005"] == "SKIP"
    assert all(statuses[f"ASC-SRV-00{i}"] == "PASS" for i in (1, 2, 4, 6, 7, 8))
    assert data["exit_code"] == 0
    load = data["by_id"]["ASC-SRV-008"][0]
    assert "4.00 requests/s" in load["message"] and "160.0 output tokens/s" in load["message"]


def test_thresholds_say_where_they_come_from_and_can_be_overridden() -> None:
    facts = served_facts(thresholds=thresholds_from_options(min_decode_tps=80))
    decode = grade(facts)["by_id"]["ASC-SRV-007"][0]
    assert decode["status"] == "WARN" and "set with --min-decode-tps" in decode["message"]
    assert decode["evidence"]["threshold_tps"] == 80.0
    default = grade(served_facts())["by_id"]["ASC-SRV-007"][0]
    assert "7B model on one 910B" in default["evidence"]["threshold_source"]


def test_broken_requests_under_load_fail_and_timeouts_warn() -> None:
    facts = served_facts()
    assert facts.concurrent is not None
    facts.concurrent.replies[3] = reply(rec.RESET, detail="the connection was dropped mid-reply")
    load = grade(facts)["by_id"]["ASC-SRV-008"][0]
    assert load["status"] == "FAIL" and "1 failed" in load["message"] and "maxBatchSize" in load["remediation"]
    facts = served_facts()
    assert facts.concurrent is not None
    facts.concurrent.replies[0] = reply(rec.TIMEOUT, detail="not finished within --timeout 60 s")
    assert grade(facts)["by_id"]["ASC-SRV-008"][0]["status"] == "WARN"


def _stressed(replies: List[rec.Reply], alive: Optional[bool]) -> rec.ProbeFacts:
    facts = served_facts(stress=True)
    facts.stress = rec.Stress(4000, "max_model_len 4016 from /v1/models, less 16 output tokens",
                              phase=phase("stress", 64, replies, wall=30.0), alive_after=alive)
    return facts


@pytest.mark.parametrize(("replies", "alive", "expected"), [
    ([reply(), reply(rec.REFUSED, detail="HTTP 429")], True, "PASS"),
    ([reply(), reply(rec.REFUSED)], False, "FAIL"),
    ([reply(), reply(rec.SERVER_ERROR, detail="HTTP 500: NPU out of memory")], True, "FAIL"),
    ([reply(), reply(rec.TIMEOUT)], True, "WARN"),
    ([reply(rec.TOO_LONG, detail="HTTP 400: maximum context length")], True, "WARN"),
])
def test_stress_grades(replies: List[rec.Reply], alive: Optional[bool], expected: str) -> None:
    stress = grade(_stressed(replies, alive))["by_id"]["ASC-SRV-011"][0]
    assert stress["status"] == expected, stress
    assert "at concurrency 64" in stress["message"]


def test_only_the_greedy_reply_looping_is_a_recommendation() -> None:
    facts = served_facts()
    assert facts.deterministic is not None
    facts.deterministic.reply = reply(content="the answer is " * 30, ttft=0.0)
    rep = grade(facts)["by_id"]["ASC-SRV-010"][0]
    assert rep["status"] == "INFO" and "temperature 0" in rep["message"]


def test_cut_reasoning_and_inline_thinking() -> None:
    facts = served_facts()
    assert facts.sequential is not None
    facts.sequential.replies = [reply(content="", reasoning="hmm " * 50, finish="length"),
                                reply(content="ok", reasoning="think", source="think_tags")]
    results = grade(facts)["by_id"]["ASC-SRV-009"]
    assert [r["status"] for r in results] == ["WARN", "INFO"]
    assert "ModelDeployConfig.maxSeqLen" in results[0]["remediation"]  # MindIE's knob, engine known


def test_a_failed_save_is_an_error_and_exit_3() -> None:
    facts = served_facts(save="/nowhere/answer.json")
    assert facts.deterministic is not None
    facts.deterministic.save_error = "cannot write /nowhere/answer.json: No such file or directory"
    data = grade(facts)
    assert data["by_id"]["ASC-SRV-005"][0]["status"] == "ERROR" and data["exit_code"] == int(ExitCode.INCOMPLETE)


def test_an_interrupted_probe_says_so_in_the_notes_and_the_skips() -> None:
    facts = served_facts()
    facts.concurrent = None
    facts.interrupted = True
    data = grade(facts)
    assert "interrupted (Ctrl-C)" in data["notes"][0]
    load = data["by_id"]["ASC-SRV-008"][0]
    assert load["status"] == "SKIP" and "interrupted" in load["message"]


def test_probe_schema_shares_the_report_schemas_definitions() -> None:
    probe_schema = json.loads(PROBE_SCHEMA_PATH.read_text(encoding="utf-8"))
    report_schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    for name in ("result", "action", "fix_step"):
        assert probe_schema["$defs"][name] == report_schema["$defs"][name], name
    for name in ("tool", "results", "summary", "exit_code", "fix_plan", "fail_on", "notes"):
        assert probe_schema["properties"][name] == report_schema["properties"][name], name


def test_probe_schema_rejects_a_check_report_and_a_broken_probe_report() -> None:
    import jsonschema

    data = grade(served_facts())
    data.pop("by_id")
    validator = jsonschema.Draft202012Validator(json.loads(PROBE_SCHEMA_PATH.read_text(encoding="utf-8")))
    assert not list(validator.iter_errors(data))
    broken = json.loads(json.dumps(data))
    broken["facts"]["sequential"]["outcomes"] = {"exploded": 1}
    assert list(validator.iter_errors(broken))
    checkish = json.loads(json.dumps(data))
    checkish["host"]["source"] = "live"
    assert list(validator.iter_errors(checkish))


# ---------------------------------------------------------------- measurement helpers


def test_parse_models_reads_vllm_and_mindie_cards() -> None:
    models = parse_models({"object": "list", "data": [
        {"id": "r1", "owned_by": "vllm", "max_model_len": 32768}, {"id": "m", "owned_by": "MindIE Server"},
        {"no": "id"}, "junk"]})
    assert [(m.id, m.owned_by, m.max_model_len) for m in models] == [("r1", "vllm", 32768), ("m", "MindIE Server",
                                                                                             None)]
    with pytest.raises(ValueError):
        parse_models({"data": "nope"})


def test_filler_has_the_requested_length() -> None:
    assert len(filler(100).split()) == 100 + 7  # plus the instruction


def test_answer_file_round_trip_and_first_difference(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    r = reply(content="RAG 先检索再生成。", reasoning="想一想")
    answerfile.save(str(path), answerfile.answer_record("http://h:1", "r1", "/v1/chat/completions",
                                                          {"temperature": 0, "seed": 42}, r))
    saved = answerfile.load(str(path))
    assert answerfile.compare(str(path), saved, r).same is True
    other = reply(content="RAG 先检索后回答。", reasoning="想一想")
    comparison = answerfile.compare(str(path), saved, other)
    assert comparison.same is False and comparison.first_difference == len("想一想\n</think>\nRAG 先检索")
    assert answerfile.first_difference("abc", "abc") == (None, "", "")


def test_answer_files_are_bounded_and_never_written_over_non_files(tmp_path: Path) -> None:
    with pytest.raises(answerfile.AnswerFileError, match="not a regular file"):
        answerfile.save(str(tmp_path), {})
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(answerfile.AnswerFileError, match="not a regular file"):
        answerfile.load(str(fifo))
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (answerfile.MAX_FILE_BYTES + 1))
    with pytest.raises(answerfile.AnswerFileError, match="larger than"):
        answerfile.load(str(big))
    other = tmp_path / "other.json"
    other.write_text('{"format": "something else"}', encoding="utf-8")
    with pytest.raises(answerfile.AnswerFileError, match="not an answer saved"):
        answerfile.load(str(other))


def test_default_speed_figures_skip_a_large_model_with_the_reason() -> None:
    """The 500 ms / 30 tokens/s defaults were measured on a 7B model: a DeepSeek-R1 671B is not graded by them."""
    facts = served_facts()
    facts.model = "DeepSeek-R1"
    slow = [reply(ttft=2.0) for _ in range(2)]
    facts.sequential = phase("concurrency 1", 1, slow)
    data = grade(facts)["by_id"]
    for check_id in ("ASC-SRV-006", "ASC-SRV-007"):
        result = data[check_id][0]
        assert result["status"] == "SKIP" and "671B" in result["message"] and "--chip" in result["message"]
    small = served_facts()
    small.model = "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"
    small.sequential = phase("concurrency 1", 1, [reply(ttft=2.0) for _ in range(2)])
    assert grade(small)["by_id"]["ASC-SRV-006"][0]["status"] == "WARN"
    overridden = served_facts(thresholds=thresholds_from_options(max_ttft_ms=1000))
    overridden.model = "DeepSeek-R1"
    overridden.sequential = phase("concurrency 1", 1, [reply(ttft=2.0) for _ in range(2)])
    assert grade(overridden)["by_id"]["ASC-SRV-006"][0]["status"] == "WARN"
