"""Facts `dmesg` / `log_files` and checks ASC-LOG-001/002, on snapshots built from real samples."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from ascend_doctor.checkapi import CheckContext, Finding, NotApplicable, Status
from ascend_doctor.cli import main
from ascend_doctor.facts import Facts
from ascend_doctor.facts.logs import log_roots
from ascend_doctor.host.base import FilePermissionDenied
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.options import RunOptions

from .clirunner import make_runner
from .report_schema import validate_report

SAMPLES = Path(__file__).resolve().parent / "samples" / "dmesg-and-logs"
ROOT_ADVICE = "sudo ascend-doctor check --select ASC-LOG"
DAY = 86400.0
NOW = 1_760_000_000.0


def body(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8").partition("\n# ---\n")[2]


def dmesg_of_sample16() -> str:
    """The real host dmesg part of Ascend/samples#16 (after the `dmesg` prompt line)."""
    text = body("ascend-samples-16-atlas200-EP-507033-host-dmesg-devmm-davinci_intf.txt")
    return text.split("# dmesg \n", 1)[1]


def make_snapshot(root: Path, dmesg: Optional[str] = None, dmesg_denied: bool = False,
                  files: Optional[Dict[str, tuple]] = None, env: Optional[Dict[str, str]] = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    # capture records the captured logs' times (a replay cannot trust the files' own times)
    times = {path: mtime for path, (_text, mtime) in (files or {}).items()}
    (root / "snapshot.json").write_text(json.dumps({"format": 1, "hostname": "node07", "arch": "aarch64",
                                                    "file_times": times}))
    (root / "env.json").write_text(json.dumps(env if env is not None else {"HOME": "/root"}))
    commands = root / "commands"
    commands.mkdir(exist_ok=True)
    if dmesg_denied:
        (commands / "dmesg.out").write_text("")
        (commands / "dmesg.err").write_text("dmesg: read kernel buffer failed: Operation not permitted\n")
        (commands / "dmesg.rc").write_text("1\n")
    elif dmesg is not None:
        (commands / "dmesg.out").write_text(dmesg)
    for path, (text, mtime) in (files or {}).items():
        target = root / "files" / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        os.utime(target, (mtime, mtime))
    return root


def run_check(module: str, host: Any, options: Optional[RunOptions] = None) -> List[Finding]:
    options = options or RunOptions()
    check = importlib.import_module(f"ascend_doctor.checks.{module}")
    ctx = CheckContext(facts=Facts(host, options), matrix=None, options=options)
    return list(check.run(ctx))


# -- ASC-LOG-001 (dmesg) ------------------------------------------------------------------------


def test_dmesg_permission_denied_is_skip_with_root_advice(tmp_path: Path) -> None:
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg_denied=True)))
    findings = run_check("log_001_dmesg", host)
    assert [f.status for f in findings] == [Status.SKIP]
    assert ROOT_ADVICE in findings[0].remediation
    assert "restricted" in findings[0].message


def test_dmesg_clean_is_pass(tmp_path: Path) -> None:
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg=dmesg_of_sample16())))
    findings = run_check("log_001_dmesg", host)
    assert [f.status for f in findings] == [Status.PASS]
    assert "8 lines since boot" in findings[0].message


def test_dmesg_pcie_fault_is_fail(tmp_path: Path) -> None:
    dmesg = body("lkml-2022-aer-corrected-uncorrected-pciehp-link-down.txt")
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg=dmesg)))
    findings = run_check("log_001_dmesg", host)
    by_sig = {f.evidence["signature"]: f for f in findings}
    assert by_sig["SIG-DEV-PCIE-AER-UNCORRECTED"].status is Status.FAIL
    assert by_sig["SIG-DEV-PCIE-LINK-DOWN"].status is Status.FAIL
    assert by_sig["SIG-DEV-PCIE-AER-CORRECTED"].status is Status.WARN
    first = findings[0]
    assert first.evidence["signature"] == "SIG-DEV-PCIE-AER-UNCORRECTED"
    assert "dmesg:9" in first.message and "severity=Uncorrected (Fatal)" in first.message
    assert first.remediation and first.evidence["line"] == 9


