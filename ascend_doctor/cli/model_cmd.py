"""``ascend-doctor model``: inspect weights, write a manifest, verify against one."""

from __future__ import annotations

import os
from typing import Any, Callable, List, Optional, TypeVar

import click

from ascend_doctor.cli._common import fail, guard_output, handle_errors, output_options, write_output
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.i18n import gettext as _
from ascend_doctor.model.files import DEFAULT_MAX_ENTRIES as DEFAULT_MAX_FILES


def _dir_arg(directory: str) -> str:
    # Absolute paths make messages and remediation commands pasteable from any directory.
    return os.path.abspath(directory) if directory not in ("", "/") else directory


@click.group("model", context_settings={"help_option_names": ["-h", "--help"]})
def model() -> None:
    """Inspect model weights, and write or verify manifests of them.

    \b
    Examples:
      ascend-doctor model inspect /data/models/DeepSeek-R1
      ascend-doctor model inspect /data/models/DeepSeek-R1-W8A8 --format json -o facts.json
      ascend-doctor model manifest /data/models/DeepSeek-R1-W8A8 -o manifest.json
      ascend-doctor model verify /data/models/DeepSeek-R1-W8A8 manifest.json
      ascend-doctor check --model /data/models/DeepSeek-R1-W8A8 --verify manifest.json
    """


@model.command("inspect")
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=True, dir_okay=True))
@output_options
@handle_errors
def inspect_cmd(directory: str, fmt: str, output: Optional[str]) -> None:
    """Show what a model directory holds: provenance and why, dtypes, parameter counts, problems.

    Reads config.json, the index and description files and each safetensors header (never the
    tensor data), so it takes seconds even for a 700 GB model.

    \b
    Examples:
      ascend-doctor model inspect /data/models/DeepSeek-R1
      ascend-doctor model inspect . --format json | jq .provenance

    \b
    Exit codes: 0 no problem that stops loading, 1 at least one (e.g. a missing shard),
    2 usage error.
    """
    from ascend_doctor.model import records as R
    from ascend_doctor.model.files import LocalFiles
    from ascend_doctor.model.inspect import inspect_model_dir
    from ascend_doctor.render.model import render_model_inspect

    guard_output(output, folders=[directory])
    facts = inspect_model_dir(LocalFiles(), _dir_arg(directory))
    write_output(render_model_inspect(facts, fmt), output)
    if any(p.severity == R.ERROR for p in facts.problems):
        raise SystemExit(int(ExitCode.FINDINGS))


F = TypeVar("F", bound=Callable[..., Any])


def _jobs_option(func: F) -> F:
    return click.option("-j", "--jobs", type=click.IntRange(1, 64), default=None,
                        help="Files hashed in parallel (default: the number of CPUs, at most 16).")(func)


def _progress_option(func: F) -> F:
    return click.option("--progress/--no-progress", "progress", default=None,
                        help="Progress bar on stderr (default: only when stderr is a terminal).")(func)


@model.command("manifest")
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False, dir_okay=True))
@click.option("-o", "--output", "output", metavar="FILE", default=None,
              help="Write the manifest to FILE (default: standard output). Inside DIR is fine: the "
                   "manifest never lists itself.")
@click.option("--sha256sum", "as_sha256sum", is_flag=True,
              help="Write `sha256sum` format (checkable with `sha256sum -c`) instead of JSON.")
@click.option("--max-files", type=click.IntRange(1, 10_000_000), default=DEFAULT_MAX_FILES, show_default=True,
              help="Refuse folders holding more entries (files and folders) than this.")
@_jobs_option
@_progress_option
@handle_errors
def manifest_cmd(directory: str, output: Optional[str], as_sha256sum: bool, max_files: int, jobs: Optional[int],
                 progress: Optional[bool]) -> None:
    """Record the size and SHA-256 of every file of a model, at any depth.

    Files are hashed in parallel. Download-tool folders (.git, .cache) are left out, and so is
    the manifest itself when -o names a file inside DIR. Copy the manifest to the other nodes
    and verify there: that proves every node holds the same weights. A folder with more than
    --max-files entries is refused (nothing is written), as is one holding a FIFO, a device or a
    symlink that leads outside it.

    \b
    Exit codes: 0 written, 2 usage error, 3 some file could not be hashed (nothing written),
    130 Ctrl-C, 143 SIGTERM.

    \b
    Examples:
      ascend-doctor model manifest /data/models/DeepSeek-R1-W8A8 -o manifest.json
      ascend-doctor model manifest . --sha256sum -o SHA256SUMS    # then: sha256sum -c SHA256SUMS
    """
    from ascend_doctor.model.files import LocalFiles, walk_model_dir
    from ascend_doctor.model.manifest import build_manifest, listing_total, rel_inside
    from ascend_doctor.model.progress import byte_progress, progress_wanted

    root = _dir_arg(directory)
    _guard_manifest_output(output, root)
    src = LocalFiles()
    listing = walk_model_dir(src, root, max_entries=max_files, max_depth=None)
    if not listing.exists:
        fail(_("{path} does not exist").format(path=root), ExitCode.USAGE)
    if not listing.is_dir:
        fail(_("{path} is not a directory").format(path=root), ExitCode.USAGE)
    if listing.truncated:
        fail(_("{path} holds more than {count} files and folders (the --max-files limit); no manifest written. "
               "Point at the model folder itself, or raise the limit with --max-files N").format(
                   path=root, count=max_files), ExitCode.INCOMPLETE)
    own = rel_inside(root, output)
    with byte_progress(listing_total(listing), "hashing", progress_wanted(progress)) as advance:
        manifest, problems = build_manifest(src, root, jobs, advance, listing, exclude=[own] if own else [])
    if problems:
        _echo_problems(problems)
        fail(_("{count} file(s) could not be hashed; no manifest written").format(count=len(problems)),
             ExitCode.INCOMPLETE)
    from ascend_doctor.render.model import render_model_manifest

    write_output(render_model_manifest(manifest, "sha256sum" if as_sha256sum else "json"), output)
    click.echo(_("{count} files, {size} bytes").format(count=len(manifest.entries), size=manifest.total_bytes),
               err=True)


