"""`ascend-doctor fleet`: node reports and snapshots merged into one verdict, drift named with its fix,
unreadable nodes as their own line, every format, bounded inputs."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ascend_doctor.fleet import drift
from ascend_doctor.fleet.digest import NodeReportError, digest_report
from ascend_doctor.fleet.facts import FleetFacts
from ascend_doctor.fleet.inputs import REPORT, SNAPSHOT, UNUSABLE, collect_inputs
from ascend_doctor.fleet.merge import read_report_node

from .fleet_util import findings, fleet_json, invoke, node_report, set_driver, set_package, write_nodes
from .render_util import FIXTURES, ROOT

FLEET_SCHEMA = ROOT / "docs" / "fleet-report-schema.json"


def healthy_fleet(folder: Path, count: int = 4, **changes: Any) -> Path:
    reports = [node_report(f"node{i:02d}", change=changes.get(f"node{i:02d}")) for i in range(1, count + 1)]
    write_nodes(folder, reports)
    return folder


# -- the merge ----------------------------------------------------------------------------------------


def test_majority_and_tie() -> None:
    assert drift.majority([("a", "1"), ("b", "1"), ("c", "2")]) == ("1", {"1": ["a", "b"], "2": ["c"]})
    majority, groups = drift.majority([("a", "1"), ("b", "2")])
    assert majority is None and groups == {"1": ["a"], "2": ["b"]}


def test_identical_healthy_nodes_are_ready(tmp_path: Path) -> None:
    data = fleet_json(str(healthy_fleet(tmp_path / "reports")))
    assert data["_exit"] == 0
    assert data["host"]["source"] == "fleet" and data["host"]["hostname"] == "4 nodes"
    assert findings(data) == []
    assert [n["name"] for n in data["facts"]["nodes"]] == ["node01", "node02", "node03", "node04"]
    assert {n["verdict"] for n in data["facts"]["nodes"]} == {"READY"}
    driver = next(d for d in data["facts"]["drift"] if d["fact"] == "driver")
    assert driver["majority"] == "23.0.7" and driver["agree"] == 4


def test_older_driver_is_named_with_the_hdk_files(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 5, node03=set_driver("23.0.3"))
    data = fleet_json(str(folder))
    assert data["_exit"] == 1
    (driver,) = findings(data, "ASC-FLT-004")
    assert driver["scope"] == "driver" and driver["status"] == "FAIL"
    assert "4 nodes on 23.0.7; node03 on 23.0.3" in driver["message"]
    # The matrix's file name for the fleet's family (A2, 910b) and architecture, upgrade order, one reboot.
    assert "./Ascend-hdk-910b-npu-driver_23.0.7_linux-aarch64.run" in driver["remediation"]
    assert driver["remediation"].rstrip().endswith("reboot")
    step = next(s for s in data["fix_plan"] if "ASC-FLT-004 [driver]" in s["fixes"])
    # The firmware is the fleet's already: the driver alone, then one reboot.
    assert step["summary"].startswith("On node03: install driver 23.0.7") and step["where"] == "host"
    assert "firmware" not in "".join(step["commands"])
    assert [f["id"] for f in findings(data)] == ["ASC-FLT-004"]  # nothing else differs


def test_torch_npu_missing_on_one_node(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 3, node02=set_package("torch-npu", None))
    data = fleet_json(str(folder))
    (result,) = [r for r in findings(data, "ASC-FLT-006")]
    assert result["scope"] == "torch_npu" and "node02 on not installed" in result["message"]
    assert "pip install torch==2.4.0 torch-npu==2.4.0.post2" in result["remediation"]


def test_tie_proposes_the_newest(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 2, node02=set_driver("23.0.3"))
    (driver,) = findings(fleet_json(str(folder)), "ASC-FLT-004")
    assert "no value has a majority" in driver["message"]
    assert "# on node02" in driver["remediation"] and "driver_23.0.7_" in driver["remediation"]


def test_unreadable_report_is_its_own_node_and_makes_it_incomplete(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 2)
    (folder / "node03.json").write_text('{"schema_version": 2, "tool": {"name": "ascend-doctor"', encoding="utf-8")
    data = fleet_json(str(folder))
    assert data["_exit"] == 3
    (error,) = findings(data)
    assert error["id"] == "ASC-FLT-001" and error["status"] == "ERROR" and error["scope"] == "node node03.json"
    assert "is not JSON" in error["message"] and "\n" not in error["message"]
    node = data["facts"]["nodes"][-1]
    assert node["verdict"] == "UNREADABLE" and node["kind"] == "report"


def test_a_failing_node_outranks_an_unreadable_one(tmp_path: Path) -> None:
    reports = [node_report("good"), node_report("bad", "cann-newer-than-driver")]
    folder = tmp_path / "r"
    write_nodes(folder, reports)
    (folder / "empty.json").write_text("", encoding="utf-8")
    data = fleet_json(str(folder))
    assert data["_exit"] == 1  # a FAIL somewhere: exit 1, as `check` gives it with an ERROR beside a FAIL
    bad = next(r for r in findings(data, "ASC-FLT-001") if r["scope"] == "node bad")
    assert bad["status"] == "FAIL" and bad["evidence"]["worst"]["status"] == "FAIL"
    assert "ascend-doctor report render" in bad["remediation"]


def test_warn_only_node_passes_unless_fail_on_warn(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    write_nodes(folder, [node_report("a"), node_report("b", "torch-npu-other-cann")])
    assert invoke("fleet", str(folder), "--select", "ASC-FLT-001").exit_code == 0
    assert invoke("fleet", str(folder), "--select", "ASC-FLT-001", "--fail-on", "warn").exit_code == 1


def test_snapshots_are_graded_like_check_from(tmp_path: Path) -> None:
    report = fleet_json(str(FIXTURES / "healthy-8x910B3"), str(FIXTURES / "driver-firmware-out-of-range"))
    nodes = {n["name"]: n for n in report["facts"]["nodes"]}
    assert nodes["healthy-8x910B3"]["kind"] == "snapshot" and nodes["healthy-8x910B3"]["verdict"] == "READY"
    bad = nodes["driver-firmware-out-of-range"]
    assert bad["verdict"] == "NOT READY" and bad["worst"]["id"] == "ASC-FW-002"
    (firmware,) = findings(report, "ASC-FLT-004")
    assert firmware["scope"] == "firmware" and "no value has a majority" in firmware["message"]


def test_duplicate_host_names_are_named(tmp_path: Path) -> None:
    write_nodes(tmp_path / "a", [node_report("node01")])
    write_nodes(tmp_path / "b", [node_report("node01")])
    data = fleet_json(str(tmp_path / "a"), str(tmp_path / "b"))
    (dup,) = findings(data, "ASC-FLT-002")
    assert dup["status"] == "WARN" and "node01" in dup["message"]
    assert [n["name"] for n in data["facts"]["nodes"]] == ["node01", "node01 (node01.json)"]


# -- inputs -------------------------------------------------------------------------------------------


def test_inputs_folder_reports_snapshots_and_leftovers(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 2)
    (folder / "notes.txt").write_text("hello", encoding="utf-8")
    (folder / ".hidden.json").write_text("{}", encoding="utf-8")
    (folder / "archive.tar.gz").write_bytes(b"\x1f\x8b")
    sub = folder / "rack2"
    sub.mkdir()
    (sub / "node09.json").write_text("{}", encoding="utf-8")
    found = collect_inputs([str(folder), str(FIXTURES / "healthy-8x910B3"), str(tmp_path / "missing.json")])
    kinds = [(Path(n.path).name, n.kind) for n in found.nodes]
    assert kinds == [("archive.tar.gz", SNAPSHOT), ("node01.json", REPORT), ("node02.json", REPORT),
                     ("node09.json", REPORT), ("healthy-8x910B3", SNAPSHOT), ("missing.json", UNUSABLE)]
    assert found.skipped == [str(folder / "notes.txt")]


def test_nothing_to_merge_is_one_line_exit_3(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = invoke("fleet", str(tmp_path / "empty"))
    assert result.exit_code == 3 and result.stdout == ""
    assert result.stderr.startswith("ascend-doctor: error: no node report") and result.stderr.count("\n") == 1


@pytest.mark.parametrize("content, words", [
    (b"", "is empty"),
    (b"\x1f\x8b\x08\x00", "gzip file"),
    (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    (b'{"tool": {"name": "other"}}', "not an ascend-doctor report"),
    (b'{"schema_version": 99, "tool": {"name": "ascend-doctor"}}', "newer than this ascend-doctor"),
    (b'{"schema_version": 2, "tool": {"name": "ascend-doctor"}, "host": {"source": "endpoint"}, "results": []}',
     "a probe report"),
    (b'{"schema_version": 2, "tool": {"name": "ascend-doctor"}, "host": {}, "results": [{"status": "MAYBE"}]}',
     "results[0].status"),
    (b"\xff\xfe not text", "not UTF-8"),
])
def test_hostile_node_reports_are_one_line(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    node = read_report_node(str(path))
    assert not node.readable and words in node.error and "\n" not in node.error


def test_fifo_and_oversized_reports_are_refused_without_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    node = read_report_node(str(fifo))  # must not block
    assert "not a regular file" in node.error and "FIFO" in node.error
    import ascend_doctor.fleet.merge as merge

    monkeypatch.setattr(merge, "MAX_NODE_REPORT_BYTES", 100)
    big = tmp_path / "big.json"
    big.write_text(json.dumps(node_report("x")), encoding="utf-8")
    assert "larger than" in read_report_node(str(big)).error


def test_too_many_arrays_are_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The brackets are counted only in a file large enough to hold more than the limit (two bytes each,
    "[]"): a real report (80 KB, under 2 x 200,000 bytes) is parsed without the count."""
    import ascend_doctor.fleet.merge as merge

    monkeypatch.setattr(merge, "MAX_REPORT_CONTAINERS", 100)
    crowded = tmp_path / "crowded.json"
    crowded.write_bytes(b"[" + b"[]," * 150 + b"[]]")
    assert "holds about 152 arrays/objects" in read_report_node(str(crowded)).error
    sparse = tmp_path / "sparse.json"
    sparse.write_bytes(b"[" + b"[]," * 98 + b"[]]")  # 100 containers in 298 bytes: counted, within the limit
    assert "not an ascend-doctor report" in read_report_node(str(sparse)).error


