"""Manifest verification throughput against the named baseline "sha256sum" (GNU coreutils).

Creates the files in a temporary directory (default: 1 x 1 GiB and 8 x 256 MiB), writes a
manifest with our code, then times on the same, page-cached files:

  * one file:      `sha256sum FILE`            vs  our verify of a one-file manifest
  * several files: `sha256sum F1 .. F8`        vs  our verify of the 8-file manifest (parallel)

Both sides run once to warm the cache, then ``--runs`` times; the best run of each is compared
(throughput ratio = sha256sum time / our time). Ours is timed both in-process (the library
call ``verify_manifest``) and as the CLI (``ascend-doctor model verify``, interpreter start-up
included). Targets (issue 5): >= 0.9x of sha256sum on one file; faster than sha256sum over
several files when there is more than one core.

    python bench/bench_manifest.py [--big-mib 1024] [--small-mib 256] [--count 8] [--runs 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ascend_doctor.model.files import LocalFiles  # noqa: E402
from ascend_doctor.model.manifest import build_manifest, verify_manifest  # noqa: E402

BLOCK = 64 * 1024 * 1024


def make_file(path: Path, mib: int) -> None:
    # Random content (hash speed does not depend on it, but compression-happy filesystems would).
    block = os.urandom(min(BLOCK, mib * 1024 * 1024))
    remaining = mib * 1024 * 1024
    with open(path, "wb") as fh:
        while remaining > 0:
            chunk = block[: min(len(block), remaining)]
            fh.write(chunk)
            remaining -= len(chunk)


def best_of(func: Callable[[], None], runs: int) -> float:
    func()  # warm-up: page cache, imports
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def run_quiet(argv: Sequence[str], cwd: Path) -> None:
    done = subprocess.run(list(argv), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')[:300]}")


def bench_case(name: str, directory: Path, files: List[str], runs: int, manifest_path: Path) -> None:
    src = LocalFiles()
    manifest, problems = build_manifest(src, str(directory))
    if problems:
        raise SystemExit(f"cannot hash: {problems}")
    manifest_path.write_text(manifest.to_json())
    total = sum((directory / f).stat().st_size for f in files)

    def ours() -> None:
        result = verify_manifest(src, str(directory), manifest)
        if not result.ok:
            raise SystemExit(f"verify failed: {result.to_dict()}")

    cli = [sys.executable, "-m", "ascend_doctor", "model", "verify", str(directory), str(manifest_path),
           "--no-progress"]
    t_base = best_of(lambda: run_quiet(["sha256sum", *files], directory), runs)
    t_ours = best_of(ours, runs)
    t_cli = best_of(lambda: run_quiet(cli, directory), runs)
    gib = total / 2**30
    print(f"\n{name}: {len(files)} file(s), {gib:.2f} GiB, {os.cpu_count()} CPU(s)")
    print(f"  {'sha256sum (baseline)':<34} {t_base:7.2f} s  {gib / t_base:6.2f} GiB/s  1.00x")
    print(f"  {'ours, in-process (verify_manifest)':<34} {t_ours:7.2f} s  {gib / t_ours:6.2f} GiB/s  "
          f"{t_base / t_ours:4.2f}x")
    print(f"  {'ours, CLI (model verify)':<34} {t_cli:7.2f} s  {gib / t_cli:6.2f} GiB/s  {t_base / t_cli:4.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big-mib", type=int, default=1024)
    parser.add_argument("--small-mib", type=int, default=256)
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", default=None, help="where to create the files (default: a temp dir)")
    args = parser.parse_args()
    if shutil.which("sha256sum") is None:
        raise SystemExit("sha256sum (GNU coreutils) is needed as the baseline")
    base = Path(tempfile.mkdtemp(prefix="bench-manifest-", dir=args.dir))
    try:
        one, many = base / "one", base / "many"
        one.mkdir()
        many.mkdir()
        make_file(one / "model-00001-of-00001.safetensors", args.big_mib)
        names = [f"model-{i:05d}-of-{args.count:05d}.safetensors" for i in range(1, args.count + 1)]
        for name in names:
            make_file(many / name, args.small_mib)
        version = subprocess.run(["sha256sum", "--version"], capture_output=True, text=True).stdout.splitlines()
        print(f"baseline: {version[0] if version else 'sha256sum'}")
        bench_case("one file", one, ["model-00001-of-00001.safetensors"], args.runs, base / "one.json")
        bench_case("several files", many, names, args.runs, base / "many.json")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
