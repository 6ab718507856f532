"""Every JSON output has a documented, tested contract (docs/*-schema.json).

Each command that prints JSON is run on the repository's fixtures and samples in the variants that
change its shape, and every document it prints is validated against its schema; JSON goes to stdout
only, stderr never carries JSON, and ``-o FILE`` writes the same JSON. The click tree is walked so that
a new command offering ``--format json`` without a schema fails here.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import click
import pytest
from click.testing import Result

from ascend_doctor.cli import main

from . import model_fixtures as F
from .clirunner import make_runner
from .json_schemas import (
    COMMAND_SCHEMAS,
    DOCS,
    JSON_WITHOUT_FORMAT_OPTION,
    REPORT_SCHEMAS,
    load_schema,
    parse_output,
    validate_output,
    validator,
)
from .test_model_inspect import HF_MODELING, build_from_tree, converted_config, make_fp8, r1_config, sample, tree_names

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "samples"
LOGS = SAMPLES / "dmesg-and-logs"
NPU_SMI = SAMPLES / "npu-smi-info"
PLANTED = SAMPLES / "watch" / "planted"
FIXTURES = ROOT / "fixtures"

# Values that legitimately differ between two runs (clocks, durations).
VOLATILE = frozenset({"elapsed_s", "seconds", "created", "time", "duration_s", "started_at"})


class Case(NamedTuple):
    args: List[str]  # after `ascend-doctor`, without -o (every command takes -o FILE)
    exit_codes: Tuple[int, ...]
    stdin: Optional[str] = None
    env: Optional[Dict[str, str]] = None


Builder = Callable[[Path], Case]
# case name -> (command, as keyed in COMMAND_SCHEMAS; what builds its arguments in a temporary folder)
CASES: Dict[str, Tuple[str, Builder]] = {}


def case(name: str, command: str) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        assert name not in CASES and command in COMMAND_SCHEMAS
        CASES[name] = (command, builder)
        return builder

    return register


def body(path: Path) -> str:
    """A sample's content after its `# ---` source header."""
    return path.read_text(encoding="utf-8").partition("\n# ---\n")[2]


# -- catalogue ------------------------------------------------------------------------------------

case("checks", "checks")(lambda tmp: Case(["checks", "--format", "json"], (0,)))
case("checks-zh", "checks")(lambda tmp: Case(["checks", "--format", "json", "--lang", "zh"], (0,)))
case("explain", "explain")(lambda tmp: Case(["explain", "ASC-DRV-001", "--format", "json"], (0,)))
case("explain-zh", "explain")(lambda tmp: Case(["explain", "ASC-MDL-005", "--format", "json", "--lang", "zh"], (0,)))

# -- plan -----------------------------------------------------------------------------------------

case("plan-r1-w8a8-16x910B3", "plan")(lambda tmp: Case([
    "plan", "--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B3", "--cards", "16", "--format",
    "json"], (0,)))
case("plan-v3-smallest-A3-mtp", "plan")(lambda tmp: Case([
    "plan", "--model", "DeepSeek-V3", "--chip", "A3", "--mtp", "--kv-dtype", "int8", "--format", "json"], (0, 1)))
case("plan-r1-on-310P3-nothing-fits", "plan")(lambda tmp: Case([
    "plan", "--model", "DeepSeek-R1", "--chip", "310P3", "--batch", "500", "--max-seq-len", "100000", "--format",
    "json"], (1,)))
case("plan-7b-weights-fit-kv-short", "plan")(lambda tmp: Case([
    "plan", "--model", "DeepSeek-R1-Distill-Qwen-7B", "--mem-gb", "24", "--batch", "4096", "--max-seq-len",
    "131072", "--format", "json"], (1,)))
case("plan-32b-tp-dp-mem-gb", "plan")(lambda tmp: Case([
    "plan", "--model", "DeepSeek-R1-Distill-Qwen-32B", "--mem-gb", "32", "--tp", "2", "--dp", "2", "--format",
    "json"], (0, 1)))


@case("plan-model-directory", "plan")
def _plan_dir(tmp: Path) -> Case:
    root = make_fp8(tmp / "r1")
    return Case(["plan", "--model", str(root), "--chip", "910B4", "--cards", "8", "--format", "json"], (0, 1))


