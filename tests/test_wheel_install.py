"""The wheel ships checks/ and compat_matrix/ inside the package and works from anywhere.

Takes the wheel of this checkout (built once per run from a copy of the whole tree: tests/wheel_util.py),
installs it into a brand-new virtual environment (no access to this checkout), and runs the installed
`ascend-doctor` from an unrelated directory on a fixture.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from .report_schema import validate_report

ROOT = Path(__file__).resolve().parent.parent


def source_files() -> list:  # type: ignore[type-arg]
    """Every module and data file of the source tree, as the wheel must name it."""
    out = []
    trees = ((ROOT / "ascend_doctor", "ascend_doctor", (".py", ".typed", ".mo")),
             (ROOT / "checks", "ascend_doctor/checks", (".py",)),
             (ROOT / "compat_matrix", "ascend_doctor/compat_matrix", (".py", ".yaml", ".json", ".pickle")))
    for folder, prefix, suffixes in trees:
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix in suffixes and "__pycache__" not in path.parts:
                out.append(f"{prefix}/{path.relative_to(folder).as_posix()}")
    return out


@pytest.mark.slow
def test_wheel_installs_and_runs_from_elsewhere(tmp_path: Path, ascend_doctor_wheel: Path) -> None:
    names = zipfile.ZipFile(ascend_doctor_wheel).namelist()
    assert any(n.startswith("ascend_doctor/checks/drv_001_") for n in names), "checks/ not shipped"
    assert any(n.startswith("ascend_doctor/compat_matrix/") and n.endswith(".yaml") for n in names), \
        "compat_matrix/*.yaml not shipped"
    assert not any(n.startswith(("checks/", "compat_matrix/", "tests/", "fixtures/")) for n in names), \
        "top-level packages leaked into the wheel"
    assert "ascend_doctor/checks/_catalogue.py" in names, "the built check catalogue is not shipped"
    assert not [n for n in names if n.endswith(".marshal")], "code compiled for one Python version shipped"
    missing = sorted(set(source_files()) - set(names))
    assert not missing, f"modules of the source tree missing from the wheel: {missing}"

    # A brand-new venv without a pip of its own (ensurepip takes seconds): this pip installs into it
    # (``--python``), the wheel and its dependencies as `pip install` run in the venv would.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", str(ascend_doctor_wheel)],
                   check=True, cwd=tmp_path)
    exe = venv / "bin" / "ascend-doctor"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    version = subprocess.run([str(exe), "--version"], cwd=elsewhere, capture_output=True, text=True, check=True)
    assert "ascend-doctor" in version.stdout and "matrix" in version.stdout

    fixture = ROOT / "fixtures" / "healthy-8x910B3"
    done = subprocess.run([str(exe), "check", "--from", str(fixture), "--format", "json"], cwd=elsewhere,
                          capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    validate_report(report)
    assert report["host"]["source"] == "snapshot"
    assert not [r for r in report["results"] if r["status"] == "ERROR"], report["results"]

    text = subprocess.run([str(exe), "check", "--from", str(fixture), "-v"], cwd=elsewhere, capture_output=True,
                          text=True)  # -v: every result, the PASS of ASC-DRV-001 too
    assert "Summary:" in text.stdout and "ASC-DRV-001" in text.stdout

    chinese = subprocess.run([str(exe), "explain", "ASC-DRV-001", "--lang", "zh"], cwd=elsewhere,
                             capture_output=True, text=True, check=True)
    assert chinese.stdout.startswith("ASC-DRV-001: 昇腾驱动已安装"), chinese.stdout + chinese.stderr
