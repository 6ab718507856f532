"""``ascend-doctor fleet``: merge node reports (and snapshots) into one cluster verdict."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Optional, Tuple

import click

from ascend_doctor.cli._common import check_selection, fail, handle_errors, report_output_options

if TYPE_CHECKING:
    from ascend_doctor.options import FleetOptions
    from ascend_doctor.redaction.identity import IdentityRedactor
    from ascend_doctor.report import Report


@click.command("fleet")
@click.argument("inputs", nargs=-1, required=True, metavar="REPORT.json... | SNAPSHOT... | DIR")
@report_output_options
@click.option("--fail-on", type=click.Choice(["fail", "warn"]), default="fail", show_default=True,
             help="Lowest status that makes the exit code 1 (also used to grade snapshots).")
@click.option("--select", multiple=True, metavar="PREFIX",
              help="Run only fleet checks whose id starts with PREFIX (repeatable or comma-separated).")
@click.option("--ignore", multiple=True, metavar="PREFIX", help="Skip fleet checks whose id starts with PREFIX.")
@click.option("--matrix", "matrix_path", metavar="FILE", default=None,
              help="Compatibility matrix to use instead of the shipped one (env: ASCEND_DOCTOR_MATRIX).")
@click.option("-v", "--verbose", is_flag=True, help="Show evidence under each result.")
@click.option("--redact", is_flag=True,
              help="Replace host names, IP/MAC addresses, user names and serial numbers with placeholders before "
                   "printing (docs/redaction.md).")
@handle_errors
def fleet(inputs: Tuple[str, ...], fmt: str, output: Optional[str], fail_on: str, select: Tuple[str, ...],
          ignore: Tuple[str, ...], matrix_path: Optional[str], verbose: bool, redact: bool) -> None:
    """Merge the reports of many nodes into one verdict: the odd node out, and how to bring it in line.

    Each input is a JSON report (`check --format json`), a snapshot (folder or .tar.gz, graded as
    `check --from` grades it) or a folder of those (read two levels deep, in name order). Nodes
    are read one at a time and only a digest of each is kept: memory grows with the number
    of nodes, and a finding many nodes share is said once with a count and examples.

    \b
    Prints the cluster verdict, a table of the nodes (devices, health, worst finding), and for
    every fact that must agree across a cluster (chip, driver, firmware, CANN, kernels, NNAL,
    torch / torch_npu, engines, NPU TLS/FEC, HCCL variables, model manifest) the majority and
    every node that differs, with the commands that bring it in line; across nodes: device IPs
    unique, one rank table, one addressing plan.

    \b
    Examples:
      srun --nodes=16 --ntasks-per-node=1 ascend-doctor check --format json -o reports/%N.json
      ascend-doctor fleet reports/
      ascend-doctor fleet reports/*.json --format markdown -o fleet.md
      ascend-doctor fleet node01.tar.gz node02.tar.gz --format json -o fleet.json
      ascend-doctor explain ASC-FLT-004

    \b
    Exit codes (the worst node's, as `check` gives them): 0 every node ready and nothing
    differs, 1 a node or a difference at or above --fail-on, 2 usage error, 3 a node report
    could not be read or a node's check could not finish (and nothing failed), or no node
    report was found, 130 Ctrl-C, 143 SIGTERM.
    """
    from ascend_doctor.options import OutputOptions, fleet_options

    options = fleet_options(inputs=inputs, fail_on=fail_on, select=select, ignore=ignore, matrix=matrix_path,
                            output=OutputOptions(format=fmt, output=output, verbose=verbose, redact=redact))
    check_selection("fleet", options.run.select, options.run.ignore)
    _guard_fleet_output(output, inputs)
    report = _run_with_progress(options)
    from ascend_doctor.cli._common import emit_report

    emit_report(report, options.output, _node_names(report) if redact else None)
    sys.exit(int(report.exit_code))


def _node_names(report: Any) -> IdentityRedactor:
    """An IdentityRedactor for the fleet report that has learned every node's host name first, so that
    it is replaced wherever it stands (messages, fix plan, file names)."""
    from ascend_doctor.redaction.identity import IdentityRedactor

    redactor = IdentityRedactor()
    for node in report.facts.get("nodes") or []:
        if isinstance(node, dict) and isinstance(node.get("name"), str):
            name = node["name"].split(" (")[0]
            redactor.learn_host(name)
            # reports/node07.json: the file is named after the host too; it becomes host-3.json, so that
            # `ascend-doctor report render reports/host-3.json` still names a file (of the redacted set)
            base = os.path.basename(str(node.get("source") or "").rstrip("/"))
            redactor.learn_host_file(base, name)
    # Fix-step summaries ("On node07: ...") are text like any other (redaction/identity.py _VERBATIM_KEY).
    return redactor


def _guard_fleet_output(output: Optional[str], inputs: Tuple[str, ...]) -> None:
    """-o must not replace a node's report nor land in a folder that is read as input (exit 2)."""
    from ascend_doctor.cli._common import guard_output

    files = [p for p in inputs if not os.path.isdir(p)]
    folders = [p for p in inputs if os.path.isdir(p)]
    guard_output(output, files=files, folders=folders)


def _run_with_progress(options: FleetOptions) -> Report:
    """The fleet pipeline, with a status line on a terminal; unusable input ends the command (exit 3)."""
    from ascend_doctor.pipeline import RunInputError, run_fleet

    try:
        if not sys.stderr.isatty():
            return run_fleet(options)
        from rich.console import Console

        console = Console(stderr=True)
        with console.status("reading node reports...") as status:
            return run_fleet(options, progress=lambda text: status.update(f"reading {text}"))
    except RunInputError as exc:
        fail(str(exc), exc.code)