def test_dmesg_absent_from_snapshot_is_not_applicable(tmp_path: Path) -> None:
    host = SnapshotHost(str(make_snapshot(tmp_path / "s")))
    with pytest.raises(NotApplicable):
        run_check("log_001_dmesg", host)


# -- ASC-LOG-002 (plog / device logs) ---------------------------------------------------------------


def test_log_roots_order_and_dedup() -> None:
    roots = log_roots({"ASCEND_PROCESS_LOG_PATH": "/data/log/", "HOME": "/root", "ASCEND_WORK_PATH": "rel"},
                      ["alice", "bob"])
    assert roots == ["/data/log", "/root/ascend/log", "/home/alice/ascend/log", "/home/bob/ascend/log",
                     "/var/log/npu/slog", "/var/log/ascend_seclog"]


def test_newest_plog_is_reported_as_warn_with_its_age(tmp_path: Path) -> None:
    files = {
        "/root/ascend/log/debug/plog/plog-3132_20251015163216.log":
            (body("vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt"), NOW),
        "/home/svc/ascend/log/debug/plog/plog-1292363_20250408180720.log":
            (body("issue-mirror-hccl-EI0006-socket-timeout-allreduce.txt"), NOW - 30 * DAY),
        "/home/svc/ascend/log/debug/plog/notes.txt": ("EL0001 not a log file", NOW),
    }
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", dmesg="", files=files)))
    findings = run_check("log_002_cann_logs", host)
    sigs = [f.evidence["signature"] for f in findings]
    assert sigs[0] == "SIG-DRV-EL0004"
    assert "SIG-HCCL-EI0006" in sigs and "SIG-RT-EE1001" not in sigs
    assert all(f.status is Status.WARN for f in findings)
    el = findings[0]
    assert el.scope == "/root/ascend/log/debug/plog/plog-3132_20251015163216.log"
    assert "may be from an earlier run" in el.message and "2025-10-09" in el.message
    assert "EL0004: [PID: 3132]" in el.message and "--gpu-memory-utilization" in el.remediation


def test_file_limit_keeps_the_newest(tmp_path: Path) -> None:
    files = {
        "/root/ascend/log/debug/plog/plog-1_new.log": (body("vllm-ascend-doc-npu-oom-runtimeerror.txt"), NOW),
        "/root/ascend/log/debug/plog/plog-2_old.log": (body("vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt"),
                                                       NOW - DAY),
    }
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", files=files)))
    facts = Facts(host, RunOptions(log_max_files=1))
    scan = facts.log_files
    assert [f.path for f in scan.files] == ["/root/ascend/log/debug/plog/plog-1_new.log"]
    assert scan.candidates == 2 and any("newest 1 of 2" in limit for limit in scan.limits_hit)
    findings = run_check("log_002_cann_logs", host, RunOptions(log_max_files=1))
    assert [f.evidence["signature"] for f in findings] == ["SIG-OOM-NPU-OUT-OF-MEMORY"]


def test_large_file_is_read_from_its_tail(tmp_path: Path) -> None:
    noise = "[INFO] RUNTIME(1,python3):2025-03-19-15:09:45.659.913 [stream.cc:1] ok\n" * 4000
    text = body("blog-310P3-plog-507011-aicore-EZ9999.txt") + noise + body("vllm-ascend-doc-npu-oom-runtimeerror.txt")
    files = {"/root/ascend/log/debug/plog/plog-1_big.log": (text, NOW)}
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", files=files)))
    options = RunOptions(log_max_bytes=64 * 1024)
    scan = Facts(host, options).log_files
    entry = scan.files[0]
    assert entry.start_offset > 0 and entry.result is not None
    assert [h.id for h in entry.result.hits] == ["SIG-OOM-NPU-OUT-OF-MEMORY"]
    assert scan.bytes_scanned <= 64 * 1024
    findings = run_check("log_002_cann_logs", host, options)
    assert "count from byte" in findings[0].message


