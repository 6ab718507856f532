#!/usr/bin/env python3
"""Benchmark: ascend-doctor's log scan against `grep -E -c` with the same signatures.

Builds a large synthetic log in a temporary folder (never in the repository): the real lines of
tests/samples/dmesg-and-logs/ (about --signal-pct percent of the lines) interleaved with noise
(the other real samples under tests/samples/ and plog-style INFO lines). Then it times

* our scanner, in a child process so that its peak RSS is its own, and
* the baseline "grep -E -c": ``LC_ALL=C grep -E -c -f patterns.txt FILE`` with the pattern of every
  signature (LC_ALL=C is grep's fastest mode, so the comparison is not flattering to us),

and prints both throughputs, the ratio (target: within 3x of grep) and whether both counted the
same number of matching lines.

    python bench/bench_logscan.py                    # 256 MiB
    python bench/bench_logscan.py --size-mb 2048     # the 2 GB case of the issue
    python bench/bench_logscan.py --file some.log    # an existing log instead of a synthetic one
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "tests" / "samples"
SIGNAL_DIR = SAMPLES / "dmesg-and-logs"
TARGET_RATIO = 3.0
MIB = 1024 * 1024


def sample_lines(path: Path) -> List[str]:
    """Lines of a sample file without its `# source:`/`# what:`/`# ---` header."""
    text = path.read_text(encoding="utf-8", errors="replace")
    _, sep, rest = text.partition("\n# ---\n")
    return [line for line in (rest if sep else text).splitlines() if line.strip()]


def build_pools() -> Dict[str, List[str]]:
    signal: List[str] = []
    for path in sorted(SIGNAL_DIR.glob("*")):
        if path.is_file():
            signal.extend(sample_lines(path))
    noise: List[str] = []
    for path in sorted(SAMPLES.rglob("*")):
        if path.is_file() and SIGNAL_DIR not in path.parents and path.suffix in (".txt", ".log", ""):
            noise.extend(sample_lines(path))
    return {"signal": signal, "noise": noise}


def plog_info_line(rng: random.Random) -> str:
    r = rng.randint
    return (f"[INFO] RUNTIME({r(1000, 99999)},python3):2025-03-19-15:{r(0, 59):02d}:{r(0, 59):02d}."
            f"{r(0, 999):03d}.{r(0, 999):03d} [stream.cc:{r(1, 3000)}]{r(1000, 99999)} Synchronize: "
            f"stream_id={r(0, 64)}, task_id={r(0, 65535)} finished, len={r(0, 1 << 30)}")


def make_tile(pools: Dict[str, List[str]], rng: random.Random, size: int, signal_pct: float) -> bytes:
    lines: List[str] = []
    total = 0
    signal, noise = pools["signal"], pools["noise"]
    while total < size:
        pick = rng.random() * 100
        if pick < signal_pct and signal:
            line = rng.choice(signal)
        elif pick < 50 and noise:
            line = rng.choice(noise)
        else:
            line = plog_info_line(rng)
        lines.append(line)
        total += len(line.encode("utf-8")) + 1
    return ("\n".join(lines) + "\n").encode("utf-8")


def generate(path: Path, size_mb: int, signal_pct: float, seed: int) -> int:
    """Write about size_mb MiB of log made of 8 random tiles (up to 4 MiB each) in random order."""
    rng = random.Random(seed)
    pools = build_pools()
    if not pools["signal"]:
        raise SystemExit(f"no samples in {SIGNAL_DIR}")
    target = size_mb * MIB
    tile_size = min(4 * MIB, max(64 * 1024, target // 8))
    tiles = [make_tile(pools, rng, tile_size, signal_pct) for _ in range(8)]
    written = 0
    with open(path, "wb") as fh:
        while written < target:
            tile = rng.choice(tiles)
            fh.write(tile)
            written += len(tile)
    return written


def write_patterns(path: Path) -> int:
    from ascend_doctor.logscan.signatures import load_signatures

    db = load_signatures()
    path.write_text("".join(sig.pattern + "\n" for sig in db.signatures), encoding="utf-8")
    return len(db)


def peak_rss_kib() -> int:
    """Peak resident memory of this process in KiB.

    /proc/self/status VmHWM belongs to this program image; ru_maxrss would also carry the
    parent's high-water mark across fork+exec on Linux (the parent holds the generated tiles).
    """
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def scan_only(log: str) -> None:
    """Child mode: scan one file, print JSON figures (peak RSS is this process's own)."""
    before_kib = peak_rss_kib()
    from ascend_doctor.logscan.scanner import default_scanner

    scanner = default_scanner()
    ready_kib = peak_rss_kib()
    started = time.perf_counter()
    result = scanner.scan_path(log)
    elapsed = time.perf_counter() - started
    peak_kib = peak_rss_kib()
    print(json.dumps({
        "elapsed_s": elapsed, "bytes": result.bytes_read, "lines": result.lines,
        "matched_lines": result.matched_lines, "signatures_found": len(result.hits),
        "rss_start_kib": before_kib, "rss_ready_kib": ready_kib, "rss_peak_kib": peak_kib,
    }))


def time_ours(log: Path) -> Dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--scan-only", str(log)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise SystemExit(f"scanner child failed:\n{done.stderr}")
    data: Dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


def time_grep(log: Path, patterns: Path) -> Optional[Dict[str, Any]]:
    grep = shutil.which("grep")
    if grep is None:
        return None
    env = dict(os.environ, LC_ALL="C")
    started = time.perf_counter()
    done = subprocess.run([grep, "-E", "-c", "-f", str(patterns), str(log)], capture_output=True, text=True,
                          env=env, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"grep failed: {done.stderr.strip()}")
    return {"elapsed_s": elapsed, "matched_lines": int(done.stdout.strip() or 0)}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=256, help="size of the synthetic log (default 256)")
    parser.add_argument("--signal-pct", type=float, default=2.0, help="percent of lines taken from the samples")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tool; the best time counts")
    parser.add_argument("--file", help="benchmark this existing log instead of a synthetic one")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (prints its path)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--scan-only", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scan_only:
        scan_only(args.scan_only)
        return 0
    if args.size_mb < 1:
        parser.error("--size-mb must be at least 1")

    workdir = Path(tempfile.mkdtemp(prefix="ascend-doctor-bench-"))
    try:
        patterns = workdir / "patterns.txt"
        count = write_patterns(patterns)
        if args.file:
            log = Path(args.file)
            size = log.stat().st_size
        else:
            log = workdir / "synthetic.log"
            started = time.perf_counter()
            size = generate(log, args.size_mb, args.signal_pct, args.seed)
            if not args.json:
                print(f"generated {size / MIB:.1f} MiB in {time.perf_counter() - started:.1f} s: {log}")
        ours = min((time_ours(log) for _ in range(max(1, args.repeat))), key=lambda r: r["elapsed_s"])
        greps = [g for g in (time_grep(log, patterns) for _ in range(max(1, args.repeat))) if g]
        grep = min(greps, key=lambda r: r["elapsed_s"]) if greps else None
        report = figures(log, size, count, ours, grep)
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            print_report(report)
        if args.keep:
            print(f"kept {workdir}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def figures(log: Path, size: int, count: int, ours: Dict[str, Any], grep: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    mib = size / MIB
    report: Dict[str, Any] = {
        "log": str(log), "size_mib": round(mib, 1), "lines": ours["lines"], "patterns": count,
        "ours": {"seconds": round(ours["elapsed_s"], 3), "mib_per_s": round(mib / ours["elapsed_s"], 1),
                 "matched_lines": ours["matched_lines"], "signatures_found": ours["signatures_found"],
                 "peak_rss_mib": round(ours["rss_peak_kib"] / 1024, 1),
                 "rss_before_scan_mib": round(ours["rss_ready_kib"] / 1024, 1)},
        "baseline": "grep -E -c",
    }
    if grep is not None:
        report["grep"] = {"seconds": round(grep["elapsed_s"], 3), "mib_per_s": round(mib / grep["elapsed_s"], 1),
                          "matched_lines": grep["matched_lines"], "locale": "C"}
        report["ratio"] = round(ours["elapsed_s"] / grep["elapsed_s"], 2)
        report["target_ratio"] = TARGET_RATIO
        report["within_target"] = report["ratio"] <= TARGET_RATIO
        report["same_count"] = grep["matched_lines"] == ours["matched_lines"]
    return report


def print_report(r: Dict[str, Any]) -> None:
    ours = r["ours"]
    print(f"log: {r['size_mib']} MiB, {r['lines']:,} lines; {r['patterns']} signature patterns")
    print(f"ascend-doctor scan   : {ours['seconds']:7.2f} s  {ours['mib_per_s']:8.1f} MiB/s  "
          f"matched lines {ours['matched_lines']:,}  ({ours['signatures_found']} signatures)")
    print(f"                       peak RSS {ours['peak_rss_mib']} MiB "
          f"(of which {ours['rss_before_scan_mib']} MiB before the scan: interpreter, imports, database)")
    if "grep" not in r:
        print("grep -E -c           : grep not found, no baseline")
        return
    grep = r["grep"]
    print(f"grep -E -c (LC_ALL=C): {grep['seconds']:7.2f} s  {grep['mib_per_s']:8.1f} MiB/s  "
          f"matched lines {grep['matched_lines']:,}")
    verdict = "within target" if r["within_target"] else "OVER target"
    print(f"ratio vs grep -E -c  : {r['ratio']:.2f}x (target: within {TARGET_RATIO:g}x, {verdict}); "
          f"same matched-line count: {'yes' if r['same_count'] else 'NO'}")


if __name__ == "__main__":
    sys.exit(main())
