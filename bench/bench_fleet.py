"""Fleet benchmark: peak memory, time and output size of ``ascend-doctor fleet`` over 1,000 and 10,000
node reports, distinct and cloned, against ``json.load`` of the same files.

The reports are made in a temporary folder from the sixteen snapshots of ``fixtures/fleet-16``
(``check --from`` each, JSON), in two shapes:

* **distinct**: node N is fleet-16's node ``N mod 16`` with its own host name, device addresses and
  HCCL_IF_IP (a healthy cluster's spread of values, plus fleet-16's five planted differences);
* **cloned**: every node is node01 under its own host name, the rest unchanged (ten thousand nodes
  installed from one image: every node holds the same NPU addresses, a real misconfiguration that
  ASC-FLT-011 must report without saying it once per node).

Each measurement runs in its own child process (so the peak resident memory, ``ru_maxrss``, is that
run's alone): ``fleet DIR --format json -o OUT`` as a user runs it (the interpreter's start-up
included), then a child that only ``json.load``-s every file, back to back (paired, as
bench/bench_startup.py does). The ratio printed is the median of the per-run ratios.

Goal (issue 24): 10,000 reports in at most 250 MB, 10 s and 5 MB of JSON on 2 CPUs.

    python bench/bench_fleet.py [--nodes 1000,10000] [--runs 3] [--shapes distinct,cloned]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
FLEET = ROOT / "fixtures" / "fleet-16"
GOAL_MB, GOAL_S, GOAL_OUTPUT_MB = 250.0, 10.0, 5.0
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE",)}
ENV["NO_COLOR"] = "1"
ENV["PYTHONPATH"] = str(ROOT)

# The child that loads every file: the floor any reader of these reports pays.
JSON_LOAD_CHILD = """
import json, os, resource, sys, time
folder = sys.argv[1]
started = time.perf_counter()
for name in sorted(os.listdir(folder)):
    with open(os.path.join(folder, name), encoding="utf-8") as fh:
        json.load(fh)
elapsed = time.perf_counter() - started
print(json.dumps({"seconds": elapsed, "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""

# The child that runs fleet as the `ascend-doctor` console script does (ascend_doctor.launcher.run: the
# collector paused for the start-up and then run less often), timed from the interpreter's start; the
# measurement is written when the command returns.
FLEET_CHILD = """
import json, resource, sys, time
started = time.perf_counter()
from ascend_doctor import launcher
sys.argv[0] = "ascend-doctor"
code = 0
try:
    launcher.run()
except SystemExit as exc:
    code = exc.code
elapsed = time.perf_counter() - started
sys.stderr.write(json.dumps({"seconds": elapsed, "code": code,
                             "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}) + "\\n")
sys.exit(code)
"""


def node_reports() -> List[Dict[str, Any]]:
    """The JSON reports of fleet-16's sixteen snapshots."""
    reports = []
    for node in sorted(p for p in FLEET.iterdir() if p.is_dir()):
        done = subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--from", str(node), "--format",
                               "json"], capture_output=True, text=True, check=False, env=ENV)
        if done.returncode not in (0, 1):
            raise SystemExit(f"check --from {node} exited {done.returncode}: {done.stderr.strip()}")
        reports.append(json.loads(done.stdout))
    return reports


def distinct(templates: List[Dict[str, Any]], index: int) -> Dict[str, Any]:
    """Node ``index``: fleet-16's node ``index mod 16`` with its own name and addresses."""
    data = copy.deepcopy(templates[index % len(templates)])
    data["host"]["hostname"] = f"node{index:05d}"
    facts = data["facts"]
    network = facts.get("network")
    if isinstance(network, dict):
        for device in network.get("devices") or []:
            device_id = int(device.get("device_id") or 0)
            address = f"10.{20 + device_id}.{index // 250}.{index % 250 + 1}"
            device["address"] = address
            if device.get("conf_address") is not None:
                device["conf_address"] = address
            device["netmask"] = device["conf_netmask"] = "255.255.0.0"
    env = facts.get("hccl_env")
    if isinstance(env, dict) and "HCCL_IF_IP" in env:
        env["HCCL_IF_IP"] = f"172.16.{index // 250}.{index % 250 + 1}"
    return data


def cloned(templates: List[Dict[str, Any]], index: int) -> Dict[str, Any]:
    """Node ``index``: node01 under its own host name, every address the same as node01's."""
    data = copy.deepcopy(templates[0])
    data["host"]["hostname"] = f"node{index:05d}"
    return data


SHAPES = {"distinct": distinct, "cloned": cloned}


def write_fleet(folder: Path, templates: List[Dict[str, Any]], shape: str, nodes: int) -> int:
    """Write the reports (as ``check --format json`` does, indented); their total size in bytes."""
    folder.mkdir(parents=True)
    make = SHAPES[shape]
    size = 0
    for index in range(nodes):
        text = json.dumps(make(templates, index), indent=2, ensure_ascii=False)
        (folder / f"node{index:05d}.json").write_text(text, encoding="utf-8")
        size += len(text.encode("utf-8"))
    return size


def run_child(argv: List[str], cwd: Path) -> Dict[str, Any]:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=ENV, cwd=cwd)
    lines = [line for line in (done.stdout + "\n" + done.stderr).splitlines() if line.startswith('{"seconds"')]
    if not lines:
        raise SystemExit(f"{' '.join(argv[:4])} ...: no measurement\n{done.stderr[-2000:]}")
    result: Dict[str, Any] = json.loads(lines[-1])
    return result


