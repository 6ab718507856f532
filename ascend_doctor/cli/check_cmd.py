"""``ascend-doctor check``: grade this machine (or a snapshot of one)."""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Tuple

import click

from ascend_doctor.cli._common import fail, handle_errors, report_output_options
from ascend_doctor.exitcodes import ExitCode


def _split_prefixes(values: Tuple[str, ...]) -> Tuple[str, ...]:
    out: List[str] = []
    for value in values:
        out.extend(p.strip() for p in value.split(",") if p.strip())
    return tuple(out)


def load_matrix_or_exit(matrix_path: Optional[str]) -> Tuple[Any, Dict[str, Any]]:
    from ascend_doctor.matrix import MatrixError, load_matrix

    try:
        matrix = load_matrix(matrix_path)
    except MatrixError as exc:
        fail(f"cannot load the compatibility matrix: {exc}", ExitCode.INCOMPLETE)
    info = dict(matrix.identity())
    info["warnings"] = list(getattr(matrix, "warnings", []) or [])
    return matrix, info


@click.command("check")
@click.option("--from", "snapshot", metavar="SNAPSHOT", default=None,
              help="Check a machine snapshot (directory or .tar.gz) instead of this machine.")
@click.option("--from-text", "from_text", metavar="FILE|-", default=None,
              help="Check what a ticket's pasted text shows (collect_env / llamafactory-cli env output, "
                   "npu-smi info, version.info files; - reads standard input). Checks whose inputs are not "
                   "in the text are skipped; the report lists what was recognised.")
@report_output_options
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=10.0, show_default=True,
              help="Seconds to wait for each command (a hung npu-smi becomes a graded result).")
@click.option("--python", "python", metavar="PATH", default=None,
              help="Interpreter whose packages are checked (default: $VIRTUAL_ENV/bin/python, else python3).")
@click.option("--select", multiple=True, metavar="PREFIX",
              help="Run only checks whose id starts with PREFIX (repeatable or comma-separated).")
@click.option("--ignore", multiple=True, metavar="PREFIX", help="Skip checks whose id starts with PREFIX.")
@click.option("--fail-on", type=click.Choice(["fail", "warn"]), default="fail", show_default=True,
              help="Lowest status that makes the exit code 1.")
@click.option("--matrix", "matrix_path", metavar="FILE", default=None,
              help="Compatibility matrix to use instead of the shipped one (env: ASCEND_DOCTOR_MATRIX).")
@click.option("--model", "model_dir", metavar="DIR", default=None, help="Also check this model directory.")
@click.option("--verify", "verify_manifest", metavar="MANIFEST", default=None,
              help="With --model: verify the weights against a manifest or sha256sum file.")
@click.option("--config", "serving_config", metavar="FILE", default=None,
              help="Also lint this serving configuration (MindIE config.json or a models: YAML/JSON).")
@click.option("--vllm-args", "vllm_args", metavar="ARGS", default=None,
              help='Also lint a vLLM-Ascend launch line, e.g. "vllm serve /models/R1 --tensor-parallel-size 16".')
@click.option("--log-max-files", type=click.IntRange(0, 1000), default=20, show_default=True,
              help="Newest CANN log files (plog, device logs) to scan.")
@click.option("--log-max-mb", type=click.IntRange(0, 100000), default=64, show_default=True,
              help="Bytes of CANN logs to scan at most, in MiB (dmesg is always read whole).")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr while hashing weights for --verify (default: when stderr is a terminal).")
@click.option("-v", "--verbose", is_flag=True, help="Show evidence under each result.")
@click.option("--redact", is_flag=True,
              help="Replace host names, IP/MAC addresses, user names, home folders, serial numbers and PCIe bus "
                   "ids with placeholders (host-1, 192.0.2.1 ...) before printing; see docs/redaction.md.")
