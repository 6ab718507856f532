"""The probe's measurements, phase by phase, into a ``ProbeFacts``.

1. reachability and the served models (GET /v1/models);
2. the engine's health route (vLLM /health; MindIE /v2/health/ready or /health; or --health-url);
3. one deterministic request (temperature 0, fixed seed, no top_p: seed 003 §5.4), saved with
   --save and compared with --compare;
4. streamed requests one at a time (--requests): TTFT, inter-token gaps, decode tokens/s;
5. 2 × --concurrency streamed requests, --concurrency at a time: requests/s, tokens/s, errors;
6. with --stress: the longest prompt the model accepts at --stress-concurrency, for --duration,
   then whether the service still answers.

A phase that cannot run says why (``facts.stopped_because``); Ctrl-C leaves every finished
measurement in place. The checks (``checks/srv_*``) grade the result.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from ascend_doctor.endpoint import answerfile, engines, load
from ascend_doctor.endpoint import records as rec
from ascend_doctor.endpoint.client import EndpointClient
from ascend_doctor.endpoint.repetition import repetition
from ascend_doctor.i18n import N_, _
from ascend_doctor.render.sanitize import visible

# Seed 003 §3.3 checks a fresh deployment with this very request ("用一句话解释什么是 RAG").
DETERMINISTIC_PROMPT = "用一句话解释什么是 RAG"
DETERMINISTIC_SEED = 42
# A prompt that asks for a long answer, so that decoding (not only the first token) is timed.
LOAD_PROMPT = "请用大约三百字介绍在昇腾 NPU 上部署大模型推理服务的主要步骤。"
# DeepSeek-R1's model card recommends temperature 0.5-0.7 (0.6) "to prevent endless repetitions";
# seed 003 §5.5 gives the same bound. The timed requests use it, so that the repetition check
# sees replies sampled the way the model is meant to be used.
LOAD_TEMPERATURE = 0.6
CHAT = "/v1/chat/completions"
COMPLETIONS = "/v1/completions"
MODELS = "/v1/models"
# --stress: a few output tokens per request (the point is the long prefill and the KV cache).
STRESS_MAX_TOKENS = 16
# Without max_model_len (MindIE's /v1/models has none): MindIE's sample config.json allows
# maxInputTokenLen 2048 (hiascend MindIE "配置参数说明", mindie_llm0004; mindie_service0332).
STRESS_DEFAULT_PROMPT_TOKENS = 2048
STRESS_SAFETY = 0.97  # aim a little below the limit: our token estimate is not the tokenizer's
CALIBRATION_UNITS = (64, 320)
REFUSED_PAUSE_S = 0.2
ASSUMED_TOKENS_PER_UNIT = 1.3
FILLER = ("alfa", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo",
          "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor",
          "whiskey", "xray", "yankee", "zulu")

Say = Callable[[str], None]


class Probe:
    def __init__(self, client: EndpointClient, settings: rec.ProbeSettings, cancel: threading.Event,
                 say: Optional[Say] = None, status: Optional[Say] = None, health_url: Optional[str] = None) -> None:
        self.client = client
        self.settings = settings
        self.health_url = health_url  # as given (may hold credentials); settings.health_url is redacted
        self.cancel = cancel
        self._say = say or (lambda _text: None)
        self._status = status or (lambda _text: None)
        self._stream_usage = True  # stream_options.include_usage, dropped if the server refuses it
        self._usage_lock = threading.Lock()
        # The load's scenario: the options, or a published reference's (--like-reference).
        self.load_max_tokens = settings.max_tokens
        self.load_concurrency = settings.concurrency
        self.prompt_tokens = settings.prompt_tokens

    # ------------------------------------------------------------------ the phases

    def run(self, facts: rec.ProbeFacts) -> None:
        if not self._reach(facts):
            return
        if not self._choose_model(facts):
            return
        if self.settings.like_reference:
            self._like_reference(facts)
        self._health(facts)
        metrics_started = time.monotonic()
        self._engine_metrics(facts)
        served = self._deterministic(facts)
        self._engine_metrics(facts, since=metrics_started)
        if not served:
            return
        if not self._sequential(facts):
            return
        self._concurrent(facts)
        if self.settings.sweep:
            self._sweep(facts)
        if self.settings.stress:
            self._stress(facts)

    def _like_reference(self, facts: rec.ProbeFacts) -> None:
        """Copy the nearest published row's lengths and concurrency into the load phases."""
        from ascend_doctor.endpoint.families import engine_key, family_of
        from ascend_doctor.matrix import serving_refs
        from ascend_doctor.matrix.serving_refs import RefQuery, nearest

        s = self.settings
        query = RefQuery(chip=s.chip, cards=s.cards, family=family_of(facts.model), precision=s.precision,
                         deployment=s.deployment, engine=engine_key(facts.engine))
        found, missing = nearest(serving_refs.load_refs(), query)
        if not found:
            facts.notes.append(_("--like-reference: no published result matches ({missing}); the load keeps the "
                                 "options' lengths").format(missing=", ".join(missing)))
            return
        row = found[0]
        facts.reference = row.to_dict()
        self.prompt_tokens = row.input_tokens
        self.load_max_tokens = row.output_tokens
        if row.concurrency:
            self.load_concurrency = row.concurrency
        self._say(_("like reference {id}: {input} tokens in, {output} out, concurrency {concurrency}").format(
            id=row.id, input=row.input_tokens, output=row.output_tokens, concurrency=self.load_concurrency))

    # ------------------------------------------------------------------ engine metrics

    def _engine_metrics(self, facts: rec.ProbeFacts, since: Optional[float] = None) -> None:
        """vLLM's Prometheus /metrics, read before and after the first completion: token counters
        that do not move while requests run mean a hung engine, whatever /health says."""
        from ascend_doctor.endpoint.engine_metrics import METRICS_PATH, parse_vllm_metrics

        if since is not None and (facts.engine_metrics is None or facts.engine_metrics.status != 200):
            return
        answer = self._bounded_get(METRICS_PATH, timeout_s=min(self.settings.timeout_s, 5.0))
        if since is None:
            facts.engine_metrics = rec.EngineMetrics(_redacted_path(self.settings.url, METRICS_PATH), answer.status)
            if answer.status != 200:
                return
        record = facts.engine_metrics
        assert record is not None
        values = parse_vllm_metrics(answer.body.decode("utf-8", errors="replace")) if answer.status == 200 else {}
        if since is None:
            record.running, record.waiting = values.get("running"), values.get("waiting")
            record.kv_cache_usage, record.tokens_before = values.get("kv_cache_usage"), values.get("generation_tokens")
            return
        record.tokens_after = values.get("generation_tokens")
        record.interval_s = time.monotonic() - since
        for key in ("running", "waiting", "kv_cache_usage"):
            if values.get(key) is not None:  # the later reading, taken while our request ran or after
                setattr(record, key, values[key])

    def _bounded_get(self, path: str, timeout_s: Optional[float] = None) -> Any:
        limit = (timeout_s or self.settings.timeout_s) + self.client.connect_timeout_s + 2.0
        try:
            return load.run_bounded(lambda: self.client.get(path, timeout_s=timeout_s), limit, self.cancel,
                                    self.client.abort_all)
        except load.Stopped:
            from ascend_doctor.endpoint.client import Answer

            return Answer(None, outcome=rec.TIMEOUT, detail=_("no answer within {seconds} s").format(
                seconds=f"{limit:g}"))

    def _reach(self, facts: rec.ProbeFacts) -> bool:
        self._say(f"GET {self.settings.url.rstrip('/')}{MODELS}")
        answer = self._bounded_get(MODELS)
        check = rec.HttpCheck(self.settings.url, answer.status, answer.outcome, answer.detail, answer.elapsed_s)
        facts.reachability = check
        facts.models = rec.ModelsInfo(rec.HttpCheck(_redacted_path(self.settings.url, MODELS), answer.status,
                                                    answer.outcome, answer.detail, answer.elapsed_s))
        if answer.status is None:
            # The error itself is ASC-SRV-001's message: said once there, not again in every SKIP.
            facts.stopped_because = _("the endpoint did not answer (ASC-SRV-001 gives the error)")
            return False
        if answer.status == 200:
            try:
                facts.models.models = parse_models(answer.json())
            except ValueError as exc:
                facts.models.parse_error = _("/v1/models is not the OpenAI model list: {error}").format(error=exc)
        facts.engine = engines.guess_engine(m.owned_by for m in facts.models.models)
        return True

    def _choose_model(self, facts: rec.ProbeFacts) -> bool:
        models = facts.models
        assert models is not None
        if models.answer.status in (401, 403):
            facts.stopped_because = _("the endpoint refused our credentials (HTTP {status}); give the key with "
                                      "--api-key or ASCEND_DOCTOR_API_KEY").format(status=models.answer.status)
            return False
        if self.settings.model:
            facts.model = self.settings.model
        elif models.models:
            facts.model = models.models[0].id
        else:
            facts.stopped_because = _("no model to ask: /v1/models listed none; name one with --model")
            return False
        # "model NAME (engine)": names only, the same in every language
        self._say(f"model {facts.model}" + (f" ({engines.hints(facts.engine).name})" if facts.engine else ""))
        return True

    def _health(self, facts: rec.ProbeFacts) -> None:
        info = rec.HealthInfo()
        facts.health = info
        if self.health_url:
            info.given_by_user = True
            candidates: Tuple[Optional[engines.HealthEndpoint], ...] = (None,)
        else:
            candidates = engines.health_candidates(facts.engine)
        for endpoint in candidates:
            target = (self.health_url or "") if endpoint is None else endpoint.path
            shown = self.settings.health_url if endpoint is None else _redacted_path(self.settings.url, endpoint.path)
            self._say(f"GET {shown}")
            answer = self._bounded_get(target, timeout_s=min(self.settings.timeout_s, 10.0))
            attempt = rec.HttpCheck(shown or "", answer.status, answer.outcome, answer.detail, answer.elapsed_s)
            info.tried.append(attempt)
            if endpoint is not None and answer.status in (404, 405):
                continue
            info.answered = attempt
            info.path = endpoint.path if endpoint else shown
            info.source = endpoint.source if endpoint else "--health-url"
            # English in the facts; ASC-SRV-003 shows it translated (engines.py marks the others N_).
            info.meaning = endpoint.meaning if endpoint else N_("200 healthy, anything else not")
            info.healthy = answer.status == 200 and answer.outcome == rec.OK
            return

    def _deterministic(self, facts: rec.ProbeFacts) -> bool:
        request: Dict[str, Any] = {
            "model": facts.model, "messages": [{"role": "user", "content": DETERMINISTIC_PROMPT}],
            "max_tokens": self.settings.max_tokens, "temperature": 0, "seed": DETERMINISTIC_SEED, "stream": False,
        }
        saved = None
        comparison = None
        if self.settings.compare:
            try:
                saved = answerfile.load(self.settings.compare)
                request = _replay(saved["request"], facts.model)
            except answerfile.AnswerFileError as exc:
                comparison = rec.Comparison(file=self.settings.compare, error=str(exc))
        path = CHAT if "messages" in request else COMPLETIONS
        self._say(f"POST {path} (temperature 0, seed {request.get('seed', '-')}, "
                  f"max_tokens {request.get('max_tokens')})")
        # Until an answer arrives the record says "not finished", so that Ctrl-C leaves no false PASS.
        record = rec.Deterministic(request=request, reply=_unfinished(), path=path)
        facts.deterministic = record
        reply = self._complete(path, request)
        if path == CHAT and reply.status in (404, 405) and "model" not in reply.detail.lower():
            # An engine without the chat API (seed 003 §3.3 uses /v1/completions on MindIE).
            path, request = COMPLETIONS, _as_completion(request)
            self._say(_("POST {path} (no chat API)").format(path=path))
            record.path, record.request = path, request
            reply = self._complete(path, request)
        if reply.outcome == rec.HTTP_ERROR and reply.status in (400, 422) and "seed" in reply.detail.lower() \
                and "seed" in request:
            request = {k: v for k, v in request.items() if k != "seed"}
            record.request = request
            record.dropped_fields.append("seed")
            reply = self._complete(path, request)
        record.reply = reply
        facts.api = "completions" if path == COMPLETIONS else "chat"
        if saved is not None and reply.ok:
            comparison = answerfile.compare(self.settings.compare or "", saved, reply)
        elif saved is not None:
            comparison = rec.Comparison(file=self.settings.compare or "", loaded=True,
                                        saved_model=saved.get("model"), error=_("no answer to compare"))
        record.comparison = comparison
        if self.settings.save:
            if reply.ok:
                try:
                    answerfile.save(self.settings.save, answerfile.answer_record(
                        self.settings.url, facts.model, path, request, reply))
                    record.saved_to = self.settings.save
                except answerfile.AnswerFileError as exc:
                    record.save_error = str(exc)
            else:
                record.save_error = _("nothing saved: the request got no answer")
        if not reply.ok:
            facts.stopped_because = _("the first completion got no answer ({detail})").format(
                detail=reply.detail or reply.outcome)
            return False
        return True

    def _complete(self, path: str, request: Dict[str, Any]) -> rec.Reply:
        limit = self.settings.timeout_s + self.client.connect_timeout_s + 2.0
        try:
            return load.run_bounded(lambda: self.client.complete(path, request), limit, self.cancel,
                                    self.client.abort_all)
        except load.Stopped:
            return rec.Reply(outcome=rec.TIMEOUT, detail=_("no answer within --timeout {seconds} s").format(
                seconds=f"{self.settings.timeout_s:g}"), total_s=limit)

    def _load_request(self, facts: rec.ProbeFacts, prompt: str, max_tokens: int) -> Tuple[str, Dict[str, Any]]:
        request: Dict[str, Any] = {"model": facts.model, "max_tokens": max_tokens, "temperature": LOAD_TEMPERATURE,
                                   "stream": True}
        if self.prompt_tokens:
            # A published scenario's input length (--like-reference): ordinary words, about
            # ASSUMED_TOKENS_PER_UNIT tokens each; the reply's usage tells the real count.
            prompt = filler(max(1, int(self.prompt_tokens / ASSUMED_TOKENS_PER_UNIT)))
        if self.settings.like_reference:
            # The reference generated its full output length: ask the engine not to stop early
            # (vLLM's sampling parameters ignore_eos and min_tokens; others ignore unknown fields).
            request["ignore_eos"] = True
            request["min_tokens"] = max_tokens
        if facts.api == "completions":
            request["prompt"] = prompt
            return COMPLETIONS, request
        request["messages"] = [{"role": "user", "content": prompt}]
        return CHAT, request

    def _stream(self, path: str, request: Dict[str, Any]) -> rec.Reply:
        with self._usage_lock:
            with_usage = self._stream_usage
        body = dict(request, stream_options={"include_usage": True}) if with_usage else request
        reply = self.client.stream(path, body)
        if with_usage and reply.status in (400, 422) and "stream_options" in reply.detail:
            with self._usage_lock:
                self._stream_usage = False
            reply = self.client.stream(path, request)
        return reply

    def _sequential(self, facts: rec.ProbeFacts) -> bool:
        count = self.settings.requests
        path, request = self._load_request(facts, LOAD_PROMPT, self.load_max_tokens)
        phase = rec.LoadPhase("concurrency 1", 1, count)
        facts.sequential = phase
        self._say(_("concurrency 1: {count} streamed requests (max_tokens {max_tokens})").format(
            count=count, max_tokens=self.load_max_tokens))
        load.run_phase(phase, lambda: self._stream(path, request), self.cancel, self.client.abort_all, total=count,
                       tick=self._tick)
        if not phase.succeeded:
            facts.stopped_because = _("no streamed request succeeded at concurrency 1 ({detail})").format(
                detail=phase.first_detail(*rec.FAILURES, rec.REFUSED) or _("no detail"))
            return False
        return True

    def _concurrent(self, facts: rec.ProbeFacts) -> None:
        concurrency = self.load_concurrency
        if concurrency <= 1:
            facts.notes.append(_("--concurrency 1: the throughput phase is the concurrency-1 phase above"))
            return
        total = 2 * concurrency
        path, request = self._load_request(facts, LOAD_PROMPT, self.load_max_tokens)
        phase = rec.LoadPhase(f"concurrency {concurrency}", concurrency, total)
        facts.concurrent = phase
        self._say(_("concurrency {concurrency}: {total} streamed requests").format(concurrency=concurrency,
                                                                                    total=total))
        load.run_phase(phase, lambda: self._stream(path, request), self.cancel, self.client.abort_all, total=total,
                       tick=self._tick)

    def _sweep(self, facts: rec.ProbeFacts) -> None:
        """--sweep: the same streamed request at each concurrency level, bounded per level by
        --sweep-requests and --sweep-seconds; stops at the first level where nothing succeeds."""
        path, request = self._load_request(facts, LOAD_PROMPT, self.load_max_tokens)
        for level in self.settings.sweep:
            if self.cancel.is_set():
                return
            total = min(self.settings.sweep_requests, max(2 * level, 4))
            phase = rec.LoadPhase(f"sweep {level}", level, total)
            facts.sweep.append(phase)
            self._say(_("sweep: concurrency {level}, {total} streamed requests (at most {seconds} s)").format(
                level=level, total=total, seconds=f"{self.settings.sweep_seconds:g}"))
            load.run_phase(phase, lambda: self._stream(path, request), self.cancel, self.client.abort_all,
                           total=total, stop_at=time.monotonic() + self.settings.sweep_seconds,
                           grace_s=min(self.settings.timeout_s, 10.0), tick=self._tick)
            if not phase.succeeded:
                facts.notes.append(_("sweep stopped at concurrency {level}: no request succeeded").format(level=level))
                return

    def _stress(self, facts: rec.ProbeFacts) -> None:
        target, source = self._stress_target(facts)
        stress = rec.Stress(target, source)
        facts.stress = stress
        self._say(_("stress: calibrating a prompt of ~{tokens} tokens ({source})").format(tokens=target,
                                                                                          source=source))
        self._calibrate(facts, stress)
        path, request = self._load_request(facts, "", STRESS_MAX_TOKENS)
        numbers = itertools.count(1)

        def send() -> rec.Reply:
            # A different start for every request: with identical prompts, vLLM's prefix cache would
            # skip the prefill the stress is meant to load.
            prompt = filler(stress.prompt_units, tag=str(next(numbers)))
            body = dict(request, prompt=prompt) if "prompt" in request else \
                dict(request, messages=[{"role": "user", "content": prompt}])
            reply = self._stream(path, body)
            if reply.outcome in (rec.REFUSED, rec.TOO_LONG):
                self.cancel.wait(REFUSED_PAUSE_S)  # a refused client backs off a little, as real ones do
            return reply

        phase = rec.LoadPhase("stress", self.settings.stress_concurrency, 0)
        stress.phase = phase
        duration = self.settings.duration_s
        self._say(_("stress: {concurrency} concurrent requests of ~{tokens} prompt tokens for {seconds} s").format(
            concurrency=self.settings.stress_concurrency, tokens=target, seconds=f"{duration:g}"))
        stop_at = time.monotonic() + duration
        grace = min(self.settings.timeout_s, 10.0)
        load.run_phase(phase, send, self.cancel, self.client.abort_all, stop_at=stop_at, grace_s=grace,
                       tick=self._tick)
        if phase.interrupted:
            return
        self._say(_("stress: is the service still answering?"))
        after = self._bounded_get(MODELS, timeout_s=min(self.settings.timeout_s, 10.0))
        alive = after.status == 200
        detail = f"GET /v1/models: {after.status or after.outcome}" + (f" ({after.detail})" if after.detail else "")
        health = facts.health
        if alive and health is not None and health.healthy and health.path:
            target_url = (self.health_url or "") if health.given_by_user else health.path
            again = self._bounded_get(target_url, timeout_s=min(self.settings.timeout_s, 10.0))
            alive = again.status == 200
            detail += f"; {health.path}: {again.status or again.outcome}"
        stress.alive_after, stress.alive_detail = alive, detail

    def _stress_target(self, facts: rec.ProbeFacts) -> Tuple[int, str]:
        if self.settings.stress_tokens:
            return self.settings.stress_tokens, "--stress-tokens"
        served = facts.models.find(facts.model) if facts.models else None
        if served and served.max_model_len:
            return max(16, served.max_model_len - STRESS_MAX_TOKENS), \
                _("max_model_len {length} from /v1/models, less {output} output tokens").format(
                    length=served.max_model_len, output=STRESS_MAX_TOKENS)
        return STRESS_DEFAULT_PROMPT_TOKENS, _("no max_model_len in /v1/models: MindIE's sample maxInputTokenLen "
                                               "{tokens} (set --stress-tokens)").format(
                                                   tokens=STRESS_DEFAULT_PROMPT_TOKENS)

    def _calibrate(self, facts: rec.ProbeFacts, stress: rec.Stress) -> None:
        """Words per token of our filler, from the server's own prompt_tokens for two lengths."""
        counts: List[Tuple[int, int]] = []
        for units in CALIBRATION_UNITS:
            path, request = self._load_request(facts, filler(units), 1)
            request["stream"] = False
            request["temperature"] = 0
            reply = self._complete(path, request)
            if reply.ok and reply.prompt_tokens:
                counts.append((units, reply.prompt_tokens))
        if len(counts) == 2 and counts[1][1] > counts[0][1]:
            (u1, t1), (u2, t2) = counts
            slope = (t2 - t1) / (u2 - u1)
            intercept = t1 - slope * u1
            stress.tokens_per_unit = slope
            stress.prompt_units = max(1, int((stress.target_prompt_tokens * STRESS_SAFETY - intercept) / slope))
            stress.calibration = _("{slope} prompt tokens per filler word (+{intercept} for the template)").format(
                slope=f"{slope:.3f}", intercept=f"{intercept:.0f}")
        else:
            stress.prompt_units = max(1, int(stress.target_prompt_tokens * STRESS_SAFETY / ASSUMED_TOKENS_PER_UNIT))
            stress.calibration = _("the server reported no prompt_tokens: assumed {tokens} tokens per filler "
                                   "word").format(tokens=ASSUMED_TOKENS_PER_UNIT)

    def _tick(self, phase: rec.LoadPhase) -> None:
        done = len(phase.replies)
        ok = len(phase.succeeded)
        name = _("stress") if phase.name == "stress" else _("concurrency {concurrency}").format(
            concurrency=phase.concurrency)
        # The optional parts start with ", ": as messages they cannot be mistaken for whole texts.
        parts = [_("{name}: {done}/{planned} done, {ok} ok") if phase.planned else _("{name}: {done} done, {ok} ok")]
        ttft = phase.ttft().p50
        if ttft is not None:
            parts.append(_(", TTFT p50 {ttft} ms"))
        refused = phase.count(rec.REFUSED)
        failed = phase.count(*rec.FAILURES)
        if refused:
            parts.append(_(", {refused} refused"))
        if failed:
            parts.append(_(", {failed} failed"))
        self._status("".join(parts).format(name=name, done=done, planned=phase.planned, ok=ok, refused=refused,
                                           failed=failed, ttft=f"{(ttft or 0) * 1000:.0f}"))


