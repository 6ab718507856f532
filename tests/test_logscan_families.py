"""Error-code families, kernel lines of the Ascend driver, and the rule that a specific signature
always wins over the family of its code (issue 8 item 7).

Inputs are real lines (tests/samples/dmesg-and-logs/) and documented ones
(tests/samples/error-codes/documented-error-code-lines.txt, with their sources in its header).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List

import pytest

from ascend_doctor.checkapi import Status
from ascend_doctor.cli import main
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.logscan.literals import MIN_NEEDLE, required_literals
from ascend_doctor.logscan.scanner import LogScanner
from ascend_doctor.logscan.signatures import Signature, load_signatures

from .clirunner import make_runner
from .test_logscan_checks import make_snapshot, run_check

SAMPLES = Path(__file__).resolve().parent / "samples"
LOGS = SAMPLES / "dmesg-and-logs"
DOCUMENTED = SAMPLES / "error-codes" / "documented-error-code-lines.txt"


def body_lines(path: Path) -> List[str]:
    text = path.read_text(encoding="utf-8")
    head, sep, rest = text.partition("\n# ---\n")
    assert sep and head.startswith("# source:"), f"{path.name}: missing the source header"
    return rest.splitlines()


def body(name: str) -> str:
    return "\n".join(body_lines(LOGS / name)) + "\n"


@pytest.fixture(scope="module")
def scanner() -> LogScanner:
    return LogScanner()


def families() -> List[Signature]:
    return [sig for sig in load_signatures().signatures if sig.family]


# -- every family, and every signature sourced from a sample, matches a real or documented line ----


def all_sample_lines() -> List[str]:
    lines = body_lines(DOCUMENTED)
    for path in sorted(LOGS.iterdir()):
        lines.extend(body_lines(path))
    return lines


@pytest.mark.parametrize("sig", families(), ids=lambda sig: sig.id)
def test_each_family_matches_a_real_or_documented_line(sig: Signature) -> None:
    lines = all_sample_lines()
    assert any(sig.regex.search(line) for line in lines), f"{sig.id}: no real or documented line matches"


def test_a_sample_named_as_source_holds_a_matching_line() -> None:
    for sig in load_signatures().signatures:
        for ref in sig.source:
            if ref.startswith("tests/samples/"):
                lines = body_lines(SAMPLES.parent.parent / ref)
                assert any(sig.regex.search(line) for line in lines), f"{sig.id}: nothing in {ref} matches"


# Each documented line -> the signature diagnose must put first (the family only when the code
# has no entry of its own).
DOCUMENTED_PRIMARY: Dict[str, str] = {
    "E10014:": "SIG-FAM-CANN-E1-GE",
    "EB0500:": "SIG-FAM-CANN-OPCOMPILE",
    "E40021:": "SIG-OP-COMPILE-FAILED",
    "E30006:": "SIG-OP-OPP-VERIFY-FAILED",
    "E80001:": "SIG-FAM-CANN-VECTOR-OPS",
    "EC0012:": "SIG-FAM-CANN-TUNING",
    "EE1001:": "SIG-RT-EE1001",
    "EH0001:": "SIG-FAM-CANN-EH-ACL",
    "EI0008:": "SIG-HCCL-EI0008",
    "EJ0001:": "SIG-HCCL-EJ0001",
    "EK0001 ": "SIG-FAM-CANN-PROF-DUMP",
    "EL0004:": "SIG-DRV-EL0004",
    "EN0002:": "SIG-FAM-CANN-MEDIA-TOOLS",
    "EM9002:": "SIG-FAM-CANN-INTERNAL",
    "E69999:": "SIG-FAM-CANN-INTERNAL",
    "ERR00001 ": "SIG-FAM-PTA-ERR",
    "MIE05E040000": "SIG-FAM-MINDIE-MIE",
    "error code is 561000": "SIG-FAM-ACL-5XXXXX",
    "runtime result = 107003": "SIG-FAM-ACL-1XXXXX",
    "error code is 206001": "SIG-FAM-ACL-2XXXXX",
    "error code is 361001": "SIG-FAM-ACL-3XXXXX",
    "ret is -8008": "SIG-FAM-DCMI-RETURN-CODE",
}


def test_documented_lines_have_their_expected_diagnosis(scanner: LogScanner) -> None:
    lines = body_lines(DOCUMENTED)
    assert len(lines) == len(DOCUMENTED_PRIMARY)
    for line in lines:
        key = next(k for k in DOCUMENTED_PRIMARY if k in line)
        ids = [hit.id for hit in scanner.scan_text(line + "\n").hits]
        assert ids and ids[0] == DOCUMENTED_PRIMARY[key], f"{line!r}: got {ids}"


def test_family_literals_are_long_enough_for_the_prefilter() -> None:
    assert required_literals(r"\bEL[0-8][0-9]{3}\b") == frozenset(f"EL{a}{b}" for a in range(9) for b in range(10))
    assert required_literals(r"\bERR[09][0-9]{4}\b") == frozenset({"ERR0", "ERR9"})
    for sig in families():
        assert min(len(lit) for lit in sig.literals) >= MIN_NEEDLE, sig.id


# -- specificity: the code's own entry beats its family, the family beats generic wrappers ----------


def test_a_family_is_less_specific_than_the_entries_of_its_codes() -> None:
    db = load_signatures()
    specific = [sig for sig in db.signatures if not sig.family and not sig.generic]
    checked = 0
    for family in families():
        for sig in specific:
            if any(family.regex.search(lit) for lit in sig.literals):
                checked += 1
                assert family.specificity < sig.specificity, (family.id, sig.id)
    assert checked >= 20  # EL0001..EL0015, EI0002/6/7/8, EZ1001, E30006, -8005/-8020/-8255, ...


def test_known_code_reports_its_entry_unknown_code_its_family(scanner: LogScanner) -> None:
    # The EL0004 line of vllm-ascend#3479; the second is the same line with the code changed to
    # one that has no entry (EL0016) and its message replaced.
    text = ("EL0004: [PID: 3132] 2025-10-15-16:32:16.417.528 Failed to allocate memory.\n"
            "EL0016: [PID: 3132] 2025-10-15-16:32:16.417.530 something the database does not know\n"
            "EH9999: Inner Error!\n")
    hits = scanner.scan_text(text).hits
    ids = [hit.id for hit in hits]
    assert ids == ["SIG-DRV-EL0004", "SIG-FAM-CANN-EL-DRIVER", "SIG-RT-EH9999"]
    by_id = {hit.id: hit for hit in hits}
    assert by_id["SIG-FAM-CANN-EL-DRIVER"].first_line == 2  # not on line 1, where EL0004 itself matched
    assert by_id["SIG-RT-EH9999"].secondary_of == "SIG-DRV-EL0004"
    assert "SIG-FAM-CANN-INTERNAL" not in ids  # EH9999 has its own (generic) entry


def test_family_rule_holds_per_logical_line_of_a_json_paste(scanner: LogScanner) -> None:
    paste = json.dumps({"log": "EL0004: Failed to allocate memory.\nEL0016: unknown driver code\n"})
    ids = [hit.id for hit in scanner.scan_text(paste + "\n").hits]
    assert ids == ["SIG-DRV-EL0004", "SIG-FAM-CANN-EL-DRIVER"]


def test_small_quiet_input_compiles_no_family_trie(scanner: LogScanner) -> None:
    quiet = LogScanner(load_signatures())
    result = quiet.scan_text("[ 2081.8] [ascend] [devmm] [devmm_free_svm_proc 276] Device process exited.\n"
                             "KERNEL: EVENT ERROR LEVEL MODEL\n")
    assert not result.hits
    assert b"E" not in quiet._pivot_regexes  # the ~2400-needle trie of the code families


# -- ASC-LOG-001: a kernel log showing an NPU abnormal never passes ---------------------------------


def test_log001_fails_on_npu_marked_abnormal(tmp_path: Path) -> None:
    dmesg = body("realwujing-800I-dmesg-drv_pcie-device-abnormal.txt")
    findings = run_check("log_001_dmesg", SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg=dmesg))))
    assert findings and findings[0].status is Status.FAIL
    assert findings[0].evidence["signature"] == "SIG-KDRV-DEVICE-ABNORMAL"
    assert "reboot" in findings[0].remediation
    assert Status.PASS not in {f.status for f in findings}


def test_log001_warns_on_an_ascend_driver_error_line(tmp_path: Path) -> None:
    lines = body_lines(LOGS / "field-note-container-dcmi-8020-uda-conflict.txt")
    dmesg = "\n".join(line for line in lines if line.startswith(("[ascend]", "(udevid"))) + "\n"
    findings = run_check("log_001_dmesg", SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg=dmesg))))
    assert [f.status for f in findings] == [Status.WARN]
    assert findings[0].evidence["signature"] == "SIG-KDRV-UDA-CONFLICT"


def test_log001_any_ascend_error_line_is_at_least_a_warn(tmp_path: Path) -> None:
    # The real tsdrv line of the CANN doc sample with its function name changed to one that no
    # entry knows (value changed, format kept): only the '[ascend] [ERROR]' family can match it.
    real = next(line for line in body_lines(LOGS / "cann-doc-device-klogd-devmm-tsdrv-aiv-ctrl-c.txt")
                if "ipc_fault_msg_para_check" in line)
    dmesg = real.replace("ipc_fault_msg_para_check", "tsdrv_node_check") + "\n"
    findings = run_check("log_001_dmesg", SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg=dmesg))))
    assert [f.status for f in findings] == [Status.WARN]
    assert findings[0].evidence["signature"] == "SIG-FAM-KDRV-ASCEND-ERROR"


def test_log001_lists_faults_first(tmp_path: Path) -> None:
    dmesg = body("cann-doc-device-klogd-devmm-tsdrv-aiv-ctrl-c.txt") + \
        body("realwujing-800I-dmesg-drv_pcie-device-abnormal.txt")
    findings = run_check("log_001_dmesg", SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg=dmesg))))
    statuses = [f.status for f in findings]
    assert statuses[:2] == [Status.FAIL, Status.FAIL] and Status.FAIL not in statuses[2:]
    # Within the faults, the most specific first: the abnormal device before the failed message.
    assert [f.evidence["signature"] for f in findings[:2]] == ["SIG-KDRV-DEVICE-ABNORMAL",
                                                              "SIG-KDRV-DEVDRV-MSG-FAILED"]


# -- diagnose on a mixed log ------------------------------------------------------------------------


def mixed_log() -> str:
    """Three real logs and a driver-code line whose code has no entry (format of the EL0004 line)."""
    return (body("hiascend-forum-mindie-shm-64MB-MIE04E120407.txt")
            + body("vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt")
            + "EL0016: [PID: 3132] 2025-10-15-16:32:16.417.530 something the database does not know\n"
            + body("realwujing-800I-dmesg-drv_pcie-device-abnormal.txt"))


def test_diagnose_mixed_log_text(tmp_path: Path) -> None:
    path = tmp_path / "mixed.log"
    path.write_text(mixed_log(), encoding="utf-8")
    result = make_runner().invoke(main, ["diagnose", str(path)], catch_exceptions=False)
    assert result.exit_code == 1
    out = result.stdout
    # Most specific first: MindIE shm (85), device abnormal (85), EL0004 (85) ... the EL family
    # (30) after every specific signature, the generic wrappers last as secondary symptoms.
    for sig_id in ("SIG-SRV-MINDIE-SHM-TOO-SMALL", "SIG-KDRV-DEVICE-ABNORMAL", "SIG-DRV-EL0004",
                   "SIG-FAM-CANN-EL-DRIVER"):
        assert f"[{sig_id}," in out, sig_id
    assert out.index("SIG-DRV-EL0004") < out.index("SIG-KDRV-DEVDRV-MSG-FAILED") < out.index("SIG-FAM-CANN-EL-DRIVER")
    assert out.index("SIG-FAM-CANN-EL-DRIVER") < out.index("Secondary symptoms") < out.index("SIG-RT-EH9999")
    assert "docker run --shm-size=1g" in out
    assert "secondary symptom: see SIG-" in out


def test_diagnose_mixed_log_json(tmp_path: Path) -> None:
    path = tmp_path / "mixed.log"
    path.write_text(mixed_log(), encoding="utf-8")
    result = make_runner().invoke(main, ["diagnose", str(path), "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    findings = {f["id"]: f for f in report["findings"]}
    assert findings["SIG-FAM-CANN-EL-DRIVER"]["family"] is True
    assert findings["SIG-FAM-CANN-EL-DRIVER"]["line_text"].startswith("EL0016:")
    assert findings["SIG-DRV-EL0004"]["family"] is False
    assert findings["SIG-KDRV-DEVICE-ABNORMAL"]["fault"] is True
    assert "SIG-FAM-MINDIE-MIE" not in findings  # its lines matched the shm entry itself
    specificities = [f["specificity"] for f in report["findings"] if not f["generic"]]
    assert specificities == sorted(specificities, reverse=True)
