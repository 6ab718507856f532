"""One wheel of this checkout per test run, shared by the tests that install it (tests/test_wheel_install.py,
tests/test_deploy_ansible.py): building it takes seconds of pip and setuptools, and every build of the same
tree gives the same files.

Under xdist the workers share one folder of the run (named by the run's id, so never another run's wheel): the
first worker to ask builds the wheel there under a file lock, the others wait for it and take the same file.
The wheel is built from a copy of the whole source tree (less what is not source), so the test of its contents
also proves that nothing else of the checkout leaks into it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Not part of the source: a setuptools build folder left by an earlier build would otherwise be reused
# and could put files into the wheel that the tree no longer has (a retired check, say).
NOT_SOURCE = ("build", "dist", ".venv*", ".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
              ".hypothesis", "*.egg-info")


def build_wheel(work: Path) -> Path:
    """The ascend_doctor wheel, built with pip from a copy of the checkout in ``work`` (setuptools builds in
    the source tree: never in the checkout, which other runs may be building at the same time)."""
    source = work / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    dist = work / "dist"
    # Built before any test's own home folder exists: pip's cache and setuptools' files go to one of its own.
    home = work / "home"
    env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PIP_NO_CACHE_DIR="1")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
                   check=True, cwd=work, env=env)
    shutil.rmtree(source)
    wheels = list(dist.glob("ascend_doctor-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def shared_wheel(factory: pytest.TempPathFactory) -> Path:
    """The run's wheel: built once per run, whatever the number of workers (see the module's docstring)."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None:  # one process: its own temporary folder is the run's
        return build_wheel(factory.mktemp("wheel"))
    shared = factory.getbasetemp().parent / f"wheel-{run_id}"
    shared.mkdir(exist_ok=True)
    with open(shared / "lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        built = shared / "built"
        if not built.exists():
            work = shared / "work"
            if work.exists():  # a worker that died while building
                shutil.rmtree(work)
            work.mkdir()
            wheel = build_wheel(work)
            os.replace(work, built)
            assert (built / "dist" / wheel.name).exists()
        wheels = list((built / "dist").glob("ascend_doctor-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]
