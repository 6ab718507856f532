"""docs/architecture.md promises that a new check is two files: the module and a fixture. This test
takes the page at its word: it copies the page's code block into a folder of the checks package path
and the page's expected.yaml next to a copy of a MindIE fixture, and runs the real CLI in a fresh
interpreter (the catalogue is cached per process) on it. If the page's example drifts from the API,
this fails."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, List

import yaml

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
MINDIE_FIXTURE = ROOT / "fixtures" / "clean-a2-mindie"
NO_ENGINE_FIXTURE = ROOT / "fixtures" / "no-driver"


def _blocks(language: str) -> List[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def _module_name() -> str:
    match = re.search(r"`checks/(env_099_\w+)\.py`", PAGE.read_text(encoding="utf-8"))
    assert match, "the page names the module it adds"
    return match.group(1)


# The child adds the temporary folder to the checks package's path: the same thing as dropping the
# file into checks/, without writing into the checkout.
RUNNER = textwrap.dedent("""
    import sys
    import ascend_doctor.checks as pkg
    pkg.__path__.append(sys.argv[1])
    from ascend_doctor.cli import main
    main(sys.argv[2:], prog_name="ascend-doctor")
""")


def _cli(checks_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUNNER, str(checks_dir), *args], capture_output=True,
                          text=True, timeout=120, cwd=str(checks_dir))


def _fixture(tmp_path: Path, source: Path, name: str, env: Dict[str, str]) -> Path:
    target = tmp_path / name
    shutil.copytree(source, target, symlinks=True)
    env_file = target / "env.json"
    recorded = json.loads(env_file.read_text(encoding="utf-8")) if env_file.is_file() else {}
    recorded.pop("HCCL_BUFFSIZE", None)
    recorded.update(env)
    env_file.write_text(json.dumps(recorded, indent=1), encoding="utf-8")
    return target


def _results(report: Dict[str, Any], check_id: str) -> List[Dict[str, Any]]:
    return [r for r in report["results"] if r["id"] == check_id]


def test_the_two_files_of_the_page_are_all_a_new_check_needs(tmp_path: Path) -> None:
    code_blocks = _blocks("python")
    yaml_blocks = _blocks("yaml")
    assert len(code_blocks) == 1 and len(yaml_blocks) == 1, "the page shows one module and one expected.yaml"
    checks_dir = tmp_path / "extra_checks"
    checks_dir.mkdir()
    (checks_dir / f"{_module_name()}.py").write_text(code_blocks[0], encoding="utf-8")

    # File 2: the fixture with the page's expected.yaml.
    scenario = _fixture(tmp_path, MINDIE_FIXTURE, "mindie-no-hccl-buffsize", {})
    expected = yaml.safe_load(yaml_blocks[0])
    (scenario / "expected.yaml").write_text(yaml_blocks[0], encoding="utf-8")

    # The catalogue lists it, explain prints its docs.
    listing = _cli(checks_dir, "checks", "--format", "json")
    assert listing.returncode == 0, listing.stderr
    assert "ASC-ENV-099" in listing.stdout
    explained = _cli(checks_dir, "explain", "ASC-ENV-099")
    assert explained.returncode == 0, explained.stderr
    assert "HCCL_BUFFSIZE" in explained.stdout and "200 MB" in explained.stdout

    # The fixture gives what its expected.yaml says, and the action reaches the fix plan.
    run = _cli(checks_dir, "check", "--from", str(scenario), "--format", "json")
    assert run.returncode in (0, 1), run.stderr
    report = json.loads(run.stdout)
    for check_id, status in expected["expect"].items():
        assert [r["status"] for r in _results(report, check_id)] == [status], _results(report, check_id)
    assert any("HCCL_BUFFSIZE" in " ".join(step["commands"]) for step in report["fix_plan"])
    # A recommendation never changes the exit code: the copy without the extra check exits the same.
    assert run.returncode == _cli(tmp_path, "check", "--from", str(scenario), "--format", "json").returncode

    # The other branches: set -> PASS; no MindIE -> SKIP with the generated reason.
    tuned = _fixture(tmp_path, MINDIE_FIXTURE, "mindie-tuned", {"HCCL_BUFFSIZE": "400"})
    tuned_report = json.loads(_cli(checks_dir, "check", "--from", str(tuned), "--format", "json").stdout)
    assert [r["status"] for r in _results(tuned_report, "ASC-ENV-099")] == ["PASS"]
    bare = _fixture(tmp_path, NO_ENGINE_FIXTURE, "no-engine", {})
    bare_report = json.loads(_cli(checks_dir, "check", "--from", str(bare), "--format", "json").stdout)
    skipped = _results(bare_report, "ASC-ENV-099")
    assert [r["status"] for r in skipped] == ["SKIP"] and "MindIE" in skipped[0]["message"]

    # Every other format renders it without knowing anything about it.
    for fmt in ("text", "markdown", "junit", "html"):
        rendered = _cli(checks_dir, "check", "--from", str(scenario), "--format", fmt)
        assert rendered.returncode in (0, 1), (fmt, rendered.stderr)
        assert "ASC-ENV-099" in rendered.stdout, fmt