def finish(facts: rec.ProbeFacts) -> None:
    """Computations over whatever was measured (also after Ctrl-C): repetition per reply."""
    labelled: List[Tuple[str, rec.Reply]] = []
    if facts.deterministic and facts.deterministic.reply.ok:
        labelled.append(("deterministic (temperature 0)", facts.deterministic.reply))
    for phase in (facts.sequential, facts.concurrent):
        if phase:
            labelled.extend((f"{phase.name} #{i + 1}", r) for i, r in enumerate(phase.replies) if r.ok)
    ngram = facts.thresholds.repeat_ngram
    for label, reply in labelled:
        text = f"{reply.reasoning}\n{reply.content}" if reply.reasoning else reply.content
        facts.repetition[label] = repetition(text, ngram)


def parse_models(obj: Any) -> List[rec.ServedModel]:
    """The OpenAI model list (``{"object": "list", "data": [{"id": ...}, ...]}``)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("data"), list):
        raise ValueError(_("no data list"))
    out = []
    for item in obj["data"][:1000]:
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            length = item.get("max_model_len")
            owner = item.get("owned_by")
            # A served name is one line of printable text; a server's control characters or newlines
            # (an ESC sequence, a forged "PASS" line) are made visible before they reach any report.
            out.append(rec.ServedModel(visible(item["id"]), visible(owner) if isinstance(owner, str) else None,
                                       length if isinstance(length, int) and length > 0 else None))
    return out


def filler(units: int, tag: str = "") -> str:
    """A long prompt of ordinary words (a stress test needs length, not meaning); ``tag`` makes
    its start unique."""
    words = [FILLER[i % len(FILLER)] for i in range(max(0, units))]
    head = f"Request {tag}. " if tag else ""
    return head + "Repeat the last word of this text. " + " ".join(words)


def _replay(saved: Dict[str, Any], model: Optional[str]) -> Dict[str, Any]:
    """The saved request, sent to the model served now (its name may have changed)."""
    keep = ("messages", "prompt", "max_tokens", "temperature", "seed")
    request = {k: saved[k] for k in keep if k in saved}
    if "messages" not in request and "prompt" not in request:
        request["messages"] = [{"role": "user", "content": DETERMINISTIC_PROMPT}]
    request["model"] = model
    request["stream"] = False
    return request


def _as_completion(request: Dict[str, Any]) -> Dict[str, Any]:
    out = {k: v for k, v in request.items() if k != "messages"}
    messages = request.get("messages") or []
    out["prompt"] = messages[-1]["content"] if messages and isinstance(messages[-1], dict) else DETERMINISTIC_PROMPT
    return out


def _unfinished() -> rec.Reply:
    return rec.Reply(outcome=rec.CANCELLED, detail=_("not finished: interrupted"))


def _redacted_path(redacted_root: str, path: str) -> str:
    return redacted_root.rstrip("/") + path
