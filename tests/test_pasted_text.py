"""`check --from-text`: what tickets paste becomes a partial snapshot, graded without false FAILs.

Every file of tests/samples/collect-env/ is read with the values written below by hand from the
file itself (versions, chips, devices, packages, environment, OS/kernel).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import absent_phrase, origin_kind
from ascend_doctor.host.pasted import open_pasted_text, write_pasted_snapshot
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.parsers import pasted as P

from .samples_util import SAMPLES


def body(rel: str) -> str:
    """Everything after the sample's `# ---` header line, prompts and all (as a ticket has it)."""
    lines = (SAMPLES / rel).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[lines.index("# ---") + 1:]) + "\n"


# Written by hand from each file (see the file for every value).
COLLECT_ENV: Dict[str, Dict[str, Any]] = {
    "llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt": dict(
        kinds=[P.KIND_LLAMAFACTORY], npu_type="Ascend910B1", chips=[], npu_ids=[], cann="8.3.RC1",
        python="3.11.13", packages={"torch": "2.7.1+cpu", "transformers": "4.57.1", "peft": "0.17.1",
                                    "llamafactory": "0.9.4.dev0"},
        absent=["torch_npu", "vllm"], env={}, os="Huawei Cloud EulerOS 2.0",
        kernel="5.10.0-60.18.0.50.r865_35.hce2.aarch64", arch="aarch64", cpus=None, smi=None),
    "llamafactory-tutorial-env-910B2-cann8.2.RC1.txt": dict(
        kinds=[P.KIND_LLAMAFACTORY], npu_type="Ascend910B2", chips=[], npu_ids=[], cann="8.2.RC1",
        python="3.11.14", packages={"torch": "2.7.1+cpu", "transformers": "4.57.1", "deepspeed": "0.16.9",
                                    "peft": "0.17.1", "llamafactory": "0.9.5.dev0"},
        absent=["torch_npu", "vllm"], env={}, os=None, kernel="4.19.90-2107.6.0.0192.8.oe1.bclinux.aarch64",
        arch="aarch64", cpus=None, smi=None),
    "vllm-3526-kylin-collapsed-localized-lscpu.txt": dict(
        kinds=[P.KIND_COLLECT_ENV], npu_type=None, chips=[], npu_ids=[], cann=None, python="3.8.18",
        packages={"torch": "2.1.0"}, absent=["torch_npu"], env={}, os="Kylin Linux Advanced Server V10 (Sword)",
        kernel="4.19.90-24.4.v2101.ky10.aarch64", arch="aarch64", cpus=None, smi=None),
    "vllm-ascend-198-collect_env-vllm0.7.1-torchnpu2.5.1.txt": dict(
        kinds=[P.KIND_COLLECT_ENV], npu_type=None, chips=[], npu_ids=[], cann=None, python="3.10.15",
        packages={"torch": "2.5.1", "torch-npu": "2.5.1.dev20250218", "transformers": "4.49.0", "vllm": "0.7.1",
                  "numpy": "1.26.4"},
        absent=["vllm-ascend"], env={"NCCL_CUMEM_ENABLE": "0", "TORCHINDUCTOR_COMPILE_THREADS": "1"},
        os="Ubuntu 22.04.5 LTS", kernel="5.10.0-60.139.0.166.oe2203.aarch64", arch="aarch64", cpus=192, smi=None),
    "vllm-ascend-3002-A3-kunpeng5250Y-ubuntu24-torchnpu-dev-cann8.3.RC1-B085.txt": dict(
        kinds=[P.KIND_COLLECT_ENV], npu_type=None, chips=["Ascend910"] * 16, npu_ids=list(range(8)),
        cann="8.3.RC1", python="3.11.13",
        packages={"torch": "2.7.1+cpu", "torch_npu": "2.7.1.dev20250911", "transformers": "4.56.1",
                  "vllm": "0.10.2rc3.dev14+g72fc8aa41", "vllm_ascend": "0.10.2rc2.dev13+g99210941a.d20250916"},
        absent=[], env={"ASCEND_HOME_PATH": "/usr/local/Ascend/ascend-toolkit/latest", "ATB_RUNNER_POOL_SIZE": "64"},
        os="Ubuntu 24.04.1 LTS", kernel="5.10.0-281.0.0.184.oe2203sp4.aarch64", arch="aarch64", cpus=384,
        smi="25.2.0"),
    "vllm-ascend-4148-300IDuo-openEuler-kernel-docker-cann8.3.RC1.txt": dict(
        kinds=[P.KIND_COLLECT_ENV], npu_type=None, chips=["310P3"] * 4, npu_ids=[64, 32832], cann="8.3.RC1",
        python="3.11.13", packages={"torch": "2.7.1+cpu", "torch_npu": "2.7.1", "vllm": "0.11.0",
                                    "vllm_ascend": "0.11.0rc1", "transformers": "4.57.1"},
        absent=[], env={"ASCEND_VISIBLE_DEVICES": "0-3", "PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:256"},
        os="Ubuntu 22.04.5 LTS", kernel="5.10.0-182.0.0.95.oe2203sp3.aarch64", arch="aarch64", cpus=64,
        smi="25.2.0"),
    "vllm-ascend-4480-A3-vllm0.11.2-cann8.3.RC2.txt": dict(
        kinds=[P.KIND_COLLECT_ENV], npu_type=None, chips=["Ascend910"] * 16, npu_ids=list(range(8)),
        cann="8.3.RC2", python="3.11.13",
        packages={"torch": "2.7.1", "torch_npu": "2.7.1", "vllm": "0.11.2",
                  "vllm_ascend": "0.11.0rc1.dev393+g3c9d947d7.d20251124", "sentence-transformers": "5.1.2"},
        absent=[], env={"ASCEND_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"},
        os="Ubuntu 22.04.5 LTS", kernel="5.10.0-182.0.0.95.r1941_123.hce2.aarch64", arch="aarch64", cpus=320,
        smi="24.1.rc3.7"),
    "vllm-ascend-6063-300IDuo-upstream-sectioned-collect_env-vllm0.10.0.txt": dict(
        kinds=[P.KIND_CANN_INFO, P.KIND_COLLECT_ENV], npu_type=None, chips=[], npu_ids=[], cann="8.2.RC1",
        python="3.11.13", packages={"torch": "2.7.1+cpu", "torch_npu": "2.7.1.dev20250724", "vllm": "0.10.0",
                                    "transformers": "4.53.3"},
        absent=["vllm-ascend"], env={"CUDA_VISIBLE_DEVICES": "4,5", "NCCL_CUMEM_ENABLE": "0"},
        os="Ubuntu 22.04.5 LTS", kernel="5.10.0-216.0.0.115.oe2203sp4.aarch64", arch="aarch64", cpus=128, smi=None),
    "vllm-ascend-6509-910B2-vllm0.14.1-cann8.5.0.txt": dict(
        kinds=[P.KIND_COLLECT_ENV], npu_type=None, chips=["910B2"] * 8, npu_ids=list(range(8)), cann="8.5.0",
        python="3.11.14", packages={"torch": "2.9.0+cpu", "torch_npu": "2.9.0", "vllm": "0.14.1",
                                    "vllm_ascend": "0.14.0rc1", "transformers": "4.57.6"},
        absent=[], env={"ASCEND_TOOLKIT_HOME": "/usr/local/Ascend/cann-8.5.0",
                        "ASCEND_VISIBLE_DEVICES": "1,2,3,4,5,6,7,0"},
        os="Ubuntu 22.04.5 LTS", kernel="4.19.90-2107.6.0.0251.43.oe1.bclinux.aarch64", arch="aarch64", cpus=192,
        smi="25.5.0"),
}