def _guard_manifest_output(output: Optional[str], root: str) -> None:
    """-o may be inside the model folder (the manifest leaves itself out), but must not replace
    a model file: an existing file there is overwritten only if it is a manifest already."""
    from ascend_doctor import safeio
    from ascend_doctor.model.manifest import rel_inside

    guard_output(output)
    if output is None or safeio.output_stream(output) is not None or not os.path.exists(output):
        return
    if rel_inside(root, output) is None:
        return
    try:
        head = safeio.read_regular(output, 64 * 1024 * 1024)[:4096].decode("utf-8", "replace")
    except OSError:
        head = ""
    if not _looks_like_manifest(head):
        fail(_("-o {output} is a file of the model folder and not a manifest: writing there would destroy it; "
               "choose another output file").format(output=output), ExitCode.USAGE)


def _looks_like_manifest(head: str) -> bool:
    import re

    from ascend_doctor.model.manifest import MANIFEST_FORMAT

    text = head.lstrip("\ufeff").lstrip()
    if text.startswith("{"):
        return MANIFEST_FORMAT in text
    first = next((line for line in text.splitlines() if line.strip()), "")
    return bool(re.match(r"^\\?([0-9a-fA-F]{64} [ *]|SHA256 \()", first)) or not text


def _echo_problems(problems: List[str]) -> None:
    for line in problems[:50]:
        click.echo(f"  {line}", err=True)
    if len(problems) > 50:
        click.echo("  " + _("... and {count} more").format(count=len(problems) - 50), err=True)


@model.command("verify")
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False, dir_okay=True))
@click.argument("manifest_path", metavar="MANIFEST", type=click.Path(dir_okay=False))
@output_options
@_jobs_option
@_progress_option
@handle_errors
def verify_cmd(directory: str, manifest_path: str, fmt: str, output: Optional[str], jobs: Optional[int],
               progress: Optional[bool]) -> None:
    """Check a model directory against a manifest (ours, or a sha256sum file).

    Reports each file whose size or SHA-256 differs, each file missing, and each file not in
    the manifest. Files are hashed in parallel; a file whose size already differs is not read.

    \b
    Examples:
      ascend-doctor model verify /data/models/DeepSeek-R1-W8A8 manifest.json
      ascend-doctor model verify . SHA256SUMS --format json -o verify.json

    \b
    Exit codes: 0 identical, 1 differences found, 2 usage error, 3 manifest unusable,
    130 Ctrl-C, 143 SIGTERM.
    """
    from ascend_doctor.model.files import LocalFiles, walk_model_dir
    from ascend_doctor.model.manifest import (
        ManifestError,
        hash_total,
        load_manifest,
        rel_inside,
        verify_manifest,
        verify_plan,
    )
    from ascend_doctor.model.progress import byte_progress, progress_wanted
    from ascend_doctor.render.model import render_model_verify

    root = _dir_arg(directory)
    guard_output(output, files=[manifest_path], folders=[directory])
    src = LocalFiles()
    try:
        manifest = load_manifest(src, manifest_path)
    except ManifestError as exc:
        fail(_("manifest unusable: {error}").format(error=exc), ExitCode.INCOMPLETE)
    listing = walk_model_dir(src, root, max_depth=None)
    if not listing.exists or not listing.is_dir:
        fail(_("{path} is not a directory").format(path=root), ExitCode.USAGE)
    # The manifest (and the -o file) may sit in the folder: they are not model files.
    own = [rel for rel in (rel_inside(root, manifest_path), rel_inside(root, output)) if rel]
    plan = verify_plan(manifest, listing, ignore=own)
    with byte_progress(hash_total(plan[0]), "verifying", progress_wanted(progress)) as advance:
        result = verify_manifest(src, root, manifest, jobs, advance, listing, plan)
    write_output(render_model_verify(result, fmt, manifest_path), output)
    if not result.ok:
        raise SystemExit(int(ExitCode.FINDINGS))