def test_digest_keeps_only_what_the_merge_needs() -> None:
    data = node_report("node07")
    node = digest_report(data, "node07.json", REPORT)
    assert node.name == "node07" and node.exit_code == 0 and node.devices == 8 and node.health == "OK"
    assert node.values["driver"] == "23.0.7" and node.values["cann"] == "8.0.0"
    assert node.values["package:torch-npu"] == "2.4.0.post2" and node.values["package:vllm"] == drift.NOT_INSTALLED
    with pytest.raises(NodeReportError, match="a fleet report"):
        digest_report({**data, "host": {"source": "fleet"}}, "f.json", REPORT)


# -- command line, formats ------------------------------------------------------------------------------


def test_output_inside_an_input_folder_is_refused(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 2)
    result = invoke("fleet", str(folder), "--format", "json", "-o", str(folder / "fleet.json"))
    assert result.exit_code == 2 and not (folder / "fleet.json").exists()


def test_select_typo_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("fleet", str(healthy_fleet(tmp_path / "r", 2)), "--select", "ASC-FLT-9")
    assert result.exit_code == 2 and "matches no fleet check" in result.stderr


def test_every_format(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 3, node02=set_driver("23.0.3"))
    text = invoke("fleet", str(folder))
    assert text.exit_code == 1 and "node02 on 23.0.3" in text.stdout and "Fix plan" in text.stdout
    # The node table: every node, the fact it differs in, its worst finding.
    table = text.stdout.split("Nodes (3)\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert table[0].split() == ["Node", "Devices", "Health", "Verdict", "Differs", "from", "the", "fleet", "in",
                                "Worst", "finding"]
    assert [row.split()[:5] for row in table[1:]] == [["node01", "8", "OK", "READY", "-"],
                                                      ["node02", "8", "OK", "READY", "driver"],
                                                      ["node03", "8", "OK", "READY", "-"]]
    markdown = invoke("fleet", str(folder), "--format", "markdown")
    assert "ASC-FLT-004" in markdown.stdout and "Ascend-hdk-910b-npu-driver_23.0.7" in markdown.stdout
    assert "| node02 | 8 | OK | READY | driver | - |" in markdown.stdout
    chinese = invoke("fleet", str(folder), "--lang", "zh")
    assert "节点（3）" in chinese.stdout and "集群" in chinese.stdout
    junit = invoke("fleet", str(folder), "--format", "junit")
    suite = ET.fromstring(junit.stdout)
    failures = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert any("ASC-FLT-004" in (name or "") for name in failures)
    html = invoke("fleet", str(folder), "--format", "html")
    assert html.stdout.startswith("<!DOCTYPE html>") and '<section id="nodes">' in html.stdout
    assert "<td>node02</td>" in html.stdout and "<td>driver</td>" in html.stdout


