"""Fleet merge benchmark: 1,000 node reports merged into one verdict, against ``json.load`` of the same files.

The reports are generated from one real report (``check --from`` a fixture, JSON) with values varied
per node: host name, the device addresses and HCCL_IF_IP, temperatures, and a few odd nodes (an older
driver, another torch_npu, TLS on), so that the merge has drift to find. Each run times, back to back
(paired, as bench/bench_startup.py does), ``json.load`` of every file and the merge of the same files:
reading, digesting, grading the fleet checks and rendering the JSON report, in this process (the
interpreter's start-up is bench_startup's business). The ratio printed is the median of the per-run
ratios; the target is the issue's: 1,000 reports merged in under 1 second.

    python bench/bench_fleet.py [--nodes 1000] [--runs 7] [--fixture network-healthy-8x910B3]
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 1.0


def base_report(fixture: str) -> Dict[str, Any]:
    """The JSON report of ``check --from fixtures/<fixture>`` (the one real report every node is made from)."""
    done = subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--from", str(ROOT / "fixtures" / fixture),
                           "--format", "json"], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"check --from {fixture} exited {done.returncode}: {done.stderr.strip()}")
    data: Dict[str, Any] = json.loads(done.stdout)
    return data


def vary(base: Dict[str, Any], index: int) -> Dict[str, Any]:
    """Node ``index`` of the generated fleet: its own name and addresses, a few odd ones."""
    data = copy.deepcopy(base)
    name = f"node{index:04d}"
    data["host"]["hostname"] = name
    facts = data["facts"]
    for number, device in enumerate(facts.get("devices") or []):
        if isinstance(device.get("temp_c"), (int, float)):
            device["temp_c"] = 40 + (index + number) % 20
    network = facts.get("network")
    if isinstance(network, dict):
        for device in network.get("devices") or []:
            device_id = int(device.get("device_id") or 0)
            address = f"10.{20 + device_id}.{index // 250}.{index % 250 + 1}"
            device["address"] = device["conf_address"] = address
            device["netmask"] = device["conf_netmask"] = "255.255.0.0"
        if index % 250 == 17:
            network["tls"] = [1 for _ in network.get("tls") or []]
    env = facts.get("hccl_env")
    if isinstance(env, dict):
        env["HCCL_IF_IP"] = f"172.16.{index // 250}.{index % 250 + 1}"
    if index % 100 == 3:
        facts["driver_version"] = "23.0.3"
    python = facts.get("python")
    if index % 333 == 5 and isinstance(python, dict):
        python["packages"]["torch-npu"] = "2.4.0.post4"
    return data


def write_fleet(folder: Path, base: Dict[str, Any], nodes: int) -> List[Path]:
    paths = []
    for index in range(nodes):
        path = folder / f"node{index:04d}.json"
        path.write_text(json.dumps(vary(base, index), indent=2), encoding="utf-8")
        paths.append(path)
    return paths


def time_json_load(paths: List[Path]) -> float:
    started = time.perf_counter()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            json.load(fh)
    return time.perf_counter() - started


def time_merge(folder: Path, matrix: Any, info: Dict[str, Any]) -> Tuple[float, Dict[str, Any]]:
    from ascend_doctor.fleet.grade import fleet_report
    from ascend_doctor.fleet.inputs import collect_inputs
    from ascend_doctor.fleet.merge import merge_inputs
    from ascend_doctor.options import RunOptions
    from ascend_doctor.render.json import report_to_json

    started = time.perf_counter()
    found = collect_inputs([str(folder)])
    facts = merge_inputs(found, matrix, RunOptions())
    report = fleet_report(facts, matrix, info, RunOptions(), [str(folder)], 0.0)
    text = report_to_json(report)
    elapsed = time.perf_counter() - started
    return elapsed, json.loads(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--fixture", default="network-healthy-8x910B3",
                        help="fixture whose report every node is made from (falls back to healthy-8x910B3)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    fixture = args.fixture if (ROOT / "fixtures" / args.fixture).is_dir() else "healthy-8x910B3"
    from ascend_doctor.matrix import load_matrix

    matrix = load_matrix(None)
    info = dict(matrix.identity())
    workdir = Path(tempfile.mkdtemp(prefix="ascend-doctor-bench-fleet-"))
    try:
        base = base_report(fixture)
        paths = write_fleet(workdir, base, args.nodes)
        size = sum(p.stat().st_size for p in paths)
        time_json_load(paths)  # warm the file cache and the imports
        _elapsed, report = time_merge(workdir, matrix, info)
        loads: List[float] = []
        merges: List[float] = []
        for _ in range(args.runs):
            loads.append(time_json_load(paths))
            elapsed, report = time_merge(workdir, matrix, info)
            merges.append(elapsed)
        ratios = [m / j for m, j in zip(merges, loads)]
        merge_s = statistics.median(merges)
        print(f"Python {sys.version.split()[0]}, {args.nodes} node reports of {fixture} "
              f"({size / args.nodes / 1024:.0f} KiB each, {size / 2**20:.1f} MiB), {args.runs} paired runs")
        print(f"{'json.load of every file':<40} {statistics.median(loads) * 1000:>9.1f} ms   1.0x")
        verdict = "ok" if merge_s < TARGET_S else "MISSED"
        print(f"{'fleet merge (read, digest, grade, JSON)':<40} {merge_s * 1000:>9.1f} ms "
              f"{statistics.median(ratios):>5.1f}x   target < {TARGET_S:g} s: {verdict}")
        odd = [r for r in report["results"] if r["status"] in ("FAIL", "WARN")]
        print(f"verdict: exit code {report['exit_code']}; {len(odd)} findings: "
              + ", ".join(sorted({f"{r['id']} [{r['scope']}]" for r in odd})))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
