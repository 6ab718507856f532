"""What a probe measured: typed records the ``ASC-SRV-*`` checks compare with thresholds.

``ProbeFacts`` is the "facts" of the probe suite (``ctx.facts`` for those checks). It is filled
phase by phase, so that an interrupted probe still carries everything measured so far; a
phase that did not run says why (``not_measured``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.endpoint.repetition import RepetitionScore
from ascend_doctor.endpoint.stats import Summary, summarize
from ascend_doctor.endpoint.thresholds import Thresholds
from ascend_doctor.i18n import _

# How a request ended. "refused" is the service protecting itself (429 Too Many Requests,
# 503 Service Unavailable); "too_long" is a 400/413/422 about the prompt length; the rest
# are failures of one kind or another.
OK = "ok"
REFUSED = "refused"
TOO_LONG = "too_long"
HTTP_ERROR = "http_error"  # any other 4xx
SERVER_ERROR = "server_error"  # 5xx other than 503
TIMEOUT = "timeout"  # nothing (more) within --timeout
CONNECT = "connect_error"  # connection refused, DNS, TLS
RESET = "reset"  # connection dropped mid-reply
BAD_REPLY = "bad_reply"  # not the protocol (not JSON, truncated stream, in-band error)
CANCELLED = "cancelled"  # stopped by Ctrl-C or the end of --duration
FAILURES = (HTTP_ERROR, SERVER_ERROR, TIMEOUT, CONNECT, RESET, BAD_REPLY)

# Bounds on what one reply keeps (the report carries excerpts only).
MAX_KEPT_CHARS = 64_000
MAX_KEPT_GAPS = 4096


class Reply(Struct):
    """One completion request, streamed or not, as the client saw it."""

    outcome: str = OK
    status: Optional[int] = None
    detail: str = ""
    stream: bool = False
    ttft_s: Optional[float] = None  # first content or reasoning text
    last_token_s: Optional[float] = None
    total_s: float = 0.0
    gaps_s: List[float] = field(default_factory=list)  # between text-bearing chunks
    text_chunks: int = 0
    content: str = ""
    reasoning: str = ""
    reasoning_source: Optional[str] = None  # reasoning_content, reasoning, think_tags
    finish_reason: Optional[str] = None
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None
    saw_done: bool = False

    @property
    def ok(self) -> bool:
        return self.outcome == OK

    @property
    def output_tokens(self) -> int:
        """Tokens generated: the server's usage count when it sent one, else the number of
        text-bearing chunks (vLLM and MindIE stream one token per chunk, so this is close)."""
        return self.completion_tokens if self.completion_tokens is not None else self.text_chunks

    @property
    def tokens_counted_by_server(self) -> bool:
        return self.completion_tokens is not None

    @property
    def decode_tps(self) -> Optional[float]:
        """Tokens per second after the first one (decode speed, prefill excluded)."""
        if self.ttft_s is None or self.last_token_s is None or self.output_tokens < 2:
            return None
        span = self.last_token_s - self.ttft_s
        return (self.output_tokens - 1) / span if span > 0 else None

    @property
    def tpot_s(self) -> Optional[float]:
        """Time per output token excluding the first (vLLM's benchmark "TPOT (excl. 1st token)"):
        (last token - first token) / (output tokens - 1)."""
        rate = self.decode_tps
        return 1.0 / rate if rate else None

    def keep_text(self, content: str, reasoning: str) -> None:
        self.content = content[:MAX_KEPT_CHARS]
        self.reasoning = reasoning[:MAX_KEPT_CHARS]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "outcome": self.outcome, "status": self.status, "detail": self.detail[:300], "stream": self.stream,
            "ttft_s": _r(self.ttft_s), "total_s": _r(self.total_s), "output_tokens": self.output_tokens,
            "tokens_counted_by": "server usage" if self.tokens_counted_by_server else "streamed chunks",
            "decode_tps": _r(self.decode_tps, 2), "finish_reason": self.finish_reason,
            "content_chars": len(self.content), "reasoning_chars": len(self.reasoning),
            "reasoning_source": self.reasoning_source,
        }


class LoadPhase(Struct):
    """Several streamed requests at one concurrency (1 for latency, N for throughput, stress)."""

    name: str
    concurrency: int
    planned: int
    replies: List[Reply] = field(default_factory=list)
    wall_s: float = 0.0
    interrupted: bool = False
    cut_at_deadline: int = 0  # still running when the phase's time was up (stress)
    client_cpu_s: Optional[float] = None  # CPU this process used during the phase (all threads)

    def count(self, *outcomes: str) -> int:
        return sum(1 for r in self.replies if r.outcome in outcomes)

    def outcomes(self) -> Dict[str, int]:
        counts: Dict[str, int] = {}
        for reply in self.replies:
            counts[reply.outcome] = counts.get(reply.outcome, 0) + 1
        return counts

    @property
    def succeeded(self) -> List[Reply]:
        return [r for r in self.replies if r.ok]

    def ttft(self) -> Summary:
        return summarize([r.ttft_s for r in self.succeeded if r.ttft_s is not None])

    def inter_token(self) -> Summary:
        return summarize([gap for r in self.succeeded for gap in r.gaps_s])

    def decode(self) -> Summary:
        return summarize([r.decode_tps for r in self.succeeded if r.decode_tps is not None])

    def tpot(self) -> Summary:
        return summarize([r.tpot_s for r in self.succeeded if r.tpot_s is not None])

    @property
    def client_cpu_share(self) -> Optional[float]:
        """The probe's own CPU over the phase's wall time: near 1.0, one core (the GIL's limit) was
        busy sending and parsing, and the client may have limited the result."""
        if self.client_cpu_s is None or self.wall_s <= 0:
            return None
        return self.client_cpu_s / self.wall_s

    @property
    def requests_per_s(self) -> Optional[float]:
        return len(self.succeeded) / self.wall_s if self.wall_s > 0 and self.succeeded else None

    @property
    def output_tokens_per_s(self) -> Optional[float]:
        tokens = sum(r.output_tokens for r in self.succeeded)
        return tokens / self.wall_s if self.wall_s > 0 and tokens else None

    def first_detail(self, *outcomes: str) -> str:
        for reply in self.replies:
            if reply.outcome in outcomes and reply.detail:
                return reply.detail
        return ""

    def to_dict(self) -> Dict[str, Any]:
        return {
            "name": self.name, "concurrency": self.concurrency, "planned": self.planned, "sent": len(self.replies),
            "outcomes": self.outcomes(), "wall_s": _r(self.wall_s, 3), "interrupted": self.interrupted,
            "cut_at_deadline": self.cut_at_deadline,
            "ttft_s": self.ttft().to_dict(), "inter_token_s": self.inter_token().to_dict(),
            "decode_tps": self.decode().to_dict(2), "tpot_s": self.tpot().to_dict(),
            "requests_per_s": _r(self.requests_per_s, 3), "output_tokens_per_s": _r(self.output_tokens_per_s, 2),
            "client_cpu_share": _r(self.client_cpu_share, 3),
        }


class HttpCheck(Struct):
    """One GET (reachability, /v1/models, a health route)."""

    url: str  # redacted
    status: Optional[int] = None
    outcome: str = OK
    detail: str = ""
    elapsed_s: float = 0.0

    def to_dict(self) -> Dict[str, Any]:
        return {"url": self.url, "status": self.status, "outcome": self.outcome, "detail": self.detail[:300],
                "elapsed_s": _r(self.elapsed_s)}


class ServedModel(Struct, frozen=True):
    id: str
    owned_by: Optional[str] = None
    max_model_len: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"id": self.id, "owned_by": self.owned_by, "max_model_len": self.max_model_len}


class ModelsInfo(Struct):
    answer: HttpCheck
    models: List[ServedModel] = field(default_factory=list)
    parse_error: str = ""

    def find(self, name: Optional[str]) -> Optional[ServedModel]:
        return next((m for m in self.models if m.id == name), None)

    def to_dict(self) -> Dict[str, Any]:
        return {"answer": self.answer.to_dict(), "models": [m.to_dict() for m in self.models],
                "parse_error": self.parse_error}


class HealthInfo(Struct):
    """The engine's health route, when one answered (tried lists every attempt)."""

    tried: List[HttpCheck] = field(default_factory=list)
    path: Optional[str] = None  # the route that answered (not 404)
    healthy: Optional[bool] = None  # None: no health route found
    source: str = ""
    meaning: str = ""
    given_by_user: bool = False
    answered: Optional[HttpCheck] = None  # the attempt that decided (None: no route found)

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "healthy": self.healthy, "source": self.source,
                "tried": [t.to_dict() for t in self.tried], "given_by_user": self.given_by_user}


class Comparison(Struct):
    """The deterministic answer against the one saved with --save."""

    file: str
    loaded: bool = False
    error: str = ""
    saved_model: Optional[str] = None
    saved_at: Optional[str] = None
    saved_endpoint: Optional[str] = None
    same: Optional[bool] = None
    first_difference: Optional[int] = None  # character offset
    saved_excerpt: str = ""
    current_excerpt: str = ""
    saved_chars: int = 0
    current_chars: int = 0

    def to_dict(self) -> Dict[str, Any]:
        return {k: getattr(self, k) for k in ("file", "loaded", "error", "saved_model", "saved_at",
                                              "saved_endpoint", "same", "first_difference", "saved_excerpt",
                                              "current_excerpt", "saved_chars", "current_chars")}


class Deterministic(Struct):
    """The one greedy request (temperature 0, fixed seed, no top_p; seed 003 §5.4)."""

    request: Dict[str, Any]
    reply: Reply
    path: str = "/v1/chat/completions"
    dropped_fields: List[str] = field(default_factory=list)  # refused by the server, retried without
    saved_to: Optional[str] = None
    save_error: str = ""
    comparison: Optional[Comparison] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "request": {k: v for k, v in self.request.items() if k != "messages"},
                "reply": self.reply.to_dict(), "dropped_fields": list(self.dropped_fields),
                "saved_to": self.saved_to, "save_error": self.save_error,
                "comparison": self.comparison.to_dict() if self.comparison else None}


