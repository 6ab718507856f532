"""The pipeline owns each suite's run, from one options record built in one place (issue 23 item 4).

* the record is built from flags and the environment by options.py and is frozen;
* ``pipeline.run_check`` gives the report the command prints (the command only parses, calls and
  prints), and unusable input is a RunInputError with the exit code, not a print or an exit;
* the command line reaches the runner, the fleet's grading and the probe's measuring through the
  pipeline only, and no module but options.py reads a run option from ``os.environ``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import grimp
import pytest

from ascend_doctor import options as O
from ascend_doctor.cli import main
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.matrix.meta import ENV_MATRIX
from ascend_doctor.pipeline import RunInputError, run_check
from ascend_doctor.render import prepare_report, report_as_text

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
HEALTHY = ROOT / "fixtures" / "healthy-8x910B3"


def check_record(**flags: Any) -> O.CheckOptions:
    given: Dict[str, Any] = dict(
        snapshot=None, from_text=None, timeout=10.0, python=None, select=(), ignore=(), fail_on="fail", matrix=None,
        model_dir=None, verify_manifest=None, serving_config=None, vllm_args=None, rank_table=None,
        log_max_files=20, log_max_mb=64, progress=None, output=O.OutputOptions(format="json"))
    given.update(flags)
    return O.check_options(**given)


def test_the_environment_is_read_once_into_a_record() -> None:
    env = O.read_environment({ENV_MATRIX: " /m.yaml ", O.ENV_API_KEY: "", O.ENV_DEBUG: "1", "NO_COLOR": "1"})
    assert env == O.Environment(matrix="/m.yaml", api_key=None, debug=True, no_color=True)
    assert O.read_environment({}) == O.Environment()
    assert O.ENV_MATRIX == ENV_MATRIX  # --version reads the same variable (matrix/meta.py)


def test_check_flags_become_the_run_options_the_checks_read(tmp_path: Path) -> None:
    record = check_record(select=("ASC-DRV,ASC-CANN", "ASC-NET"), ignore=("ASC-NET-002",), rank_table="rt.json",
                          log_max_mb=2, progress=False, snapshot=str(HEALTHY),
                          environment=O.Environment(matrix=str(tmp_path / "m.yaml")))
    assert record.run.select == ("ASC-DRV", "ASC-CANN", "ASC-NET") and record.run.ignore == ("ASC-NET-002",)
    assert record.run.rank_table is not None and Path(record.run.rank_table).is_absolute()
    assert record.run.log_max_bytes == 2 * 1024 * 1024 and record.run.extra == (("progress", "0"),)
    assert record.matrix_file is None and record.matrix_env == str(tmp_path / "m.yaml")
    assert not record.live
    with pytest.raises(AttributeError):
        record.snapshot = None  # type: ignore[misc]  # frozen: the run cannot change its options


def test_the_probe_key_comes_from_the_flag_else_the_environment() -> None:
    env = O.Environment(api_key="from-env")
    assert O.api_key_option("flag", env) == "flag"
    assert O.api_key_option(None, env) == "from-env"
    record = O.probe_options(url="http://127.0.0.1:8000", output=O.OutputOptions(), timeout=5.0, select=("ASC-SRV",),
                             ignore=(), fail_on="warn", api_key=None, environment=env, requests=2)
    assert record.api_key == "from-env" and record.requests == 2 and record.run.timeout_s == 5.0
    assert record.run.fail_on == "warn"
    # the records that hold the key never show it (a debug traceback, a log line)
    assert "from-env" not in repr(env) and "from-env" not in repr(record) and "api_key=<set>" in repr(record)
    assert "api_key=None" in repr(O.Environment())


def test_run_check_gives_the_report_the_command_prints() -> None:
    report = run_check(check_record(snapshot=str(HEALTHY)))
    printed = make_runner().invoke(main, ["check", "--from", str(HEALTHY), "--format", "json"])
    ours = json.loads(report_as_text(prepare_report(report), "json"))
    theirs = json.loads(printed.output)
    for data in (ours, theirs):
        data.pop("started_at")
        data["duration_s"] = 0
        for result in data["results"]:
            result["duration_s"] = 0
    assert ours == theirs
    assert printed.exit_code == int(report.exit_code)


@pytest.mark.parametrize("flags, start", [
    ({"snapshot": "/nonexistent/snapshot"}, "cannot read snapshot /nonexistent/snapshot"),
    ({"snapshot": str(HEALTHY), "matrix": "/nonexistent/matrix.yaml"}, "cannot load the compatibility matrix"),
])
def test_unusable_input_is_an_error_with_its_exit_code(flags: Dict[str, Any], start: str) -> None:
    with pytest.raises(RunInputError) as caught:
        run_check(check_record(**flags))
    assert str(caught.value).startswith(start)
    assert caught.value.code == int(ExitCode.INCOMPLETE)


# Where the command line would be assembling a pipeline itself.
PIPELINE_PARTS = ("ascend_doctor.runner", "ascend_doctor.fleet.grade", "ascend_doctor.fleet.merge",
                  "ascend_doctor.endpoint.grading", "ascend_doctor.endpoint.measure", "ascend_doctor.endpoint.client",
                  "ascend_doctor.host.pasted", "ascend_doctor.rootcause", "ascend_doctor.coverage")


def test_the_command_line_runs_suites_through_the_pipeline() -> None:
    graph = grimp.build_graph("ascend_doctor", cache_dir=None)
    found: List[str] = []
    for module in sorted(m for m in graph.modules if m.startswith("ascend_doctor.cli")):
        found += [f"{module} -> {imported}" for imported in sorted(graph.find_modules_directly_imported_by(module))
                  if imported in PIPELINE_PARTS]
    assert not found


# Modules that may read os.environ, and why none of them reads an option of a run.
READS_THE_ENVIRONMENT = {
    "options.py": "the one place a run's options are read (read_environment)",
    "host/live.py": "the machine's environment is a fact the live host reports",
    "i18n.py": "the locale decides the language before any flag is parsed",
    "render/text.py": "NO_COLOR, a terminal convention (rich reads it as well)",
    "render/lines.py": "whether stdout is a terminal",
    "render/matrix_tables.py": "COLUMNS, the terminal's width",
    "matrix/meta.py": "the data folder of the updated matrix (ASCEND_DOCTOR_DATA_DIR), read by --version too",
    "versioninfo.py": "--version names the matrix it would use, without loading the options (start-up)",
    "plugins.py": "ASCEND_DOCTOR_DISABLE_PLUGINS: the catalogue is loaded once per process",
    "compiled_data.py": "the build step (tools/regenerate.py), not a run",
}


def test_no_module_but_options_reads_a_run_option_from_the_environment() -> None:
    package = ROOT / "ascend_doctor"
    readers = sorted(str(path.relative_to(package)) for path in package.rglob("*.py")
                     if re.search(r"os\.environ|os\.getenv|getenv\(", path.read_text(encoding="utf-8")))
    assert [name for name in readers if name not in READS_THE_ENVIRONMENT] == []