def test_device_os_kernel_fault_is_fail(tmp_path: Path) -> None:
    files = {"/var/log/npu/slog/debug/device-os/device-os_20240122045443091.log":
             (body("lkml-2022-aer-corrected-uncorrected-pciehp-link-down.txt"), NOW)}
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", files=files)))
    findings = run_check("log_002_cann_logs", host)
    assert findings[0].status is Status.FAIL
    assert findings[0].evidence["signature"] == "SIG-DEV-PCIE-AER-UNCORRECTED"


def test_clean_logs_pass(tmp_path: Path) -> None:
    files = {"/var/log/ascend_seclog/ascend_install.log":
             (body("blog-800IA2-driver-firmware-install-log.txt"), NOW)}
    host = SnapshotHost(str(make_snapshot(tmp_path / "s", files=files)))
    findings = run_check("log_002_cann_logs", host)
    assert [f.status for f in findings] == [Status.PASS]
    assert "1 newest log file(s) scanned" in findings[0].message


def test_no_logs_is_not_applicable(tmp_path: Path) -> None:
    host = SnapshotHost(str(make_snapshot(tmp_path / "s")))
    with pytest.raises(NotApplicable):
        run_check("log_002_cann_logs", host)


class DenyingHost:
    """A snapshot host on which listing some folders is refused (as for a non-root user)."""

    def __init__(self, inner: SnapshotHost, denied: List[str]) -> None:
        self._inner = inner
        self._denied = denied

    def listdir(self, path: str) -> List[str]:
        if any(path == d or path.startswith(d + "/") for d in self._denied):
            raise FilePermissionDenied(path, "permission denied")
        return self._inner.listdir(path)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def test_unlistable_log_folders_are_skip_with_root_advice(tmp_path: Path) -> None:
    files = {"/root/ascend/log/debug/plog/plog-1_x.log": (body("vllm-ascend-doc-npu-oom-runtimeerror.txt"), NOW)}
    host = DenyingHost(SnapshotHost(str(make_snapshot(tmp_path / "s", files=files))), ["/root/ascend/log"])
    findings = run_check("log_002_cann_logs", host)
    assert [f.status for f in findings] == [Status.SKIP]
    assert ROOT_ADVICE in findings[0].remediation


def test_unreadable_file_is_reported(tmp_path: Path) -> None:
    files = {"/root/ascend/log/debug/plog/plog-1_x.log": (body("vllm-ascend-doc-npu-oom-runtimeerror.txt"), NOW),
             "/root/ascend/log/debug/plog/plog-2_y.log": ("plain\n", NOW - DAY)}
    inner = SnapshotHost(str(make_snapshot(tmp_path / "s", files=files)))

    class Refusing(DenyingHost):
        def open_binary(self, path: str) -> Any:
            if path.endswith("plog-1_x.log"):
                raise FilePermissionDenied(path, "permission denied")
            return self._inner.open_binary(path)

    findings = run_check("log_002_cann_logs", Refusing(inner, []))
    statuses = [f.status for f in findings]
    assert Status.SKIP in statuses and Status.PASS in statuses
    skip = findings[statuses.index(Status.SKIP)]
    assert "could not be read" in skip.message and ROOT_ADVICE in skip.remediation


# -- through the CLI: report stays valid ------------------------------------------------------------


def test_check_cli_report_with_log_findings(tmp_path: Path) -> None:
    files = {"/root/ascend/log/debug/plog/plog-3132_x.log":
             (body("vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt"), NOW)}
    snap = make_snapshot(tmp_path / "s", dmesg=body("lkml-2022-aer-corrected-uncorrected-pciehp-link-down.txt"),
                         files=files)
    result = make_runner().invoke(main, ["check", "--from", str(snap), "--select", "ASC-LOG", "--format", "json"],
                                catch_exceptions=False)
    report = json.loads(result.stdout)
    validate_report(report)
    statuses = {(r["id"], r["status"]) for r in report["results"]}
    assert ("ASC-LOG-001", "FAIL") in statuses and ("ASC-LOG-002", "WARN") in statuses
    assert result.exit_code == 1