# Checks that FAIL when their input is absent on a live machine: never FAIL on pasted text.
ABSENCE_CHECKS = ("ASC-DRV-001", "ASC-SMI-001", "ASC-CANN-001", "ASC-FW-001", "ASC-CTR-001", "ASC-NNAL-001",
                  "ASC-PY-001", "ASC-ENV-001")


def test_every_collect_env_sample_has_expectations() -> None:
    assert sorted(COLLECT_ENV) == sorted(p.name for p in (SAMPLES / "collect-env").glob("*.txt"))


def _assert_facts(facts: P.PastedFacts, want: Dict[str, Any]) -> None:
    assert facts.npu_type == want["npu_type"]
    assert list(facts.chips) == want["chips"]
    assert list(facts.npu_ids) == want["npu_ids"]
    assert facts.cann_version == want["cann"]
    assert facts.npu_smi_version == want["smi"]
    assert facts.python_version == want["python"]
    for name, version in want["packages"].items():
        assert facts.package(name) == version, name
    for name in want["absent"]:
        assert facts.package(name) is None, name
    for name, value in want["env"].items():
        assert facts.env.get(name) == value, name
    assert (facts.os, facts.kernel, facts.arch, facts.cpu_count) == (want["os"], want["kernel"], want["arch"],
                                                                       want["cpus"])


