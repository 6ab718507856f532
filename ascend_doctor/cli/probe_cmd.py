"""``ascend-doctor probe URL``: grade a running OpenAI-compatible endpoint (vLLM-Ascend, MindIE)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Optional, Tuple

import click

from ascend_doctor.cli._common import check_selection, fail, guard_output, handle_errors, report_output_options
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.pipeline import ProbeProgress


def _check_url(url: str, option: str) -> None:
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018  (raises ValueError on a bad port)
    except ValueError as exc:
        raise click.BadParameter(f"not a URL: {exc}", param_hint=option) from None
    if parts.scheme not in ("http", "https") or not host:
        raise click.BadParameter("give an http:// or https:// URL with a host, e.g. http://127.0.0.1:8000",
                                 param_hint=option)


@click.command("probe")
@click.argument("url")
@click.option("--model", metavar="NAME", default=None, help="Served model to probe (default: the first in /v1/models).")
@click.option("--api-key", "api_key", metavar="KEY", default=None,
              help="Bearer key for the endpoint (never printed; env: ASCEND_DOCTOR_API_KEY). Prefer the environment "
                   "variable.")
@click.option("--health-url", metavar="URL", default=None,
              help="The engine's health route when it is elsewhere (MindIE: the management port, default 1026).")
@click.option("--timeout", type=click.FloatRange(0.1, 3600), default=60.0, show_default=True,
              help="Seconds one request may take in total (and may stay silent).")
@click.option("--requests", "requests_", type=click.IntRange(1, 1000), default=5, show_default=True,
              help="Streamed requests at concurrency 1 (TTFT, inter-token latency, decode speed).")
@click.option("--concurrency", type=click.IntRange(1, 1024), default=16, show_default=True,
              help="Concurrent requests for the throughput phase (2 x N requests in all).")
@click.option("--max-tokens", type=click.IntRange(1, 1_000_000), default=256, show_default=True,
              help="max_tokens of each request.")
@click.option("--save", metavar="FILE", default=None,
              help="Save the deterministic answer (and its request) to FILE.")
@click.option("--compare", metavar="FILE", default=None,
              help="Replay the request saved in FILE and compare the answers.")
@click.option("--stress", is_flag=True, help="Also send the longest prompts at the highest concurrency.")
@click.option("--duration", type=click.FloatRange(1, 3600), default=30.0, show_default=True,
              help="Seconds the --stress load lasts.")
@click.option("--stress-concurrency", type=click.IntRange(1, 4096), default=64, show_default=True,
              help="Concurrent requests under --stress.")
@click.option("--stress-tokens", type=click.IntRange(16, 10_000_000), default=None,
              help="Prompt tokens under --stress (default: max_model_len from /v1/models, else 2048).")
@click.option("--sweep", "sweep_levels", metavar="N,N,...", default=None,
              help="Also measure TTFT, TPOT and throughput at each concurrency level (e.g. 1,4,16,64,256) and "
              "flag a cliff.")
@click.option("--sweep-requests", type=click.IntRange(1, 10_000), default=64, show_default=True,
              help="At most this many requests per --sweep level (2 x the level below that).")
@click.option("--sweep-seconds", type=click.FloatRange(1, 3600), default=30.0, show_default=True,
              help="At most this long per --sweep level.")
@click.option("--chip", type=click.Choice(("a2", "a3", "310p")), default=None,
              help="The deployment's chips (A2: 910B, A3: 910C, 310p: 300I Duo), to compare with published results.")
@click.option("--cards", type=click.IntRange(1, 100_000), default=None,
              help="NPUs (cards) in the whole deployment, prefill and decode together.")
@click.option("--precision", type=click.Choice(("w8a8", "w4a8", "bf16", "fp16", "int8")), default=None,
              help="The served weights' precision.")
@click.option("--deployment", type=click.Choice(("single", "pd")), default=None,
              help="single: one instance (prefill and decode together); pd: prefill/decode disaggregated.")
@click.option("--like-reference", is_flag=True,
              help="Run the load at the nearest published result's input/output lengths and concurrency.")
@click.option("--max-ttft-ms", type=click.FloatRange(1, 3_600_000), default=None,
              help="TTFT threshold at concurrency 1 [default: 500, this tool's starting figure for a 7B model on a "
              "910B, applied only to models up to 8B; set your own for your model and hardware].")
@click.option("--min-decode-tps", type=click.FloatRange(0.01, 1_000_000), default=None,
              help="Decode tokens/s threshold at concurrency 1 [default: 30, this tool's starting figure for a 7B "
              "model on a 910B, applied only to models up to 8B; set your own].")
@click.option("--max-repeat-ratio", type=click.FloatRange(0, 1), default=None,
              help="Share of repeated 4-grams a reply may have [default: 0.30].")
@click.option("--ca-cert", metavar="FILE", default=None, help="CA bundle to verify an HTTPS endpoint with.")
@click.option("--insecure", is_flag=True, help="Do not verify the HTTPS certificate (self-signed MindIE certs).")
@click.option("--follow-redirects", is_flag=True,
              help="Follow a redirect the endpoint answers with (default: report it, send nothing there; the API "
                   "key is never sent to another host).")
@report_output_options
@click.option("--select", multiple=True, metavar="PREFIX",
              help="Run only checks whose id starts with PREFIX (repeatable or comma-separated).")
@click.option("--ignore", multiple=True, metavar="PREFIX", help="Skip checks whose id starts with PREFIX.")
@click.option("--fail-on", type=click.Choice(["fail", "warn"]), default="fail", show_default=True,
              help="Lowest status that makes the exit code 1.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress lines on stderr.")
@click.option("-v", "--verbose", is_flag=True, help="Show evidence under each result.")
@handle_errors
def probe(url: str, model: Optional[str], api_key: Optional[str], health_url: Optional[str], timeout: float,
          requests_: int, concurrency: int, max_tokens: int, save: Optional[str], compare: Optional[str],
          stress: bool, duration: float, stress_concurrency: int, stress_tokens: Optional[int],
          sweep_levels: Optional[str], sweep_requests: int, sweep_seconds: float, chip: Optional[str],
          cards: Optional[int], precision: Optional[str], deployment: Optional[str], like_reference: bool,
          max_ttft_ms: Optional[float], min_decode_tps: Optional[float], max_repeat_ratio: Optional[float],
          ca_cert: Optional[str], insecure: bool, follow_redirects: bool, fmt: str, output: Optional[str],
          select: Tuple[str, ...], ignore: Tuple[str, ...], fail_on: str, progress: bool, verbose: bool) -> None:
    """Grade a running OpenAI-compatible endpoint (vLLM-Ascend, MindIE): reachability, the served
    models, the health route, one deterministic answer, TTFT and decode speed at concurrency 1,
    throughput at --concurrency, R1 reasoning and repetition, and with --stress a bounded crash test.

    \b
    Examples:
      ascend-doctor probe http://127.0.0.1:8000
      ascend-doctor probe http://10.0.0.5:1025 --model deepseek-r1-distill-7b --save answer.json
      ascend-doctor probe http://10.0.0.5:1025 --compare answer.json --format json -o probe.json
      ASCEND_DOCTOR_API_KEY=... ascend-doctor probe https://gw:8443/v1 --ca-cert ca.pem
      ascend-doctor probe http://127.0.0.1:8000 --stress --duration 60 --max-ttft-ms 2000
      ascend-doctor probe http://127.0.0.1:8000 --sweep 1,4,16,64,256 --format html -o sweep.html
      ascend-doctor probe http://10.0.0.5:8000 --chip a2 --cards 64 --precision w8a8 --deployment pd \\
          --like-reference

    \b
    Exit codes: 0 nothing at or above --fail-on, 1 a FAIL (or a WARN with --fail-on warn),
    2 usage error (also --select/--ignore matching no probe check or leaving none), 3 nothing
    judged (no model to ask, every check SKIP) or a check ended in ERROR (e.g. --save could not
    write) and nothing failed, 130 interrupted by Ctrl-C (the report of what was measured is
    still printed).
    """
    from ascend_doctor.options import OutputOptions, api_key_option, probe_options, split_prefixes

    api_key = api_key_option(api_key)  # --api-key, else $ASCEND_DOCTOR_API_KEY (options.py)
    _check_url(url, "URL")
    check_selection("probe", split_prefixes(select), split_prefixes(ignore))
    if health_url:
        _check_url(health_url, "--health-url")
    if api_key and _has_credentials(url):
        raise click.UsageError("the URL carries user:password@ and --api-key (or $ASCEND_DOCTOR_API_KEY) gives a key: "
                               "give one of them")
    if ca_cert and insecure:
        raise click.UsageError("--ca-cert and --insecure contradict each other: choose one")
    if ca_cert and not os.path.isfile(ca_cert):
        raise click.BadParameter(f"{ca_cert} is not a file", param_hint="--ca-cert")
    levels = _sweep_levels(sweep_levels)
    if like_reference and not (chip and precision):
        raise click.UsageError("--like-reference needs at least --chip and --precision (and --cards, --deployment)")
    guard_output(output, files=(compare,), other_outputs=(("--save", save),))
    _check_answer_files(save, compare)
    options = probe_options(
        url=url, timeout=timeout, select=select, ignore=ignore, fail_on=fail_on, api_key=api_key,
        output=OutputOptions(format=fmt, output=output, verbose=verbose),
        model=model, health_url=health_url, requests=requests_, concurrency=concurrency, max_tokens=max_tokens,
        save=save, compare=compare, stress=stress, duration_s=duration, stress_concurrency=stress_concurrency,
        stress_tokens=stress_tokens, sweep=levels, sweep_requests=sweep_requests, sweep_seconds=sweep_seconds,
        chip=chip, cards=cards, precision=precision, deployment=deployment, like_reference=like_reference,
        max_ttft_ms=max_ttft_ms, min_decode_tps=min_decode_tps, max_repeat_ratio=max_repeat_ratio,
        ca_cert=ca_cert, insecure=insecure, follow_redirects=follow_redirects, progress=progress)

    from ascend_doctor.pipeline import run_probe

    report, interrupted = run_probe(options, _Progress(progress))
    from ascend_doctor.cli._common import emit_report

    emit_report(report, options.output)
    if interrupted is not None:
        sys.exit(int(interrupted))
    sys.exit(int(report.exit_code))


def _has_credentials(url: str) -> bool:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return bool(parts.username or parts.password)


MAX_SWEEP_LEVELS = 12


def _sweep_levels(text: Optional[str]) -> Tuple[int, ...]:
    """--sweep 1,4,16: ascending, distinct, 1..4096, at most MAX_SWEEP_LEVELS levels."""
    if not text:
        return ()
    try:
        levels = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise click.BadParameter("give concurrency levels as numbers, e.g. 1,4,16,64,256",
                                 param_hint="--sweep") from None
    if not levels or levels[0] < 1 or levels[-1] > 4096 or len(levels) > MAX_SWEEP_LEVELS:
        raise click.BadParameter(f"1 to {MAX_SWEEP_LEVELS} levels between 1 and 4096", param_hint="--sweep")
    return tuple(levels)


def _check_answer_files(save: Optional[str], compare: Optional[str]) -> None:
    """Bad --save/--compare files are usage errors, found before any request is sent."""
    from ascend_doctor.endpoint import answerfile

    if compare:
        try:
            answerfile.load(compare)
        except answerfile.AnswerFileError as exc:
            fail(str(exc), ExitCode.USAGE)
    if save:
        guard_output(save, files=(compare,), option="--save")


class _Progress(ProbeProgress):
    """Progress on stderr: phase lines, and a status line updated every second (a live line on a
    terminal, a plain line every few seconds elsewhere)."""

    PLAIN_EVERY_S = 5.0

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._status: Any = None
        self._last_plain = time.monotonic()

    def __enter__(self) -> _Progress:
        if self.enabled and sys.stderr.isatty():
            from ascend_doctor.cli._common import stderr_console

            self._console = stderr_console()
            self._status = self._console.status("probing...")
            self._status.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._status is not None:
            self._status.__exit__(*exc)
            self._status = None

    def interrupted(self) -> None:
        click.echo("", err=True)
        click.echo("ascend-doctor: interrupted; grading what was measured so far", err=True)

    def say(self, text: str) -> None:
        from ascend_doctor.render.sanitize import visible

        text = visible(text)  # model ids and server text reach the terminal (render/sanitize.py)
        if not self.enabled:
            return
        if self._status is not None:
            from rich.text import Text

            self._console.print(Text(f"probe: {text}", style="dim"))
            self._status.update(text)
        else:
            click.echo(f"probe: {text}", err=True)

    def status(self, text: str) -> None:
        from ascend_doctor.render.sanitize import visible

        text = visible(text)
        if not self.enabled:
            return
        if self._status is not None:
            self._status.update(text)
            return
        now = time.monotonic()
        if now - self._last_plain >= self.PLAIN_EVERY_S:
            self._last_plain = now
            click.echo(f"probe: {text}", err=True)