def warm(folder: Path) -> None:
    for path in folder.iterdir():
        with open(path, "rb") as fh:
            while fh.read(1 << 20):
                pass


def measure(folder: Path, output: Path, runs: int) -> Tuple[Dict[str, Any], Dict[str, Any], List[float]]:
    fleet_runs: List[Dict[str, Any]] = []
    load_runs: List[Dict[str, Any]] = []
    for _ in range(runs):
        warm(folder)  # both runs of a pair read from the page cache, whichever goes first
        # As a user runs it: `fleet reports/` from the folder above (the sources in the report are relative).
        fleet_runs.append(run_child([sys.executable, "-c", FLEET_CHILD, "fleet", folder.name, "--format", "json",
                                     "-o", output.name], folder.parent))
        load_runs.append(run_child([sys.executable, "-c", JSON_LOAD_CHILD, folder.name], folder.parent))
    ratios = [f["seconds"] / j["seconds"] for f, j in zip(fleet_runs, load_runs)]
    return _median(fleet_runs), _median(load_runs), ratios


def _median(runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"seconds": statistics.median(r["seconds"] for r in runs),
            "maxrss_mb": max(r["maxrss_kib"] for r in runs) / 1024, "code": runs[-1].get("code")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", default="1000,10000", help="fleet sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="paired runs per case")
    parser.add_argument("--shapes", default="distinct,cloned", help="distinct, cloned or both")
    args = parser.parse_args()
    sizes = [int(n) for n in args.nodes.split(",") if n.strip()]
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    templates = node_reports()
    signal.signal(signal.SIGTERM, _interrupted)  # a killed benchmark still removes its gigabyte of reports
    workdir = Path(tempfile.mkdtemp(prefix="ascend-doctor-bench-fleet-"))
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.runs} paired runs per case; "
          f"goal for 10,000: <= {GOAL_MB:g} MB, <= {GOAL_S:g} s, <= {GOAL_OUTPUT_MB:g} MB of JSON")
    print(f"{'case':<18} {'input':>9} {'fleet':>8} {'x load':>7} {'peak':>9} {'x load':>7} {'output':>9}  "
          f"{'exit':>4}  goal")
    try:
        for nodes in sizes:
            for shape in shapes:
                folder = workdir / f"{shape}-{nodes}"
                size = write_fleet(folder, templates, shape, nodes)
                output = workdir / f"{shape}-{nodes}.out.json"
                fleet_run, load_run, ratios = measure(folder, output, args.runs)
                out_mb = output.stat().st_size / 1e6
                peak = fleet_run["maxrss_mb"]
                met = (peak <= GOAL_MB and fleet_run["seconds"] <= GOAL_S and out_mb <= GOAL_OUTPUT_MB)
                goal = ("ok" if met else "MISSED") if nodes >= 10_000 else "-"
                print(f"{shape + ' ' + format(nodes, ','):<18} {size / 1e6:>7.0f}MB {fleet_run['seconds']:>7.2f}s "
                      f"{statistics.median(ratios):>6.1f}x {peak:>7.0f}MB {peak / load_run['maxrss_mb']:>6.1f}x "
                      f"{out_mb:>7.2f}MB  {fleet_run['code']!s:>4}  {goal}")
                print(f"{'  json.load':<18} {'':>9} {load_run['seconds']:>7.2f}s {'1.0x':>7} "
                      f"{load_run['maxrss_mb']:>7.0f}MB {'1.0x':>7}")
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
