"""Reports for the renderer and `report` command tests: real runs over the scenario fixtures,
and one hand-made report with every status, a fix plan and hostile text."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any, Dict

from ascend_doctor.checkapi import FixAction, Status
from ascend_doctor.cli import main
from ascend_doctor.report import FixStep, Report, Result
from ascend_doctor.reportio import report_from_dict

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# Healthy, failing + warning, a 16-die A3, a 310P without HBM, no driver at all, a hung npu-smi.
SCENARIOS = ("healthy-8x910B3", "cann-newer-than-driver", "a3-server", "310p3-inference", "no-driver",
             "npu-smi-hung")
HOSTILE = '<script>alert("x")</script> | **bold** _u_ [l](http://evil.invalid) ```` `tick` \x1b[31mred\x1b[0m \x01'


@functools.cache
def _report_json(fixture: str) -> str:
    result = make_runner().invoke(main, ["check", "--from", str(FIXTURES / fixture), "--format", "json"],
                                catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output
    return result.stdout


def report_dict(fixture: str) -> Dict[str, Any]:
    """`ascend-doctor check --from fixtures/<fixture> --format json`, as a dict (a fresh copy)."""
    data: Dict[str, Any] = json.loads(_report_json(fixture))
    return data


def report_of(fixture: str) -> Report:
    return report_from_dict(report_dict(fixture), fixture)


def downgrade_to_v1(data: Dict[str, Any]) -> Dict[str, Any]:
    """A schema-1 report (ascend-doctor 0.1.0): no fix_plan, no actions, no INFO status."""
    old = copy.deepcopy(data)
    old["schema_version"] = 1
    old.pop("fix_plan", None)
    old["summary"].pop("INFO", None)
    for result in old["results"]:
        result.pop("actions", None)
        if result["status"] == "INFO":
            result["status"] = "PASS"
    return old


def every_status_report() -> Report:
    """A report with FAIL, ERROR, WARN, INFO, PASS and SKIP results, devices, notes and a fix plan,
    whose texts carry markup, control characters and fences that every format must neutralise."""
    action = FixAction(component="driver", summary="Install driver 24.1.rc3", commands=("./Ascend-hdk.run --full",),
                       target="24.1.rc3", direction="upgrade")
    results = [
        Result("ASC-DRV-001", "Ascend driver installed", Status.FAIL, "no driver: " + HOSTILE,
               remediation="./Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run --full\nreboot\n```\necho done",
               evidence={"path": "/usr/local/Ascend/driver"}, duration_s=0.01, actions=(action,)),
        Result("ASC-CANN-002", "CANN and driver are compatible", Status.ERROR, "the check crashed: KeyError 'x'",
               remediation="report this: ascend-doctor check -v"),
        Result("ASC-DEV-002", "NPU temperature below 85 °C", Status.WARN, "NPU 3 at 88 °C", scope="npu 3",
               remediation="check the fans: ipmitool sdr"),
        Result("ASC-ENV-010", "Recommended tuning variables", Status.INFO, "TASK_QUEUE_ENABLE is not set",
               remediation="export TASK_QUEUE_ENABLE=2"),
        Result("ASC-DEV-001", "NPU health is OK", Status.PASS, "every chip reports Health OK"),
        Result("ASC-LOG-001", "Kernel log clean", Status.SKIP, "dmesg restricted"),
        Result("ASC-MDL-001", "Model weights complete", Status.SKIP, "no model given (use --model DIR)",
               evidence={"precondition": "model"}),
    ]
    devices = [
        {"npu_id": 0, "chip_id": 0, "chip_phy_id": None, "name": "910B3", "health": "OK", "power_w": 93.5,
         "temp_c": 41.0, "hugepages_used": 0, "hugepages_total": 0, "aicore_pct": 0.0, "memory_used_mb": 0,
         "memory_total_mb": 0, "hbm_used_mb": 3402, "hbm_total_mb": 65536, "bus_id": "0000:C1:00.0"},
        {"npu_id": 3, "chip_id": 0, "chip_phy_id": None, "name": "910B3", "health": "Warning", "power_w": 301.2,
         "temp_c": 88.0, "hugepages_used": 0, "hugepages_total": 0, "aicore_pct": 97.0, "memory_used_mb": 0,
         "memory_total_mb": 0, "hbm_used_mb": 61000, "hbm_total_mb": 65536, "bus_id": "0000:02:00.0"},
    ]
    plan = [FixStep(order=1, component="driver", summary="Install driver 24.1.rc3 " + HOSTILE,
                    commands=("./Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run --full", "reboot"),
                    fixes=("ASC-DRV-001",), target="24.1.rc3", why="CANN 8.0.0 needs it",
                    alternative="install CANN 7.0 instead"),
            FixStep(order=2, component="environment", summary="Set TASK_QUEUE_ENABLE",
                    commands=("export TASK_QUEUE_ENABLE=2",), where="container", fixes=("ASC-ENV-010",))]
    return Report(tool_version="0.1.0", matrix={"version": "2026.11.29", "date": "2026-11-29", "origin": "shipped"},
                  host={"source": "snapshot", "hostname": "node07", "arch": "aarch64", "origin": "/tmp/node07.tar.gz",
                        "captured_at": "2026-11-29T12:00:00Z"},
                  facts={"npu_smi_version": "24.1.rc2", "driver_version": None, "firmware_version": "7.5.0.1.129",
                         "cann": [{"kind": "toolkit", "version": "8.0.0", "arch": "aarch64",
                                   "path": "/usr/local/Ascend/ascend-toolkit/8.0.0"}],
                         "python": {"executable": "/home/alice/venv/bin/python", "version": "3.10.14",
                                    "packages": {"torch": "2.4.0", "torch-npu": "2.4.0.post2"}, "error": None},
                         "devices": devices, "processes": [],
                         "chip": {"name": "910B3", "chip_count": 2}},
                  results=results, started_at="2026-12-01T08:00:00+00:00", duration_s=1.5,
                  notes=["snapshot note: " + HOSTILE], fix_plan=plan)
