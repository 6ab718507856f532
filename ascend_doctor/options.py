"""Options of one doctor run, gathered from the command line, the environment and defaults.

``RunOptions`` is what the checks and facts read (``ctx.options``); a command's whole record
(``CheckOptions``, ``FleetOptions``, ``ProbeOptions``) holds it with the rest of the run's options.
"""

from __future__ import annotations

import os
from typing import Mapping, Optional, Tuple

from msgspec import Struct, field


class RunOptions(Struct, frozen=True):
    timeout_s: float = 10.0
    python: Optional[str] = None  # target interpreter; None -> auto (VIRTUAL_ENV, python3, self)
    select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    fail_on: str = "fail"  # "fail" or "warn"
    # Model / serving inputs (issue: model checks). None when not given: those checks SKIP.
    model_dir: Optional[str] = None
    verify_manifest: Optional[str] = None
    serving_config: Optional[str] = None
    vllm_args: Optional[str] = None
    # The rank table to validate (--rank-table FILE); None: the one RANK_TABLE_FILE names, if any.
    rank_table: Optional[str] = None
    # Log scanning bounds
    log_max_bytes: int = 64 * 1024 * 1024
    log_max_files: int = 20
    extra: Tuple[Tuple[str, str], ...] = field(default_factory=tuple)


# --- One record per run ------------------------------------------------------------------------
# A command's flags and the environment become one frozen record here, and only here: the command
# line parses flags into it (check_options, fleet_options, probe_options), the pipeline
# (pipeline.py) runs from it, and the checks read its ``run`` part (RunOptions, ctx.options).
# docs/options.md is the table of every option: flag, environment variable, default, reader.

ENV_MATRIX = "ASCEND_DOCTOR_MATRIX"  # the same name as matrix/meta.py's (which --version reads)
ENV_API_KEY = "ASCEND_DOCTOR_API_KEY"
ENV_DEBUG = "ASCEND_DOCTOR_DEBUG"
ENV_NO_COLOR = "NO_COLOR"


class Environment(Struct, frozen=True, kw_only=True):
    """The options the environment gives a run, read once (``read_environment``)."""

    matrix: Optional[str] = None  # $ASCEND_DOCTOR_MATRIX: the matrix file when --matrix is not given
    api_key: Optional[str] = None  # $ASCEND_DOCTOR_API_KEY: probe's key when --api-key is not given
    debug: bool = False  # $ASCEND_DOCTOR_DEBUG: an internal error shows its traceback
    no_color: bool = False  # $NO_COLOR (no-color.org): no colours in text on a terminal

    def __repr__(self) -> str:
        return _repr_without_key(self)


def read_environment(environ: Optional[Mapping[str, str]] = None) -> Environment:
    """The run options of ``environ`` (default: this process's). An empty variable is an unset one."""
    env = os.environ if environ is None else environ
    return Environment(matrix=env.get(ENV_MATRIX, "").strip() or None, api_key=env.get(ENV_API_KEY) or None,
                       debug=bool(env.get(ENV_DEBUG)), no_color=bool(env.get(ENV_NO_COLOR)))


class OutputOptions(Struct, frozen=True, kw_only=True):
    """How the report is shown: the output step's (render, then write), after the run."""

    format: str = "text"  # --format: a name of render.FORMATS
    output: Optional[str] = None  # -o FILE (%N expanded); None or "-": standard output
    verbose: bool = False  # -v: every result, with its evidence
    redact: bool = False  # --redact: identities replaced too (secrets always are)


class CheckOptions(Struct, frozen=True, kw_only=True):
    """``ascend-doctor check``: which machine, which matrix, what the checks read, how it is shown."""

    run: RunOptions
    output: OutputOptions
    snapshot: Optional[str] = None  # --from SNAPSHOT; None with from_text None: this machine
    from_text: Optional[str] = None  # --from-text FILE|-
    matrix_file: Optional[str] = None  # --matrix FILE
    matrix_env: Optional[str] = None  # $ASCEND_DOCTOR_MATRIX (used when --matrix is not given)

    @property
    def live(self) -> bool:
        return self.snapshot is None and self.from_text is None


class FleetOptions(Struct, frozen=True, kw_only=True):
    """``ascend-doctor fleet``: the node inputs, the fleet suite's selection, how snapshots are graded."""

    run: RunOptions  # --select/--ignore/--fail-on of the fleet checks
    nodes: RunOptions  # a snapshot input is graded as `check --from` would, with --fail-on
    output: OutputOptions
    inputs: Tuple[str, ...] = ()
    matrix_file: Optional[str] = None
    matrix_env: Optional[str] = None


