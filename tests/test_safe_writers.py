"""No output through a link, and no output over an input: every writer of every command.

Findings of ../shared/research/hostile_inputs_2.md (the second review): defect 8 (``-o`` wrote
through a symbolic link into its target: check, fleet, probe, report render, report diff) and
defect 11 (``watch --replay D -o D/x``, ``watch --replay D --prometheus D/x`` and ``probe --save F
-o F`` destroyed an input or an output). Every writer goes through ascend_doctor/safeio.py; the
test below runs each command once against a link planted where it writes.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path
from typing import Callable, Dict, List

import pytest

from ascend_doctor import safeio
from ascend_doctor.cli import main

from .clirunner import make_runner

REPO = Path(__file__).resolve().parent.parent
HEALTHY = REPO / "fixtures" / "healthy-8x910B3"
NODE = REPO / "fixtures" / "fleet-16" / "node01"
MODEL = REPO / "fixtures" / "w8a8-weights-ready" / "files" / "data" / "models" / "DeepSeek-R1-W8A8"
LOG_SAMPLES = REPO / "tests" / "samples" / "dmesg-and-logs"
PLANTED = REPO / "tests" / "samples" / "watch" / "planted"
NOWHERE = "http://127.0.0.1:9/"  # the discard port: a probe refused before it starts never connects
VICTIM_TEXT = "a file outside the reports folder\n"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False)


def one_error_line(result) -> str:  # type: ignore[no-untyped-def]
    lines = [line for line in result.output.splitlines() if line.startswith("ascend-doctor: error:")]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    report = folder / "report.json"
    assert invoke("check", "--from", str(HEALTHY), "--format", "json", "-o", str(report)).exit_code == 0
    log = folder / "victim.log"
    shutil.copyfile(sorted(p for p in LOG_SAMPLES.iterdir() if p.is_file())[0], log)
    model = folder / "model"
    shutil.copytree(MODEL, model)
    manifest = folder / "manifest.json"
    assert invoke("model", "manifest", str(model), "-o", str(manifest)).exit_code == 0
    return {"report": report, "log": log, "model": model, "manifest": manifest}


# Every command that writes a file, with the option that names it (the target is the last argument).
WRITERS: Dict[str, Callable[[Dict[str, Path], str], List[str]]] = {
    "check -o": lambda i, o: ["check", "--from", str(HEALTHY), "--format", "json", "-o", o],
    "fleet -o": lambda i, o: ["fleet", str(NODE), "--format", "json", "-o", o],
    "report render -o": lambda i, o: ["report", "render", str(i["report"]), "-o", o],
    "report diff -o": lambda i, o: ["report", "diff", str(i["report"]), str(i["report"]), "-o", o],
    "probe -o": lambda i, o: ["probe", NOWHERE, "--timeout", "1", "--no-progress", "-o", o],
    "probe --save": lambda i, o: ["probe", NOWHERE, "--timeout", "1", "--no-progress", "--save", o],
    "snapshot -o": lambda i, o: ["snapshot", "-o", o],
    "snapshot -o DIR/": lambda i, o: ["snapshot", "-o", o + "/"],
    "watch -o": lambda i, o: ["watch", "--replay", str(PLANTED), "--once", "-o", o],
    "watch --prometheus": lambda i, o: ["watch", "--replay", str(PLANTED), "--once", "--prometheus", o],
    "diagnose -o": lambda i, o: ["diagnose", str(i["log"]), "-o", o],
    "model inspect -o": lambda i, o: ["model", "inspect", str(i["model"]), "-o", o],
    "model manifest -o": lambda i, o: ["model", "manifest", str(i["model"]), "-o", o],
    "model verify -o": lambda i, o: ["model", "verify", str(i["model"]), str(i["manifest"]), "-o", o],
    "matrix show -o": lambda i, o: ["matrix", "show", "-o", o],
    "plan -o": lambda i, o: ["plan", "--model", "DeepSeek-R1", "--chip", "910B3", "-o", o],
    "checks -o": lambda i, o: ["checks", "-o", o],
    "explain -o": lambda i, o: ["explain", "ASC-DRV-001", "-o", o],
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_F8_no_writer_follows_a_symbolic_link(writer: str, inputs: Dict[str, Path], tmp_path: Path) -> None:
    """A link planted where the output goes (to a regular file, to a missing file, to a folder) is
    refused in one line, exit 2; the file it names and the link itself are left as they were."""
    reports, outside = tmp_path / "reports", tmp_path / "outside"
    reports.mkdir()
    outside.mkdir()
    victim = outside / "victim"
    victim.write_text(VICTIM_TEXT)
    (outside / "empty").mkdir()
    for name, target in (("to-file", victim), ("dangling", outside / "missing"), ("to-folder", outside / "empty")):
        link = reports / name
        os.symlink(target, link)
        result = invoke(*WRITERS[writer](inputs, str(link)))
        assert result.exit_code == 2, (writer, name, result.output)
        line = one_error_line(result)
        assert str(link) in line and "symbolic link" in line, line
        assert os.readlink(link) == str(target)
    assert victim.read_text() == VICTIM_TEXT
    assert sorted(p.name for p in outside.iterdir()) == ["empty", "victim"]
    assert not list((outside / "empty").iterdir())
    assert sorted(p.name for p in reports.iterdir()) == ["dangling", "to-file", "to-folder"]


def test_F8_percent_n_that_expands_to_a_link_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``check -o reports/%N.json``: the review's reproduction, a link named after this host."""
    monkeypatch.setattr(socket, "gethostname", lambda: "node07.cluster")
    victim = tmp_path / "v3"
    victim.write_text("CTRL\n")
    (tmp_path / "reports").mkdir()
    os.symlink(victim, tmp_path / "reports" / "node07.json")
    result = invoke("check", "--from", str(NODE), "--format", "json", "-o", str(tmp_path / "reports" / "%N.json"))
    assert result.exit_code == 2 and "node07.json" in one_error_line(result)
    assert victim.read_text() == "CTRL\n"
    os.unlink(tmp_path / "reports" / "node07.json")
    assert invoke("check", "--from", str(NODE), "--format", "json", "-o",
                  str(tmp_path / "reports" / "%N.json")).exit_code in (0, 1)  # node01 has findings
    assert (tmp_path / "reports" / "node07.json").is_file()


