"""The serving stack's own pairings (issue 26 item 6): plugin wheels against the CANN in use
(ASC-ENG-005), vLLM-Ascend built from a commit (ASC-ENG-002), and the matrix sections behind them.

Machines are the committed fixtures (built by fixtures/build_serving_scenarios.py from the samples in
tests/samples/plugin-wheels/, each with its source header), copied to a temporary folder and given
other installed versions where a case needs it.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ascend_doctor.checkapi import Status
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.matrix import load_matrix
from ascend_doctor.matrix.loader import load_document
from ascend_doctor.options import RunOptions
from ascend_doctor.parsers.vllm_build_info import scm_commit
from ascend_doctor.runner import run_checks
from ascend_doctor.shellcmd import words

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SAMPLES = ROOT / "tests" / "samples" / "plugin-wheels"


def body(name: str) -> List[str]:
    """A sample's lines after its '# ---' header."""
    lines = (SAMPLES / name).read_text(encoding="utf-8").splitlines()
    return lines[lines.index("# ---") + 1:]


def collect_env(name: str) -> Dict[str, str]:
    keys = {"vLLM Version": "vllm", "vLLM Ascend Version": "vllm-ascend"}
    out = {}
    for line in body(name):
        key, _, value = line.partition(": ")
        if key in keys:
            out[keys[key]] = value.split()[0]
    return out


DEEP_EP = body("sgl-kernel-npu-178-deep_ep-wheel-cann8.2.rc1.txt")[0].split("-")[1]


def machine(tmp_path: Path, fixture: str, packages: Dict[str, str]) -> Path:
    dest = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, dest, symlinks=True)
    python = json.loads((dest / "python.json").read_text(encoding="utf-8"))
    python["packages"] = packages
    (dest / "python.json").write_text(json.dumps(python), encoding="utf-8")
    return dest


def results(path: Path, check: str) -> List[Any]:
    report = run_checks(SnapshotHost(str(path)), load_matrix(), RunOptions(select=(check,)))
    return [r for r in report.results if r.id == check]


# -- how the installed versions record their builds ---------------------------------------------
def test_deep_ep_version_names_its_cann() -> None:
    from checks.eng_005_plugin_wheels_match_cann import built_cann

    assert DEEP_EP == "1.0.0+0614abe7.cann.8.2.rc1.b231"
    assert built_cann(DEEP_EP) == "8.2.RC1"
    # the wheel names of a later build (innerversion dropped, a release without RC)
    assert built_cann("1.0.0+0ff3be00.cann.8.5.0.b232") == "8.5.0"
    # built before sgl-kernel-npu#178 added the CANN: the git commit only
    assert built_cann("1.0.0+aae2a1ad") is None
    assert built_cann("1.0.0") is None
    assert built_cann("1.0.0+x.cann") is None


@pytest.mark.parametrize("sample, ascend_commit, vllm_commit", [
    ("vllm-ascend-4989-collect_env-main-build.txt", "358194625", None),
    ("vllm-ascend-3906-collect_env-dirty-main-build.txt", "0740d1021", None),
    ("vllm-ascend-1144-collect_env-vllm-dev-build.txt", None, "ed6e907"),
])
def test_scm_commit_of_real_versions(sample: str, ascend_commit: Any, vllm_commit: Any) -> None:
    versions = collect_env(sample)
    assert scm_commit(versions["vllm-ascend"]) == ascend_commit
    assert scm_commit(versions["vllm"]) == vllm_commit


def test_scm_commit_refuses_what_is_not_a_commit() -> None:
    for text in ("", "2.5.1+cpu", "0.9.1+empty", "1.0.0+0614abe7.cann.8.2.rc1.b231", "1+g" + "a" * 200, "+gzz12345"):
        assert scm_commit(text) is None


# -- ASC-ENG-005 -----------------------------------------------------------------------------------
def test_deep_ep_on_another_cann_fails_with_a_rebuild() -> None:
    found = results(FIXTURES / "deep-ep-built-for-other-cann", "ASC-ENG-005")
    by_scope = {r.scope: r for r in found}
    assert by_scope["deep-ep"].status is Status.FAIL
    assert by_scope["deep-ep"].evidence["built_for_cann"] == "8.2.RC1"
    assert by_scope["deep-ep"].evidence["cann"] == "8.1.RC1"
    assert "https://github.com/sgl-project/sgl-kernel-npu/issues/179" in by_scope["deep-ep"].message
    commands = [c for a in by_scope["deep-ep"].actions for c in a.commands]
    assert list(words(commands[3].split("  #")[0])) == ["bash", "build.sh", "-a", "deepep2"]  # A2 chips
    assert by_scope["mindie-turbo"].status is Status.PASS  # 2.0rc1 is the 0.7.3 row's, on CANN 8.1.RC1