class Stress(Struct):
    """--stress: the longest prompt the model accepts, at the highest concurrency, for --duration."""

    target_prompt_tokens: int
    target_source: str  # where the length came from (max_model_len, --stress-tokens, a default)
    prompt_units: int = 0
    tokens_per_unit: Optional[float] = None
    calibration: str = ""
    phase: Optional[LoadPhase] = None
    alive_after: Optional[bool] = None
    alive_detail: str = ""

    def to_dict(self) -> Dict[str, Any]:
        return {"target_prompt_tokens": self.target_prompt_tokens, "target_source": self.target_source,
                "prompt_units": self.prompt_units, "tokens_per_unit": _r(self.tokens_per_unit, 3),
                "calibration": self.calibration, "phase": self.phase.to_dict() if self.phase else None,
                "alive_after": self.alive_after, "alive_detail": self.alive_detail}


class ProbeSettings(Struct, frozen=True):
    """How the probe was asked to run (options), kept with the measurements."""

    url: str  # redacted
    model: Optional[str] = None
    timeout_s: float = 60.0
    requests: int = 5
    concurrency: int = 16
    max_tokens: int = 256
    stress: bool = False
    duration_s: float = 30.0
    stress_concurrency: int = 64
    stress_tokens: Optional[int] = None
    save: Optional[str] = None
    compare: Optional[str] = None
    health_url: Optional[str] = None  # redacted
    thresholds: Thresholds = field(default_factory=Thresholds)
    sweep: Tuple[int, ...] = ()  # --sweep: concurrency levels, ascending
    sweep_requests: int = 64  # at most this many requests per level
    sweep_seconds: float = 30.0  # and at most this long per level
    chip: Optional[str] = None  # --chip/--cards/--precision/--deployment: compare with published results
    cards: Optional[int] = None
    precision: Optional[str] = None
    deployment: Optional[str] = None
    like_reference: bool = False
    prompt_tokens: Optional[int] = None  # load prompts of about this many tokens (--like-reference)

    def to_dict(self) -> Dict[str, Any]:
        return {"url": self.url, "model": self.model, "timeout_s": self.timeout_s, "requests": self.requests,
                "concurrency": self.concurrency, "max_tokens": self.max_tokens, "stress": self.stress,
                "duration_s": self.duration_s, "stress_concurrency": self.stress_concurrency,
                "stress_tokens": self.stress_tokens, "save": self.save, "compare": self.compare,
                "health_url": self.health_url, "thresholds": self.thresholds.to_dict(),
                "sweep": list(self.sweep), "sweep_requests": self.sweep_requests, "sweep_seconds": self.sweep_seconds,
                "chip": self.chip, "cards": self.cards, "precision": self.precision, "deployment": self.deployment,
                "like_reference": self.like_reference, "prompt_tokens": self.prompt_tokens}


