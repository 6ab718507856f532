"""Start-up benchmark: how much slower than a bare interpreter are `--version` and a snapshot check?

Baseline: `python -c pass` on the same machine. Targets (issue 2): `ascend-doctor --version`
within 4x of the baseline, `check --from <healthy fixture> --format json` within 8x.

    python bench/bench_startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Sequence

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "healthy-8x910B3"


# A user's installation has compiled .pyc files (pip compiles at install time). Some sandboxes
# set PYTHONDONTWRITEBYTECODE, which would make every run recompile every module and measure
# the compiler instead of the tool; the benchmark runs without it, after warm-up runs.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def time_command(argv: Sequence[str], runs: int) -> List[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                              env=ENV)
        times.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    py = sys.executable
    cases = [
        ("baseline: python -c pass", [py, "-c", "pass"], None),
        ("ascend-doctor --version", [py, "-m", "ascend_doctor", "--version"], 4.0),
        ("check --from healthy --format json",
         [py, "-m", "ascend_doctor", "check", "--from", str(HEALTHY), "--format", "json"], 8.0),
    ]
    for _name, argv, _target in cases:
        time_command(argv, 2)  # warm the file cache and write the .pyc files
    # Interleave the cases run by run, so a burst of load on a shared machine hits all of them
    # alike instead of skewing one ratio.
    samples: List[List[float]] = [[] for _ in cases]
    for _ in range(args.runs):
        for index, (_name, argv, _target) in enumerate(cases):
            samples[index].extend(time_command(argv, 1))
    baseline = None
    print(f"{'case':<40} {'median ms':>10} {'min ms':>8} {'ratio':>7} {'target':>7}")
    for (name, _argv, target), times in zip(cases, samples):
        median = statistics.median(times)
        if baseline is None:
            baseline = median
        ratio = median / baseline
        verdict = "" if target is None else ("ok" if ratio <= target else "MISSED")
        print(f"{name:<40} {median * 1000:>10.1f} {min(times) * 1000:>8.1f} {ratio:>6.1f}x "
              f"{'' if target is None else f'<={target:g}x':>7} {verdict}")


if __name__ == "__main__":
    main()
