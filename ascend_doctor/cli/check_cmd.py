"""``ascend-doctor check``: grade this machine (or a snapshot of one)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

import click

from ascend_doctor.cli._common import expand_node_pattern, fail, handle_errors, report_output_options
from ascend_doctor.i18n import gettext as _

if TYPE_CHECKING:
    from ascend_doctor.options import CheckOptions
    from ascend_doctor.report import Report


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
@click.option("--rank-table", "rank_table", metavar="FILE", default=None,
              help="Also validate this rank table (HCCL server_list 1.0/1.2, 2.0 rank_list, vLLM-Ascend "
                   "prefill/decode) against this node (default: the file RANK_TABLE_FILE names).")
@click.option("--log-max-files", type=click.IntRange(0, 1000), default=20, show_default=True,
              help="Newest CANN log files (plog, device logs) to scan.")
@click.option("--log-max-mb", type=click.IntRange(0, 100000), default=64, show_default=True,
              help="Bytes of CANN logs to scan at most, in MiB (dmesg is always read whole).")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr while hashing weights for --verify (default: when stderr is a terminal).")
@click.option("-v", "--verbose", is_flag=True,
              help="Show every result, PASS and SKIP too, with its evidence (by default the text report shows "
                   "the problems, and PASS and SKIP as counts per area).")
@click.option("--redact", is_flag=True,
              help="Replace host names, IP/MAC addresses, user names, home folders, serial numbers and PCIe bus "
                   "ids with placeholders (host-1, 192.0.2.1 ...) before printing; see docs/redaction.md.")
@handle_errors
def check(snapshot: Optional[str], from_text: Optional[str], fmt: str, output: Optional[str], timeout: float,
          python: Optional[str],
          select: Tuple[str, ...], ignore: Tuple[str, ...], fail_on: str, matrix_path: Optional[str],
          model_dir: Optional[str], verify_manifest: Optional[str], serving_config: Optional[str],
          vllm_args: Optional[str], rank_table: Optional[str], log_max_files: int, log_max_mb: int,
          progress: Optional[bool], verbose: bool, redact: bool) -> None:
    """Grade an Ascend server's readiness to serve DeepSeek.

    \b
    Examples:
      ascend-doctor check
      ascend-doctor check --format json -o report.json
      ascend-doctor check --format json -o reports/%N.json   # %N: this host's name (srun/pdsh on many nodes)
      ascend-doctor check --format html --redact -o report.html   # to share: names and addresses hidden
      ascend-doctor check --from customer-snapshot.tar.gz
      ascend-doctor check --from-text ticket-1234.txt      # a pasted collect_env / npu-smi info
      ascend-doctor check --from node07.tar.gz --model /data/DeepSeek-R1-W8A8
      ascend-doctor check --select ASC-DRV,ASC-CANN --fail-on warn
      ascend-doctor check --model /data/DeepSeek-R1-W8A8 --config mindie-config.json
      ascend-doctor check --rank-table /data/rank_table.json   # this node's NPU network and its rank table

    \b
    With --from / --from-text the machine's facts come from the snapshot (or the text); of the
    inputs, --model DIR is read from the snapshot (record it with `snapshot --model DIR`), while
    --config FILE, --rank-table FILE, --verify MANIFEST and --vllm-args come from this machine (a
    --config or --rank-table path present in the snapshot is read from there). --verify needs the
    weights, which no snapshot holds: it is skipped. Text with nothing recognisable exits 3.

    \b
    Exit codes: 0 ready (nothing at or above --fail-on), 1 at least one FAIL (or WARN with
    --fail-on warn), 2 usage error (also: --select/--ignore matching no check, -o naming an
    input or a device), 3 could not finish (unreadable snapshot, internal error), a check ended
    in ERROR while nothing failed, every check was SKIP, or nothing failed but fewer than a
    quarter of the checks that apply could be judged ("not enough to judge": a sparse paste is
    not "ready"), 130 Ctrl-C, 143 SIGTERM.
    """
    from ascend_doctor.options import OutputOptions, check_options, split_prefixes

    if verify_manifest and not model_dir:
        raise click.UsageError("--verify needs --model DIR")
    if snapshot and from_text:
        raise click.UsageError("--from and --from-text cannot be used together")
    live = snapshot is None and from_text is None
    _check_selection(split_prefixes(select), split_prefixes(ignore))
    if model_dir:
        _check_model_is_a_folder(model_dir, live=live)
    if python and live:
        _check_python(python)
    options = check_options(
        snapshot=snapshot, from_text=from_text, timeout=timeout, python=python, select=select, ignore=ignore,
        fail_on=fail_on, matrix=matrix_path, model_dir=model_dir, verify_manifest=verify_manifest,
        serving_config=serving_config, vllm_args=vllm_args, rank_table=rank_table, log_max_files=log_max_files,
        log_max_mb=log_max_mb, progress=progress,
        output=OutputOptions(format=fmt, output=expand_node_pattern(output), verbose=verbose, redact=redact))
    _guard_check_output(options)
    report = _run_with_progress(options)

    from ascend_doctor.cli._common import emit_report

    emit_report(report, options.output)
    sys.exit(int(report.exit_code))


def load_matrix_or_exit(matrix_path: Optional[str]) -> Tuple[Any, Dict[str, Any]]:
    """The matrix --matrix (else $ASCEND_DOCTOR_MATRIX...) names, and the report's matrix section; a
    matrix that cannot be loaded ends the command (exit 3)."""
    from ascend_doctor.options import read_environment
    from ascend_doctor.pipeline import RunInputError, load_run_matrix

    try:
        return load_run_matrix(matrix_path, read_environment().matrix)
    except RunInputError as exc:
        fail(str(exc), exc.code)


def _check_selection(select: Tuple[str, ...], ignore: Tuple[str, ...]) -> None:
    """A typo in --select/--ignore must not make the gate pass by running nothing (exit 2)."""
    from ascend_doctor.registry import all_checks, closest_ids, matches, unmatched_prefixes

    ids = [c.spec.id for c in all_checks() if c.spec.suite == "check"]
    for option, values in (("--select", select), ("--ignore", ignore)):
        for value in unmatched_prefixes(values, ids):
            near = closest_ids(value, ids)
            if near:
                raise click.UsageError(_("{option} {value} matches no check; did you mean {ids}? "
                                         "(`ascend-doctor checks` lists them)").format(
                                             option=option, value=value, ids=_(" or ").join(near)))
            raise click.UsageError(_("{option} {value} matches no check (`ascend-doctor checks` lists them)").format(
                option=option, value=value))
    left = [i for i in ids if (not select or matches(i, select)) and not (ignore and matches(i, ignore))]
    if not left:
        raise click.UsageError("--select/--ignore leave no check to run")


def _check_model_is_a_folder(model_dir: str, live: bool) -> None:
    """`plan --model` takes built-in names; `check --model` takes a folder of weights."""
    import os

    if live and os.path.exists(model_dir):
        return
    if not live and model_dir.startswith("/"):
        return  # a folder inside the snapshot
    from ascend_doctor.model.families import FamilyDataError, find_family

    try:
        family = find_family(model_dir)
    except FamilyDataError:
        return
    if family is not None:
        raise click.UsageError(_(
            "--model {name} is a built-in model name, not a folder: `check --model` takes the folder "
            "holding the weights (e.g. --model /data/models/{family}); `ascend-doctor plan --model "
            "{family}` takes names").format(name=model_dir, family=family.name))


def _check_python(python: str) -> None:
    """A mistyped --python is a usage error in one line (not a WARN quoting the probe's source)."""
    import os
    import shutil

    found = python if os.sep in python else shutil.which(python)
    if not found or not os.path.exists(found):
        raise click.UsageError(_("--python: no such interpreter: {python}").format(python=python))
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise click.UsageError(_("--python: {python} is not an executable interpreter").format(python=python))


def _guard_check_output(options: CheckOptions) -> None:
    """-o must not replace an input (the customer's snapshot, the manifest, a model file...)."""
    from ascend_doctor.cli._common import guard_output

    run = options.run
    snapshot = options.snapshot or (options.from_text if options.from_text != "-" else None)
    files = [snapshot, options.matrix_file, options.matrix_env, run.serving_config, run.verify_manifest,
             run.rank_table]
    folders = [snapshot]
    if snapshot is None:
        folders.append(run.model_dir)
    guard_output(options.output.output, files=files, folders=folders)


def _run_with_progress(options: CheckOptions) -> Report:
    """The check pipeline, with a status line on a terminal; an input it cannot use ends the command."""
    from ascend_doctor.pipeline import RunInputError, run_check

    try:
        if not sys.stderr.isatty():
            return run_check(options)
        from rich.console import Console

        console = Console(stderr=True)
        with console.status(_("probing...")) as status:
            return run_check(options, progress=lambda text: status.update(_("checking {check}").format(check=text)))
    except RunInputError as exc:
        fail(str(exc), exc.code)
