"""The pipeline of each suite: from its options record (options.py) to its report.

    check   matrix -> host (this machine, a snapshot or pasted text) -> facts -> checks -> report
            -> pasted text: SKIPs say what the text did not show -> fix plan, root cause first
    fleet   matrix -> node inputs (reports; snapshots graded as `check --from`) -> fleet facts
            -> fleet checks -> report
    probe   requests to the endpoint -> probe facts -> probe checks -> report

The command line parses its flags into the record, calls the suite's function here and hands the
report to the output step (cli/_common.emit_report: redact once, render, write). Progress is a
callback (the command line draws it). Input the run cannot use raises ``RunInputError``: one line and
the exit code, which the command line prints; nothing here prints, exits or renders.

Imports stay inside the functions: `check` starts in a budget (bench/bench_startup.py), and a
suite's modules are loaded only when it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.i18n import gettext as _

if TYPE_CHECKING:
    from ascend_doctor.host.base import Host
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.options import CheckOptions, FleetOptions, ProbeOptions
    from ascend_doctor.report import Report

ProgressFunc = Callable[[str], None]


class RunInputError(Exception):
    """An input the run cannot use (the matrix, the snapshot, the pasted text): ``str(exc)`` is the
    one line to print, ``code`` the exit code."""

    def __init__(self, message: str, code: int = ExitCode.INCOMPLETE) -> None:
        super().__init__(message)
        self.code = int(code)


def load_run_matrix(matrix_file: Optional[str], matrix_env: Optional[str]) -> Tuple[Matrix, Dict[str, Any]]:
    """The matrix of a run (--matrix FILE, else $ASCEND_DOCTOR_MATRIX as the options read it, else the
    updated copy or the shipped one) and the report's ``matrix`` section (its identity and warnings)."""
    from ascend_doctor.matrix.errors import MatrixError
    from ascend_doctor.matrix.select import load_chosen_matrix

    try:
        matrix = load_chosen_matrix(matrix_file, matrix_env)
    except MatrixError as exc:
        raise RunInputError(_("cannot load the compatibility matrix: {error}").format(error=exc)) from None
    info = dict(matrix.identity())
    info["warnings"] = list(getattr(matrix, "warnings", []) or [])
    return matrix, info


# --- check -------------------------------------------------------------------------------------

def run_check(options: CheckOptions, progress: Optional[ProgressFunc] = None) -> Report:
    """``ascend-doctor check``: grade this machine, a snapshot or pasted text."""
    from ascend_doctor.runner import run_checks, with_model_from_serving_config

    matrix, matrix_info = load_run_matrix(options.matrix_file, options.matrix_env)
    host, pasted_notes = _open_check_host(options)
    try:
        run = with_model_from_serving_config(host, options.run)
        report = run_checks(host, matrix, run, matrix_info, progress=progress)
    finally:
        host.close()
    report.notes.extend(pasted_notes)
    if options.from_text:  # a SKIP says what the text did not show, never a fact about a machine nobody saw
        from ascend_doctor.coverage import rephrase_pasted_skips

        report.results = rephrase_pasted_skips(report.results, report.host.get("source"), report.facts)
    if report.fix_plan:  # the root cause's step first, tuning last (rootcause.py)
        from ascend_doctor.rootcause import find_root_cause, lead_the_plan

        report.fix_plan = lead_the_plan(report.fix_plan, report.results, find_root_cause(report))
    if report.results and all(r.status.value in ("SKIP", "INFO") for r in report.results):
        report.notes.append(_("every selected check was skipped, so nothing was verified: this is not a pass "
                              "(exit code {code}); give the inputs the checks need or select other checks").format(
                                  code=int(ExitCode.INCOMPLETE)))
    return report


def _open_check_host(options: CheckOptions) -> Tuple[Host, List[str]]:
    """The host of a check, and the notes the report carries about it (pasted text: what was recognised)."""
    from ascend_doctor.host.base import SnapshotError
    from ascend_doctor.host.factory import make_host

    try:
        if options.from_text:
            from ascend_doctor.host.pasted import open_pasted_text

            host, notes = open_pasted_text(options.from_text)
            return host, notes
        return make_host(options.snapshot, options.run.timeout_s, options.run.python), []
    except ValueError as exc:  # PastedTextError: binary, or nothing recognisable
        raise RunInputError(_("cannot read pasted text {path}: {error}").format(
            path=options.from_text, error=exc)) from None
    except SnapshotError as exc:
        raise RunInputError(_("cannot read snapshot {path}: {error}").format(
            path=options.snapshot, error=exc)) from None
    except OSError as exc:
        raise RunInputError(_("cannot read {path}: {error}").format(
            path=options.snapshot or options.from_text, error=exc.strerror or exc)) from None


# --- fleet -------------------------------------------------------------------------------------

def run_fleet(options: FleetOptions, progress: Optional[ProgressFunc] = None) -> Report:
    """``ascend-doctor fleet``: merge the nodes' reports (and graded snapshots) into one verdict.
    ``progress`` hears of each node input as it is read."""
    import time

    from ascend_doctor.fleet.grade import fleet_report
    from ascend_doctor.fleet.inputs import FleetInputError, collect_inputs
    from ascend_doctor.fleet.merge import merge_inputs

    started = time.monotonic()
    try:
        found = collect_inputs(options.inputs)
    except FleetInputError as exc:
        raise RunInputError(str(exc)) from None
    matrix, matrix_info = load_run_matrix(options.matrix_file, options.matrix_env)
    facts = merge_inputs(found, matrix, options.nodes, progress=progress)
    report = fleet_report(facts, matrix, matrix_info, options.run, options.inputs, time.monotonic() - started)
    _note_unselected_node_verdicts(report, options)
    return report


