"""Failing cases of the core checks that no published capture shows (a hot chip, a full chip,
mixed models, a torch pair from another release...). Each starts from the healthy fixture (real
captures) and changes only values, never the layout, so the parser sees a real format."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable, Dict

import pytest

from ascend_doctor.cli import main

from .clirunner import make_runner

HEALTHY = Path(__file__).resolve().parent.parent / "fixtures" / "healthy-8x910B3"
NPU_SMI = Path("commands") / "npu-smi_info.out"
# Rows of NPU 0 in the healthy capture (vllm-ascend#198, npu-smi 23.0.7):
ROW0 = "| 0     910B3               | OK            | 102.8       55                0    / 0             |"
ROW0_MEM = "| 0                         | 0000:C1:00.0  | 0           0    / 0          3338 / 65536         |"


def variant(tmp_path: Path, edit: Callable[[Path], None]) -> Path:
    snap = tmp_path / "snap"
    shutil.copytree(HEALTHY, snap, symlinks=True)
    edit(snap)
    return snap


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    assert len(new) == len(old), "keep the column layout"
    path.write_text(text.replace(old, new, 1))


def statuses(snap: Path, select: str) -> Dict[str, str]:
    result = make_runner().invoke(main, ["check", "--from", str(snap), "--select", select, "--format", "json"])
    report = json.loads(result.stdout)
    order = ["PASS", "SKIP", "WARN", "ERROR", "FAIL"]
    worst: Dict[str, str] = {}
    for r in report["results"]:
        if r["id"] not in worst or order.index(r["status"]) > order.index(worst[r["id"]]):
            worst[r["id"]] = r["status"]
    return worst


@pytest.mark.parametrize("health,status", [("Warning", "WARN"), ("Alarm  ", "FAIL"), ("Critical", "FAIL"),
                                           ("UNKNOWN", "WARN")])
def test_unhealthy_chip(tmp_path: Path, health: str, status: str) -> None:
    snap = variant(tmp_path, lambda s: replace_in(s / NPU_SMI, "| OK            | 102.8",
                                                   f"| {health:<14}| 102.8"))
    assert statuses(snap, "ASC-DEV-001")["ASC-DEV-001"] == status


def test_unhealthy_chip_outside_the_container_is_information(tmp_path: Path) -> None:
    def edit(s: Path) -> None:
        replace_in(s / NPU_SMI, "| OK            | 102.8", "| Alarm         | 102.8")
        env = json.loads((s / "env.json").read_text())
        env["ASCEND_VISIBLE_DEVICES"] = "1,2"
        (s / "env.json").write_text(json.dumps(env))
        (s / "files" / ".dockerenv").write_text("")

    assert statuses(variant(tmp_path, edit), "ASC-DEV-001")["ASC-DEV-001"] == "PASS"


def test_hot_chip(tmp_path: Path) -> None:
    snap = variant(tmp_path, lambda s: replace_in(s / NPU_SMI, ROW0, ROW0.replace("102.8       55", "102.8       91")))
    assert statuses(snap, "ASC-DEV-002")["ASC-DEV-002"] == "WARN"


def test_full_chip(tmp_path: Path) -> None:
    snap = variant(tmp_path, lambda s: replace_in(s / NPU_SMI, ROW0_MEM, ROW0_MEM.replace("3338 / 65536",
                                                                                           "63900/ 65536")))
    assert statuses(snap, "ASC-DEV-003")["ASC-DEV-003"] == "WARN"


def test_mixed_chip_models(tmp_path: Path) -> None:
    snap = variant(tmp_path, lambda s: replace_in(s / NPU_SMI, ROW0, ROW0.replace("910B3", "910B4")))
    assert statuses(snap, "ASC-DEV-004")["ASC-DEV-004"] == "WARN"


def test_reboot_pending_after_driver_upgrade(tmp_path: Path) -> None:
    def edit(s: Path) -> None:
        info = s / "files/usr/local/Ascend/driver/version.info"
        info.write_text(info.read_text().replace("Version=23.0.7", "Version=24.1.rc2"))

    assert statuses(variant(tmp_path, edit), "ASC-DRV-002")["ASC-DRV-002"] == "FAIL"


def _python(s: Path, version: str, packages: Dict[str, str]) -> None:
    data = json.loads((s / "python.json").read_text())
    data["version"] = version
    data["packages"] = packages
    (s / "python.json").write_text(json.dumps(data))


def test_torch_from_another_release(tmp_path: Path) -> None:
    snap = variant(tmp_path, lambda s: _python(s, "3.10.14", {"torch": "2.1.0", "torch-npu": "2.4.0.post2"}))
    got = statuses(snap, "ASC-PY-002")
    assert got["ASC-PY-002"] == "FAIL"


def test_cuda_torch(tmp_path: Path) -> None:
    snap = variant(tmp_path, lambda s: _python(s, "3.10.14", {"torch": "2.4.0+cu121", "torch-npu": "2.4.0.post2"}))
    assert statuses(snap, "ASC-PY-001")["ASC-PY-001"] == "FAIL"


def test_python_too_new_for_torch(tmp_path: Path) -> None:
    snap = variant(tmp_path, lambda s: _python(s, "3.13.1", {"torch": "2.1.0", "torch-npu": "2.1.0.post10"}))
    assert statuses(snap, "ASC-PY-004")["ASC-PY-004"] == "FAIL"


def test_toolkit_for_the_other_architecture(tmp_path: Path) -> None:
    def edit(s: Path) -> None:
        meta = json.loads((s / "snapshot.json").read_text())
        meta["arch"] = "x86_64"
        (s / "snapshot.json").write_text(json.dumps(meta))

    assert statuses(variant(tmp_path, edit), "ASC-CANN-001")["ASC-CANN-001"] == "FAIL"


def test_unknown_npu_smi_layout_is_a_clear_warning(tmp_path: Path) -> None:
    snap = variant(tmp_path, lambda s: (s / NPU_SMI).write_text("Segmentation fault (core dumped)\n\x00\x01garbage\n"))
    result = make_runner().invoke(main, ["check", "--from", str(snap), "--select", "ASC-SMI,ASC-DEV",
                                         "--format", "json"])
    report = json.loads(result.stdout)
    smi = next(r for r in report["results"] if r["id"] == "ASC-SMI-001")
    assert smi["status"] == "WARN" and "could not parse" in smi["message"]
    assert {r["status"] for r in report["results"] if r["id"].startswith("ASC-DEV")} == {"SKIP"}


def test_driver_without_firmware(tmp_path: Path) -> None:
    # The firmware lives in the card's flash: a missing version.info is a missing record, not a missing
    # firmware (advice review row 21) -- a WARN that says how to read what runs, never "install the driver".
    snap = variant(tmp_path, lambda s: (s / "files/usr/local/Ascend/firmware/version.info").unlink())
    assert statuses(snap, "ASC-FW-001")["ASC-FW-001"] == "WARN"
