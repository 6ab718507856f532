"""``ascend-doctor snapshot``: record this machine so it can be checked elsewhere."""

from __future__ import annotations

import os
from typing import Callable, Optional, Tuple

import click

from ascend_doctor.cli._common import fail, handle_errors, stderr_console
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.host.base import DEFAULT_TIMEOUT_S
from ascend_doctor.i18n import gettext as _


@click.command("snapshot")
@click.option("-o", "--output", "output", required=True, metavar="FILE.tar.gz|DIR/|-",
              help="Where to write the snapshot: a .tar.gz archive (a new file, or an existing regular file, "
                   "which is replaced), a new or empty folder when the name ends with /, or - for a .tar.gz "
                   "stream on standard output.")
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

    Output: -o FILE.tar.gz replaces an existing regular file of that name (atomically: the old
    file stays until the new archive is complete); a device, FIFO, socket or folder is refused.
    -o DIR/ must be new or empty. Nothing partial is left behind on an error or Ctrl-C.

    \b
    Exit codes: 0 written, 2 usage error (bad -o), 3 could not write, 130 Ctrl-C, 143 SIGTERM.

    \b
    Examples:
      ascend-doctor snapshot -o node07.tar.gz
      ascend-doctor snapshot -o node07.tar.gz --redact   # to share outside: names, addresses hidden
      ascend-doctor snapshot -o node07/ --timeout 20 --python /opt/venv/bin/python
      ascend-doctor snapshot -o node07.tar.gz --model /data/models/DeepSeek-R1-W8A8
      ascend-doctor snapshot -o - | ssh support@host 'cat > node07.tar.gz'
      ascend-doctor check --from node07.tar.gz     # replay it on any machine
    """
    from ascend_doctor import safeio
    from ascend_doctor.capture.run import capture_snapshot

    console = stderr_console()
    _check_target(output)
    for model_dir in model_dirs:
        if not os.path.isdir(model_dir):
            fail(_("--model {path}: not a folder").format(path=model_dir), ExitCode.USAGE)

    label = _("snapshot:")

    def progress(message: str) -> None:
        console.print(f"[dim]{label}[/dim] {message}")

    try:
        summary = capture_snapshot(output, timeout_s=timeout, python=python, progress=progress,
                                   finish=_finisher(model_dirs, redact, progress))
    except safeio.OutputRefused as exc:
        fail(str(exc), ExitCode.USAGE)
    except (FileExistsError, NotADirectoryError) as exc:
        fail(_("{error}; choose a new or empty folder").format(error=_message(exc)), ExitCode.USAGE)
    except OSError as exc:
        fail(_("cannot write {path}: {error}; nothing was written").format(path=output, error=_message(exc)),
             ExitCode.INCOMPLETE)
    note_label = _("note:")
    for note in summary.notes:
        console.print(f"[yellow]{note_label}[/yellow] {note}", markup=True, highlight=False)
    written = _("snapshot written to {path} ({commands} commands, {files} files).").format(
        path=f"[bold]{summary.output}[/bold]", commands=summary.commands, files=summary.files)
    if redact:
        redacted = _("Secret-looking environment values were redacted, and host names, addresses, user names, "
                     "serial numbers and bus ids replaced by placeholders; review before sharing.")
    else:
        redacted = _("Secret-looking environment values were redacted; review before sharing.")
    console.print(written + " " + redacted)


def _finisher(model_dirs: Tuple[str, ...], redact: bool, say: Callable[[str], None]
              ) -> Optional[Callable[[str], None]]:
    """What runs on the finished tree before it is archived: model metadata, then redaction."""
    if not model_dirs and not redact:
        return None

    def finish(tree: str) -> None:
        if model_dirs:
            from ascend_doctor.host.model_record import record_models

            say(_("recording model metadata (no weights) of {folders}").format(folders=", ".join(model_dirs)))
            for note in record_models(tree, list(model_dirs)):
                say(_("note: {note}").format(note=note))
        if redact:
            _redact_tree(tree)

    return finish


def _redact_tree(tree: str) -> None:
    """--redact: identities in the finished tree become placeholders, before it is archived."""
    from ascend_doctor.redaction.identity import redact_snapshot_tree

    redact_snapshot_tree(tree)


def _message(exc: OSError) -> str:
    """Our own one-line messages are in args[0]; the system's have strerror (no "[Errno N]")."""
    from ascend_doctor import safeio

    if exc.strerror is None and exc.args and isinstance(exc.args[0], str):
        return exc.args[0]
    return safeio.describe_os_error(exc)


def _check_target(output: str) -> None:
    """Refuse an unusable -o before spending the capture's time on it (exit 2)."""
    import sys

    from ascend_doctor import safeio
    from ascend_doctor.capture.run import check_folder_target

    if safeio.output_stream(output) == "stderr":
        fail("-o /dev/stderr: a snapshot is a binary archive; use -o - to stream it to standard output",
             ExitCode.USAGE)
    if safeio.output_stream(output) == "stdout":
        if sys.stdout.isatty():
            fail("-o -: refusing to write a binary archive to a terminal; redirect it (> snap.tar.gz) "
                 "or pipe it", ExitCode.USAGE)
        return
    if output.endswith("/") or output.endswith(os.sep):
        try:
            check_folder_target(output)
        except (FileExistsError, NotADirectoryError) as exc:
            fail(_("{error}; choose a new or empty folder").format(error=_message(exc)), ExitCode.USAGE)
        except FileNotFoundError as exc:
            fail(_("cannot write {path}: {error}").format(path=output, error=_message(exc)), ExitCode.USAGE)
        return
    if os.path.isdir(output) and not os.path.islink(output):
        fail(_("{path} is a folder: add a trailing / to write the snapshot into it").format(path=output),
             ExitCode.USAGE)
    try:
        safeio.check_output_target(output)
    except safeio.OutputRefused as exc:
        fail(str(exc), ExitCode.USAGE)