@pytest.mark.parametrize("hostname", ["a$(touch pwnHN)\nb", "x\x1b]0;T\x07", "..", "n/../../etc"])
def test_F3_percent_n_never_makes_a_file_name_of_a_hostile_host_name(
        hostname: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(socket, "gethostname", lambda: hostname)
    result = invoke("check", "--from", str(NODE), "--format", "json", "-o", str(tmp_path / "%N.json"))
    if hostname.split(".")[0] == "":
        assert result.exit_code in (0, 1) and (tmp_path / "localhost.json").is_file()
        return
    assert result.exit_code == 2, result.output
    assert "is not a host name" in result.output and "\x1b" not in result.output and "\x07" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_F11_watch_output_inside_the_replay_folder_is_refused_before_reading(tmp_path: Path) -> None:
    replay = tmp_path / "rp"
    shutil.copytree(PLANTED, replay)
    before = {p.name: p.read_bytes() for p in replay.iterdir()}
    for option in ("-o", "--prometheus"):
        for name in ("0002.txt", "new.txt"):
            result = invoke("watch", "--replay", str(replay), "--interval", "300", option, str(replay / name))
            assert result.exit_code == 2, result.output
            assert "inside the input folder" in one_error_line(result)
    assert {p.name: p.read_bytes() for p in replay.iterdir()} == before
    both = invoke("watch", "--replay", str(PLANTED), "--once", "-o", str(tmp_path / "same"),
                  "--prometheus", str(tmp_path / "same"))
    assert both.exit_code == 2 and "same file" in one_error_line(both)
    assert not (tmp_path / "same").exists()


def test_F11_probe_save_and_output_naming_one_file_are_refused(tmp_path: Path) -> None:
    same = tmp_path / "same.json"
    result = invoke("probe", NOWHERE, "--no-progress", "--save", str(same), "-o", str(same))
    assert result.exit_code == 2 and "same file" in one_error_line(result)
    assert not same.exists()
    same.write_text("{}")  # existing, and through another name (a hard link)
    os.link(same, tmp_path / "alias.json")
    result = invoke("probe", NOWHERE, "--no-progress", "--save", str(same), "-o", str(tmp_path / "alias.json"))
    assert result.exit_code == 2 and same.read_text() == "{}"


def test_F11_report_diff_output_over_an_input_is_refused_before_reading(inputs: Dict[str, Path],
                                                                        tmp_path: Path) -> None:
    old = tmp_path / "a.json"
    shutil.copyfile(inputs["report"], old)
    before = old.read_bytes()
    result = invoke("report", "diff", str(old), str(inputs["report"]), "-o", str(old))
    assert result.exit_code == 2 and "is the input" in one_error_line(result)
    assert old.read_bytes() == before


def test_watch_stream_refuses_a_file_with_other_hard_links(tmp_path: Path) -> None:
    """``watch -o`` empties its file before streaming: a second name of that file would be emptied too."""
    other = tmp_path / "other.txt"
    other.write_text("keep me\n")
    os.link(other, tmp_path / "alias.txt")
    result = invoke("watch", "--replay", str(PLANTED), "--once", "-o", str(tmp_path / "alias.txt"))
    assert result.exit_code == 2 and "hard links" in one_error_line(result)
    assert other.read_text() == "keep me\n"


def test_atomic_output_replaces_a_link_swapped_in_during_the_write_not_its_target(tmp_path: Path) -> None:
    """The final rename replaces the name: a link put there while the result was written is
    refused, and the file it names is never touched."""
    victim = tmp_path / "victim"
    victim.write_text(VICTIM_TEXT)
    target = tmp_path / "out.json"
    with pytest.raises(safeio.OutputRefused), safeio.atomic_output(str(target)) as fh:
        fh.write(b"new")
        os.symlink(victim, target)
    assert victim.read_text() == VICTIM_TEXT and os.path.islink(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "victim"]  # no temporary file left


def test_prometheus_file_is_written_without_temporary_files(tmp_path: Path) -> None:
    prom = tmp_path / "ascend.prom"
    result = invoke("watch", "--replay", str(PLANTED), "--once", "--prometheus", str(prom))
    assert result.exit_code in (0, 1), result.output
    assert "ascend_npu" in prom.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["ascend.prom"]