def test_deep_ep_on_its_cann_passes() -> None:
    assert [r.status for r in results(FIXTURES / "deep-ep-built-for-this-cann", "ASC-ENG-005")] == [Status.PASS]


def test_deep_ep_without_a_cann_tag_warns(tmp_path: Path) -> None:
    path = machine(tmp_path, "deep-ep-built-for-this-cann", {"deep-ep": "1.0.0+aae2a1ad"})
    assert [r.status for r in results(path, "ASC-ENG-005")] == [Status.WARN]


def test_mindie_turbo_of_another_cann_fails(tmp_path: Path) -> None:
    # MindIE Turbo 2.3.0 is CANN 8.5.0 and vLLM-Ascend 0.11.0's; this machine runs CANN 8.1.RC1 and 0.7.3
    path = machine(tmp_path, "deep-ep-built-for-other-cann", {"vllm": "0.7.3", "vllm-ascend": "0.7.3",
                                                              "mindie-turbo": "2.3.0"})
    found = results(path, "ASC-ENG-005")
    assert [r.status for r in found] == [Status.FAIL]
    assert found[0].evidence["wants_cann"] == "8.5.0"
    assert "mindie-turbo-0005.html" in found[0].message
    assert any("pip uninstall -y mindie-turbo" in c for a in found[0].actions for c in a.commands)


def test_mindie_turbo_spellings_name_one_release(tmp_path: Path) -> None:
    path = machine(tmp_path, "deep-ep-built-for-other-cann", {"vllm-ascend": "0.7.3", "mindie-turbo": "2.0.RC1"})
    assert [r.status for r in results(path, "ASC-ENG-005")] == [Status.PASS]


def test_unknown_mindie_turbo_warns(tmp_path: Path) -> None:
    path = machine(tmp_path, "deep-ep-built-for-other-cann", {"mindie-turbo": "9.9.0"})
    assert [r.status for r in results(path, "ASC-ENG-005")] == [Status.WARN]


def test_no_plugin_is_not_applicable(tmp_path: Path) -> None:
    path = machine(tmp_path, "deep-ep-built-for-this-cann", {"vllm": "0.9.1", "vllm-ascend": "0.9.1"})
    assert [r.status for r in results(path, "ASC-ENG-005")] == [Status.SKIP]


# -- ASC-ENG-002 on a build of a vllm-ascend commit -----------------------------------------------
def test_vllm_ascend_main_build_names_its_commit() -> None:
    found = results(FIXTURES / "vllm-ascend-main-build", "ASC-ENG-002")
    warn = [r for r in found if r.status is Status.WARN]
    assert len(warn) == 1 and warn[0].evidence["vllm_ascend_commit"] == "358194625"
    assert warn[0].evidence["verified_commit_at"] == (
        "https://github.com/vllm-project/vllm-ascend/blob/358194625/.github/vllm-main-verified.commit")
    assert "issues/11996" in warn[0].message
    commands = [c for a in warn[0].actions for c in a.commands]
    assert "git checkout '<commit>'" in commands[1]


def test_vllm_dev_build_under_a_release_still_fails(tmp_path: Path) -> None:
    versions = collect_env("vllm-ascend-1144-collect_env-vllm-dev-build.txt")
    path = machine(tmp_path, "deep-ep-built-for-other-cann", versions)
    found = {r.scope: r for r in results(path, "ASC-ENG-002")}
    assert found["vLLM-Ascend vllm"].status is Status.FAIL  # 0.7.3.post1 is the plugin for vLLM 0.7.3


# -- matrix sections ------------------------------------------------------------------------------
def test_shipped_plugin_rows_parse_their_own_example() -> None:
    from checks.eng_005_plugin_wheels_match_cann import built_cann

    m = load_matrix()
    assert {r.dist for r in m.plugin_wheels} == {"deep-ep"}
    assert all(built_cann(r.example) for r in m.plugin_wheels)
    assert {r.version: r.cann for r in m.mindie_turbo} == {"2.3.0": "8.5.0", "2.2.RC1": "8.3.RC2", "2.0rc1": "8.1.RC1"}


