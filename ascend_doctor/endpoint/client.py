"""A small OpenAI-compatible client on ``requests``: GET, a non-streaming POST and a streamed
(SSE) completion, each with strict time limits and size bounds, safe to use from many threads.

Time limits, per request:
* connect: ``min(10 s, --timeout)``; read: ``--timeout`` of silence (requests' own timeouts);
* overall: ``--timeout`` from the start of the request. A watchdog thread shuts the socket of a
  reply still running past that deadline, so a server that drips one byte at a time, or goes
  quiet mid-stream, cannot hold the probe. ``abort_all`` does the same at once for Ctrl-C.

Every failure becomes an outcome (records.OK, REFUSED, TIMEOUT, RESET, ...) with a one-line,
redacted detail; nothing here raises on a bad server.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from msgspec import Struct, field

from ascend_doctor import __version__, boundedjson
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint import shapes, sse
from ascend_doctor.endpoint.redact import Redactor
from ascend_doctor.i18n import _

MAX_JSON_BYTES = 4 * 1024 * 1024  # a non-streamed reply or /v1/models
MAX_ERROR_BYTES = 64 * 1024  # the body of an error answer
MAX_STREAM_BYTES = 16 * 1024 * 1024  # one streamed reply
CONNECT_TIMEOUT_S = 10.0
WATCHDOG_PERIOD_S = 0.05
_LENGTH_WORDS = ("maximum context", "context length", "too long", "max_model_len", "maxinputtokenlen",
                 "maxseqlen", "prompt length", "input length", "exceeds", "token limit")


class Answer(Struct):
    """A GET or non-streamed POST: status and (bounded) body, or how it failed."""

    status: Optional[int]
    body: bytes = b""
    outcome: str = rec.OK
    detail: str = ""
    elapsed_s: float = 0.0
    content_type: str = ""

    def json(self) -> Any:
        """The body as JSON: ValueError (never RecursionError) on anything else or anything hostile."""
        return boundedjson.loads(self.body.decode("utf-8", errors="replace"), what="the reply",
                                 max_chars=MAX_JSON_BYTES)


class _Active(Struct):
    response: Any
    deadline: float
    reason: str = ""  # why it was aborted: "deadline" or "cancelled"


class _StreamState(Struct):
    reply: rec.Reply
    started: float
    content: List[str] = field(default_factory=list)
    reasoning: List[str] = field(default_factory=list)
    field_name: Optional[str] = None
    last_text_at: Optional[float] = None


class EndpointClient:
    def __init__(self, root: str, api_key: Optional[str] = None, timeout_s: float = 60.0,
                 verify: Union[bool, str] = True, redactor: Optional[Redactor] = None,
                 follow_redirects: bool = False) -> None:
        self.root, self._query = _split_query(root)
        # A redirect is followed only when asked (--follow-redirects): the probe grades the server
        # it was pointed at, not another one a reply names (requests drops the key on a new host).
        self._follow_redirects = follow_redirects
        self.timeout_s = timeout_s
        self.connect_timeout_s = min(CONNECT_TIMEOUT_S, timeout_s)
        self._api_key = api_key
        self._verify = verify
        self._redact = redactor or Redactor([api_key or ""])
        self._local = threading.local()
        self._lock = threading.Lock()
        self._sessions: List[Any] = []
        self._active: Dict[int, _Active] = {}
        self._watchdog: Optional[threading.Thread] = None
        self._closed = threading.Event()

    # ------------------------------------------------------------------ plumbing

    def url(self, path: str) -> str:
        """``path`` under the endpoint's root, with the URL's query string kept as given."""
        if "://" in path:
            return path
        return self.root + path + (f"?{self._query}" if self._query else "")

    def _session(self) -> Any:
        session = getattr(self._local, "session", None)
        if session is None:
            import requests

            session = requests.Session()
            session.headers.update({
                "User-Agent": f"ascend-doctor/{__version__} (probe)",
                # Compressed SSE would arrive in bursts and spoil the timings.
                "Accept-Encoding": "identity",
            })
            if self._api_key:
                session.headers["Authorization"] = f"Bearer {self._api_key}"
            session.verify = self._verify
            # A loopback endpoint is never reached through $http_proxy; a remote one is, as curl would.
            session.trust_env = not _is_loopback(self.root)
            self._local.session = session
            with self._lock:
                self._sessions.append(session)
        return session

    def _timeouts(self) -> Tuple[float, float]:
        return (self.connect_timeout_s, self.timeout_s)

    def _register(self, response: Any, deadline: float) -> _Active:
        entry = _Active(response, deadline)
        with self._lock:
            self._active[id(entry)] = entry
            if self._watchdog is None or not self._watchdog.is_alive():
                self._watchdog = threading.Thread(target=self._watch, name="probe-watchdog", daemon=True)
                self._watchdog.start()
        return entry

    def _unregister(self, entry: _Active) -> None:
        with self._lock:
            self._active.pop(id(entry), None)

    def _watch(self) -> None:
        while not self._closed.is_set():
            now = time.monotonic()
            with self._lock:
                late = [e for e in self._active.values() if not e.reason and now > e.deadline]
                if not self._active:
                    self._watchdog = None
                    return
            for entry in late:
                _abort(entry, "deadline")
            self._closed.wait(WATCHDOG_PERIOD_S)

    def abort_all(self) -> None:
        """Stop every request in flight now (Ctrl-C, end of --duration)."""
        with self._lock:
            entries = list(self._active.values())
        for entry in entries:
            _abort(entry, "cancelled")

    def in_flight(self) -> int:
        with self._lock:
            return len(self._active)

    def close(self) -> None:
        self.abort_all()
        self._closed.set()
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            with contextlib.suppress(Exception):  # closing must never fail the probe
                session.close()

    # ------------------------------------------------------------------ requests

    def get(self, path: str, max_bytes: int = MAX_JSON_BYTES, timeout_s: Optional[float] = None) -> Answer:
        return self._call("GET", path, None, max_bytes, timeout_s)

    def post(self, path: str, payload: Dict[str, Any], max_bytes: int = MAX_JSON_BYTES) -> Answer:
        return self._call("POST", path, payload, max_bytes, None)

    def _call(self, method: str, path: str, payload: Optional[Dict[str, Any]], max_bytes: int,
              timeout_s: Optional[float]) -> Answer:
        started = time.monotonic()
        limit = timeout_s if timeout_s is not None else self.timeout_s
        try:
            response = self._session().request(
                method, self.url(path), json=payload, stream=True,
                timeout=(min(self.connect_timeout_s, limit), limit), allow_redirects=self._follow_redirects)
        except Exception as exc:
            outcome, detail = self._classify_exception(exc, "")
            return Answer(None, outcome=outcome, detail=detail, elapsed_s=time.monotonic() - started)
        entry = self._register(response, started + limit)
        try:
            body, outcome, detail = self._read_body(response, entry, max_bytes)
            answer = Answer(response.status_code, body, outcome, detail, time.monotonic() - started,
                            response.headers.get("Content-Type", ""))
            if answer.outcome == rec.OK and response.status_code >= 400:
                answer.outcome, answer.detail = classify_status(response.status_code, body)
                answer.detail = self._redact(answer.detail)
            elif answer.outcome == rec.OK and _is_redirect(response.status_code):
                answer.outcome, answer.detail = rec.HTTP_ERROR, self._redirect_detail(response)
            return answer
        finally:
            self._unregister(entry)
            response.close()

    def _read_body(self, response: Any, entry: _Active, max_bytes: int) -> Tuple[bytes, str, str]:
        chunks: List[bytes] = []
        size = 0
        try:
            for chunk in _chunks(response):
                size += len(chunk)
                if size > max_bytes:
                    return b"".join(chunks), rec.BAD_REPLY, _("the reply is larger than {size} KiB").format(
                        size=max_bytes // 1024)
                chunks.append(chunk)
        except Exception as exc:
            outcome, detail = self._classify_exception(exc, entry.reason)
            return b"".join(chunks), outcome, detail
        if entry.reason:
            return b"".join(chunks), *self._aborted(entry.reason)
        return b"".join(chunks), rec.OK, ""

    def complete(self, path: str, payload: Dict[str, Any]) -> rec.Reply:
        """A non-streamed completion, reduced to a Reply (no TTFT: the text arrives at once)."""
        answer = self.post(path, payload)
        reply = rec.Reply(outcome=answer.outcome, status=answer.status, detail=answer.detail, stream=False,
                          total_s=answer.elapsed_s)
        if answer.outcome != rec.OK:
            return reply
        try:
            parts = shapes.parse_reply(answer.json())
        except ValueError:
            reply.outcome, reply.detail = rec.BAD_REPLY, _("the reply is not JSON")
            return reply
        if parts.error or not parts.has_choice:
            reply.outcome = rec.BAD_REPLY
            reply.detail = self._redact(parts.error or _("the reply has no choices"))
            return reply
        _finish_text(reply, [parts.content], [parts.reasoning], parts.reasoning_field)
        reply.finish_reason = parts.finish_reason
        if parts.usage:
            reply.prompt_tokens, reply.completion_tokens = parts.usage.prompt_tokens, parts.usage.completion_tokens
        reply.text_chunks = 1 if (reply.content or reply.reasoning) else 0
        return reply

    def stream(self, path: str, payload: Dict[str, Any], on_text: Optional[Callable[[], None]] = None
               ) -> rec.Reply:
        """A streamed completion: TTFT, the gaps between text chunks, tokens, the text itself."""
        started = time.monotonic()
        state = _StreamState(rec.Reply(stream=True), started)
        reply = state.reply
        try:
            response = self._session().post(self.url(path), json=payload, stream=True, timeout=self._timeouts(),
                                            headers={"Accept": "text/event-stream"},
                                            allow_redirects=self._follow_redirects)
        except Exception as exc:
            reply.outcome, reply.detail = self._classify_exception(exc, "")
            reply.total_s = time.monotonic() - started
            return reply
        entry = self._register(response, started + self.timeout_s)
        reply.status = response.status_code
        try:
            if _is_redirect(response.status_code):
                reply.outcome, reply.detail = rec.HTTP_ERROR, self._redirect_detail(response)
                return reply
            if response.status_code != 200:
                body, outcome, detail = self._read_body(response, entry, MAX_ERROR_BYTES)
                reply.outcome, reply.detail = classify_status(response.status_code, body) if outcome == rec.OK \
                    else (outcome, detail)
                reply.detail = self._redact(reply.detail)
                return reply
            if "text/event-stream" not in response.headers.get("Content-Type", "") and \
                    "json" in response.headers.get("Content-Type", ""):
                reply.detail = _("the server answered with one JSON body instead of a stream")
                body, outcome, detail = self._read_body(response, entry, MAX_JSON_BYTES)
                reply.outcome = outcome if outcome != rec.OK else rec.BAD_REPLY
                return reply
            self._consume(response, entry, state, on_text)
            return reply
        finally:
            reply.total_s = time.monotonic() - started
            _finish_text(reply, state.content, state.reasoning, state.field_name)
            self._unregister(entry)
            response.close()

    def _consume(self, response: Any, entry: _Active, state: _StreamState,
                 on_text: Optional[Callable[[], None]]) -> None:
        reply = state.reply
        splitter = sse.LineSplitter()
        assembler = sse.DataAssembler()
        size = 0
        try:
            for chunk in _chunks(response):
                now = time.monotonic()
                size += len(chunk)
                if size > MAX_STREAM_BYTES:
                    reply.outcome = rec.BAD_REPLY
                    reply.detail = _("the stream is larger than {size} MiB").format(size=MAX_STREAM_BYTES >> 20)
                    return
                for line in splitter.feed(chunk):
                    payload = assembler.feed_line(line)
                    if payload is not None and not self._take(payload, now, state, on_text):
                        return
            now = time.monotonic()
            for line in splitter.close():
                payload = assembler.feed_line(line)
                if payload is not None and not self._take(payload, now, state, on_text):
                    return
            payload = assembler.flush()
            if payload is not None and not self._take(payload, now, state, on_text):
                return
        except sse.SSEError as exc:
            reply.outcome, reply.detail = rec.BAD_REPLY, str(exc)
            return
        except Exception as exc:
            reply.outcome, reply.detail = self._classify_exception(exc, entry.reason)
            return
        if entry.reason:
            reply.outcome, reply.detail = self._aborted(entry.reason)
        elif not reply.saw_done and reply.finish_reason is None:
            reply.outcome = rec.RESET
            reply.detail = _("the stream ended before the reply was finished (no finish_reason, no [DONE])")

    def _take(self, payload: str, now: float, state: _StreamState, on_text: Optional[Callable[[], None]]) -> bool:
        """Account for one data payload; False ends the stream."""
        reply = state.reply
        if sse.is_done(payload):
            reply.saw_done = True
            return False
        try:
            obj = boundedjson.loads(payload, what="a stream event", max_chars=sse.MAX_LINE_BYTES * 4)
        except ValueError:
            reply.outcome, reply.detail = rec.BAD_REPLY, _("a stream event is not JSON: {payload}").format(
                payload=repr(payload[:80]))
            return False
        parts = shapes.parse_chunk(obj)
        if parts.error:
            reply.outcome, reply.detail = rec.SERVER_ERROR, self._redact(_("error inside the stream: {error}").format(
                error=parts.error))
            return False
        if parts.usage is not None:
            reply.prompt_tokens = parts.usage.prompt_tokens
            if parts.usage.completion_tokens is not None:
                reply.completion_tokens = parts.usage.completion_tokens
        if parts.finish_reason:
            reply.finish_reason = parts.finish_reason
        if parts.content or parts.reasoning:
            elapsed = now - state.started
            if reply.ttft_s is None:
                reply.ttft_s = elapsed
            elif state.last_text_at is not None and len(reply.gaps_s) < rec.MAX_KEPT_GAPS:
                reply.gaps_s.append(now - state.last_text_at)
            state.last_text_at = now
            reply.last_token_s = elapsed
            reply.text_chunks += 1
            if parts.content:
                state.content.append(parts.content)
            if parts.reasoning:
                state.reasoning.append(parts.reasoning)
                state.field_name = state.field_name or parts.reasoning_field
            if on_text is not None:
                on_text()
        return True

    # ------------------------------------------------------------------ classification

    def _redirect_detail(self, response: Any) -> str:
        from ascend_doctor.endpoint.redact import redact_url

        location = response.headers.get("Location") or "?"
        return self._redact(_("HTTP {status}: redirected to {location}, not followed (--follow-redirects follows "
                              "it)").format(status=response.status_code, location=_one_line(redact_url(location)
                                                                                         if "://" in location
                                                                                         else location)[:200]))

    def _aborted(self, reason: str) -> Tuple[str, str]:
        if reason == "cancelled":
            return rec.CANCELLED, _("stopped before it finished")
        return rec.TIMEOUT, _("not finished within --timeout {seconds} s").format(seconds=f"{self.timeout_s:g}")

    def _classify_exception(self, exc: BaseException, aborted: str) -> Tuple[str, str]:
        if aborted:
            return self._aborted(aborted)
        import requests

        text = self._redact(_one_line(exc))
        if isinstance(exc, requests.exceptions.SSLError):
            return rec.CONNECT, _("TLS handshake failed: {error}").format(error=text)
        if isinstance(exc, requests.exceptions.ConnectTimeout):
            return rec.CONNECT, _("no TCP connection within {seconds} s").format(seconds=f"{self.connect_timeout_s:g}")
        if isinstance(exc, (requests.exceptions.ReadTimeout, socket.timeout, TimeoutError)) or \
                "timed out" in text.lower():
            return rec.TIMEOUT, _("no answer within --timeout {seconds} s").format(seconds=f"{self.timeout_s:g}")
        if isinstance(exc, requests.exceptions.ConnectionError):
            lowered = text.lower()
            if any(w in lowered for w in ("newconnectionerror", "refused", "resolve", "name or service",
                                          "no route", "unreachable", "nodename")):
                return rec.CONNECT, text
            return rec.RESET, _("the connection was dropped: {error}").format(error=text)
        if isinstance(exc, (requests.exceptions.ChunkedEncodingError, ConnectionError, OSError)) or \
                "IncompleteRead" in text or "ProtocolError" in type(exc).__name__:
            return rec.RESET, _("the connection was dropped mid-reply: {error}").format(error=text)
        if isinstance(exc, requests.exceptions.InvalidURL):
            return rec.CONNECT, _("invalid URL: {error}").format(error=text)
        return rec.BAD_REPLY, f"{type(exc).__name__}: {text}"


def classify_status(status: int, body: bytes) -> Tuple[str, str]:
    """Outcome and one-line detail of an HTTP error answer."""
    message = ""
    try:
        message = shapes.error_message(boundedjson.loads(body.decode("utf-8", errors="replace"),
                                                         what="the error body"))
    except ValueError:
        message = body.decode("utf-8", errors="replace").strip()
    message = _one_line(message)[:300]
    detail = f"HTTP {status}" + (f": {message}" if message else "")
    if status in (429, 503):
        return rec.REFUSED, detail
    if status in (400, 413, 422) and any(w in message.lower() for w in _LENGTH_WORDS):
        return rec.TOO_LONG, detail
    if status >= 500:
        return rec.SERVER_ERROR, detail
    return rec.HTTP_ERROR, detail


def _finish_text(reply: rec.Reply, content: List[str], reasoning: List[str], field_name: Optional[str]) -> None:
    """Join the text and split inline <think> reasoning when the server did not separate it."""
    text = "".join(content)
    thought = "".join(reasoning)
    source = field_name
    if not thought:
        inline, answer, found = shapes.split_think(text)
        if found:
            thought, text, source = inline, answer, "think_tags"
    reply.reasoning_source = source if thought else None
    reply.keep_text(text, thought)


def _chunks(response: Any) -> Iterator[bytes]:
    """Bytes as they arrive. urllib3 2's read1 returns what is there instead of waiting for a
    full buffer (which would delay the first token); urllib3 1 streams chunked replies per chunk."""
    raw = response.raw
    read1 = getattr(raw, "read1", None)
    if callable(read1):
        while True:
            data = read1(65536)
            if not data:
                return
            yield data
    else:  # pragma: no cover - urllib3 1.x
        yield from response.iter_content(chunk_size=None)


def _abort(entry: _Active, reason: str) -> None:
    """Wake a thread blocked reading this reply: shut the socket down, then close the reply."""
    if entry.reason:
        return
    entry.reason = reason
    raw = getattr(entry.response, "raw", None)
    sock = None
    connection = getattr(raw, "_connection", None)
    if connection is not None:
        sock = getattr(connection, "sock", None)
    if sock is None:
        fp = getattr(getattr(getattr(raw, "_fp", None), "fp", None), "raw", None)
        sock = getattr(fp, "_sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _is_redirect(status: int) -> bool:
    return status in (301, 302, 303, 307, 308)


def _split_query(root: str) -> Tuple[str, str]:
    """(scheme://host/path without a trailing /, the query string): a fragment is never sent."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(root)
    except ValueError:
        return root.rstrip("/"), ""
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", "")), parts.query


def _is_loopback(url: str) -> bool:
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in ("localhost", "::1") or host.startswith("127.")


def _one_line(value: Any) -> str:
    return " ".join(str(value).split())