@pytest.mark.parametrize("name", sorted(COLLECT_ENV))
def test_collect_env_sample_imports_with_its_values(name: str) -> None:
    want = COLLECT_ENV[name]
    pasted = P.parse_pasted_text(body(f"collect-env/{name}"))
    assert [s.kind for s in pasted.segments] == want["kinds"]
    _assert_facts(P.summarise(pasted), want)


@pytest.mark.parametrize("name", sorted(COLLECT_ENV))
def test_collect_env_sample_becomes_snapshot_facts(name: str, tmp_path: Path) -> None:
    """The same values reach the checks: through the snapshot files, read by SnapshotHost."""
    want = COLLECT_ENV[name]
    write_pasted_snapshot(P.parse_pasted_text(body(f"collect-env/{name}")), str(tmp_path), name)
    host = SnapshotHost(str(tmp_path))
    facts = Facts(host)
    info = host.info()
    assert (info.source, info.kernel, info.arch) == ("pasted-text", want["kernel"], want["arch"])
    py = facts.python_env
    assert py.version == want["python"]
    for package, version in want["packages"].items():
        assert py.package(package) == version
    if want["chips"]:
        assert [d.name for d in facts.npu_smi.devices] == want["chips"]
        assert facts.npu_smi.npu_ids == want["npu_ids"]
    toolkit = facts.stack.active_toolkit(dict(host.env()))
    assert getattr(toolkit, "version", None) == want["cann"]
    for variable, value in want["env"].items():
        assert host.env()[variable] == value
    if want["cpus"]:
        assert host.cpu_count() == want["cpus"]


def _run(path: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--from-text", str(path), *args],
                          input=stdin, capture_output=True, timeout=120)


def _report(path: Path, tmp_path: Path) -> Dict[str, Any]:
    from ascend_doctor.cli.check_cmd import load_matrix_or_exit
    from ascend_doctor.options import RunOptions
    from ascend_doctor.render.json import report_to_json
    from ascend_doctor.runner import run_checks

    host, notes = open_pasted_text(str(path))
    try:
        matrix, info = load_matrix_or_exit(None)
        report = run_checks(host, matrix, RunOptions(), info)
    finally:
        host.close()
    report.notes.extend(notes)
    data: Dict[str, Any] = json.loads(report_to_json(report))  # validated against the schema by conftest
    return data


@pytest.mark.parametrize("name", sorted(COLLECT_ENV))
def test_absent_inputs_are_skipped_never_failed(name: str, tmp_path: Path) -> None:
    report = _report(SAMPLES / "collect-env" / name, tmp_path)
    assert report["host"]["source"] == "pasted-text"
    assert report["host"]["origin"].endswith(name)
    failed = {r["id"] for r in report["results"] if r["status"] == "FAIL"}
    assert not failed & set(ABSENCE_CHECKS)
    # The one sample with busy NPUs in its table FAILs for that (a fact it shows), and nothing else.
    assert failed <= ({"ASC-DEV-010", "ASC-DEV-011"} if "3002" in name else set())
    skipped = [r for r in report["results"] if r["id"] in ABSENCE_CHECKS and r["status"] == "SKIP"]
    assert any("not in the pasted text" in r["message"] for r in skipped) or not skipped
    assert any(n.startswith("pasted text: recognised") for n in report["notes"])


def test_driver_only_paste_skips_firmware_and_device_nodes(tmp_path: Path) -> None:
    paste = tmp_path / "ticket.txt"
    paste.write_text(body("version-files/driver-version.info-24.1.rc2.2.txt"))
    report = _report(paste, tmp_path)
    by_id = {r["id"]: r for r in report["results"]}
    assert by_id["ASC-DRV-001"]["status"] == "PASS"
    assert "24.1.rc2.2" in by_id["ASC-DRV-001"]["message"]
    for check in ("ASC-FW-001", "ASC-CTR-001", "ASC-SMI-001", "ASC-CANN-001"):
        assert by_id[check]["status"] == "SKIP", by_id[check]
    assert "not in the pasted text" in by_id["ASC-FW-001"]["message"]


