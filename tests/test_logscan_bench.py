"""Smoke test: bench/bench_logscan.py runs end to end on a tiny log (the real figures are 256 MiB+)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "bench_logscan.py"


def test_bench_runs_on_one_megabyte() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--size-mb", "1", "--json"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["size_mib"] >= 1 and report["ours"]["matched_lines"] > 0
    assert report["ours"]["peak_rss_mib"] > 0 and report["baseline"] == "grep -E -c"
    if shutil.which("grep"):
        assert report["same_count"] is True
        assert report["ratio"] > 0
