"""Site checks from installed packages (the entry-point group ``ascend_doctor.checks``; docs/plugins.md).

In process, the entry points are replaced by a list of (name, module, package) and the modules are
written into a temporary folder on sys.path: a good plugin loads; one that cannot be imported, was
written for another check API, reuses an id or breaks the id rule is one problem line each, and the
rest still load and run. Then ``examples/plugin`` is really installed into a fresh virtual environment
and the command line finds it through its entry point.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence, Tuple

import pytest

from ascend_doctor import plugins, registry
from ascend_doctor.checkapi import API_VERSION, PUBLIC_MODULES, SUPPORTED_API_VERSIONS, Status

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "plugin"
FIXTURE_PASS = EXAMPLE / "tests" / "fixtures" / "swappiness-0"
FIXTURE_INFO = EXAMPLE / "tests" / "fixtures" / "swappiness-60"


def _module(check_id: str, api: object = 1, extra: str = "") -> str:
    api_line = "" if api is None else f"CHECK_API = {api!r}\n"
    return textwrap.dedent(f"""
        from ascend_doctor.checkapi import CheckSpec, Finding
        {api_line}
        CHECK = CheckSpec(id={check_id!r}, title="site check", what="w", why="y", fix="f")

        def run(ctx):
            yield Finding.passed("fine")
        {extra}
    """)


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``installed([(entry point name, module name, source), ...])``: those plugins, and nothing else."""
    monkeypatch.delenv(plugins.DISABLE_VARIABLE, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_cache", None)

    def install(items: Sequence[Tuple[str, str, str]]) -> None:
        points = []
        for name, module, source in items:
            (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
            points.append((name, module, f"site-{module} 1.0"))
        monkeypatch.setattr(plugins, "group_declared", lambda: True)
        monkeypatch.setattr(plugins, "entry_points", lambda: iter(points))

    yield install
    for name in [m for m in sys.modules if m.startswith("plug_")]:
        del sys.modules[name]
    registry._cache = None


def test_a_plugin_check_joins_the_catalogue_with_its_package(installed: Any) -> None:
    installed([("SITE-SYS-001", "plug_good", _module("SITE-SYS-001"))])
    checks, problems = registry.load_catalogue()
    assert problems == []
    [ours] = [c for c in checks if c.spec.id == "SITE-SYS-001"]
    assert (ours.package, ours.module) == ("site-plug_good 1.0", "plug_good")
    assert checks[-1] is ours, "a plugin's checks come after ascend-doctor's own"
    assert all(c.package == "" for c in checks if c.spec.id.startswith("ASC-"))


@pytest.mark.parametrize(("name", "source", "why"), [
    ("SITE-SYS-002", "raise ImportError('no module named acme_helpers')", "cannot be imported: ImportError"),
    ("SITE-SYS-003", _module("SITE-SYS-003", api=99), "another check API (CHECK_API = 99)"),
    ("SITE-SYS-004", _module("SITE-SYS-004", api=None), "another check API (no CHECK_API)"),
    ("ASC-SYS-001", _module("ASC-SYS-001"), "site prefix other than ASC"),
    ("SITE-SYS-005", _module("SITE-SYS-006"), "name must be its check's id (SITE-SYS-006)"),
    ("SITE-SYS-007", "CHECK_API = 1\nCHECK = 'not a spec'\n", "must define CHECK (CheckSpec) and run(ctx)"),
    ("SITE-SYS-008", _module("SITE-SYS-008").replace('fix="f"', 'fix="f", requires=("fact:nope",)'),
     "unknown requirement 'fact:nope'"),
])
def test_a_broken_plugin_is_one_line_and_the_rest_loads(installed: Any, name: str, source: str, why: str) -> None:
    installed([(name, "plug_broken", source), ("SITE-SYS-001", "plug_good", _module("SITE-SYS-001"))])
    checks, problems = registry.load_catalogue()
    assert len(problems) == 1 and why in problems[0], problems
    assert problems[0].startswith(f"plugin {name} = plug_broken (site-plug_broken 1.0): ")
    assert problems[0].endswith("; left out")
    ids = [c.spec.id for c in checks]
    assert "SITE-SYS-001" in ids and name not in [c.spec.id for c in checks if c.package]
    assert "ASC-DRV-001" in ids


def test_a_duplicate_plugin_id_is_refused_and_the_first_kept(installed: Any) -> None:
    installed([("SITE-SYS-001", "plug_first", _module("SITE-SYS-001")),
               ("SITE-SYS-001", "plug_second", _module("SITE-SYS-001"))])
    checks, problems = registry.load_catalogue()
    assert [c.module for c in checks if c.spec.id == "SITE-SYS-001"] == ["plug_first"]
    assert problems == ["plugin SITE-SYS-001 = plug_second (site-plug_second 1.0): SITE-SYS-001 is already "
                        "defined by site-plug_first 1.0; left out"]


def test_a_broken_plugin_is_an_error_result_and_every_other_check_runs(installed: Any) -> None:
    from ascend_doctor.host.snapshot import SnapshotHost
    from ascend_doctor.options import RunOptions
    from ascend_doctor.runner import run_checks

    installed([("SITE-SYS-002", "plug_broken", "raise RuntimeError('boom')"),
               ("SITE-SYS-001", "plug_good", _module("SITE-SYS-001"))])
    report = run_checks(SnapshotHost(str(FIXTURE_PASS)), None, RunOptions(select=("SITE", "ASC-SYS")))
    errors = [r for r in report.results if r.status is Status.ERROR]
    assert [(r.id, "SITE-SYS-002" in r.message) for r in errors] == [("ASC-CORE-001", True)]
    assert [r.status for r in report.results if r.id == "SITE-SYS-001"] == [Status.PASS]
    assert any(r.id.startswith("ASC-SYS-") for r in report.results)


def test_plugins_can_be_turned_off(installed: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    installed([("SITE-SYS-001", "plug_good", _module("SITE-SYS-001"))])
    monkeypatch.setenv(plugins.DISABLE_VARIABLE, "1")
    assert plugins.load(set()) == ([], [])


def test_the_cheap_pre_test_reads_entry_points_txt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """importlib.metadata is imported only when some distribution declares the group."""
    other = tmp_path / "other-1.0.dist-info"
    other.mkdir()
    (other / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n", encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "absent")])
    assert not plugins.group_declared()
    site = tmp_path / "site_checks-1.0.dist-info"
    site.mkdir()
    (site / "entry_points.txt").write_text("[ascend_doctor.checks]\nSITE-SYS-001 = site_checks.a\n",
                                           encoding="utf-8")
    assert plugins.group_declared()


def test_no_plugin_installed_does_not_import_importlib_metadata(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != plugins.DISABLE_VARIABLE}
    code = ("import sys\nfrom ascend_doctor import plugins\n"
            "sys.path[:] = [p for p in sys.path if 'site-packages' not in p]\n"
            "print(plugins.load(set()), 'importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=60)
    assert done.stdout.split() == ["([],", "[])", "False"], done.stderr


def test_the_public_api_is_versioned_and_the_example_uses_only_it() -> None:
    import ast

    assert API_VERSION in SUPPORTED_API_VERSIONS
    for path in (EXAMPLE / "src").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ascend_doctor"):
                assert node.module in PUBLIC_MODULES, f"{path.name} imports {node.module}, not public"
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("ascend_doctor") and a.name not in PUBLIC_MODULES
                               for a in node.names), path.name


def _site_packages(python: Path) -> Path:
    done = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


@pytest.mark.slow
def test_the_example_plugin_installed_in_a_fresh_venv_is_listed_and_run(tmp_path: Path) -> None:
    """A new virtual environment sees this checkout's ascend-doctor (and its dependencies) through a .pth
    file, and gets examples/plugin by a real pip install: the check is found by its entry point only."""
    import shutil
    import sysconfig

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = _site_packages(python)
    ours = sysconfig.get_paths()["purelib"]
    (site / "zz_ascend_doctor_under_test.pth").write_text(f"import site; site.addsitedir({ours!r})\n",
                                                           encoding="utf-8")
    source = tmp_path / "plugin"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--target", str(site), str(source)], check=True, cwd=tmp_path, timeout=300)
    assert list(site.glob("acme_ascend_checks-0.1.0.dist-info"))

    env = {k: v for k, v in os.environ.items() if k not in (plugins.DISABLE_VARIABLE, "PYTHONPATH")}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(python), "-m", "ascend_doctor", *args], capture_output=True, text=True,
                              env=env, cwd=elsewhere, timeout=300)

    listing = cli("checks", "--format", "json")
    assert listing.returncode == 0, listing.stderr
    entries: List[Dict[str, Any]] = json.loads(listing.stdout)
    assert [(e["id"], e.get("package")) for e in entries if "package" in e] == \
        [("ACME-SYS-001", "acme-ascend-checks 0.1.0")]
    text = cli("checks")
    assert "ACME-SYS-001" in text.stdout and "acme-ascend-checks 0.1.0" in text.stdout

    for fixture, status in ((FIXTURE_PASS, "PASS"), (FIXTURE_INFO, "INFO")):
        run = cli("check", "--from", str(fixture), "--format", "json")
        assert run.returncode in (0, 1, 3), run.stderr
        report = json.loads(run.stdout)
        assert [r["status"] for r in report["results"] if r["id"] == "ACME-SYS-001"] == [status]
        assert not [r for r in report["results"] if r["id"] == "ASC-CORE-001"], "a load problem"

    # A second plugin whose module is gone (a half-removed package): one line, and the run goes on.
    dist_info = site / "broken_site_checks-0.2.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-site-checks\nVersion: 0.2\n",
                                        encoding="utf-8")
    (dist_info / "entry_points.txt").write_text("[ascend_doctor.checks]\nBRK-SYS-001 = broken_site_checks.gone\n",
                                                encoding="utf-8")
    broken = cli("check", "--from", str(FIXTURE_PASS), "--format", "json")
    report = json.loads(broken.stdout)
    [error] = [r for r in report["results"] if r["id"] == "ASC-CORE-001"]
    assert error["status"] == "ERROR" and "BRK-SYS-001" in error["message"]
    assert "broken-site-checks 0.2" in error["message"] and "ModuleNotFoundError" in error["message"]
    assert [r["status"] for r in report["results"] if r["id"] == "ACME-SYS-001"] == ["PASS"]
    listed = cli("checks")
    assert listed.returncode == 3 and "BRK-SYS-001" in listed.stderr and "ACME-SYS-001" in listed.stdout