def test_saved_fleet_report_renders_again(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 3, node02=set_driver("23.0.3"))
    out = tmp_path / "fleet.json"
    assert invoke("fleet", str(folder), "--format", "json", "-o", str(out)).exit_code == 1
    again = invoke("report", "render", str(out), "--format", "markdown")
    assert again.exit_code == 0 and "ASC-FLT-004" in again.stdout


def test_explain_knows_the_fleet_checks() -> None:
    result = invoke("explain", "ASC-FLT-004")
    assert result.exit_code == 0 and "HDK" in result.stdout


def test_redact_hides_host_names(tmp_path: Path) -> None:
    folder = healthy_fleet(tmp_path / "r", 3, node02=set_driver("23.0.3"))
    result = invoke("fleet", str(folder), "--format", "json", "--redact")
    assert "node02" not in result.stdout


def test_fleet_schema_shares_the_report_definitions() -> None:
    fleet = json.loads(FLEET_SCHEMA.read_text(encoding="utf-8"))
    report = json.loads((ROOT / "docs" / "report-schema.json").read_text(encoding="utf-8"))
    for name in ("result", "action", "fix_step"):
        assert fleet["$defs"][name] == report["$defs"][name], name
    for key in ("tool", "summary", "results", "fix_plan", "exit_code", "notes"):
        assert fleet["properties"][key] == report["properties"][key], key


