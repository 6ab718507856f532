"""Start-up benchmark: how much slower than a bare interpreter is each everyday command?

Baseline: ``python -c pass`` with the same interpreter. Each run times the baseline and every case
back to back (paired), and the ratio reported is the median of the per-run ratios, so a burst of
load on a shared machine hits the baseline and the case alike.

By default the tool is measured as a user runs it: installed (non-editable) into a virtual
environment made for the benchmark with the interpreter given by ``--python`` (so 3.9 and 3.11
can both be measured); ``--here`` measures the current environment instead.

    python bench/bench_startup.py [--python python3.9] [--runs 15] [--here]

Targets (issue 10): --version <= 2.5x; check --from <healthy fixture> --format json <= 6x, text
<= 8x; checks, diagnose (small log), matrix lookup and plan <= 6x.

One reference row has no target: ``python -c "import click"``, what every command but a bare
``--version`` pays before any of the tool's own code runs (click imports inspect, ast, dis,
tokenize, uuid, platform and datetime), to read the other ratios against.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "healthy-8x910B3"
SMALL_LOG = ROOT / "tests" / "samples" / "dmesg-and-logs" / "vllm-ascend-116-910B-stars-sdma-EI9999-507001.txt"

# A user's installation has compiled .pyc files (pip compiles at install time). Some sandboxes
# set PYTHONDONTWRITEBYTECODE, which would make every run recompile every module and measure
# the compiler instead of the tool; the benchmark runs without it, after warm-up runs.
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
ENV["NO_COLOR"] = "1"

Case = Tuple[str, List[str], Optional[float]]


def cases(tool: str, python: str) -> List[Case]:
    return [
        ("reference: python -c 'import click'", [python, "-c", "import click"], None),
        ("ascend-doctor --version", [tool, "--version"], 2.5),
        ("check --from healthy --format json", [tool, "check", "--from", str(HEALTHY), "--format", "json"], 6.0),
        ("check --from healthy (text)", [tool, "check", "--from", str(HEALTHY)], 8.0),
        ("checks", [tool, "checks"], 6.0),
        ("diagnose <small log>", [tool, "diagnose", str(SMALL_LOG)], 6.0),
        ("matrix lookup --cann 8.0.0", [tool, "matrix", "lookup", "--cann", "8.0.0"], 6.0),
        ("plan --model DeepSeek-R1 --chip 910B3", [tool, "plan", "--model", "DeepSeek-R1", "--chip", "910B3"], 6.0),
    ]


def time_once(argv: Sequence[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV,
                          cwd=tempfile.gettempdir())
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}")
    return elapsed


def install(python: str, venv: Path) -> Tuple[str, str]:
    """A fresh venv with the project installed as a user installs it (not editable)."""
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(ROOT)], check=True, env=ENV)
    return str(py), str(venv / "bin" / "ascend-doctor")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--python", default=sys.executable, help="interpreter to install and measure with")
    parser.add_argument("--here", action="store_true", help="measure the current environment (no new venv)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="ascend-doctor-bench-"))
    try:
        if args.here:
            py, tool = sys.executable, str(Path(sys.executable).parent / "ascend-doctor")
        else:
            py, tool = install(args.python, workdir / "venv")
        baseline = [py, "-c", "pass"]
        todo = cases(tool, py)
        for _name, argv, _target in todo:
            time_once(argv)  # warm the file cache and write the .pyc files
            time_once(argv)
        base_times: List[float] = []
        ratios: List[List[float]] = [[] for _ in todo]
        times: List[List[float]] = [[] for _ in todo]
        for _ in range(args.runs):
            for index, (_name, argv, _target) in enumerate(todo):
                base = time_once(baseline)
                elapsed = time_once(argv)
                base_times.append(base)
                times[index].append(elapsed)
                ratios[index].append(elapsed / base)
        version = subprocess.run([py, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                                 text=True, check=True).stdout.strip()
        print(f"Python {version}, {args.runs} paired runs, {'this environment' if args.here else 'fresh install'}")
        print(f"{'case':<40} {'median ms':>10} {'ratio':>7} {'target':>8}")
        print(f"{'baseline: python -c pass':<40} {statistics.median(base_times) * 1000:>10.1f} {'1.0x':>7}")
        missed = 0
        for (name, _argv, target), case_times, case_ratios in zip(todo, times, ratios):
            ratio = statistics.median(case_ratios)
            ok = target is None or ratio <= target
            missed += 0 if ok else 1
            verdict = "" if target is None else "ok" if ok else "MISSED"
            print(f"{name:<40} {statistics.median(case_times) * 1000:>10.1f} {ratio:>6.1f}x "
                  f"{'' if target is None else f'<={target:g}x':>8} {verdict}")
        if missed:
            print(f"{missed} case(s) above target")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
