"""``ascend-doctor matrix``: show, look up, plan, validate, bundle and update the compatibility matrix."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import click

from ascend_doctor.cli._common import fail, guard_output, handle_errors, output_options, write_output
from ascend_doctor.exitcodes import ExitCode

EXIT_CODES = ("Exit codes: 0 done, 1 validation failed / incompatible / rejected, 2 usage error, "
              "3 could not finish (network, disk).")


def _matrix_path(ctx: click.Context) -> Optional[str]:
    obj = ctx.obj if isinstance(ctx.obj, dict) else {}
    path = obj.get("matrix_path")
    return str(path) if path else None


def load(ctx: click.Context) -> Any:
    """The matrix for this command, or one error line and exit 1 when the chosen file is invalid."""
    from ascend_doctor.matrix import MatrixError, load_matrix

    path = _matrix_path(ctx)
    try:
        matrix = load_matrix(path)
    except MatrixError as exc:
        shown = path or "the matrix in use"
        fail(f"invalid compatibility matrix {shown}: {exc} (details: ascend-doctor matrix validate"
             f"{' ' + path if path else ''})", ExitCode.FINDINGS)
    for warning in matrix.warnings:
        click.echo(f"ascend-doctor: warning: {warning}", err=True)
    return matrix


def _guard(ctx: click.Context, output: Optional[str], files: Tuple[str, ...] = (),
           folders: Tuple[str, ...] = ()) -> None:
    """-o must not replace a matrix file this command reads (exit 2)."""
    from ascend_doctor.options import read_environment

    guard_output(output, files=(_matrix_path(ctx), read_environment().matrix, *files), folders=folders)


@click.group("matrix", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--matrix", "matrix_path", metavar="FILE", default=None,
              help="Use this matrix file (a bundle, or a meta file with `include`) instead of the default. "
                   "The default is $ASCEND_DOCTOR_MATRIX, else an updated copy newer than the shipped "
                   "matrix, else the shipped matrix.")
@click.pass_context
def matrix(ctx: click.Context, matrix_path: Optional[str]) -> None:
    """Query, validate and update the compatibility matrix (driver / CANN / torch_npu / engines).

    Every answer carries a verdict — recommended, compatible, incompatible or unknown (not in the
    matrix) — and the sources it comes from. No NPU is needed.

    \b
    Examples:
      ascend-doctor matrix show vllm-ascend
      ascend-doctor matrix lookup --cann 8.0.RC3
      ascend-doctor matrix plan --chip 910B3 --engine vllm-ascend --driver 24.1.rc2
      ascend-doctor matrix validate my-matrix.yaml
      ascend-doctor matrix update --url https://example.com/matrix.yaml --sha256 <hex>
      ascend-doctor matrix update --file matrix-2026.12.01.yaml     # air-gapped machine
    """
    ctx.ensure_object(dict)
    ctx.obj["matrix_path"] = matrix_path


# -- show -------------------------------------------------------------------------------------

@matrix.command("show", epilog=EXIT_CODES)
@click.argument("component", required=False)
@output_options
@click.pass_context
@handle_errors
def show_cmd(ctx: click.Context, component: Optional[str], fmt: str, output: Optional[str]) -> None:
    """Print the matrix tables; without COMPONENT, the list of components.

    COMPONENT is one of hdk-cann, releases, codes, firmware, torch-npu, python, vllm-ascend,
    mindie, mindspeed, chips, gaps, all — or a section name such as torch_npu or hdk_cann.

    \b
    Examples:
      ascend-doctor matrix show
      ascend-doctor matrix show torch-npu
      ascend-doctor matrix show hdk-cann --format json | jq '.sections.hdk_cann[0]'
    """
    from ascend_doctor.matrix.components import COMPONENTS, resolve_component

    sections = resolve_component(component) if component else None
    if component and sections is None:
        fail(f"unknown component {component!r} (one of {', '.join(COMPONENTS)}, all, or a section name)",
             ExitCode.USAGE)
    _guard(ctx, output)
    m = load(ctx)
    from ascend_doctor.render.matrix import MatrixShow, render_matrix_show

    write_output(render_matrix_show(MatrixShow(m, sections, component), fmt), output)


# -- lookup -----------------------------------------------------------------------------------

@matrix.command("lookup", epilog=EXIT_CODES)
@click.option("--cann", metavar="VERSION", help="A CANN release (8.0.RC3, 8.5.0, 8.0.RC3.beta1 …).")
@click.option("--driver", metavar="VERSION", help="A driver / HDK release (24.1.rc2, 24.1.RC2, 25.0.rc1.1 …).")
@click.option("--torch-npu", "torch_npu", metavar="VERSION", help="A torch_npu release (2.1.0.post8 …).")
@click.option("--vllm-ascend", "vllm_ascend", metavar="VERSION", help="A vLLM-Ascend release (0.9.1, v0.11.0rc1 …).")
@click.option("--mindie", metavar="VERSION", help="A MindIE release (2.1.RC1 …).")
@click.option("--chip", metavar="NAME", help="A chip or family as `matrix show chips` prints it (910B3, A3, "
              "Ascend910, Ascend910_9392, 310P3 …); with --driver it limits the firmware answer to that family.")
@click.option("-v", "--verbose", is_flag=True,
              help="With two or more versions: the tables of everything that goes with each, after the verdicts.")
@output_options
@click.pass_context
@handle_errors
def lookup_cmd(ctx: click.Context, cann: Optional[str], driver: Optional[str], torch_npu: Optional[str],
               vllm_ascend: Optional[str], mindie: Optional[str], chip: Optional[str], verbose: bool, fmt: str,
               output: Optional[str]) -> None:
    """What goes with one version: each answer with its verdict and sources. Two or more versions
    (--cann with --driver, an engine with its CANN ...): the verdict on each pair first, compatible,
    incompatible or unknown (not in the matrix), and the tables with -v.

    \b
    Examples:
      ascend-doctor matrix lookup --cann 8.0.RC3
      ascend-doctor matrix lookup --cann 8.5.0 --driver 24.1.rc2.2
      ascend-doctor matrix lookup --driver 24.1.rc2 --format json
      ascend-doctor matrix lookup --torch-npu 2.1.0.post8
      ascend-doctor matrix lookup --chip 910B3
    """
    if not any((cann, driver, torch_npu, vllm_ascend, mindie, chip)):
        fail("give at least one of --cann, --driver, --torch-npu, --vllm-ascend, --mindie, --chip", ExitCode.USAGE)
    from ascend_doctor.matrix.lookup import lookup
    from ascend_doctor.matrix.pairs import lookup_pairs
    from ascend_doctor.render.matrix import MatrixLookup, render_matrix_lookup

    _guard(ctx, output)
    m = load(ctx)
    results = lookup(m, cann=cann, driver=driver, torch_npu=torch_npu, vllm_ascend=vllm_ascend, mindie=mindie,
                     chip=chip)
    pairs = lookup_pairs(m, cann=cann, driver=driver, torch_npu=torch_npu, vllm_ascend=vllm_ascend, mindie=mindie,
                         chip=chip)
    write_output(render_matrix_lookup(MatrixLookup(m, tuple(results), tuple(pairs), verbose), fmt), output)


# -- plan -------------------------------------------------------------------------------------

@matrix.command("plan", epilog=EXIT_CODES)
@click.option("--chip", required=True, metavar="NAME",
              help="The chip or family, as `matrix show chips` prints it (910B3, A2, A3, Ascend910, "
                   "Ascend910_9392, 910C1, 310P3, 310P …).")
@click.option("--engine", required=True, type=click.Choice(["vllm-ascend", "mindie", "mindspeed"]),
              help="The serving or training engine.")
@click.option("--driver", metavar="VERSION", help="Keep this driver (e.g. the one installed).")
@click.option("--firmware", metavar="VERSION", help="Keep this firmware.")
@click.option("--cann", metavar="VERSION", help="Keep this CANN release.")
@click.option("--python", metavar="VERSION", help="Keep this Python (3.10 …).")
@click.option("--torch", metavar="VERSION", help="Keep this PyTorch.")
@click.option("--torch-npu", "torch_npu", metavar="VERSION", help="Keep this torch_npu.")
@click.option("--version", "engine_version", metavar="VERSION", help="Keep this engine release.")
@click.option("--stable", is_flag=True, help="Skip release candidates unless --version names one.")
@click.option("--arch", type=click.Choice(["aarch64", "x86_64"]), default=None,
              help="The target machine's architecture: package names for it only. Default: both names "
                   "(HDK files say x86-64, CANN files x86_64).")
@output_options
@click.pass_context
@handle_errors
def plan_cmd(ctx: click.Context, chip: str, engine: str, driver: Optional[str], firmware: Optional[str],
             cann: Optional[str], python: Optional[str], torch: Optional[str], torch_npu: Optional[str],
             engine_version: Optional[str], stable: bool, arch: Optional[str], fmt: str,
             output: Optional[str]) -> None:
    """A complete recommended stack for a machine, and the order to install it in.

    Picks the highest engine release whose every pairing is recommended or compatible with what
    you keep fixed; everything else takes the release's own pairing.

    \b
    Examples:
      ascend-doctor matrix plan --chip 910B3 --engine vllm-ascend
      ascend-doctor matrix plan --chip 910B3 --engine vllm-ascend --driver 24.1.rc2 --arch aarch64
      ascend-doctor matrix plan --chip A3 --engine vllm-ascend --arch x86_64
      ascend-doctor matrix plan --chip 910B4 --engine mindie --format json -o plan.json
    """
    from ascend_doctor.matrix.plan import PlanError
    from ascend_doctor.render.matrix import MatrixPlan, render_matrix_plan
    from ascend_doctor.resolve.plan import make_plan

    _guard(ctx, output)
    m = load(ctx)
    fixed = {"driver": driver, "firmware": firmware, "cann": cann, "python": python, "torch": torch,
             "torch_npu": torch_npu, "version": engine_version}
    try:
        plan = make_plan(m, chip, engine, {k: v for k, v in fixed.items() if v}, stable_only=stable, arch=arch)
    except PlanError as exc:
        message = str(exc)
        code = ExitCode.USAGE if message.startswith(("unknown chip", "unknown engine", "cannot fix",
                                                     "unknown architecture")) \
            else ExitCode.FINDINGS
        fail(message, code)
    write_output(render_matrix_plan(MatrixPlan(m, plan), fmt), output)


# -- validate ---------------------------------------------------------------------------------

@matrix.command("validate", epilog=EXIT_CODES)
@click.argument("files", nargs=-1, metavar="[FILE]...", type=click.Path(dir_okay=True))
@click.option("--bundle", "as_bundle", is_flag=True, help="Require self-contained bundles (no `include`), "
              "as `matrix update` does.")
@output_options
@click.pass_context
@handle_errors
def validate_cmd(ctx: click.Context, files: Tuple[str, ...], as_bundle: bool, fmt: str,
                 output: Optional[str]) -> None:
    """Check matrix files; every problem is printed as `file:line key.path: message`.

    Without FILE, checks the matrix this run would use.

    \b
    Examples:
      ascend-doctor matrix validate compat_matrix/matrix.yaml
      ascend-doctor matrix validate --bundle downloaded.yaml --format json
    """
    from ascend_doctor.matrix.loader import load_document
    from ascend_doctor.render.matrix import ValidatedFile, render_matrix_validate

    _guard(ctx, output, files)
    paths = list(files)
    if not paths:
        paths = [_default_matrix_file(ctx)]
    checked = tuple(ValidatedFile(path, load_document(path, allow_include=not as_bundle)) for path in paths)
    write_output(render_matrix_validate(checked, fmt), output)
    if not all(f.valid for f in checked):
        raise SystemExit(int(ExitCode.FINDINGS))


def _default_matrix_file(ctx: click.Context) -> str:
    import os

    from ascend_doctor.matrix.meta import read_matrix_version, shipped_matrix_path, user_matrix_path
    from ascend_doctor.matrix.select import is_newer
    from ascend_doctor.options import read_environment

    path = _matrix_path(ctx) or read_environment().matrix
    if path:
        return path
    user, shipped = user_matrix_path(), shipped_matrix_path()
    if os.path.isfile(user) and is_newer(read_matrix_version(user), read_matrix_version(shipped)):
        return user
    return shipped


# -- bundle -----------------------------------------------------------------------------------

@matrix.command("bundle", epilog=EXIT_CODES)
@output_options
@click.pass_context
@handle_errors
def bundle_cmd(ctx: click.Context, fmt: str, output: Optional[str]) -> None:
    """Join a split matrix (meta file + included files) into one self-contained bundle.

    The bundle is the single file `matrix update` downloads, checksums, validates and installs.
    Publish it together with its sha256.

    \b
    Examples:
      ascend-doctor matrix bundle -o matrix-2026.12.01.yaml && sha256sum matrix-2026.12.01.yaml
      ascend-doctor matrix --matrix my/matrix.yaml bundle -o bundle.yaml
    """
    import os

    from ascend_doctor.matrix.bundle import write_bundle
    from ascend_doctor.matrix.errors import MatrixError
    from ascend_doctor.matrix.meta import shipped_matrix_path

    source = _matrix_path(ctx) or shipped_matrix_path()
    folder = os.path.dirname(os.path.abspath(source))  # the split files: a new file next to them is fine
    _guard(ctx, output, tuple(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith((".yaml", ".yml"))))
    try:
        text = write_bundle(source, output)
    except MatrixError as exc:
        fail(f"cannot bundle {source}: {exc}", ExitCode.FINDINGS)
    from ascend_doctor.matrix.meta import read_matrix_version
    from ascend_doctor.render.matrix import MatrixBundle, render_matrix_bundle

    write_output(render_matrix_bundle(MatrixBundle(source, read_matrix_version(source), text), fmt), output)


# -- update -----------------------------------------------------------------------------------

@matrix.command("update", epilog=EXIT_CODES)
@click.option("--url", metavar="URL", help="Download the bundle from URL (https only; http only for loopback).")
@click.option("--file", "file_path", metavar="FILE", type=click.Path(dir_okay=False),
              help="Install a bundle carried onto this machine (air-gapped clusters).")
@click.option("--sha256", metavar="HEX", help="Refuse the bundle unless its SHA-256 is HEX.")
@click.option("--force", is_flag=True, help="Install even if it is not newer than the shipped/installed matrix.")
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=30.0, show_default=True,
              help="Seconds to wait for the server (connect and each read).")
@output_options
@handle_errors
def update_cmd(url: Optional[str], file_path: Optional[str], sha256: Optional[str], force: bool, timeout: float,
               fmt: str, output: Optional[str]) -> None:
    """Install a newer matrix bundle into the user data folder, atomically.

    The bundle is downloaded (or read) completely, checked against --sha256, validated and
    compared with the shipped matrix before anything is replaced; a failed or interrupted update
    leaves the previous matrix as it was. Later runs use it while it is newer than the shipped one.
    Folder: $ASCEND_DOCTOR_DATA_DIR, else $XDG_DATA_HOME/ascend-doctor, else ~/.local/share/ascend-doctor.

    \b
    Examples:
      ascend-doctor matrix update --url https://mirror.example.com/ascend-doctor/matrix.yaml --sha256 9f2c…
      ascend-doctor matrix update --file /mnt/usb/matrix-2026.12.01.yaml
    """
    import re

    from ascend_doctor.matrix.update import UpdateError, UpdateFailure, update_from_file, update_from_url
    from ascend_doctor.redaction.secrets import redact_text

    if bool(url) == bool(file_path):
        fail("give exactly one of --url URL or --file FILE", ExitCode.USAGE)
    from ascend_doctor.matrix.meta import user_matrix_path

    guard_output(output, files=[file_path, user_matrix_path()])
    if sha256 is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", sha256.strip()):
        fail("--sha256 must be 64 hexadecimal characters", ExitCode.USAGE)
    try:
        if url:
            result = update_from_url(url, sha256=sha256, force=force, timeout=timeout)
        else:
            assert file_path is not None
            result = update_from_file(file_path, sha256=sha256, force=force)
    except UpdateError as exc:
        exit_code = {UpdateFailure.REJECTED: ExitCode.FINDINGS, UpdateFailure.BAD_REQUEST: ExitCode.USAGE,
                     UpdateFailure.UNFINISHED: ExitCode.INCOMPLETE}[exc.failure]
        fail(redact_text(str(exc)), exit_code)  # a URL's user:password never reaches the terminal
    from ascend_doctor.render.matrix import render_matrix_update

    write_output(render_matrix_update(result, fmt), output)