def test_rank_table_entries_are_kept_once_per_table() -> None:
    from ascend_doctor.fleet.digest import NodeDigest
    from ascend_doctor.fleet.network import NodeNetwork, RankTableView, TableEntry

    facts = FleetFacts()
    raw = [{"path": f"server_list[0].device[{i}].device_ip", "server_id": "s", "device_id": str(i),
            "device_ip": f"10.0.0.{i}"} for i in range(8)]
    for index in range(3):
        facts.add(NodeDigest(name=f"n{index}", source="x", kind=REPORT, exit_code=0,
                             net=NodeNetwork((), RankTableView("abc", "/r.json", None, list(raw)))))
    assert facts.tables == {"abc": tuple(TableEntry(r["path"], "s", r["device_id"], r["device_ip"]) for r in raw)}
    assert all(n.net is not None and n.net.rank_table is not None and n.net.rank_table.raw_entries is None
               for n in facts.nodes)


def test_many_nodes_stay_fast(tmp_path: Path) -> None:
    """200 reports (the benchmark merges 1,000): no quadratic step in the merge."""
    import time

    folder = tmp_path / "r"
    write_nodes(folder, [node_report(f"n{i:04d}", change=set_driver("23.0.3") if i == 7 else None)
                         for i in range(200)])
    started = time.monotonic()
    data = fleet_json(str(folder))
    assert time.monotonic() - started < 10
    (driver,) = findings(data, "ASC-FLT-004")
    assert "n0007 on 23.0.3" in driver["message"] and "199 nodes on 23.0.7" in driver["message"]


def test_model_manifest_digest_drift(tmp_path: Path) -> None:
    """`check --model DIR --verify MANIFEST` records what the manifest says the weights are; two nodes
    verified against different manifests differ (ASC-FLT-010), whatever the manifests' formats."""
    import shutil

    source = FIXTURES / "w8a8-weights-ready" / "files" / "data" / "models" / "DeepSeek-R1-W8A8"
    model = tmp_path / "mdl"
    shutil.copytree(source, model)
    manifests = tmp_path / "m"
    manifests.mkdir()
    assert invoke("model", "manifest", str(model), "-o", str(manifests / "a.json")).exit_code == 0
    assert invoke("model", "manifest", str(model), "--sha256sum", "-o", str(manifests / "SHA256SUMS")).exit_code == 0
    digests = []
    for manifest in ("a.json", "SHA256SUMS"):
        result = invoke("check", "--model", str(model), "--verify", str(manifests / manifest), "--select",
                        "ASC-MDL-013", "--format", "json")
        digests.append(json.loads(result.stdout)["facts"]["model_manifest"]["digest"])
    assert digests[0] == digests[1] and len(digests[0]) == 64  # one set of weights, two file formats

    def manifest(digest: str) -> Any:
        return lambda data: data["facts"].__setitem__("model_manifest", {"digest": digest})

    folder = tmp_path / "r"
    write_nodes(folder, [node_report("a", change=manifest(digests[0])), node_report("b", change=manifest(digests[0])),
                         node_report("c", change=manifest("0" * 64))])
    (result,) = findings(fleet_json(str(folder)), "ASC-FLT-010")
    assert result["status"] == "FAIL" and "c on 0000" in result["message"]


def test_snapshot_archives_are_graded_too(tmp_path: Path) -> None:
    import tarfile

    archive = tmp_path / "node07.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(FIXTURES / "healthy-8x910B3", arcname="node07")
    broken = tmp_path / "node08.tar.gz"
    broken.write_bytes(b"\x1f\x8b\x08\x00 not really gzip")
    data = fleet_json(str(archive), str(broken), str(FIXTURES / "healthy-8x910B3"))
    nodes = data["facts"]["nodes"]
    assert [(n["kind"], n["verdict"]) for n in nodes] == [("snapshot", "READY"), ("snapshot", "UNREADABLE"),
                                                          ("snapshot", "READY")]
    assert "cannot read snapshot" in nodes[1]["error"] and data["_exit"] == 3
