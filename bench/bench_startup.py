"""Start-up benchmark: how much slower than a bare interpreter is each everyday command?

Baseline: ``python -c pass`` with the same interpreter. Each run times the baseline and every case
back to back (paired), and the ratio reported is the median of the per-run ratios, so a burst of
load on a shared machine hits the baseline and the case alike. The time is the CPU time (user +
system) of the child process: on a shared machine wall-clock time mostly measures the neighbours.

By default the tool is measured as a user runs it: installed (non-editable) into a virtual
environment made for the benchmark with the interpreter given by ``--python`` (so 3.9 and 3.12
can both be measured) from the checkout given by ``--project`` (this one by default, or an older
commit's worktree to compare with); ``--here`` measures the current environment instead.

    python bench/bench_startup.py [--python python3.9] [--project PATH] [--runs 15] [--here]

Budget (issue 23, after the start-up devices that patched interpreter and library internals were
removed): --version <= 2.5x; check --from <healthy fixture> --format json <= 11x, text <= 11x;
checks, diagnose (small log), matrix lookup and plan <= 7x. tests/test_startup.py holds it.

One reference row has no budget: ``python -c "import click"``, what every command but a bare
``--version`` pays before any of the tool's own code runs, to read the other ratios against.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "healthy-8x910B3"
SMALL_LOG = ROOT / "tests" / "samples" / "dmesg-and-logs" / "vllm-ascend-116-910B-stars-sdma-EI9999-507001.txt"

# A user's installation has compiled .pyc files (pip compiles at install time). Some sandboxes
# set PYTHONDONTWRITEBYTECODE, which would make every run recompile every module and measure
# the compiler instead of the tool; the benchmark runs without it, after warm-up runs.
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
ENV["NO_COLOR"] = "1"

# Case name -> the largest ratio to `python -c pass` allowed (None: a reference row).
BUDGET: Dict[str, Optional[float]] = {
    "reference: python -c 'import click'": None,
    "--version": 2.5,
    "check --from healthy --format json": 11.0,
    "check --from healthy (text)": 11.0,
    "checks": 7.0,
    "diagnose <small log>": 7.0,
    "matrix lookup --cann 8.0.0": 7.0,
    "plan --model DeepSeek-R1 --chip 910B3": 7.0,
}


class Row(NamedTuple):
    name: str
    cpu_ms: float  # median CPU time of the case
    ratio: float  # median of the paired ratios to the baseline
    budget: Optional[float]


def cases(tool: str, python: str) -> List[Tuple[str, List[str]]]:
    argvs = {
        "reference: python -c 'import click'": [python, "-c", "import click"],
        "--version": [tool, "--version"],
        "check --from healthy --format json": [tool, "check", "--from", str(HEALTHY), "--format", "json"],
        "check --from healthy (text)": [tool, "check", "--from", str(HEALTHY)],
        "checks": [tool, "checks"],
        "diagnose <small log>": [tool, "diagnose", str(SMALL_LOG)],
        "matrix lookup --cann 8.0.0": [tool, "matrix", "lookup", "--cann", "8.0.0"],
        "plan --model DeepSeek-R1 --chip 910B3": [tool, "plan", "--model", "DeepSeek-R1", "--chip", "910B3"],
    }
    return [(name, argvs[name]) for name in BUDGET]


def cpu_once(argv: Sequence[str], env: Optional[Dict[str, str]] = None) -> float:
    """CPU seconds (user + system) the command took, its children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                          env=ENV if env is None else env, cwd=tempfile.gettempdir())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(python: str, tool: str, runs: int, only: Optional[Sequence[str]] = None) -> Tuple[float, List[Row]]:
    """The baseline's median CPU ms and one row per case (``only``: these case names)."""
    todo = [(name, argv) for name, argv in cases(tool, python) if only is None or name in only]
    baseline = [python, "-c", "pass"]
    for _name, argv in todo:
        cpu_once(argv)  # warm the file cache and write the .pyc files
        cpu_once(argv)
    base_times: List[float] = []
    times: List[List[float]] = [[] for _ in todo]
    ratios: List[List[float]] = [[] for _ in todo]
    for _ in range(runs):
        for index, (_name, argv) in enumerate(todo):
            base = cpu_once(baseline)
            elapsed = cpu_once(argv)
            base_times.append(base)
            times[index].append(elapsed)
            ratios[index].append(elapsed / base if base > 0 else float("inf"))
    rows = [Row(name, statistics.median(t) * 1000, statistics.median(r), BUDGET[name])
            for (name, _argv), t, r in zip(todo, times, ratios)]
    return statistics.median(base_times) * 1000, rows


def install(python: str, venv: Path, project: Path) -> Tuple[str, str]:
    """A fresh venv with the project installed as a user installs it (not editable)."""
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(project)], check=True, env=ENV)
    return str(py), str(venv / "bin" / "ascend-doctor")


def report(python: str, base_ms: float, rows: List[Row], runs: int, where: str) -> int:
    """Print the table; the number of cases over budget."""
    version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                             text=True, check=True).stdout.strip()
    print(f"Python {version}, {runs} paired runs, {where}; CPU time (user+sys) of the child")
    print(f"{'case':<40} {'CPU ms':>8} {'ratio':>7} {'budget':>8}")
    print(f"{'baseline: python -c pass':<40} {base_ms:>8.1f} {'1.0x':>7}")
    missed = 0
    for row in rows:
        ok = row.budget is None or row.ratio <= row.budget
        missed += 0 if ok else 1
        verdict = "" if row.budget is None else "ok" if ok else "OVER"
        print(f"{row.name:<40} {row.cpu_ms:>8.1f} {row.ratio:>6.1f}x "
              f"{'' if row.budget is None else f'<={row.budget:g}x':>8} {verdict}")
    if missed:
        print(f"{missed} case(s) over budget")
    return missed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--python", default=sys.executable, help="interpreter to install and measure with")
    parser.add_argument("--project", type=Path, default=ROOT, help="checkout to install (default: this one)")
    parser.add_argument("--here", action="store_true", help="measure the current environment (no new venv)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="ascend-doctor-bench-"))
    try:
        if args.here:
            py, tool = sys.executable, str(Path(sys.executable).parent / "ascend-doctor")
        else:
            py, tool = install(args.python, workdir / "venv", args.project)
        base_ms, rows = measure(py, tool, args.runs)
        where = "this environment" if args.here else f"fresh install of {args.project}"
        sys.exit(1 if report(py, base_ms, rows, args.runs, where) else 0)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
