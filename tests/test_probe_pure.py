"""The probe's pure pieces: SSE lines, percentiles, n-gram repetition, reply shapes, redaction."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ascend_doctor.endpoint import redact, repetition, shapes, sse, stats

# ---------------------------------------------------------------- SSE


def _lines(chunks):  # type: ignore[no-untyped-def]
    splitter = sse.LineSplitter()
    out = []
    for chunk in chunks:
        out.extend(splitter.feed(chunk))
    return out + splitter.close()


def test_lines_split_on_every_ending_and_across_chunks() -> None:
    assert _lines([b"data: a\r\ndata: b\ndata: c\rdata: d"]) == ["data: a", "data: b", "data: c", "data: d"]
    # A CRLF split over two chunks is one line ending, not an extra blank line.
    assert _lines([b"data: a\r", b"\ndata: b\r\n", b"\r\n"]) == ["data: a", "data: b", ""]
    assert _lines([b"da", b"ta: {\"x\"", b": 1}\n\n"]) == ['data: {"x": 1}', ""]


def test_multibyte_utf8_split_between_chunks_is_decoded_whole() -> None:
    raw = "data: 昇腾\n".encode()
    assert _lines([raw[:8], raw[8:]]) == ["data: 昇腾"]


def test_an_endless_line_is_refused() -> None:
    splitter = sse.LineSplitter(max_line_bytes=16)
    with pytest.raises(sse.SSEError):
        splitter.feed(b"data: " + b"x" * 40)


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
                        max_size=20), max_size=8),
       st.integers(min_value=1, max_value=7))
def test_chunking_never_changes_the_lines(lines, step) -> None:  # type: ignore[no-untyped-def]
    raw = "".join(line + "\r\n" for line in lines).encode()
    chunks = [raw[i:i + step] for i in range(0, len(raw), step)]
    assert _lines(chunks) == lines


def test_parse_line_follows_the_sse_format() -> None:
    assert sse.parse_line("data: x") == sse.SSELine("data", "x")
    assert sse.parse_line("data:x") == sse.SSELine("data", "x")
    assert sse.parse_line("data:  two spaces") == sse.SSELine("data", " two spaces")
    assert sse.parse_line(": keep-alive").kind == "comment"
    assert sse.parse_line("").kind == "blank"
    assert sse.parse_line("event: message") == sse.SSELine("field", "message", "event")


def test_assembler_releases_complete_json_at_once_and_joins_split_values() -> None:
    asm = sse.DataAssembler()
    assert asm.feed_line('data: {"a": 1}') == '{"a": 1}'  # no need to wait for the blank line
    assert asm.feed_line("") is None
    assert asm.feed_line("data: [DONE]") == "[DONE]"
    assert asm.feed_line('data: {"b":') is None
    assert asm.feed_line("data: 2}") == '{"b":\n2}'
    assert asm.feed_line(": ping") is None
    assert asm.feed_line("data: not json") is None
    assert asm.feed_line("") == "not json"  # handed over at the end of the event, to be reported
    assert sse.is_done(" [DONE] ")


# ---------------------------------------------------------------- percentiles


def test_percentile_interpolates_between_ranks() -> None:
    assert stats.percentile([], 50) is None
    assert stats.percentile([7.0], 95) == 7.0
    assert stats.percentile([1, 2, 3, 4, 5], 50) == 3.0
    assert stats.percentile([1, 2, 3, 4, 5], 95) == pytest.approx(4.8)
    assert stats.percentile([5, 1, 4, 2, 3], 0) == 1.0 and stats.percentile([5, 1, 4, 2, 3], 100) == 5.0
    assert stats.percentile([1.0, float("nan"), 3.0], 50) == 2.0
    with pytest.raises(ValueError):
        stats.percentile([1], 101)


@given(st.lists(st.floats(min_value=-1e6, max_value=1e6), min_size=1, max_size=50))
def test_percentiles_are_ordered_and_within_range(values) -> None:  # type: ignore[no-untyped-def]
    s = stats.summarize(values)
    assert s.minimum is not None and s.p50 is not None and s.p95 is not None and s.maximum is not None
    assert s.minimum <= s.p50 <= s.p95 <= s.maximum


def test_summary_to_dict_rounds() -> None:
    d = stats.summarize([0.123456, 0.2]).to_dict()
    assert d["count"] == 2 and d["min"] == 0.1235 and d["max"] == 0.2


# ---------------------------------------------------------------- repetition


def test_fluent_text_scores_low_and_a_loop_scores_high() -> None:
    fluent = ("Retrieval augmented generation combines a search step with a language model so that the "
              "answer is grounded in documents fetched at query time rather than only in what the model "
              "memorised during training, which keeps answers current and lets you cite sources.")
    looped = "the answer is the answer is " * 20
    assert repetition.repetition(fluent).ratio == 0.0
    score = repetition.repetition(looped)
    assert score.ratio is not None and score.ratio > 0.9
    assert score.top_fragment in ("the answer is the", "answer is the answer", "is the answer is")


def test_chinese_is_measured_per_character() -> None:
    assert repetition.units("昇腾 NPU，部署") == ["昇", "腾", "npu", "部", "署"]
    looped = "重复的片段重复的片段" * 10
    score = repetition.repetition(looped)
    assert score.ratio is not None and score.ratio > 0.8
    assert " " not in score.top_fragment  # CJK fragments read without spaces


def test_short_replies_are_not_judged() -> None:
    score = repetition.repetition("yes yes yes yes yes")
    assert score.ratio is None and not score.judged and score.ngrams == 2


# ---------------------------------------------------------------- reply shapes


def test_chat_reply_with_reasoning_content() -> None:
    parts = shapes.parse_reply({"model": "r1", "choices": [{"message": {"content": "RAG is ...",
                                "reasoning_content": "Let me think"}, "finish_reason": "stop"}],
                                "usage": {"prompt_tokens": 9, "completion_tokens": 40}})
    assert (parts.content, parts.reasoning, parts.reasoning_field) == ("RAG is ...", "Let me think",
                                                                      "reasoning_content")
    assert parts.finish_reason == "stop" and parts.usage == shapes.Usage(9, 40) and parts.model == "r1"


def test_stream_chunk_with_vllm_reasoning_field_and_usage_only_chunk() -> None:
    chunk = shapes.parse_chunk({"choices": [{"delta": {"reasoning": "hmm", "content": None}}]})
    assert chunk.reasoning == "hmm" and chunk.reasoning_field == "reasoning" and chunk.content == ""
    usage = shapes.parse_chunk({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 7}})
    assert usage.usage == shapes.Usage(3, 7) and not usage.has_choice
    legacy = shapes.parse_chunk({"choices": [{"text": "abc", "finish_reason": "length"}]})
    assert legacy.content == "abc" and legacy.finish_reason == "length"


def test_in_band_errors_and_junk() -> None:
    assert shapes.parse_chunk({"error": {"message": "boom", "code": 500}}).error == "boom (500)"
    assert shapes.parse_chunk([1, 2]).error
    assert shapes.error_message({"detail": "Not Found"}) == "Not Found"
    assert shapes.error_message({"error": {"message": "too long", "type": "BadRequestError"}}) == \
        "too long (BadRequestError)"


@pytest.mark.parametrize(("text", "expected"), [
    ("<think>abc</think>xyz", ("abc", "xyz", True)),
    ("abc\n</think>\n\nxyz", ("abc", "xyz", True)),
    ("<think>still thinking", ("still thinking", "", True)),
    ("plain answer", ("", "plain answer", False)),
])
def test_split_think(text, expected) -> None:  # type: ignore[no-untyped-def]
    assert shapes.split_think(text) == expected


# ---------------------------------------------------------------- redaction


def test_urls_lose_their_credentials() -> None:
    assert redact.redact_url("http://bob:s3cret@10.0.0.5:1025/v1") == "http://***@10.0.0.5:1025/v1"
    assert redact.redact_url("https://h:8000/?api_key=abcd&x=1") == "https://h:8000/?api_key=***&x=1"
    assert redact.redact_url("http://127.0.0.1:8000") == "http://127.0.0.1:8000"
    assert redact.url_secrets("http://bob:s3cret@h/?token=tok123") == ["bob", "s3cret", "tok123"]


def test_redactor_masks_known_secrets_and_credential_shapes() -> None:
    r = redact.Redactor(["sk-live-123456", "ab"])  # too short to search for: left alone
    text = r("HTTPSConnectionPool: http://u:p@host/ failed with Authorization: Bearer sk-live-123456 ab")
    assert "sk-live-123456" not in text and "u:p@" not in text and "Bearer ***" in text
    assert text.endswith(" ab")
    assert json.dumps(r("key=sk-live-123456")) == '"key=***"'
