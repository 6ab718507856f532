#!/usr/bin/env python3
"""Prove that a refactoring of the output code changed no byte a user sees.

Runs a few hundred invocations of every command that prints something (each in the variants that
change its shape: JSON and text, English and Chinese, stdout and ``-o FILE``, error paths) in one
process, and records for each its exit code, standard output, standard error and the ``-o`` file.
``record`` writes them to a file; ``compare`` runs them again and lists every invocation whose
output differs from the recording (exit 1 when one does).

    python tools/output_identity.py record /tmp/before.json
    python tools/output_identity.py compare /tmp/before.json [--only diagnose]

Inputs come from the repository (fixtures/, tests/samples/, the builders of
tests/test_json_schemas.py) and are built under one fixed folder (``--work``, emptied first), so
that the paths printed are the same from one run to the next. What legitimately differs between two
runs is normalised: ``time.time()`` is frozen, durations and speeds are blanked.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FROZEN_TIME = 1_760_000_000.0
VOLATILE_KEYS = re.compile(r'("(?:elapsed_s|seconds|duration_s)": ?)[0-9.e-]+')
VOLATILE_TEXT = [
    (re.compile(r"hashed in [0-9.]+ s, [0-9]+ MB/s"), "hashed in <s> s, <speed> MB/s"),
    (re.compile(r'( time=)"[0-9.]+"'), r'\1"<s>"'),  # JUnit durations
    # wall-clock stamps of reports and manifests (datetime.now, not time.time)
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\+00:00|Z)"), "<timestamp>"),
]


class Invocation(NamedTuple):
    name: str
    args: List[str]
    stdin: Optional[str] = None
    env: Optional[Dict[str, str]] = None
    output: bool = False  # add -o FILE and record the file
    setup: Optional[Callable[[], Callable[[], None]]] = None  # returns its undo
    files: Tuple[str, ...] = ()  # other files the command writes (--prometheus FILE), recorded too


def _swap_format(args: Sequence[str], fmt: str) -> List[str]:
    out = list(args)
    for index, arg in enumerate(out[:-1]):
        if arg == "--format":
            out[index + 1] = fmt
    return out


def _schema_cases(work: Path) -> Iterator[Invocation]:
    """Every case of tests/test_json_schemas.py: JSON, JSON to -o, text, Chinese text."""
    from tests.test_json_schemas import CASES

    for name, (_command, build) in sorted(CASES.items()):
        folder = work / "cases" / name
        folder.mkdir(parents=True)
        spec = build(folder)
        env = dict(spec.env or {})
        yield Invocation(f"schema:{name}/json", spec.args, spec.stdin, env or None)
        again = dict(env)
        if "ASCEND_DOCTOR_DATA_DIR" in again:
            again["ASCEND_DOCTOR_DATA_DIR"] += "-again"
        yield Invocation(f"schema:{name}/json-o", spec.args, spec.stdin, again or None, output=True)
        if "--format" in spec.args:
            for variant, extra in (("text", []), ("text-zh", ["--lang", "zh"]), ("json-zh", ["--lang", "zh"])):
                run_env = dict(env)
                if "ASCEND_DOCTOR_DATA_DIR" in run_env:
                    run_env["ASCEND_DOCTOR_DATA_DIR"] += "-" + variant
                args = _swap_format(spec.args, "json" if variant == "json-zh" else "text") + extra
                yield Invocation(f"schema:{name}/{variant}", args, spec.stdin, run_env or None)


def _catalogue_cases() -> Iterator[Invocation]:
    from ascend_doctor.registry import load_catalogue

    catalogue, _problems = load_catalogue()
    for lang in ("en", "zh"):
        for fmt in ("text", "json"):
            yield Invocation(f"checks/{fmt}-{lang}", ["checks", "--format", fmt, "--lang", lang])
    for check in catalogue:
        for fmt in ("text", "json"):
            yield Invocation(f"explain/{check.spec.id}/{fmt}", ["explain", check.spec.id, "--format", fmt])
    for check in catalogue[::9]:
        for fmt in ("text", "json"):
            yield Invocation(f"explain/{check.spec.id}/{fmt}-zh", ["explain", check.spec.id, "--format", fmt,
                                                                   "--lang", "zh"])
    for wrong in ("ASC-DRV-999", "nonsense", "asc-drv"):
        yield Invocation(f"explain/unknown-{wrong}", ["explain", wrong])
    yield Invocation("explain/to-file", ["explain", "ASC-DRV-001"], output=True)

    def broken_module() -> Callable[[], None]:
        import ascend_doctor.registry as registry

        registry.load_catalogue()
        saved = registry._cache
        assert saved is not None
        registry._cache = (saved[0], ["checks/zzz_999_broken.py: SyntaxError: invalid syntax (line 3)"])

        def undo() -> None:
            registry._cache = saved

        return undo

    for fmt in ("text", "json"):
        yield Invocation(f"checks/load-problem-{fmt}", ["checks", "--format", fmt], setup=broken_module)


def _plan_cases() -> Iterator[Invocation]:
    runs = {
        "r1-16x910B3": ["--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B3", "--cards", "16"],
        "r1-smallest-910B3": ["--model", "DeepSeek-R1", "--chip", "910B3"],
        "v3-A3-ep": ["--model", "DeepSeek-V3", "--chip", "A3", "--cards", "32", "--dp", "2", "--ep", "32"],
        "r1-310P3-default": ["--model", "DeepSeek-R1-Distill-Qwen-7B", "--chip", "310P3"],
        "r1-310P3-bf16": ["--model", "DeepSeek-R1-Distill-Qwen-7B", "--chip", "310P3", "--precision", "bf16"],
        "32b-kv-budget": ["--model", "DeepSeek-R1-Distill-Qwen-32B", "--mem-gb", "64", "--kv-dtype", "int8",
                          "--batch", "8", "--max-seq-len", "32768"],
        "7b-w4a8": ["--model", "DeepSeek-R1-Distill-Qwen-7B", "--precision", "w4a8", "--mem-gb", "16"],
        "err-both": ["--model", "DeepSeek-R1", "--chip", "910B3", "--mem-gb", "64"],
        "err-chip": ["--model", "DeepSeek-R1", "--chip", "nosuchchip"],
        "err-model": ["--model", "NoSuchModel-1B", "--chip", "910B3"],
        "err-ep": ["--model", "DeepSeek-R1", "--chip", "910B3", "--ep", "4"],
        "err-layout": ["--model", "DeepSeek-R1", "--chip", "910B3", "--cards", "16", "--tp", "3"],
    }
    for name, args in runs.items():
        for fmt in ("text", "json"):
            yield Invocation(f"plan/{name}/{fmt}", ["plan", *args, "--format", fmt])
        yield Invocation(f"plan/{name}/text-zh", ["plan", *args, "--lang", "zh"])


def _diagnose_cases(work: Path) -> Iterator[Invocation]:
    logs = ROOT / "tests" / "samples" / "dmesg-and-logs"
    folder = work / "logs"
    folder.mkdir()
    for index, sample in enumerate(sorted(logs.glob("*.txt"))):
        path = folder / sample.name
        path.write_text(sample.read_text(encoding="utf-8").partition("\n# ---\n")[2], encoding="utf-8")
        for fmt in ("text", "json"):
            yield Invocation(f"diagnose/{sample.stem}/{fmt}", ["diagnose", str(path), "--format", fmt])
        if index % 4 == 0:
            yield Invocation(f"diagnose/{sample.stem}/text-zh", ["diagnose", str(path), "--lang", "zh"])
            yield Invocation(f"diagnose/{sample.stem}/json-o", ["diagnose", str(path), "--format", "json"],
                             output=True)
    secret = folder / "secret.log"
    secret.write_text("export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789\n"
                      "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n", encoding="utf-8")
    empty = folder / "empty.log"
    empty.write_text("", encoding="utf-8")
    for fmt in ("text", "json"):
        yield Invocation(f"diagnose/secret/{fmt}", ["diagnose", str(secret), "--format", fmt])
        yield Invocation(f"diagnose/empty/{fmt}", ["diagnose", str(empty), "--format", fmt])
        yield Invocation(f"diagnose/stdin/{fmt}", ["diagnose", "-", "--format", fmt],
                         stdin="[rank0]: RuntimeError: ACL stream synchronize failed, error code:507011\n")
    yield Invocation("diagnose/missing", ["diagnose", str(folder / "nowhere.log")])
    yield Invocation("diagnose/folder", ["diagnose", str(folder)])


def _matrix_cases(work: Path) -> Iterator[Invocation]:
    # The components of `matrix show` when the recording was made (named here, not imported: the
    # module that lists them may move, the names typed by users do not).
    components = ("hdk-cann", "releases", "codes", "firmware", "torch-npu", "python", "vllm-ascend", "mindie",
                  "mindspeed", "chips", "packages", "gaps")
    for component in [None, *components, "all", "torch_npu", "vllm", "nosuch"]:
        args = ["matrix", "show"] + ([component] if component else [])
        for fmt in ("text", "json"):
            yield Invocation(f"matrix-show/{component}/{fmt}", [*args, "--format", fmt])
    lookups = {
        "cann": ["--cann", "8.0.RC3"], "driver": ["--driver", "24.1.rc2"], "driver-chip": ["--driver", "24.1.rc2",
                                                                                         "--chip", "910B3"],
        "torch-npu": ["--torch-npu", "2.1.0.post8"], "vllm": ["--vllm-ascend", "0.9.1"], "mindie": ["--mindie",
                                                                                                   "2.1.RC1"],
        "chip": ["--chip", "A3"], "unknown": ["--cann", "99.0"], "none": [],
    }
    for name, args in lookups.items():
        for fmt in ("text", "json"):
            yield Invocation(f"matrix-lookup/{name}/{fmt}", ["matrix", "lookup", *args, "--format", fmt])
    plans = {
        "vllm-910B3": ["--chip", "910B3", "--engine", "vllm-ascend"],
        "vllm-driver-aarch64": ["--chip", "910B3", "--engine", "vllm-ascend", "--driver", "24.1.rc2", "--arch",
                                "aarch64"],
        "mindie-910B4": ["--chip", "910B4", "--engine", "mindie"],
        "mindspeed-A3": ["--chip", "A3", "--engine", "mindspeed", "--stable"],
        "err-chip": ["--chip", "nosuch", "--engine", "mindie"],
        "err-fixed": ["--chip", "910B3", "--engine", "vllm-ascend", "--cann", "1.0"],
    }
    for name, args in plans.items():
        for fmt in ("text", "json"):
            yield Invocation(f"matrix-plan/{name}/{fmt}", ["matrix", "plan", *args, "--format", fmt])
    bad = work / "matrix" / "bad.yaml"
    bad.parent.mkdir(parents=True)
    bad.write_text("schema_version: 1\nversion: x\n", encoding="utf-8")
    shipped = ROOT / "compat_matrix" / "matrix.yaml"
    for fmt in ("text", "json"):
        yield Invocation(f"matrix-validate/shipped/{fmt}", ["matrix", "validate", "--format", fmt])
        yield Invocation(f"matrix-validate/mixed/{fmt}", ["matrix", "validate", "--bundle", str(bad), str(shipped),
                                                          str(work / "none.yaml"), "--format", fmt])
        yield Invocation(f"matrix-bundle/{fmt}", ["matrix", "bundle", "--format", fmt])
    yield Invocation("matrix-bundle/to-file", ["matrix", "bundle"], output=True)
    yield Invocation("matrix-invalid", ["matrix", "--matrix", str(bad), "lookup", "--cann", "8.0.RC3"])


def _update_cases(work: Path) -> Iterator[Invocation]:
    from click.testing import CliRunner

    from ascend_doctor.cli import main

    bundle = work / "update" / "bundle.yaml"
    bundle.parent.mkdir(parents=True)
    done = CliRunner().invoke(main, ["matrix", "bundle", "-o", str(bundle)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    for fmt in ("text", "json"):
        env = {"ASCEND_DOCTOR_DATA_DIR": str(work / "update" / f"data-{fmt}")}
        yield Invocation(f"matrix-update/{fmt}", ["matrix", "update", "--file", str(bundle), "--force", "--format",
                                                  fmt], env=env)
        yield Invocation(f"matrix-update/not-newer/{fmt}", ["matrix", "update", "--file", str(bundle), "--format",
                                                            fmt], env={"ASCEND_DOCTOR_DATA_DIR": str(work / "x")})
    yield Invocation("matrix-update/bad-sha", ["matrix", "update", "--file", str(bundle), "--sha256", "ab"])


def _model_cases(work: Path) -> Iterator[Invocation]:
    from tests import model_fixtures as F
    from tests.test_model_inspect import HF_MODELING, make_fp8

    folder = work / "models"
    ok = make_fp8(folder / "ok", HF_MODELING)
    broken = make_fp8(folder / "broken")
    os.remove(broken / "model-00002-of-00002.safetensors")
    (broken / "pytorch_model.bin").write_bytes(b"\0" * 16)
    for name, path in (("ok", ok), ("broken", broken), ("missing", folder / "nowhere")):
        for fmt in ("text", "json"):
            yield Invocation(f"model-inspect/{name}/{fmt}", ["model", "inspect", str(path), "--format", fmt])
        yield Invocation(f"model-inspect/{name}/text-zh", ["model", "inspect", str(path), "--lang", "zh"])
    manifest = folder / "manifest.json"
    sums = folder / "SHA256SUMS"
    yield Invocation("model-manifest/json", ["model", "manifest", str(ok), "--no-progress"])
    yield Invocation("model-manifest/sha256sum", ["model", "manifest", str(ok), "--sha256sum", "--no-progress"])
    yield Invocation("model-manifest/to-file", ["model", "manifest", str(ok), "-o", str(manifest), "--no-progress"])
    yield Invocation("model-manifest/sums-to-file", ["model", "manifest", str(ok), "--sha256sum", "-o", str(sums),
                                                     "--no-progress"])
    for fmt in ("text", "json"):
        yield Invocation(f"model-verify/same/{fmt}", ["model", "verify", str(ok), str(manifest), "--format", fmt,
                                                      "--no-progress"])
        yield Invocation(f"model-verify/sums/{fmt}", ["model", "verify", str(ok), str(sums), "--format", fmt,
                                                      "--no-progress"])
    changed = make_fp8(folder / "changed", HF_MODELING)
    (changed / "config.json").write_text("{}", encoding="utf-8")
    os.remove(changed / "tokenizer.json")
    F.write_json(str(changed / "extra.json"), {"a": 1})
    for fmt in ("text", "json"):
        yield Invocation(f"model-verify/changed/{fmt}", ["model", "verify", str(changed), str(manifest), "--format",
                                                         fmt, "--no-progress"])
    yield Invocation("model-verify/bad-manifest", ["model", "verify", str(ok), str(ok / "config.json")])


def _watch_cases(work: Path) -> Iterator[Invocation]:
    planted = ROOT / "tests" / "samples" / "watch" / "planted"
    hook_out = work / "watch" / "hook.jsonl"
    hook_out.parent.mkdir(parents=True)
    for fmt in ("text", "json"):
        yield Invocation(f"watch/planted/{fmt}", ["watch", "--replay", str(planted), "--interval", "300", "--format",
                                                  fmt])
        yield Invocation(f"watch/planted/{fmt}-o", ["watch", "--replay", str(planted), "--interval", "300",
                                                    "--format", fmt], output=True)
    yield Invocation("watch/planted/text-zh", ["watch", "--replay", str(planted), "--interval", "300", "--lang", "zh"])
    yield Invocation("watch/once", ["watch", "--replay", str(planted), "--once", "--format", "json"])
    # The --on-alert payload: the hook appends what it reads to a file, recorded as this case's output.
    yield Invocation("watch/on-alert", ["watch", "--replay", str(planted), "--interval", "300", "--format", "json",
                                        "--on-alert", f"sh -c 'cat >> {hook_out}'"])
    # The --prometheus textfile after the last sample: a leak and alerts active, mid-way, and stale.
    prom = str(work / "watch" / "metrics.prom")
    stale = work / "watch" / "stale"
    stale.mkdir()
    for name in ("0001.txt", "0002.txt", "0005.txt"):
        shutil.copy(planted / name, stale / name)
    (stale / "0006.timeout").write_text("10\n", encoding="utf-8")
    for name, args in (("full", ["--replay", str(planted), "--interval", "300"]),
                       ("count-5", ["--replay", str(planted), "--interval", "300", "--count", "5"]),
                       ("stale-last", ["--replay", str(stale), "--interval", "60"])):
        yield Invocation(f"watch/prometheus/{name}", ["watch", *args, "--format", "json", "--prometheus", prom],
                         files=(prom,))


def _report_cases(work: Path) -> Iterator[Invocation]:
    fixtures = ROOT / "fixtures"
    for fixture in ("healthy-8x910B3", "no-driver", "310p3-inference"):
        for fmt in ("text", "json", "markdown", "junit", "html"):
            yield Invocation(f"check/{fixture}/{fmt}", ["check", "--from", str(fixtures / fixture), "--format", fmt])
    yield Invocation("fleet/text", ["fleet", str(fixtures / "fleet-16" / "node01"), str(fixtures / "fleet-16" /
                                                                                     "node05")])


def all_cases(work: Path) -> List[Invocation]:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    groups = [_schema_cases(work), _catalogue_cases(), _plan_cases(), _diagnose_cases(work), _matrix_cases(work),
              _update_cases(work), _model_cases(work), _watch_cases(work), _report_cases(work)]
    return [case for group in groups for case in group]


def normalise(text: str) -> str:
    for pattern, replacement in VOLATILE_TEXT:
        text = pattern.sub(replacement, text)
    return VOLATILE_KEYS.sub(r"\1<volatile>", text)


def run_case(case: Invocation, work: Path) -> Dict[str, Any]:
    from click.testing import CliRunner

    from ascend_doctor.cli import main

    args = list(case.args)
    target = work / "out" / (re.sub(r"[^A-Za-z0-9_.-]+", "_", case.name) + ".out")
    if case.output:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            target.unlink()
        args += ["-o", str(target)]
    undo = case.setup() if case.setup else None
    for path in case.files:
        if os.path.exists(path):
            os.unlink(path)
    hook = work / "watch" / "hook.jsonl"
    if hook.exists():
        hook.unlink()
    try:
        result = CliRunner().invoke(main, args, input=case.stdin, env=case.env, catch_exceptions=True)
    finally:
        if undo:
            undo()
    record: Dict[str, Any] = {
        "exit": result.exit_code,
        "stdout": normalise(result.stdout_bytes.decode("utf-8", "backslashreplace")),
        "stderr": normalise(result.stderr_bytes.decode("utf-8", "backslashreplace")),
    }
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        record["exception"] = f"{type(result.exception).__name__}: {result.exception}"
    if case.output:
        record["file"] = normalise(target.read_text(encoding="utf-8")) if target.exists() else None
    for index, path in enumerate(case.files):
        record[f"file{index + 1}"] = normalise(Path(path).read_text(encoding="utf-8")) if os.path.exists(path) else None
    if hook.exists():
        for _attempt in range(50):  # the hook's last run may still be writing
            if hook.read_text(encoding="utf-8").count("\n") >= 1:
                break
            time.sleep(0.05)
        record["hook"] = normalise(hook.read_text(encoding="utf-8"))
    return record


def run_all(work: Path, only: Optional[str]) -> Dict[str, Dict[str, Any]]:
    real_time = time.time
    time.time = lambda: FROZEN_TIME  # clocks in watch lines and JSON
    os.environ.pop("NO_COLOR", None)
    for name in ("LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        os.environ.pop(name, None)
    os.environ["HOME"] = str(work / "home")
    os.environ["XDG_DATA_HOME"] = str(work / "home" / "data")
    os.environ["XDG_CACHE_HOME"] = str(work / "home" / "cache")
    try:
        results: Dict[str, Dict[str, Any]] = {}
        for case in all_cases(work):
            if only and not case.name.startswith(only):
                continue
            assert case.name not in results, case.name
            results[case.name] = run_case(case, work)
        return results
    finally:
        time.time = real_time


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("recording")
    parser.add_argument("--work", default="/tmp/ascend-doctor-output-identity")
    parser.add_argument("--only", default=None, help="only the invocations whose name starts with this")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    results = run_all(Path(args.work), args.only)
    if args.action == "record":
        Path(args.recording).write_text(json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True),
                                        encoding="utf-8")
        print(f"recorded {len(results)} invocations in {time.perf_counter() - started:.0f} s to {args.recording}")
        return 0
    before: Dict[str, Dict[str, Any]] = json.loads(Path(args.recording).read_text(encoding="utf-8"))
    different = [name for name in results if results[name] != before.get(name)]
    missing = [name for name in before if name not in results and (not args.only or name.startswith(args.only))]
    for name in different:
        old, new = before.get(name, {}), results[name]
        parts = [key for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]
        print(f"DIFFERENT {name}: {', '.join(parts)}")
    for name in missing:
        print(f"NOT RUN   {name}")
    same = len(results) - len(different)
    print(f"{same} of {len(results)} invocations byte-identical to {args.recording} "
          f"({time.perf_counter() - started:.0f} s)")
    return 1 if different or missing else 0


if __name__ == "__main__":
    sys.exit(main())
