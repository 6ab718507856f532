"""``ascend-doctor snapshot``: record this machine so it can be checked elsewhere."""

from __future__ import annotations

import os
from typing import Callable, Optional, Tuple

import click

from ascend_doctor.cli._common import fail, handle_errors, stderr_console
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.host.base import DEFAULT_TIMEOUT_S


@click.command("snapshot")
@click.option("-o", "--output", "output", required=True, metavar="FILE.tar.gz|DIR/",
              help="Where to write the snapshot: a .tar.gz archive, or a folder when the name ends with /.")
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=DEFAULT_TIMEOUT_S, show_default=True,
              help="Seconds to wait for each command (a hung npu-smi is recorded as hung).")
@click.option("--python", "python", metavar="PATH", default=None,
              help="Interpreter whose packages are recorded (default: $VIRTUAL_ENV/bin/python, else python3).")
@click.option("--model", "model_dirs", multiple=True, metavar="DIR",
              help="Also record what the model checks read of this model folder (repeatable): config, index, "
                   "quantization description and tokenizer files, every safetensors header, every file's size "
                   "and link target; never the weights. `check --from SNAP --model DIR` then grades it.")
@click.option("--redact", is_flag=True,
              help="Also replace host names, IP/MAC addresses, user names, home folders, serial numbers and PCIe "
                   "bus ids with placeholders (host-1, 192.0.2.1 ...) everywhere in the snapshot; see "
                   "docs/redaction.md.")
@handle_errors
def snapshot(output: str, timeout: float, python: Optional[str], model_dirs: Tuple[str, ...], redact: bool) -> None:
    """Capture this machine into a snapshot for support or offline checking.

    Records the outputs of npu-smi, dmesg, lspci ..., the Ascend version files and
    `latest` links, the /dev/davinci* nodes, environment variables, the target Python's
    packages and memory/disk/process facts. Values of variables whose names contain TOKEN,
    KEY, SECRET, PASSWORD, PASSWD or CREDENTIAL are replaced by <redacted>; review the
    snapshot before sharing it. Model weights are never read.

    \b
    Examples:
      ascend-doctor snapshot -o node07.tar.gz
      ascend-doctor snapshot -o node07.tar.gz --redact   # to share outside: names, addresses hidden
      ascend-doctor snapshot -o node07/ --timeout 20 --python /opt/venv/bin/python
      ascend-doctor snapshot -o node07.tar.gz --model /data/models/DeepSeek-R1-W8A8
      ascend-doctor check --from node07.tar.gz     # replay it on any machine
    """
    from ascend_doctor.host.capture import capture_snapshot

    console = stderr_console()
    as_dir = output.endswith("/") or output.endswith(os.sep)
    if not as_dir:
        parent = os.path.dirname(os.path.abspath(output))
        if not os.path.isdir(parent):
            fail(f"cannot write {output}: folder {parent} does not exist", ExitCode.USAGE)
        if os.path.isdir(output):
            fail(f"{output} is a folder: add a trailing / to write the snapshot into it", ExitCode.USAGE)
    for model_dir in model_dirs:
        if not os.path.isdir(model_dir):
            fail(f"--model {model_dir}: not a folder", ExitCode.USAGE)

    def progress(message: str) -> None:
        console.print(f"[dim]snapshot:[/dim] {message}")

    try:
        summary = capture_snapshot(output, timeout_s=timeout, python=python, progress=progress,
                                   finish=_finisher(model_dirs, redact, progress))
    except FileExistsError as exc:
        fail(f"{exc}; choose an empty or new folder", ExitCode.USAGE)
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}", ExitCode.INCOMPLETE)
    for note in summary.notes:
        console.print(f"[yellow]note:[/yellow] {note}", markup=True, highlight=False)
    console.print(f"snapshot written to [bold]{summary.output}[/bold] "
                  f"({summary.commands} commands, {summary.files} files). Secret-looking environment "
                  "values were redacted" + (", and host names, addresses, user names, serial numbers and bus ids "
                                            "replaced by placeholders" if redact else "") + "; review before sharing.")


def _finisher(model_dirs: Tuple[str, ...], redact: bool, say: Callable[[str], None]
              ) -> Optional[Callable[[str], None]]:
    """What runs on the finished tree before it is archived: model metadata, then redaction."""
    if not model_dirs and not redact:
        return None

    def finish(tree: str) -> None:
        if model_dirs:
            from ascend_doctor.host.model_record import record_models

            say(f"recording model metadata (no weights) of {', '.join(model_dirs)}")
            for note in record_models(tree, list(model_dirs)):
                say(f"note: {note}")
        if redact:
            _redact_tree(tree)

    return finish


def _redact_tree(tree: str) -> None:
    """--redact: identities in the finished tree become placeholders, before it is archived."""
    from ascend_doctor.redaction.identity import redact_snapshot_tree

    redact_snapshot_tree(tree)