@handle_errors
def check(snapshot: Optional[str], from_text: Optional[str], fmt: str, output: Optional[str], timeout: float,
          python: Optional[str],
          select: Tuple[str, ...], ignore: Tuple[str, ...], fail_on: str, matrix_path: Optional[str],
          model_dir: Optional[str], verify_manifest: Optional[str], serving_config: Optional[str],
          vllm_args: Optional[str], log_max_files: int, log_max_mb: int, progress: Optional[bool],
          verbose: bool, redact: bool) -> None:
    """Grade an Ascend server's readiness to serve DeepSeek.

    \b
    Examples:
      ascend-doctor check
      ascend-doctor check --format json -o report.json
      ascend-doctor check --format html --redact -o report.html   # to share: names and addresses hidden
      ascend-doctor check --from customer-snapshot.tar.gz
      ascend-doctor check --from-text ticket-1234.txt      # a pasted collect_env / npu-smi info
      ascend-doctor check --from node07.tar.gz --model /data/DeepSeek-R1-W8A8
      ascend-doctor check --select ASC-DRV,ASC-CANN --fail-on warn
      ascend-doctor check --model /data/DeepSeek-R1-W8A8 --config mindie-config.json

    \b
    With --from / --from-text the machine's facts come from the snapshot (or the text); of the
    inputs, --model DIR is read from the snapshot (record it with `snapshot --model DIR`), while
    --config FILE, --verify MANIFEST and --vllm-args come from this machine (a --config path
    present in the snapshot is read from there). --verify needs the weights, which no snapshot
    holds: it is skipped. Text with nothing recognisable exits 3.

    \b
    Exit codes: 0 ready (nothing at or above --fail-on), 1 at least one FAIL (or WARN with
    --fail-on warn), 2 usage error, 3 could not finish (unreadable snapshot, internal error)
    or a check ended in ERROR while nothing failed.
    """
    from ascend_doctor.host.base import SnapshotError
    from ascend_doctor.host.factory import make_host
    from ascend_doctor.options import RunOptions

    if verify_manifest and not model_dir:
        raise click.UsageError("--verify needs --model DIR")
    if snapshot and from_text:
        raise click.UsageError("--from and --from-text cannot be used together")
    options = RunOptions(
        timeout_s=timeout, python=python, select=_split_prefixes(select), ignore=_split_prefixes(ignore),
        fail_on=fail_on, model_dir=model_dir, verify_manifest=verify_manifest, serving_config=serving_config,
        vllm_args=vllm_args, log_max_files=log_max_files, log_max_bytes=log_max_mb * 1024 * 1024,
        extra=() if progress is None else (("progress", "1" if progress else "0"),),
    )
    matrix, matrix_info = load_matrix_or_exit(matrix_path)
    pasted_notes: List[str] = []
    host: Any
    try:
        if from_text:
            from ascend_doctor.host.pasted import open_pasted_text

            host, pasted_notes = open_pasted_text(from_text)
        else:
            host = make_host(snapshot, timeout, python)
    except ValueError as exc:  # PastedTextError: binary, or nothing recognisable
        fail(f"cannot read pasted text {from_text}: {exc}", ExitCode.INCOMPLETE)
    except SnapshotError as exc:
        fail(f"cannot read snapshot {snapshot}: {exc}", ExitCode.INCOMPLETE)
    except OSError as exc:
        fail(f"cannot read {snapshot or from_text}: {exc.strerror or exc}", ExitCode.INCOMPLETE)
    try:
        from ascend_doctor.runner import with_model_from_serving_config

        options = with_model_from_serving_config(host, options)
        report = _run_with_progress(host, matrix, options, matrix_info)
    finally:
        close = getattr(host, "close", None)
        if callable(close):
            close()

    from ascend_doctor.render import emit_report

    report.notes.extend(pasted_notes)
    if redact:
        from ascend_doctor.redaction.identity import redact_report

        report = redact_report(report)
    emit_report(report, fmt, output, verbose)
    sys.exit(int(report.exit_code))


def _run_with_progress(host: Any, matrix: Any, options: Any, matrix_info: Dict[str, Any]) -> Any:
    from ascend_doctor.runner import run_checks

    if not sys.stderr.isatty():
        return run_checks(host, matrix, options, matrix_info)
    from rich.console import Console

    console = Console(stderr=True)
    with console.status("probing...") as status:
        return run_checks(host, matrix, options, matrix_info,
                          progress=lambda text: status.update(f"checking {text}"))
