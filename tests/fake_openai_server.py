"""A small OpenAI-compatible server for tests (stdlib only, threaded, loopback, port 0).

It speaks what vLLM and MindIE speak to the probe: ``GET /v1/models`` (vLLM's model card with
``owned_by`` "vllm" and ``max_model_len``, or MindIE's "MindIE Server" without it), the health
routes (vLLM ``/health``, MindIE ``/v2/health/ready``), ``POST /v1/chat/completions`` and
``/v1/completions``, streamed as SSE (``data: {chunk}`` lines, a blank line after each, ``data:
[DONE]``, chunked transfer encoding) or not. R1-style replies put the thinking in
``reasoning_content`` (vLLM < 0.11, DeepSeek API), ``reasoning`` (vLLM >= 0.11) or inline
``<think>`` tags (no reasoning parser).

``Behaviour`` plants the faults the probe must grade: a slow first token, slow tokens, a hang after
the health check (hung but healthy, with ``metrics`` a token counter that stands still), a collapse
past N requests in flight (``collapse_above``), reasoning that runs out of max_tokens, 429 beyond N
requests in flight, a connection dropped mid-stream, repeated text, a context limit, a server that dies on long prompts,
an API key, fields the server refuses.

    with FakeServer(Behaviour(first_token_delay_s=0.3)) as server:
        run probe against server.url
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

ANSWER = "RAG（检索增强生成）先从知识库检索与问题相关的文档，再让大模型依据这些文档生成回答。"
REASONING = "用户问什么是 RAG。RAG 是 Retrieval-Augmented Generation，需要一句话说明检索和生成两步。"
_CJK = "\u3400-\u9fff\uff00-\uffef\u3000-\u303f"
_TOKEN_RE = re.compile(rf"\s*(?:[{_CJK}]|[^\s{_CJK}]+)|\s+$")


def tokens(text: str) -> List[str]:
    """Our stand-in tokenizer: one CJK character or one word, with the spaces before it (lossless)."""
    return _TOKEN_RE.findall(text)


@dataclass
class Behaviour:
    model: str = "deepseek-r1-distill-qwen-7b"
    engine: str = "vllm"  # "vllm" or "mindie": owned_by, health route, max_model_len
    max_model_len: Optional[int] = 4096
    api_key: Optional[str] = None
    answer: str = ANSWER
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"  # "reasoning_content", "reasoning" or "think_tags"
    first_token_delay_s: float = 0.0
    token_delay_s: float = 0.0
    health: str = "ok"  # "ok" (200), "dead" (503), "absent" (404)
    hang_completions: bool = False  # health and models answer, completions never do
    max_in_flight: Optional[int] = None  # completions beyond this many at once get 429
    drop_after_tokens: Optional[int] = None  # streamed replies: connection dropped after N tokens
    prompt_token_limit: Optional[int] = None  # longer prompts get 400 "maximum context length"
    die_above_prompt_tokens: Optional[int] = None  # longer prompts kill the server (no more answers)
    error_500_above_prompt_tokens: Optional[int] = None  # longer prompts get a 500
    usage_in_stream: bool = True  # honour stream_options.include_usage
    reject_stream_options: bool = False
    reject_seed: bool = False
    chat_api: bool = True
    answer_by_seed: Dict[int, str] = field(default_factory=dict)  # a different answer for a seed
    models_raw: Optional[str] = None  # GET /v1/models answers 200 with this body instead
    stream_raw: Optional[str] = None  # streamed replies are this text instead (hostile or broken SSE)
    redirect_to: Optional[str] = None  # every request answers 307 to this base URL + the same path
    collapse_above: Optional[int] = None  # with more than N completions in flight ...
    collapse_token_delay_s: float = 0.0  # ... every token takes this long (throughput collapses)
    metrics: bool = False  # serve vLLM's Prometheus /metrics (requests, KV cache, token counter)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256  # the stress test opens many connections at once

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.behaviour = behaviour
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_seen_in_flight = 0
        self.dead = False
        self.requests: List[Tuple[str, str, Dict[str, Any]]] = []  # (method, path, body)
        self.generated_tokens = 0  # vllm:generation_tokens_total
        self.headers_seen: List[Dict[str, str]] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (the probe aborting, a timeout) is normal here: no traceback."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *_args: Any) -> None:  # keep test output clean
        pass

    # ---------------------------------------------------------------- helpers

    def _json(self, status: int, obj: Any) -> None:
        body = json.dumps(obj, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _empty(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _error(self, status: int, message: str, kind: str = "BadRequestError") -> None:
        self._json(status, {"object": "error", "message": message, "type": kind, "code": status})

    def _record(self, body: Dict[str, Any]) -> None:
        with self.server.lock:
            self.server.requests.append((self.command, self.path, body))
            self.server.headers_seen.append({k.lower(): v for k, v in self.headers.items()})

    def _die(self) -> None:
        """Close the connection without an answer."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _authorised(self) -> bool:
        key = self.server.behaviour.api_key
        if key and self.headers.get("Authorization") != f"Bearer {key}":
            self._error(401, "Unauthorized", "AuthenticationError")
            return False
        return True

    # ---------------------------------------------------------------- routes

    def _redirected(self) -> bool:
        target = self.server.behaviour.redirect_to
        if target is None:
            return False
        self.send_response(307)
        self.send_header("Location", target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()
        return True

    def do_GET(self) -> None:
        b = self.server.behaviour
        self._record({})
        if self.server.dead:
            self._die()
            return
        if self._redirected():
            return
        route = self.path.split("?", 1)[0]  # the query string is recorded (requests) and ignored here
        if route == "/v1/models":
            if not self._authorised():
                return
            if b.models_raw is not None:
                body = b.models_raw.encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            card: Dict[str, Any] = {"id": b.model, "object": "model", "created": 1700000000,
                                    "owned_by": "vllm" if b.engine == "vllm" else "MindIE Server"}
            if b.engine == "vllm":
                card["root"] = f"/models/{b.model}"
                card["max_model_len"] = b.max_model_len
            self._json(200, {"object": "list", "data": [card]})
            return
        if route == "/metrics" and b.metrics:
            with self.server.lock:
                running, generated = self.server.in_flight, self.server.generated_tokens
            text = ("# TYPE vllm:num_requests_running gauge\n"
                    f'vllm:num_requests_running{{model_name="{b.model}",engine="0"}} {running}.0\n'
                    "# TYPE vllm:num_requests_waiting gauge\n"
                    f'vllm:num_requests_waiting{{model_name="{b.model}",engine="0"}} 0.0\n'
                    "# TYPE vllm:kv_cache_usage_perc gauge\n"
                    f'vllm:kv_cache_usage_perc{{model_name="{b.model}",engine="0"}} {min(1.0, running / 64):.3f}\n'
                    "# TYPE vllm:generation_tokens_total counter\n"
                    f'vllm:generation_tokens_total{{model_name="{b.model}",engine="0"}} {generated}.0\n').encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        health_path = "/health" if b.engine == "vllm" else "/v2/health/ready"
        if route == health_path and b.health != "absent":
            self._empty(200 if b.health == "ok" else 503)
            return
        self._json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        b = self.server.behaviour
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._error(400, "invalid JSON")
            return
        self._record(body)
        if self.server.dead:
            self._die()
            return
        if self._redirected():
            return
        if not self._authorised():
            return
        route = self.path.split("?", 1)[0]
        chat = route == "/v1/chat/completions"
        if route not in ("/v1/chat/completions", "/v1/completions") or (chat and not b.chat_api):
            self._json(404, {"detail": "Not Found"})
            return
        if body.get("model") != b.model:
            self._error(404, f"The model `{body.get('model')}` does not exist.", "NotFoundError")
            return
        if b.reject_seed and "seed" in body:
            self._error(400, "unsupported parameter: seed")
            return
        if b.reject_stream_options and "stream_options" in body:
            self._error(400, "Extra inputs are not permitted: stream_options")
            return
        prompt = body["messages"][-1]["content"] if chat else str(body.get("prompt", ""))
        prompt_tokens = len(tokens(prompt)) + 8  # + a chat template's worth
        if b.die_above_prompt_tokens is not None and prompt_tokens > b.die_above_prompt_tokens:
            self.server.dead = True
            self._die()
            return
        if b.error_500_above_prompt_tokens is not None and prompt_tokens > b.error_500_above_prompt_tokens:
            self._error(500, "NPU out of memory", "InternalServerError")
            return
        if b.prompt_token_limit is not None and prompt_tokens > b.prompt_token_limit:
            self._error(400, f"This model's maximum context length is {b.prompt_token_limit} tokens. However, "
                             f"you requested {prompt_tokens} tokens.")
            return
        with self.server.lock:
            if b.max_in_flight is not None and self.server.in_flight >= b.max_in_flight:
                refused = True
            else:
                refused = False
                self.server.in_flight += 1
                self.server.max_seen_in_flight = max(self.server.max_seen_in_flight, self.server.in_flight)
        if refused:
            self._error(429, "Too many requests in flight", "RateLimitError")
            return
        try:
            if b.hang_completions:
                self.server.stop.wait(60)
                self._die()
                return
            if body.get("stream"):
                self._stream(body, chat, prompt_tokens)
            else:
                self._complete(body, chat, prompt_tokens)
        finally:
            with self.server.lock:
                self.server.in_flight -= 1

    # ---------------------------------------------------------------- generation

    def _pieces(self, body: Dict[str, Any]) -> Tuple[List[Tuple[str, str]], str]:
        """(kind, text) tokens up to max_tokens, and the finish reason."""
        b = self.server.behaviour
        answer = b.answer_by_seed.get(body.get("seed"), b.answer) if body.get("seed") is not None else b.answer
        thought = tokens(b.reasoning)
        said = tokens(answer)
        if b.reasoning and b.reasoning_field == "think_tags":
            out = [("content", "<think>")] + [("content", t) for t in thought] + [("content", "</think>")]
            out += [("content", t) for t in said]
        else:
            out = [("reasoning", t) for t in thought] + [("content", t) for t in said]
        limit = int(body.get("max_tokens") or 16)
        if body.get("ignore_eos") and out:  # vLLM's sampling parameter: generate max_tokens whatever the text
            while len(out) < limit:
                out = out + [("content", t) for t in said or ["x"]]
            return out[:limit], "length"
        finish = "length" if len(out) > limit else "stop"
        return out[:limit], finish

    def _complete(self, body: Dict[str, Any], chat: bool, prompt_tokens: int) -> None:
        b = self.server.behaviour
        pieces, finish = self._pieces(body)
        if self.server.stop.wait(b.first_token_delay_s + b.token_delay_s * max(0, len(pieces) - 1)):
            return
        with self.server.lock:
            self.server.generated_tokens += len(pieces)
        content = "".join(t for k, t in pieces if k == "content")
        reasoning = "".join(t for k, t in pieces if k == "reasoning")
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(pieces),
                 "total_tokens": prompt_tokens + len(pieces)}
        if chat:
            message: Dict[str, Any] = {"role": "assistant", "content": content}
            if reasoning:
                message[b.reasoning_field] = reasoning
            choice: Dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish}
            obj = "chat.completion"
        else:
            choice = {"index": 0, "text": content, "finish_reason": finish}
            obj = "text_completion"
        self._json(200, {"id": "cmpl-1", "object": obj, "created": 1700000000, "model": b.model,
                         "choices": [choice], "usage": usage})

    def _chunk(self, data: str) -> None:
        payload = data.encode()
        self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def _stream(self, body: Dict[str, Any], chat: bool, prompt_tokens: int) -> None:
        b = self.server.behaviour
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if b.stream_raw is not None:
            self._chunk(b.stream_raw)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return
        pieces, finish = self._pieces(body)
        base = {"id": "chatcmpl-1", "object": "chat.completion.chunk" if chat else "text_completion",
                "created": 1700000000, "model": b.model}
        if chat:  # vLLM opens with the role
            self._chunk("data: " + json.dumps(dict(base, choices=[{"index": 0, "delta": {"role": "assistant"},
                                                                   "finish_reason": None}])) + "\n\n")
        if self.server.stop.wait(b.first_token_delay_s):
            return
        for i, (kind, text) in enumerate(pieces):
            if b.drop_after_tokens is not None and i >= b.drop_after_tokens:
                self._die()
                return
            delay = b.token_delay_s
            if b.collapse_above is not None and self.server.in_flight > b.collapse_above:
                delay = max(delay, b.collapse_token_delay_s)
            if i and delay and self.server.stop.wait(delay):
                return
            with self.server.lock:
                self.server.generated_tokens += 1
            last = i == len(pieces) - 1
            if chat:
                delta = {("content" if kind == "content" else b.reasoning_field): text}
                choice: Dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish if last else None}
            else:
                choice = {"index": 0, "text": text, "finish_reason": finish if last else None}
            self._chunk("data: " + json.dumps(dict(base, choices=[choice]), ensure_ascii=False) + "\n\n")
        options = body.get("stream_options") or {}
        if b.usage_in_stream and options.get("include_usage"):
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(pieces),
                     "total_tokens": prompt_tokens + len(pieces)}
            self._chunk("data: " + json.dumps(dict(base, choices=[], usage=usage)) + "\n\n")
        self._chunk("data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class FakeServer:
    """``with FakeServer(Behaviour(...)) as server:`` a live server at ``server.url``."""

    def __init__(self, behaviour: Optional[Behaviour] = None) -> None:
        self.httpd = _Server(behaviour or Behaviour())
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def behaviour(self) -> Behaviour:
        return self.httpd.behaviour

    @property
    def requests(self) -> List[Tuple[str, str, Dict[str, Any]]]:
        with self.httpd.lock:
            return list(self.httpd.requests)

    def completions(self) -> List[Dict[str, Any]]:
        return [body for method, path, body in self.requests if method == "POST"]

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.httpd.stop.set()  # releases hanging handlers
        self.httpd.shutdown()
        self.httpd.server_close()