def test_variants_of_one_paste_give_the_same_facts() -> None:
    """CRLF, right-padded lines, a markdown fence and terminal colours change nothing."""
    original = body("collect-env/vllm-ascend-6509-910B2-vllm0.14.1-cann8.5.0.txt")
    padded = "\r\n".join(line.ljust(140) for line in original.splitlines())
    fenced = "Here is my env:\n```text\n" + original.replace("Collecting", "\x1b[1mCollecting\x1b[0m") + "```\n"
    want = P.summarise(P.parse_pasted_text(original)).to_dict()
    assert P.summarise(P.parse_pasted_text(padded)).to_dict() == want
    assert P.summarise(P.parse_pasted_text(fenced)).to_dict() == want


def test_several_pastes_concatenated_are_each_recognised() -> None:
    parts = [
        body("npu-smi-info/vllm-ascend-198-8x910B3-23.0.7.txt"),
        "$ cat /usr/local/Ascend/driver/version.info\n"
        + body("version-files/notes-800IA2-driver-version.info-25.0.rc1.1.txt"),
        body("version-files/notes-800IA2-firmware-version.info-7.7.0.1.231.txt"),
        body("version-files/etc-ascend_install.info-910-23.0.rc1.txt"),
        body("version-files/vllm-ascend-198-ascend_toolkit_install-8.0.0.txt"),
        body("npu-smi-other/blog-800IA2-info-l-8x910B4.txt"),
        body("npu-smi-other/mindcluster-doc-board-910-d801.txt"),
        body("npu-smi-tables-other/ms-swift-topo-8x910B3-hccs.txt"),
        "some words nobody can read\n",
        body("collect-env/vllm-ascend-198-collect_env-vllm0.7.1-torchnpu2.5.1.txt"),
    ]
    pasted = P.parse_pasted_text("\n".join(parts))
    kinds = [s.kind for s in pasted.segments]
    for kind in (P.KIND_NPU_SMI_INFO, P.KIND_DRIVER_INFO, P.KIND_FIRMWARE_INFO, P.KIND_ASCEND_INSTALL_INFO,
                 P.KIND_CANN_INFO, P.KIND_NPU_SMI_LIST, P.KIND_NPU_SMI_BOARD, P.KIND_NPU_SMI_TOPO,
                 P.KIND_COLLECT_ENV):
        assert kind in kinds, kinds
    assert any(r.preview == "some words nobody can read" for r in pasted.unrecognised)
    facts = P.summarise(pasted)
    assert (facts.driver_version, facts.firmware_version, facts.cann_version) == ("25.0.rc1.1", "7.7.0.1.231",
                                                                                  "8.0.0")
    assert facts.chips == ("910B3",) * 8 and facts.running_driver_version == "23.0.7"
    board = next(s for s in pasted.segments if s.kind == P.KIND_NPU_SMI_BOARD)
    assert board.command == ("npu-smi", "info", "-t", "board", "-i", "0")


def test_npu_smi_outputs_name_their_command() -> None:
    cases = {
        "npu-smi-other/arthurchiao-usages-common-910B1.txt": [
            (P.KIND_NPU_SMI_USAGES, ("npu-smi", "info", "-t", "usages", "-i", "0")),
            (P.KIND_NPU_SMI_QUERY, ("npu-smi", "info", "-t", "common", "-i", "1"))],
        "npu-smi-other/blog-800IA2-info-l-8x910B4.txt": [(P.KIND_NPU_SMI_LIST, ("npu-smi", "info", "-l"))],
        "npu-smi-tables-other/devboard-310B-npu-smi-info-watch.txt": [
            (P.KIND_NPU_SMI_OTHER, ("npu-smi", "info", "watch"))],
        "npu-smi-other/arthurchiao-npu-smi-info-help.txt": [(P.KIND_NPU_SMI_OTHER, ("npu-smi", "info", "-h"))],
        "npu-smi-other/mindcluster-doc-chip-board-910.txt": [
            (P.KIND_NPU_SMI_OTHER, ("npu-smi", "info", "-t", "board", "-i", "0", "-c", "0"))],
        "npu-smi-other/telegraf-fixture-usages-910B-25.5.1.txt": [
            (P.KIND_NPU_SMI_USAGES, ("npu-smi", "info", "-t", "usages", "-i", "0"))],
    }
    for rel, want in cases.items():
        pasted = P.parse_pasted_text(body(rel))
        assert [(s.kind, s.command) for s in pasted.segments] == want, rel