class EngineMetrics(Struct):
    """vLLM's Prometheus /metrics, read before and after the first completion (status not 200: not exposed)."""

    path: str
    status: Optional[int] = None
    running: Optional[float] = None  # vllm:num_requests_running
    waiting: Optional[float] = None  # vllm:num_requests_waiting
    kv_cache_usage: Optional[float] = None  # vllm:kv_cache_usage_perc / gpu_cache_usage_perc, 0-1
    tokens_before: Optional[float] = None  # vllm:generation_tokens_total
    tokens_after: Optional[float] = None
    interval_s: float = 0.0

    @property
    def tokens_moved(self) -> Optional[bool]:
        if self.tokens_before is None or self.tokens_after is None:
            return None
        return self.tokens_after > self.tokens_before

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "status": self.status, "running": self.running, "waiting": self.waiting,
                "kv_cache_usage": self.kv_cache_usage, "generation_tokens_before": self.tokens_before,
                "generation_tokens_after": self.tokens_after, "tokens_moved": self.tokens_moved,
                "interval_s": _r(self.interval_s, 3)}


class ProbeFacts(Struct):
    settings: ProbeSettings
    engine: Optional[str] = None
    model: Optional[str] = None
    api: str = "chat"
    reachability: Optional[HttpCheck] = None
    models: Optional[ModelsInfo] = None
    health: Optional[HealthInfo] = None
    deterministic: Optional[Deterministic] = None
    sequential: Optional[LoadPhase] = None
    concurrent: Optional[LoadPhase] = None
    stress: Optional[Stress] = None
    sweep: List[LoadPhase] = field(default_factory=list)  # --sweep: one phase per level, ascending
    reference: Optional[Dict[str, Any]] = None  # --like-reference: the published row the load copied
    engine_metrics: Optional[EngineMetrics] = None
    repetition: Dict[str, RepetitionScore] = field(default_factory=dict)  # per reply label
    interrupted: bool = False
    stopped_because: str = ""  # why later phases did not run
    notes: List[str] = field(default_factory=list)

    @property
    def thresholds(self) -> Thresholds:
        return self.settings.thresholds

    @property
    def served(self) -> bool:
        return bool(self.deterministic and self.deterministic.reply.ok)

    def not_measured(self, what: str) -> str:
        """Why a phase has no measurement: the SKIP message of the checks that grade it."""
        if self.interrupted:
            return _("{what} was not measured: the probe was interrupted (Ctrl-C)").format(what=what)
        if self.stopped_because:
            return _("{what} was not measured: {reason}").format(what=what, reason=self.stopped_because)
        return _("{what} was not measured").format(what=what)

    def all_replies(self) -> List[Reply]:
        out: List[Reply] = []
        if self.deterministic:
            out.append(self.deterministic.reply)
        for phase in (self.sequential, self.concurrent):
            if phase:
                out.extend(phase.replies)
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {
            "endpoint": self.settings.url, "engine": self.engine, "model": self.model, "api": self.api,
            "settings": self.settings.to_dict(),
            "reachability": self.reachability.to_dict() if self.reachability else None,
            "models": self.models.to_dict() if self.models else None,
            "health": self.health.to_dict() if self.health else None,
            "deterministic": self.deterministic.to_dict() if self.deterministic else None,
            "sequential": self.sequential.to_dict() if self.sequential else None,
            "concurrent": self.concurrent.to_dict() if self.concurrent else None,
            "stress": self.stress.to_dict() if self.stress else None,
            "sweep": [p.to_dict() for p in self.sweep], "reference": self.reference,
            "engine_metrics": self.engine_metrics.to_dict() if self.engine_metrics else None,
            "repetition": {k: v.to_dict() for k, v in self.repetition.items()},
            "interrupted": self.interrupted, "stopped_because": self.stopped_because,
        }


def _r(value: Optional[float], digits: int = 4) -> Optional[float]:
    return None if value is None else round(value, digits)