NODES_PASS = "ASC-FLT-001"  # the fleet check that grades every node by its own report


def _note_unselected_node_verdicts(report: Report, options: FleetOptions) -> None:
    """--select grades what it selects, as `check --select` does: a node that is NOT READY by its own
    checks counts in the exit code only through ASC-FLT-001. When that check is left out and some
    node is not ready, the report says so, so that a gate on a narrow selection is not misread as
    "every node ready" (hostile_inputs_2.md, defect 9, the arguable case)."""
    from ascend_doctor.registry import matches

    run = options.run
    if (not run.select or matches(NODES_PASS, run.select)) and not (run.ignore and matches(NODES_PASS, run.ignore)):
        return
    nodes = [n for n in report.facts.get("nodes") or [] if isinstance(n, dict)]
    not_ready = [str(n.get("name")) for n in nodes if n.get("verdict") not in (None, "READY")]
    if not_ready:
        shown = ", ".join(not_ready[:5]) + (", ..." if len(not_ready) > 5 else "")
        report.notes.append(f"{len(not_ready)} of {len(nodes)} nodes are not ready by their own checks ({shown}); "
                            f"{NODES_PASS} is not selected, so the exit code does not count them")


# --- probe -------------------------------------------------------------------------------------

class ProbeProgress:
    """What the probe tells as it goes: ``say`` a phase line, ``status`` the live status line, and
    ``interrupted`` once when Ctrl-C (or SIGTERM) stops the load. Entered around the load only (a
    live status line ends before anything else is printed). Silent by default."""

    def __enter__(self) -> ProbeProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def say(self, text: str) -> None:
        """A phase begins or ends."""

    def status(self, text: str) -> None:
        """The numbers of the running phase (about once a second)."""

    def interrupted(self) -> None:
        """The load was stopped by Ctrl-C or SIGTERM: what was measured is graded."""


def run_probe(options: ProbeOptions, progress: Optional[ProbeProgress] = None) -> Tuple[Report, Optional[int]]:
    """``ascend-doctor probe URL``: measure the endpoint, then grade what was measured. Returns the
    report and, when Ctrl-C or SIGTERM stopped the load, the exit code to end with (130, 143)."""
    import time

    from ascend_doctor.endpoint.grading import probe_report
    from ascend_doctor.endpoint.records import ProbeFacts, ProbeSettings
    from ascend_doctor.endpoint.redact import Redactor, redact_url, url_secrets
    from ascend_doctor.endpoint.thresholds import thresholds_from_options

    root = api_root(options.url)
    health_url = options.health_url
    redactor = Redactor([options.api_key or "", *url_secrets(options.url), *url_secrets(health_url or "")])
    settings = ProbeSettings(
        url=redact_url(root), model=options.model, timeout_s=options.run.timeout_s, requests=options.requests,
        concurrency=options.concurrency, max_tokens=options.max_tokens, stress=options.stress,
        duration_s=options.duration_s, stress_concurrency=options.stress_concurrency,
        stress_tokens=options.stress_tokens, save=options.save, compare=options.compare,
        health_url=redact_url(health_url) if health_url else None,
        thresholds=thresholds_from_options(options.max_ttft_ms, options.min_decode_tps, options.max_repeat_ratio),
        sweep=options.sweep, sweep_requests=options.sweep_requests, sweep_seconds=options.sweep_seconds,
        chip=options.chip, cards=options.cards, precision=options.precision, deployment=options.deployment,
        like_reference=options.like_reference)
    facts = ProbeFacts(settings)
    verify: Any = options.ca_cert if options.ca_cert else not options.insecure
    started = time.monotonic()
    interrupted = _measure(facts, root, options, verify, redactor, progress or ProbeProgress())
    return probe_report(facts, options.run, time.monotonic() - started), interrupted


def api_root(url: str) -> str:
    """The server root of an OpenAI-compatible URL: ``http://h:8000/v1/`` -> ``http://h:8000``; a
    base path and the query string are kept as given (``http://gw/llm/v1?tenant=a`` ->
    ``http://gw/llm?tenant=a``: every request goes to ``http://gw/llm/v1/...?tenant=a``), a
    fragment (never sent to a server) is dropped."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _measure(facts: Any, root: str, options: ProbeOptions, verify: Any, redactor: Any,
             progress: ProbeProgress) -> Optional[int]:
    """Run the probe; on Ctrl-C (or SIGTERM) stop at once and return the exit code to end with."""
    import threading

    from ascend_doctor.endpoint.client import EndpointClient
    from ascend_doctor.endpoint.measure import Probe, finish

    if verify is False:
        import urllib3

        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    cancel = threading.Event()
    client = EndpointClient(root, options.api_key, facts.settings.timeout_s, verify, redactor,
                            options.follow_redirects)
    interrupted: Optional[int] = None
    try:
        with progress:
            Probe(client, facts.settings, cancel, progress.say, progress.status, options.health_url).run(facts)
    except KeyboardInterrupt as exc:
        cancel.set()
        client.abort_all()
        facts.interrupted = True
        terminated = type(exc).__name__ == "Terminated"  # ascend_doctor.interrupt raises it for SIGTERM
        interrupted = int(ExitCode.TERMINATED if terminated else ExitCode.INTERRUPTED)
        progress.interrupted()
    finally:
        client.close()
    finish(facts)
    return interrupted