@pytest.mark.parametrize("rel", sorted(str(p.relative_to(SAMPLES)) for p in (SAMPLES / "npu-smi-info").glob("*.txt")))
def test_every_npu_smi_table_sample_is_recognised(rel: str) -> None:
    pasted = P.parse_pasted_text(body(rel))
    tables = pasted.of_kind(P.KIND_NPU_SMI_INFO)
    assert tables, rel
    expected = json.loads((SAMPLES / rel.replace(".txt", ".expected.json")).read_text())
    assert [d.name for d in tables[0].record.devices] == [d["name"] for d in expected["tables"][0]["devices"]]


def test_nothing_recognisable_is_one_line_and_exit_3(tmp_path: Path) -> None:
    garbage = tmp_path / "note.txt"
    garbage.write_text("Hi, my server does not work.\nPlease help!\n")
    done = _run(garbage)
    assert done.returncode == 3
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "nothing in it was recognised" in err and "Traceback" not in err
    done = _run(Path("-"), stdin=b"")
    assert done.returncode == 3 and b"it is empty" in done.stderr
    binary = tmp_path / "core.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    done = _run(binary)
    assert done.returncode == 3 and b"binary data" in done.stderr


def test_from_text_reads_stdin_and_reports_what_it_recognised(tmp_path: Path) -> None:
    text = body("collect-env/vllm-ascend-4480-A3-vllm0.11.2-cann8.3.RC2.txt") + "\nthanks!\n"
    out = tmp_path / "report.json"
    done = _run(Path("-"), "--format", "json", "-o", str(out), stdin=text.encode())
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(out.read_text())
    assert report["host"]["source"] == "pasted-text" and report["host"]["origin"] == "standard input"
    assert report["host"]["kernel"] == "5.10.0-182.0.0.95.r1941_123.hce2.aarch64"
    notes = report["notes"]
    assert any("recognised collect_env" in n for n in notes)
    assert any("not recognised" in n and "thanks!" in n for n in notes)


def test_from_and_from_text_together_is_a_usage_error(tmp_path: Path) -> None:
    paste = tmp_path / "t.txt"
    paste.write_text(body("version-files/driver-version.info-24.1.rc2.2.txt"))
    done = _run(paste, "--from", str(tmp_path))
    assert done.returncode == 2


def test_large_paste_is_bounded(tmp_path: Path) -> None:
    line = "INFO 02-27 17:19:50 __init__.py:28] Available plugins for group vllm.platform_plugins:\n"
    text = body("collect-env/vllm-ascend-6509-910B2-vllm0.14.1-cann8.5.0.txt") + line * 80_000  # ~7 MB
    data, truncated = P.decode_paste(text.encode())
    assert truncated and len(data.encode()) <= P.MAX_PASTE_BYTES
    pasted = P.parse_pasted_text(data, truncated)
    assert pasted.truncated and pasted.of_kind(P.KIND_COLLECT_ENV)
    assert any("only the first" in w for w in pasted.warnings)


def test_paths_from_the_text_cannot_leave_the_snapshot(tmp_path: Path) -> None:
    hostile = ("package_name=Ascend-cann-toolkit\nversion=8.2.RC1\narch=aarch64\n"
               "path=/usr/local/Ascend/../../../../etc/cron.d\n\n"
               "UserName=HwHiAiUser\nDriver_Install_Path_Param=../../outside\n")
    root = tmp_path / "snap"
    root.mkdir()
    write_pasted_snapshot(P.parse_pasted_text(hostile), str(root), "t")
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert all(p.startswith("snap/") for p in written)
    assert written == ["snap/files/etc/ascend_install.info",
                       "snap/files/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux/ascend_toolkit_install.info",
                       "snap/snapshot.json"]


def test_origin_phrases() -> None:
    class _Host:
        def __init__(self, source: str) -> None:
            self.source = source

        def info(self) -> Any:
            return type("Info", (), {"source": self.source})()

    phrases: List[str] = [absent_phrase(_Host(s)) for s in ("live", "snapshot", "pasted-text")]
    assert phrases == ["not installed", "not recorded in this snapshot", "not in the pasted text"]
    assert origin_kind(_Host("something new")) == "live"
