"""deploy/ansible: the playbook runs for real with ansible-core against three local hosts, each checking
a node of the fleet-16 scenario (`--from` its snapshot), and the play fails by the merged verdict,
which names the node with the older driver. ansible-lint finds nothing.

The install step is the real one (wheelhouse copied, venv created, pip --no-index); the wheelhouse
holds only the ascend_doctor wheel built from this checkout, installed with --no-deps, and the check
finds the dependencies through PYTHONPATH (the test environment's site-packages): the network is
never used.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Dict, List

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PLAYBOOK = ROOT / "deploy" / "ansible" / "site.yml"
FLEET = ROOT / "fixtures" / "fleet-16"
HOSTS = ("node01", "node02", "node05")  # node05: the older driver
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    found = shutil.which(name) or (str(BIN / name) if (BIN / name).exists() else None)
    if found is None:
        pytest.skip(f"{name} is not installed: `pip install -e '.[dev]'` brings ansible-core and ansible-lint")
    return found


def ansible_env(tmp_path: Path) -> Dict[str, str]:
    env = dict(os.environ)
    scratch = str(tmp_path / "ansible-tmp")
    env.update({"ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_HOME": str(tmp_path / "ansible-home"),
                "ANSIBLE_LOCAL_TEMP": scratch, "ANSIBLE_REMOTE_TEMP": scratch, "ANSIBLE_RETRY_FILES_ENABLED": "0",
                "ANSIBLE_CONFIG": str(tmp_path / "none.cfg")})
    return env


def build_wheelhouse(tmp_path: Path, wheel: Path) -> Path:
    """A wheelhouse holding the ascend_doctor wheel of this checkout (built once per run: tests/wheel_util.py)."""
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    shutil.copy2(wheel, wheelhouse / wheel.name)
    return wheelhouse


def inventory(tmp_path: Path, wheelhouse: Path) -> Path:
    site = sysconfig.get_paths()["purelib"]
    hosts = {name: {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                    "ascend_doctor_root": str(tmp_path / "nodes" / name),
                    "ascend_doctor_check_args": ["--from", str(FLEET / name)],
                    # the test's nodes are folders of the test's own user: nothing needs root (nor sudo)
                    "ascend_doctor_become": False} for name in HOSTS}
    data = {"all": {"children": {"ascend": {"hosts": hosts, "vars": {
        "ascend_doctor_wheelhouse": str(wheelhouse),
        "ascend_doctor_python": sys.executable,
        "ascend_doctor_pip_extra_args": "--no-deps",
        "ascend_doctor_check_environment": {"PYTHONPATH": site},
    }}}}}
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def run_playbook(tmp_path: Path, inventory_path: Path, extra: List[str]) -> subprocess.CompletedProcess:
    localhost = {"ascend_doctor_controller_command": str(BIN / "ascend-doctor"),
                 "ascend_doctor_reports_dir": str(tmp_path / "reports"),
                 "ascend_doctor_fleet_report": str(tmp_path / "fleet.json")}
    command = [tool("ansible-playbook"), "-i", str(inventory_path), str(PLAYBOOK), "-e", json.dumps(localhost), *extra]
    return subprocess.run(command, capture_output=True, text=True, env=ansible_env(tmp_path), cwd=tmp_path,
                          timeout=900, check=False)


@pytest.mark.slow
def test_playbook_runs_on_every_host_and_gates_on_the_fleet_verdict(tmp_path: Path, ascend_doctor_wheel: Path
                                                                    ) -> None:
    wheelhouse = build_wheelhouse(tmp_path, ascend_doctor_wheel)
    inventory_path = inventory(tmp_path, wheelhouse)
    failed = run_playbook(tmp_path, inventory_path, [])
    log = failed.stdout + failed.stderr
    assert failed.returncode != 0, log
    assert "ascend-doctor fleet exited 1" in log, log
    # Every host installed the tool in its own venv and sent its report.
    for name in HOSTS:
        assert (tmp_path / "nodes" / name / "venv" / "bin" / "ascend-doctor").exists(), name
        report = json.loads((tmp_path / "reports" / f"{name}.json").read_text(encoding="utf-8"))
        assert report["host"]["hostname"] == name
    fleet = json.loads((tmp_path / "fleet.json").read_text(encoding="utf-8"))
    assert fleet["exit_code"] == 1 and fleet["facts"]["node_count"] == len(HOSTS)
    (driver,) = [r for r in fleet["results"] if r["id"] == "ASC-FLT-004" and r["status"] == "FAIL"]
    assert "2 nodes on 23.0.7; node05 on 23.0.3" in driver["message"]
    assert "node05 on 23.0.3" in log  # the verdict is in the play's output

    # The same play gates open when the fleet passes (here: two nodes, only the NPU model/count comparison).
    passed = run_playbook(tmp_path, inventory_path, ["--limit", "node01,node02,localhost", "-e", json.dumps(
        {"ascend_doctor_fleet_args": ["--select", "ASC-FLT-003"]})])
    assert passed.returncode == 0, passed.stdout + passed.stderr
    fleet = json.loads((tmp_path / "fleet.json").read_text(encoding="utf-8"))
    assert fleet["exit_code"] == 0 and fleet["facts"]["node_count"] == 2  # node05's old report was cleared


def test_ansible_lint_is_clean(tmp_path: Path) -> None:
    env = ansible_env(tmp_path)
    env["HOME"] = str(tmp_path)  # ansible-lint caches under ~/.cache
    result = subprocess.run([tool("ansible-lint"), "--offline", str(PLAYBOOK)], capture_output=True, text=True,
                            env=env, cwd=PLAYBOOK.parent, timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_become_only_on_the_tasks_that_need_root() -> None:
    """Root for the tool's folder under /opt and for the check (npu-smi, hccn_tool, root's logs); never on
    the controller, never for fetching the report, never for a whole play."""
    site = yaml.safe_load(PLAYBOOK.read_text(encoding="utf-8"))
    assert all("become" not in play for play in site)
    tasks = ROOT / "deploy" / "ansible" / "roles" / "ascend_doctor" / "tasks"
    with_root = {}
    for path in sorted(tasks.glob("*.yml")):
        for task in yaml.safe_load(path.read_text(encoding="utf-8")):
            with_root[(path.name, task["name"])] = "become" in task
    assert {key for key, become in with_root.items() if become} == {
        ("main.yml", "Create the tool's folder"), ("main.yml", "Copy the wheelhouse to the node"),
        ("main.yml", "Install ascend-doctor from the wheelhouse, without network"),
        ("main.yml", "Run ascend-doctor check")}
    defaults = yaml.safe_load((ROOT / "deploy" / "ansible" / "roles" / "ascend_doctor" / "defaults" / "main.yml")
                              .read_text(encoding="utf-8"))
    assert defaults["ascend_doctor_become"] is True
