"""The endpoint client against our own OpenAI-compatible server: SSE timings, reasoning fields,
time limits that hold, failures classified, credentials never echoed. Every test is bounded."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Dict, Iterator

import pytest

from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint.client import EndpointClient
from ascend_doctor.endpoint.redact import Redactor

from .fake_openai_server import ANSWER, REASONING, Behaviour, FakeServer

CHAT = "/v1/chat/completions"


def _request(**extra: Any) -> Dict[str, Any]:
    body: Dict[str, Any] = {"model": "deepseek-r1-distill-qwen-7b", "max_tokens": 200, "stream": True,
                            "messages": [{"role": "user", "content": "什么是 RAG"}]}
    body.update(extra)
    return body


@pytest.fixture
def serve() -> Iterator[Any]:
    servers = []

    def start(**behaviour: Any) -> FakeServer:
        server = FakeServer(Behaviour(**behaviour)).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def test_stream_times_first_token_and_gaps_and_counts_usage(serve: Any) -> None:
    server = serve(first_token_delay_s=0.15, token_delay_s=0.01, reasoning=REASONING)
    client = EndpointClient(server.url, timeout_s=5)
    reply = client.stream(CHAT, _request(stream_options={"include_usage": True}))
    client.close()
    assert reply.ok, reply.detail
    assert 0.15 <= (reply.ttft_s or 0) < 1.0
    assert reply.content == ANSWER and reply.reasoning == REASONING
    assert reply.reasoning_source == "reasoning_content"
    assert reply.tokens_counted_by_server and reply.output_tokens == reply.text_chunks
    assert len(reply.gaps_s) == reply.text_chunks - 1 and all(g >= 0 for g in reply.gaps_s)
    assert reply.decode_tps is not None and reply.decode_tps > 0
    assert reply.saw_done and reply.finish_reason == "stop"


@pytest.mark.parametrize("field", ["reasoning", "think_tags"])
def test_reasoning_in_the_newer_field_or_inline_tags(serve: Any, field: str) -> None:
    server = serve(reasoning=REASONING, reasoning_field=field)
    client = EndpointClient(server.url, timeout_s=5)
    streamed = client.stream(CHAT, _request())
    whole = client.complete(CHAT, _request(stream=False))
    client.close()
    for reply in (streamed, whole):
        assert reply.ok, reply.detail
        assert reply.reasoning == REASONING and reply.content == ANSWER
        assert reply.reasoning_source == field


def test_reasoning_cut_by_max_tokens_leaves_an_empty_answer(serve: Any) -> None:
    server = serve(reasoning=REASONING * 5)
    client = EndpointClient(server.url, timeout_s=5)
    reply = client.stream(CHAT, _request(max_tokens=10))
    client.close()
    assert reply.ok and reply.finish_reason == "length" and reply.content == "" and reply.reasoning


def test_a_connection_dropped_mid_stream_is_a_reset(serve: Any) -> None:
    server = serve(drop_after_tokens=3)
    client = EndpointClient(server.url, timeout_s=5)
    reply = client.stream(CHAT, _request())
    client.close()
    assert reply.outcome == rec.RESET, reply.detail
    assert reply.text_chunks == 3


def test_a_hang_after_the_headers_ends_at_the_timeout(serve: Any) -> None:
    server = serve(hang_completions=True)
    client = EndpointClient(server.url, timeout_s=0.8)
    started = time.monotonic()
    reply = client.complete(CHAT, _request(stream=False))
    client.close()
    assert reply.outcome == rec.TIMEOUT, reply.detail
    assert time.monotonic() - started < 2.5


def test_a_stream_that_drips_then_stalls_is_cut_at_the_overall_deadline(serve: Any) -> None:
    # Each token arrives before the read timeout, so only the overall deadline can stop it.
    server = serve(token_delay_s=0.3, answer="word " * 200)
    client = EndpointClient(server.url, timeout_s=1.0)
    started = time.monotonic()
    reply = client.stream(CHAT, _request(max_tokens=200))
    elapsed = time.monotonic() - started
    client.close()
    assert reply.outcome == rec.TIMEOUT, reply.detail
    assert 0.9 < elapsed < 1.8
    assert reply.text_chunks >= 2


def test_refusals_errors_and_unknown_models_are_classified(serve: Any) -> None:
    server = serve(max_in_flight=0)
    client = EndpointClient(server.url, timeout_s=5)
    refused = client.stream(CHAT, _request())
    assert refused.outcome == rec.REFUSED and refused.status == 429 and "Too many" in refused.detail
    unknown = client.complete(CHAT, _request(stream=False, model="nope"))
    assert unknown.outcome == rec.HTTP_ERROR and unknown.status == 404 and "does not exist" in unknown.detail
    client.close()
    long_server = serve(prompt_token_limit=4)
    client = EndpointClient(long_server.url, timeout_s=5)
    too_long = client.stream(CHAT, _request())
    client.close()
    assert too_long.outcome == rec.TOO_LONG and "maximum context length" in too_long.detail


def test_nothing_listening_is_a_connect_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = EndpointClient(f"http://127.0.0.1:{port}", timeout_s=2)
    answer = client.get("/v1/models")
    reply = client.stream(CHAT, _request())
    client.close()
    assert answer.status is None and answer.outcome == rec.CONNECT
    assert reply.outcome == rec.CONNECT


def test_abort_all_stops_a_hanging_stream_at_once(serve: Any) -> None:
    server = serve(first_token_delay_s=30)
    client = EndpointClient(server.url, timeout_s=20)
    box = []
    worker = threading.Thread(target=lambda: box.append(client.stream(CHAT, _request())), daemon=True)
    worker.start()
    deadline = time.monotonic() + 3
    while client.in_flight() == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    started = time.monotonic()
    client.abort_all()
    worker.join(3)
    client.close()
    assert box and box[0].outcome == rec.CANCELLED
    assert time.monotonic() - started < 1.0


def test_the_api_key_is_sent_and_never_echoed(serve: Any) -> None:
    key = "sk-test-0123456789"
    server = serve(api_key=key)
    anonymous = EndpointClient(server.url, timeout_s=5)
    refused = anonymous.get("/v1/models")
    anonymous.close()
    assert refused.status == 401
    client = EndpointClient(server.url, api_key=key, timeout_s=5)
    assert client.get("/v1/models").status == 200
    client.close()
    assert server.httpd.headers_seen[-1]["authorization"] == f"Bearer {key}"


def test_failure_details_are_redacted() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://alice:hunter22@127.0.0.1:{port}"
    client = EndpointClient(url, timeout_s=2, redactor=Redactor(["hunter22"]))
    answer = client.get("/v1/models")
    client.close()
    assert answer.outcome == rec.CONNECT
    assert "hunter22" not in answer.detail and "alice:" not in answer.detail
