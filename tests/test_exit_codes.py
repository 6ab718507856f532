"""Exit codes a gate can trust: the table of ascend_doctor/exitcodes.py, the README's copy of it,
and every command run into each code it documents.

Findings of ../shared/research/hostile_inputs_2.md, defect 9: ``probe --select TYPO`` / ``--ignore
ASC`` exited 0 with the endpoint down; ``probe`` against a server that is not an LLM (no model to
ask) exited 0; ``fleet --select`` hides failing nodes (arguable: decided and documented, a note).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest

from ascend_doctor.cli import main
from ascend_doctor.exitcodes import COMMAND_EXIT_CODES, ExitCode, exit_code_table

from .clirunner import make_runner
from .fake_openai_server import Behaviour, FakeServer

REPO = Path(__file__).resolve().parent.parent
HEALTHY = REPO / "fixtures" / "healthy-8x910B3"
FLEET = REPO / "fixtures" / "fleet-16"
PLANTED = REPO / "tests" / "samples" / "watch" / "planted"
LOG = REPO / "tests" / "samples" / "dmesg-and-logs" / "ascend-pytorch-doc-hccl-timeout-EI0002-507048.txt"
FAST = ("--requests", "1", "--concurrency", "1", "--max-tokens", "16", "--timeout", "3", "--no-progress")


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer(Behaviour()) as running:
        yield running


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    folder = tmp_path_factory.mktemp("exit")
    ready, failing = folder / "ready.json", folder / "failing.json"
    assert invoke("check", "--from", str(HEALTHY), "--format", "json", "-o", str(ready)).exit_code == 0
    assert invoke("check", "--from", str(FLEET / "node03"), "--format", "json", "-o", str(failing)).exit_code == 1
    junk = folder / "junk.json"
    junk.write_text("not json")
    clean_log = folder / "clean.log"
    clean_log.write_text("nothing of note\n")
    junk_replay = folder / "junk-replay"
    junk_replay.mkdir()
    (junk_replay / "0001.txt").write_text("not npu-smi output\n")
    return {"ready": ready, "failing": failing, "junk": junk, "clean_log": clean_log, "junk_replay": junk_replay}


def test_the_readme_prints_the_table_of_exitcodes_py() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    shown = readme.split("<!-- exit-codes:begin -->\n", 1)[1].split("\n<!-- exit-codes:end -->", 1)[0]
    assert shown == exit_code_table()


# (command, code) -> how to get there; every code a command documents but the signals (tests/test_interrupts.py).
Runner = Callable[[Dict[str, Path], FakeServer], List[str]]
CASES: Dict[Tuple[str, int], Runner] = {
    ("check", 0): lambda f, s: ["check", "--from", str(HEALTHY)],
    ("check", 1): lambda f, s: ["check", "--from", str(FLEET / "node03")],
    ("check", 2): lambda f, s: ["check", "--from", str(HEALTHY), "--select", "ASC-DRVX"],
    ("check", 3): lambda f, s: ["check", "--from", str(HEALTHY), "--select", "ASC-MDL"],
    ("probe", 0): lambda f, s: ["probe", s.url, *FAST],
    ("probe", 1): lambda f, s: ["probe", "http://127.0.0.1:9/", *FAST],
    ("probe", 2): lambda f, s: ["probe", s.url, *FAST, "--select", "ASC-SRVX"],
    ("probe", 3): lambda f, s: ["probe", s.url + "/static", *FAST],
    ("fleet", 0): lambda f, s: ["fleet", str(f["ready"])],
    ("fleet", 1): lambda f, s: ["fleet", str(f["ready"]), str(f["failing"])],
    ("fleet", 2): lambda f, s: ["fleet", str(f["ready"]), "--select", "ASC-FLTX"],
    ("fleet", 3): lambda f, s: ["fleet", str(f["junk"])],
    ("report render", 0): lambda f, s: ["report", "render", str(f["failing"])],
    ("report render", 2): lambda f, s: ["report", "render", str(f["ready"]), "-o", str(f["ready"])],
    ("report render", 3): lambda f, s: ["report", "render", str(f["junk"])],
    ("report diff", 0): lambda f, s: ["report", "diff", str(f["ready"]), str(f["ready"])],
    ("report diff", 1): lambda f, s: ["report", "diff", str(f["ready"]), str(f["failing"])],
    ("report diff", 2): lambda f, s: ["report", "diff", "-", "-"],
    ("report diff", 3): lambda f, s: ["report", "diff", str(f["junk"]), str(f["ready"])],
    ("watch", 1): lambda f, s: ["watch", "--replay", str(PLANTED), "--interval", "300"],
    ("watch", 2): lambda f, s: ["watch", "--replay", str(PLANTED), "--once", "--count", "2"],
    ("watch", 3): lambda f, s: ["watch", "--replay", str(f["junk_replay"])],
    ("diagnose", 0): lambda f, s: ["diagnose", str(f["clean_log"])],
    ("diagnose", 1): lambda f, s: ["diagnose", str(LOG)],
    ("diagnose", 2): lambda f, s: ["diagnose", str(LOG), "-o", str(LOG)],
    ("plan", 0): lambda f, s: ["plan", "--model", "DeepSeek-R1-Distill-Qwen-7B", "--chip", "910B3"],
    ("plan", 2): lambda f, s: ["plan", "--model", "DeepSeek-R1", "--chip", "no-such-chip"],
    ("checks, explain", 0): lambda f, s: ["explain", "ASC-DRV-001"],
    ("checks, explain", 2): lambda f, s: ["explain", "ASC-NOPE-001"],
}


@pytest.mark.parametrize("command,code", sorted(CASES))
def test_every_command_ends_with_its_documented_code(command: str, code: int, files: Dict[str, Path],
                                                      server: FakeServer) -> None:
    assert ExitCode(code) in COMMAND_EXIT_CODES[command], (command, code)
    result = invoke(*CASES[(command, code)](files, server))
    assert result.exit_code == code, (command, result.output[-2000:])
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [("--select", "ASC-SRVX"), ("--ignore", "ASC"), ("--select", "ASC-SRV-002",
                                                                                   "--ignore", "ASC-SRV-00")])
def test_F9_probe_selection_that_leaves_nothing_is_a_usage_error(args: Tuple[str, ...]) -> None:
    """Against an endpoint that is down, as in the review: exit 2 before anything is sent."""
    result = invoke("probe", "http://127.0.0.1:9/", *FAST, *args, "--format", "junit")
    assert result.exit_code == 2, result.output
    if args[1] == "ASC-SRVX":
        assert "did you mean ASC-SRV" in result.output


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "junit", "html"])
def test_F9_probe_of_a_server_with_no_model_to_ask_is_3_in_every_format(fmt: str, server: FakeServer,
                                                                        tmp_path: Path) -> None:
    """A web server that is not an LLM endpoint (here a wrong base path: /v1/models is 404)."""
    out = tmp_path / f"probe.{fmt}"
    result = invoke("probe", server.url + "/static", *FAST, "--format", fmt, "-o", str(out))
    assert result.exit_code == 3, result.output
    text = out.read_text(encoding="utf-8")
    if fmt == "json":
        report = json.loads(text)
        assert report["exit_code"] == 3
        assert [r["status"] for r in report["results"] if r["id"] == "ASC-SRV-004"] == ["ERROR"]
    if fmt == "junit":
        assert '<property name="run.exit_code" value="3" />' in text and "<error" in text


def test_F9_probe_selection_of_checks_that_all_skip_is_3(server: FakeServer) -> None:
    result = invoke("probe", "http://127.0.0.1:9/", *FAST, "--select", "ASC-SRV-005", "--format", "junit")
    assert result.exit_code == 3 and 'name="run.exit_code" value="3"' in result.output


def test_a_report_with_no_result_at_all_is_not_ready(files: Dict[str, Path], tmp_path: Path) -> None:
    from ascend_doctor.reportio import read_report_file

    data = json.loads(files["ready"].read_text())
    data["results"] = []
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps(data))
    assert int(read_report_file(str(empty)).exit_code) == 3


def test_F9_fleet_select_that_leaves_out_node_verdicts_says_so(files: Dict[str, Path]) -> None:
    """Decided: --select grades the selected fleet checks only (as check --select does), and the
    report notes the nodes that are not ready by their own checks."""
    result = invoke("fleet", str(files["ready"]), str(files["failing"]), "--select", "ASC-FLT-002",
                    "--format", "json")
    report: Dict[str, Any] = json.loads(result.stdout)
    assert result.exit_code == report["exit_code"]
    assert any("not ready by their own checks" in note and "ASC-FLT-001" in note for note in report["notes"])
    whole = invoke("fleet", str(files["ready"]), str(files["failing"]), "--format", "json")
    assert whole.exit_code == 1
    assert not any("not ready by their own checks" in note for note in json.loads(whole.stdout)["notes"])


def test_watch_and_snapshot_usage_errors_are_2(tmp_path: Path) -> None:
    shutil.copytree(PLANTED, tmp_path / "rp")
    assert invoke("watch", "--replay", str(tmp_path / "rp"), "-o", str(tmp_path / "rp" / "x")).exit_code == 2
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    assert invoke("snapshot", "-o", str(tmp_path / "full") + "/").exit_code == 2