class ProbeOptions(Struct, frozen=True, kw_only=True):
    """``ascend-doctor probe URL``: the endpoint, its credentials and TLS, the load, the thresholds."""

    run: RunOptions  # --select/--ignore/--fail-on of the probe checks; timeout_s is --timeout
    output: OutputOptions
    url: str
    model: Optional[str] = None
    api_key: Optional[str] = None  # --api-key, else $ASCEND_DOCTOR_API_KEY; never printed
    health_url: Optional[str] = None
    requests: int = 5
    concurrency: int = 16
    max_tokens: int = 256
    save: Optional[str] = None
    compare: Optional[str] = None
    stress: bool = False
    duration_s: float = 30.0
    stress_concurrency: int = 64
    stress_tokens: Optional[int] = None
    sweep: Tuple[int, ...] = ()
    sweep_requests: int = 64
    sweep_seconds: float = 30.0
    chip: Optional[str] = None
    cards: Optional[int] = None
    precision: Optional[str] = None
    deployment: Optional[str] = None
    like_reference: bool = False
    max_ttft_ms: Optional[float] = None
    min_decode_tps: Optional[float] = None
    max_repeat_ratio: Optional[float] = None
    ca_cert: Optional[str] = None
    insecure: bool = False
    follow_redirects: bool = False
    progress: bool = True

    def __repr__(self) -> str:
        return _repr_without_key(self)


def _repr_without_key(record: Struct) -> str:
    """A record's repr with its API key shown as set or not, never its value: a record that holds a
    key must not print it, in a debug traceback or a log line (docs/redaction.md)."""
    shown = ", ".join(f"{name}={'<set>' if getattr(record, name) else None}" if name == "api_key"
                      else f"{name}={getattr(record, name)!r}" for name in record.__struct_fields__)
    return f"{type(record).__name__}({shown})"


def split_prefixes(values: Tuple[str, ...]) -> Tuple[str, ...]:
    """--select A,B --select C -> ("A", "B", "C")."""
    out: list[str] = []
    for value in values:
        out.extend(p.strip() for p in value.split(",") if p.strip())
    return tuple(out)


def check_options(*, snapshot: Optional[str], from_text: Optional[str], output: OutputOptions, timeout: float,
                  python: Optional[str], select: Tuple[str, ...], ignore: Tuple[str, ...], fail_on: str,
                  matrix: Optional[str], model_dir: Optional[str], verify_manifest: Optional[str],
                  serving_config: Optional[str], vllm_args: Optional[str], rank_table: Optional[str],
                  log_max_files: int, log_max_mb: int, progress: Optional[bool],
                  environment: Optional[Environment] = None) -> CheckOptions:
    """The record of one ``check`` from its flags (as click parsed them) and the environment."""
    env = environment if environment is not None else read_environment()
    run = RunOptions(
        timeout_s=timeout, python=python, select=split_prefixes(select), ignore=split_prefixes(ignore),
        fail_on=fail_on, model_dir=model_dir, verify_manifest=verify_manifest, serving_config=serving_config,
        vllm_args=vllm_args, rank_table=os.path.abspath(rank_table) if rank_table else None,
        log_max_files=log_max_files, log_max_bytes=log_max_mb * 1024 * 1024,
        extra=() if progress is None else (("progress", "1" if progress else "0"),),
    )
    return CheckOptions(run=run, output=output, snapshot=snapshot, from_text=from_text, matrix_file=matrix,
                        matrix_env=env.matrix)


def fleet_options(*, inputs: Tuple[str, ...], output: OutputOptions, fail_on: str, select: Tuple[str, ...],
                  ignore: Tuple[str, ...], matrix: Optional[str],
                  environment: Optional[Environment] = None) -> FleetOptions:
    """The record of one ``fleet`` from its flags and the environment."""
    env = environment if environment is not None else read_environment()
    return FleetOptions(run=RunOptions(select=split_prefixes(select), ignore=split_prefixes(ignore), fail_on=fail_on),
                        nodes=RunOptions(fail_on=fail_on), output=output, inputs=tuple(inputs), matrix_file=matrix,
                        matrix_env=env.matrix)


def api_key_option(flag: Optional[str], environment: Optional[Environment] = None) -> Optional[str]:
    """--api-key, else $ASCEND_DOCTOR_API_KEY (an empty one is no key)."""
    if flag:
        return flag
    env = environment if environment is not None else read_environment()
    return env.api_key


def probe_options(*, url: str, output: OutputOptions, timeout: float, select: Tuple[str, ...],
                  ignore: Tuple[str, ...], fail_on: str, api_key: Optional[str],
                  environment: Optional[Environment] = None, **measure: object) -> ProbeOptions:
    """The record of one ``probe`` from its flags and the environment; ``measure``: the other fields
    of ProbeOptions (the load, the thresholds, TLS), as the command parsed them."""
    return ProbeOptions(run=RunOptions(timeout_s=timeout, select=split_prefixes(select),
                                       ignore=split_prefixes(ignore), fail_on=fail_on),
                        output=output, url=url, api_key=api_key_option(api_key, environment),
                        **measure)  # type: ignore[arg-type]