@case("plan-config-json", "plan")
def _plan_config(tmp: Path) -> Case:
    config = tmp / "config.json"
    config.write_text(json.dumps(r1_config()), encoding="utf-8")
    return Case(["plan", "--model", str(config), "--chip", "910B3", "--cards", "32", "--dp", "2", "--ep",
                         "32", "--format", "json"], (0, 1))


# -- diagnose -------------------------------------------------------------------------------------

def _log(tmp: Path, name: str) -> str:
    path = tmp / name
    path.write_text(body(LOGS / name), encoding="utf-8")
    return str(path)


case("diagnose-moe-dispatch", "diagnose")(lambda tmp: Case([
    "diagnose", _log(tmp, "vllm-ascend-4256-507011-E39999-aicpu-MoeDistributeDispatchV2.txt"), "--format", "json"],
    (1,)))
case("diagnose-hccl-timeout", "diagnose")(lambda tmp: Case([
    "diagnose", _log(tmp, "issue-mirror-hccl-EI0006-socket-timeout-allreduce.txt"), "--format", "json"], (1,)))
case("diagnose-stdin-nothing-known", "diagnose")(lambda tmp: Case(["diagnose", "-", "--format", "json"], (0,),
                                                      stdin="INFO server started\nall good\n"))


@case("diagnose-binary-input", "diagnose")
def _diagnose_binary(tmp: Path) -> Case:
    path = tmp / "core.bin"
    path.write_bytes(b"\x00\x01ELF\x00" + body(LOGS / "vllm-ascend-doc-npu-oom-runtimeerror.txt").encode())
    return Case(["diagnose", str(path), "--format", "json"], (0, 1))


# -- model ----------------------------------------------------------------------------------------

@case("model-inspect-hf-fp8", "model inspect")
def _inspect_fp8(tmp: Path) -> Case:
    return Case(["model", "inspect", str(make_fp8(tmp / "r1", HF_MODELING)), "--format", "json"],
                (0,))


@case("model-inspect-msmodelslim-mindie-layout", "model inspect")
def _inspect_msmodelslim(tmp: Path) -> Case:
    names = tree_names(sample("vllm-ascend-doc-old-deepseek-v2-lite-w8a8-tree-description-suffix.txt"))
    build_from_tree(tmp / "old", names, converted_config())
    return Case(["model", "inspect", str(tmp / "old"), "--format", "json"], (0, 1))


@case("model-inspect-broken", "model inspect")
def _inspect_broken(tmp: Path) -> Case:
    root = make_fp8(tmp / "broken")
    os.remove(root / "model-00002-of-00002.safetensors")
    os.remove(root / "tokenizer.json")
    os.symlink("gone.safetensors", root / "dangling.safetensors")
    (root / "pytorch_model.bin").write_bytes(b"\0" * 16)
    return Case(["model", "inspect", str(root), "--format", "json"], (1,))


case("model-inspect-not-found", "model inspect")(lambda tmp: Case([
    "model", "inspect", str(tmp / "nowhere"), "--format", "json"], (1,)))


