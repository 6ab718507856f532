"""Suite-wide guarantees.

Every JSON report any test makes (through the renderer, whatever the command) is validated
against docs/report-schema.json, so the published contract cannot drift from the code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

import pytest

from .report_schema import validate_report
from .wheel_util import shared_wheel


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the CPUs this process may use. Part of the suite waits rather
    than computes (fake serving endpoints answering at a set token rate, commands that must time out,
    child processes), and the extra worker fills those waits. Whole suite on 2 CPUs, clean clone:
    2 min 55 s to 3 min 7 s with two workers, 2 min 44 s with three."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cpus + 1


def _hypothesis_profile() -> None:
    """The fuzzers' budget (tests/fuzz/): ASCEND_DOCTOR_FUZZ=ci (default: deterministic, a few
    dozen examples each, the whole set well under a minute) or long (thousands, for a night).
    Per-example deadlines catch quadratic parsers; no example database is written anywhere, and the
    caches hypothesis keeps besides (``constants/``, ``unicode_data/``) go to a temporary folder of this
    process (one per xdist worker) instead of ``.hypothesis/`` in the working directory."""
    import atexit
    import datetime
    import os
    import shutil
    import tempfile

    from hypothesis import HealthCheck, settings
    from hypothesis.configuration import set_hypothesis_home_dir

    storage = tempfile.mkdtemp(prefix="ascend-doctor-hypothesis-")
    atexit.register(shutil.rmtree, storage, True)
    set_hypothesis_home_dir(storage)

    slow_ok = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
    settings.register_profile("ci", max_examples=int(os.environ.get("ASCEND_DOCTOR_FUZZ_EXAMPLES", "50")),
                              deadline=datetime.timedelta(seconds=3), derandomize=True, database=None,
                              suppress_health_check=slow_ok, print_blob=True)
    settings.register_profile("long", max_examples=int(os.environ.get("ASCEND_DOCTOR_FUZZ_EXAMPLES", "3000")),
                              deadline=datetime.timedelta(seconds=10), database=None,
                              suppress_health_check=slow_ok, print_blob=True)
    settings.load_profile(os.environ.get("ASCEND_DOCTOR_FUZZ", "ci"))


_hypothesis_profile()

# Checks of plugins installed in the test environment (.ci/run installs examples/plugin) must not change
# what the suite's reports hold; the tests of plugin loading turn this off in their own processes.
os.environ["ASCEND_DOCTOR_DISABLE_PLUGINS"] = "1"


@pytest.fixture(autouse=True)
def _home_is_a_temporary_folder(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                                ) -> Iterator[None]:
    """Tests never write into the user's home, cache or data folders: every place the tool (or a
    library it calls) could write per-user data points into a temporary folder."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share"),
                      ("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state")):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.delenv("ASCEND_DOCTOR_DATA_DIR", raising=False)
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    yield


@pytest.fixture(autouse=True)
def _messages_in_english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests expect English unless they ask for Chinese (--lang zh): a developer's zh_CN locale
    must not change what the CLI prints (it reads LC_ALL, LC_MESSAGES, LANG; docs/i18n.md), and one
    test's language must not leak into the next."""
    from ascend_doctor import i18n

    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    i18n.set_language("en")
    yield
    i18n.set_language("en")


@pytest.fixture(autouse=True)
def _every_json_report_matches_the_schema(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import ascend_doctor.render.json as json_render

    original = json_render.report_to_json

    def checked(report):  # type: ignore[no-untyped-def]
        text = original(report)
        validate_report(json.loads(text))
        return text

    monkeypatch.setattr(json_render, "report_to_json", checked)
    yield


@pytest.fixture(scope="session")
def ascend_doctor_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this checkout, built once per run (tests/wheel_util.py); read it, never change it."""
    return shared_wheel(tmp_path_factory)