MINIMAL = """\
schema_version: 1
version: "2026.1.1"
date: "2026-01-01"
hdk_releases: [{version: "24.1.RC2", source: "https://example.invalid/hdk"}]
cann_releases: [{version: "8.5.0", source: "https://example.invalid/cann"}]
hdk_cann: [{cann: "8.5.0", hdk: ["24.1.RC2"], verdict: recommended, origin: quick_install, source: "https://example.invalid/qi"}]
torch_npu: [{version: "2.1.0.post8", torch: "2.1.0", cann: "8.5.0", status: historical, origin: table, source: "https://example.invalid/x"}]
torch_python: [{torch: "2.1.0", python: ">=3.8,<3.12", source: "https://example.invalid/x"}]
vllm_ascend: []
mindie: []
chip_families: []
chips: []
"""


@pytest.mark.parametrize("section, problem", [
    ('plugin_wheels: [{dist: "deep-ep", records: cann_local_tag, example: "1.0.0+0614abe7.cann.8.2.rc1.b231"}]',
     "plugin_wheels[0].source: missing required key"),
    ('plugin_wheels: [{dist: "deep-ep", records: guessed, example: "1.0.0", source: "https://example.invalid/x"}]',
     "plugin_wheels[0].records"),
    ('mindie_turbo: [{version: "2.3.0", cann: "8.5.0"}]', "mindie_turbo[0].source: missing required key"),
    ('mindie_turbo: [{version: "2.3.0", cann: "7.0.0", source: "https://example.invalid/x"}]', "mindie_turbo[0].cann"),
])
def test_plugin_sections_are_validated(tmp_path: Path, section: str, problem: str) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(textwrap.dedent(MINIMAL) + section + "\n", encoding="utf-8")
    problems = [str(p) for p in load_document(str(path)).problems]
    assert any(problem in p for p in problems), problems


# -- ASC-ENG-006: TorchAir graph mode against the installed release --------------------------------
CONFIGS = ROOT / "tests" / "samples" / "serving-configs"


def launch_line(name: str) -> str:
    lines = (CONFIGS / name).read_text(encoding="utf-8").splitlines()
    kept = [x.rstrip().rstrip("\\").strip() for x in lines[lines.index("# ---") + 1:]]
    return " ".join(x for x in kept if x)


def test_torchair_setting_is_read_from_real_launch_lines() -> None:
    from ascend_doctor.parsers.serving_config import parse_vllm_args, torchair_graph

    on = parse_vllm_args(launch_line("vllm-ascend-3534-deepseek-v3-torchair-node0-serve.txt"))
    off = parse_vllm_args(launch_line("vllm-ascend-doc-deepseek-r1-w8a8-a3-serve.txt"))
    assert [m.torchair_graph for m in on.models] == [True]
    assert [m.torchair_graph for m in off.models] == [False]
    for bad in ("{not json", "[]", '{"torchair_graph_config": true}', '{"torchair_graph_config": {"enabled": "yes"}}',
                "[" * 5000):
        assert torchair_graph(bad) is None


def graph_results(fixture: str, line: str) -> List[Any]:
    report = run_checks(SnapshotHost(str(FIXTURES / fixture)), load_matrix(),
                        RunOptions(select=("ASC-ENG-006",), vllm_args=line))
    return [r for r in report.results if r.id == "ASC-ENG-006"]


@pytest.mark.parametrize("fixture, sample, status", [
    ("torchair-graph-on-0.11", "vllm-ascend-3534-deepseek-v3-torchair-node0-serve.txt", Status.PASS),
    ("torchair-graph-on-0.13", "vllm-ascend-3534-deepseek-v3-torchair-node0-serve.txt", Status.WARN),
    # the vLLM-Ascend DeepSeek-R1 tutorial's A3 line turns TorchAir off: nothing to warn about on 0.13
    ("torchair-graph-on-0.13", "vllm-ascend-doc-deepseek-r1-w8a8-a3-serve.txt", Status.PASS),
])
def test_torchair_graph_mode_against_the_release(fixture: str, sample: str, status: Status) -> None:
    found = graph_results(fixture, launch_line(sample))
    assert [r.status for r in found] == [status]
    if status is Status.WARN:
        assert "graph_mode.html" in found[0].message and "torchair_graph_config" in found[0].remediation