def _manifested(tmp: Path) -> Tuple[Path, Path]:
    root = make_fp8(tmp / "m")
    manifest = tmp / "manifest.json"
    result = make_runner().invoke(main, ["model", "manifest", str(root), "-o", str(manifest), "--no-progress"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root, manifest


@case("model-verify-identical", "model verify")
def _verify_ok(tmp: Path) -> Case:
    root, manifest = _manifested(tmp)
    return Case(["model", "verify", str(root), str(manifest), "--format", "json", "--no-progress"],
                (0,))


@case("model-verify-differences", "model verify")
def _verify_differences(tmp: Path) -> Case:
    root, manifest = _manifested(tmp)
    (root / "config.json").write_text("{}", encoding="utf-8")  # size differs
    index = root / "model.safetensors.index.json"
    index.write_bytes(index.read_bytes().replace(b"model", b"MODEL", 1))  # same size, other content
    os.remove(root / "tokenizer.json")
    (root / "notes.txt").write_text("extra\n", encoding="utf-8")
    return Case(["model", "verify", str(root), str(manifest), "--format", "json", "--no-progress"],
                (1,))


@case("model-verify-sha256sum", "model verify")
def _verify_sha256sum(tmp: Path) -> Case:
    root = make_fp8(tmp / "s")
    sums = tmp / "SHA256SUMS"
    result = make_runner().invoke(main, ["model", "manifest", str(root), "--sha256sum", "-o", str(sums),
                                       "--no-progress"], catch_exceptions=False)
    assert result.exit_code == 0
    with sums.open("a", encoding="utf-8") as fh:
        fh.write("not a sha256sum line\n")
    return Case(["model", "verify", str(root), str(sums), "--format", "json", "--no-progress"], (0,))


@case("model-manifest", "model manifest")
def _manifest(tmp: Path) -> Case:
    root = make_fp8(tmp / "m")
    (root / "sub").mkdir()
    F.write_json(str(root / "sub" / "generation_config.json"), {"do_sample": True})
    return Case(["model", "manifest", str(root), "--no-progress"], (0,))


# -- matrix ---------------------------------------------------------------------------------------

case("matrix-show-components", "matrix show")(lambda tmp: Case(["matrix", "show", "--format", "json"], (0,)))
case("matrix-show-all", "matrix show")(lambda tmp: Case(["matrix", "show", "all", "--format", "json"], (0,)))
case("matrix-show-section", "matrix show")(lambda tmp: Case(["matrix", "show", "torch_npu", "--format", "json"], (0,)))
case("matrix-lookup-cann", "matrix lookup")(lambda tmp: Case([
    "matrix", "lookup", "--cann", "8.0.RC3", "--format", "json"], (0,)))
case("matrix-lookup-everything", "matrix lookup")(lambda tmp: Case([
    "matrix", "lookup", "--cann", "8.1.RC1", "--driver", "24.1.rc2", "--torch-npu", "2.1.0.post8", "--vllm-ascend",
    "0.9.1", "--mindie", "2.1.RC1", "--chip", "910B3", "--format", "json"], (0,)))
case("matrix-lookup-unknown", "matrix lookup")(lambda tmp: Case([
    "matrix", "lookup", "--cann", "99.0", "--torch-npu", "0.0.1", "--format", "json"], (0,)))
case("matrix-plan-vllm-fixed-driver", "matrix plan")(lambda tmp: Case([
    "matrix", "plan", "--chip", "910B3", "--engine", "vllm-ascend", "--driver", "24.1.rc2", "--arch", "aarch64",
    "--format", "json"], (0,)))
case("matrix-plan-mindie-310P3", "matrix plan")(lambda tmp: Case([
    "matrix", "plan", "--chip", "310P3", "--engine", "mindie", "--format", "json"], (0,)))
case("matrix-plan-mindspeed-A3-stable", "matrix plan")(lambda tmp: Case([
    "matrix", "plan", "--chip", "A3", "--engine", "mindspeed", "--stable", "--arch", "x86_64", "--format", "json"],
    (0,)))
case("matrix-validate-shipped", "matrix validate")(lambda tmp: Case(["matrix", "validate", "--format", "json"], (0,)))


@case("matrix-validate-problems", "matrix validate")
def _validate_bad(tmp: Path) -> Case:
    bad = tmp / "bad.yaml"
    bad.write_text("schema_version: 1\nversion: x\n", encoding="utf-8")
    shipped = ROOT / "compat_matrix" / "matrix.yaml"
    return Case(["matrix", "validate", "--bundle", str(bad), str(shipped), str(tmp / "none.yaml"),
                                    "--format", "json"], (1,))


case("matrix-bundle", "matrix bundle")(lambda tmp: Case(["matrix", "bundle", "--format", "json"], (0,)))


@case("matrix-update-file", "matrix update")
def _update(tmp: Path) -> Case:
    bundle = tmp / "bundle.yaml"
    result = make_runner().invoke(main, ["matrix", "bundle", "-o", str(bundle)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = tmp / "data"
    return Case(["matrix", "update", "--file", str(bundle), "--force", "--format", "json"], (0,),
                env={"ASCEND_DOCTOR_DATA_DIR": str(data)})


# -- watch ----------------------------------------------------------------------------------------

case("watch-planted-replay", "watch")(lambda tmp: Case([
    "watch", "--replay", str(PLANTED), "--interval", "300", "--format", "json"], (1,)))


@case("watch-layouts-hang-garbage-missing-chips", "watch")
def _watch_mixed(tmp: Path) -> Case:
    """Every shape a line can take: DDR and phy-id layouts, a hung and an unreadable npu-smi, chips that
    vanish (a `missing` alert) and come back."""
    replay = tmp / "replay"
    replay.mkdir()
    captures = ["blog-800IA2-8x910B4-25.0.rc1.1.txt", "gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt",
                "blog-800IA2-8x910B4-25.0.rc1.1.txt", "blog-310P3-23.0.0-npu24.txt",
                "fixture-A3-25.5.1-container-sees-only-npu4-phy8-9.txt",
                "fixture-7x950PR-25.7.rc1-npu-id-column-empty-procnames.txt"]
    for number, name in enumerate(captures, 1):
        shutil.copy(NPU_SMI / name, replay / f"{number:04d}.txt")
    (replay / "0007.timeout").write_text("10\n", encoding="utf-8")
    (replay / "0008.txt").write_text("npu-smi: command output garbled\n\x00\x01\n", encoding="utf-8")
    shutil.copy(NPU_SMI / captures[1], replay / "0009.txt")
    return Case(["watch", "--replay", str(replay), "--interval", "60", "--aicore-min", "90", "--format",
                          "json"], (0, 1))


# -- reports (schemas of their own, validated suite-wide; here for the stdout / -o contract) ---------

case("check-from-fixture", "check")(lambda tmp: Case([
    "check", "--from", str(FIXTURES / "healthy-8x910B3"), "--format", "json"], (0, 1)))
case("fleet-two-nodes", "fleet")(lambda tmp: Case([
    "fleet", str(FIXTURES / "fleet-16" / "node01"), str(FIXTURES / "fleet-16" / "node05"), "--format", "json"],
    (0, 1)))


def _saved_report(tmp: Path, fixture: str) -> Path:
    path = tmp / f"{fixture}.json"
    result = make_runner().invoke(main, ["check", "--from", str(FIXTURES / fixture), "--format", "json", "-o",
                                       str(path)], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return path


case("report-render", "report render")(lambda tmp: Case([
    "report", "render", str(_saved_report(tmp, "no-driver")), "--format", "json", "--redact"], (0,)))
case("report-diff", "report diff")(lambda tmp: Case([
    "report", "diff", str(_saved_report(tmp, "healthy-8x910B3")), str(_saved_report(tmp, "no-driver")),
    "--format", "json"], (1,)))


# -- running them ---------------------------------------------------------------------------------

def run(args: Sequence[str], stdin: Optional[str] = None, env: Optional[Dict[str, str]] = None) -> Result:
    return make_runner().invoke(main, list(args), input=stdin, env=env, catch_exceptions=False)


def assert_no_json(stream: str, what: str) -> None:
    """Progress, warnings and errors only: neither the whole stream nor any line of it is JSON."""
    for text in [stream, *stream.splitlines()]:
        text = text.strip()
        if not text.startswith(("{", "[")):
            continue
        try:
            json.loads(text)
        except ValueError:
            continue
        raise AssertionError(f"{what} carries JSON: {text[:200]}")


def stable(value: Any) -> Any:
    """``value`` without the fields that differ from one run to the next."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    return value


@pytest.mark.parametrize("name", sorted(CASES))
def test_output_matches_its_schema_on_stdout_and_in_the_output_file(name: str, tmp_path: Path) -> None:
    command, build = CASES[name]
    spec = build(tmp_path)
    result = run(spec.args, spec.stdin, spec.env)
    assert result.exit_code in spec.exit_codes, (result.exit_code, result.stderr[-2000:])
    docs = validate_output(command, result.stdout)
    assert_no_json(result.stderr, "stderr")
    out = tmp_path / "out" / "result.json"
    out.parent.mkdir()
    env = dict(spec.env or {})
    if "ASCEND_DOCTOR_DATA_DIR" in env:  # a second install would replace the first: install afresh
        env["ASCEND_DOCTOR_DATA_DIR"] += "-again"
    again = run([*spec.args, "-o", str(out)], spec.stdin, env)
    assert again.exit_code == result.exit_code, again.stderr[-2000:]
    assert again.stdout == "", f"-o FILE: stdout should stay empty, got {again.stdout[:200]!r}"
    assert_no_json(again.stderr, "stderr with -o")
    written = validate_output(command, out.read_text(encoding="utf-8"))
    if command == "matrix update":  # where it was installed differs by design
        docs = [dict(d, installed=None) for d in docs]
        written = [dict(d, installed=None) for d in written]
    assert stable(written) == stable(docs)


# -- coverage -------------------------------------------------------------------------------------

def _walk(command: click.Command, path: Tuple[str, ...], ctx: click.Context) -> Iterator[Tuple[str, click.Command]]:
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, f"{' '.join((*path, name))} is listed but cannot be loaded"
            yield from _walk(sub, (*path, name), ctx)
    else:
        yield " ".join(path), command


def _all_commands() -> Dict[str, click.Command]:
    return dict(_walk(main, (), click.Context(main, info_name="ascend-doctor")))


def _offers_json(command: click.Command) -> bool:
    return any(isinstance(param, click.Option) and "--format" in param.opts and isinstance(param.type, click.Choice)
               and "json" in param.type.choices for param in command.params)


def _json_commands_without_schema() -> List[str]:
    return sorted(path for path, command in _all_commands().items()
                  if _offers_json(command) and path not in COMMAND_SCHEMAS)


def test_every_command_that_prints_json_has_a_schema() -> None:
    missing = _json_commands_without_schema()
    assert not missing, (f"{missing} offer --format json but have no schema: write docs/<command>-schema.json, "
                         "list it in tests/json_schemas.py COMMAND_SCHEMAS and add a case to this file")
    commands = _all_commands()
    stale = sorted(set(COMMAND_SCHEMAS) - set(commands))
    assert not stale, f"COMMAND_SCHEMAS names commands that do not exist: {stale}"
    offering = {path for path, command in commands.items() if _offers_json(command)}
    assert offering | set(JSON_WITHOUT_FORMAT_OPTION) == set(COMMAND_SCHEMAS)


def test_a_new_json_command_without_a_schema_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk sees lazily registered subcommands, nested or not (here: `checks` registered again under
    another name, as a new module would be)."""
    from ascend_doctor.cli import SUBCOMMANDS

    monkeypatch.setitem(SUBCOMMANDS, "inventory", ("ascend_doctor.cli.catalogue_cmd", "checks", "A new command."))
    assert _json_commands_without_schema() == ["inventory"]


def test_every_new_schema_is_exercised_here() -> None:
    """The report schemas are validated by tests/conftest.py for every report a test makes; every other
    schema is run here at least once."""
    exercised = {command for command, _ in CASES.values()}
    untested = sorted(cmd for cmd, schema in COMMAND_SCHEMAS.items() if schema not in REPORT_SCHEMAS
                      and cmd not in exercised)
    assert not untested, f"no case runs {untested}"


NEW_SCHEMAS = sorted(set(COMMAND_SCHEMAS.values()) - set(REPORT_SCHEMAS))


def _nodes(node: Any, where: str) -> Iterator[Tuple[str, Dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from _nodes(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _nodes(value, f"{where}/{index}")


@pytest.mark.parametrize("name", NEW_SCHEMAS)
def test_schema_documents_every_field(name: str) -> None:
    """Draft 2020-12, an $id, a title and a description, and a description on every property saying what it
    means; objects with named properties are closed."""
    schema = load_schema(name)
    validator(name)  # a valid 2020-12 schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/" + name) and schema["title"] and schema["description"]
    for where, node in _nodes(schema, ""):
        for prop, sub in node.get("properties", {}).items() if isinstance(node.get("properties"), dict) else ():
            assert isinstance(sub, dict) and sub.get("description"), f"{name}{where}/properties/{prop}: no description"
        if isinstance(node.get("properties"), dict) and node.get("type") in ("object", ["object", "null"]):
            assert node.get("additionalProperties") is False, f"{name}{where}: an object with properties is closed"


@pytest.mark.parametrize("name", NEW_SCHEMAS)
def test_schema_is_mentioned_in_the_docs(name: str) -> None:
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    assert any(name in page.read_text(encoding="utf-8") for page in pages), f"no docs page links docs/{name}"


def test_parse_output_reads_json_lines_for_watch_only() -> None:
    assert parse_output("watch", '{"a": 1}\n{"b": 2}\n') == [{"a": 1}, {"b": 2}]
    with pytest.raises(ValueError):
        parse_output("plan", '{"a": 1}\n{"b": 2}\n')
