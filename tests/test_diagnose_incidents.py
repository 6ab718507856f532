"""``diagnose`` separates incidents and reads lines in their context (issue 22 item 4; review rows
7, 8, 9, 25, 26, 27, 28).

Logs made of several incidents are composed from the real samples in tests/samples/dmesg-and-logs/
(their bodies, without the annotation headers) with the section headings a notes file would have.
The few lines no public sample holds are written in the shapes the runtime prints (quoted in each
test), and say so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

import pytest

from ascend_doctor.logscan.incidents import event_time
from ascend_doctor.logscan.scanner import LogScanner, ScanResult, default_scanner

from .clirunner import make_runner

SAMPLES = Path(__file__).resolve().parent / "samples" / "dmesg-and-logs"


def body(name: str) -> str:
    lines = (SAMPLES / name).read_text(encoding="utf-8").splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip() == "# ---")
    return "\n".join(lines[end + 1:]) + "\n"


@pytest.fixture(scope="module")
def scanner() -> LogScanner:
    return default_scanner()


def causes(result: ScanResult) -> List[str]:
    return [hit.id for hit in result.hits if not hit.secondary]


def secondary(result: ScanResult) -> List[str]:
    return [hit.id for hit in result.hits if hit.secondary]


def notes_file() -> str:
    """A notes file that collects separate MindIE start-up failures, one section each (row 8)."""
    sections = [
        ("## MindIE 2.0 on node A: daemon does not start",
         "gpustack-3113-mindieservice-daemon-libboundscheck-missing.txt"),
        ("## MindIE 1.0.RC3 in docker: shared memory", "hiascend-forum-mindie-shm-64MB-MIE04E120407.txt"),
        ("## restart test", "mindie-doc-daemon-is-killing-exit-137.txt"),
        ("## config permissions (older MindIE)", "hiascend-forum-mindie-config-permission-endpoint-init.txt"),
    ]
    return "# my MindIE notes\n\n" + "\n".join(head + "\n\n" + body(name) for head, name in sections)


def test_row8_notes_file_gives_one_cause_per_section(scanner: LogScanner) -> None:
    result = scanner.scan_text(notes_file(), "notes.md")
    primaries = [incident.primary.id for incident in result.incidents if incident.primary]
    assert primaries == ["SIG-ENV-SHARED-LIB-MISSING", "SIG-SRV-MINDIE-SHM-TOO-SMALL",
                         "SIG-SRV-MINDIE-DAEMON-KILLED", "SIG-SRV-MINDIE-FILE-PERMISSION"]
    assert [incident.starts_because for incident in result.incidents] == ["", "section", "section", "section"]
    assert result.incidents[2].label == "## restart test"
    # the older version's endpoint failure stays with its own section, not a symptom of the first one
    last = {hit.id for hit in result.incidents[3].hits}
    assert "SIG-SRV-MINDIE-ENDPOINT-INIT" in last
    assert all("SIG-SRV-MINDIE-ENDPOINT-INIT" not in {h.id for h in i.hits} for i in result.incidents[:3])


def test_one_incident_when_nothing_separates(scanner: LogScanner) -> None:
    result = scanner.scan_text(body("vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt"), "x")
    assert len(result.incidents) == 1 and result.incidents[0].primary is not None
    assert result.incidents[0].primary.id == result.hits[0].id == "SIG-DRV-EL0004"


def test_time_gap_and_reboot_split_incidents(scanner: LogScanner) -> None:
    plog = ("[ERROR] RUNTIME(1234,python):2025-04-08-10:00:01.123.456 [api_c.cc:100] open device 0 failed, "
            "error code is 507033\n"
            "[ERROR] RUNTIME(5678,python):2025-04-08-13:30:05.000.001 [x.cc:1] EL0004: alloc failed\n")
    result = scanner.scan_text(plog, "plog")
    assert [i.starts_because for i in result.incidents] == ["", "time gap"]
    dmesg = body("realwujing-800I-dmesg-drv_pcie-device-abnormal.txt")
    again = dmesg.replace("[  456.", "[   12.")
    result = scanner.scan_text(dmesg + again, "dmesg")
    assert [i.starts_because for i in result.incidents] == ["", "reboot"]


def test_event_time_clocks() -> None:
    assert event_time("[  452.964549] x")[0] == "kernel"
    assert event_time("x 2025-04-08-18:07:20.1 y")[0] == "wall"
    assert event_time("INFO 04-08 18:07:20 llm_engine.py")[0] == "wall"
    assert event_time("no time here") == ("", None)


def test_row7_ez1001_reason_is_a_quantisation_mismatch_and_161002_decoded(scanner: LogScanner) -> None:
    # The shapes of the two lines in the review's log (row 7): the gmm operator's 161002 return code
    # and the EZ1001 reason text the aclnn parameter check prints.
    log = ("[ERROR] gmmNode call SetAclNNWorkspaceExecutor fail, error:161002\n"
           "EZ1001: [PID: 4321] 2025-06-01-10:00:00.000.000 dtype of weight[0] should be int8 or int4 when x is "
           "int8, but got BFloat16.\n")
    result = scanner.scan_text(log, "log")
    assert causes(result) == ["SIG-OP-EZ1001-QUANT-WEIGHT-DTYPE"]
    assert set(secondary(result)) == {"SIG-OP-EZ1001", "SIG-OP-161002"}
    alone = scanner.scan_text("[ERROR] gmmNode call SetAclNNWorkspaceExecutor fail, error:161002\n", "log")
    assert [h.id for h in alone.hits] == ["SIG-OP-161002"]


def test_row25_507899_after_el0004_is_memory_not_mounts(scanner: LogScanner) -> None:
    # 3479's EL0004/207001 during weight load, then the aclrtMemcpy failure the review saw (row 25).
    log = body("vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt") + (
        "RuntimeError: ACL stream synchronize failed, aclrtMemcpy error code is 507899\n")
    result = scanner.scan_text(log, "log")
    assert "SIG-RT-507899-AFTER-ALLOC-FAILURE" in causes(result)
    assert "SIG-RT-507899" in secondary(result)
    plain = scanner.scan_text(body("field-note-container-dcmi-8020-uda-conflict.txt"), "log")
    assert "SIG-RT-507899" in causes(plain) and "SIG-RT-507899-AFTER-ALLOC-FAILURE" not in causes(plain)


def test_row26_507033_without_e30006_is_device_first(scanner: LogScanner) -> None:
    log = ("EE1001: halDeviceOpen failed, drvRetCode=7\n"
           "[ERROR] open device 0 failed, runtime result = 507033\n")
    result = scanner.scan_text(log, "log")
    assert causes(result)[0] == "SIG-RT-507033-DEVICE-UNAVAILABLE"
    with_opp = scanner.scan_text(log + "E30006: Failed to verify the OPP\n", "log")
    assert "SIG-RT-507033-DEVICE-UNAVAILABLE" not in causes(with_opp)
    assert "SIG-RT-507033" in causes(with_opp)


def test_row9_multi_bit_hbm_ecc_with_health_alarm_is_hardware(scanner: LogScanner) -> None:
    # The runtime's own message for ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR and the npu-smi health lines.
    log = ("[ERROR] RUNTIME(99,python):2025-06-01-10:00:00.000.000 HBM MULTI BIT ECC, Uncorrectable ECC, "
           "device_id=3, event_id=0x80e01801, time us=123.\n"
           "EI9999: Inner Error! aivec error\n"
           "        Health                         : Alarm\n")
    result = scanner.scan_text(log, "log")
    top = result.hits[0]
    assert top.id == "SIG-DEV-HBM-MULTI-BIT-ECC" and top.signature.fault
    assert "SIG-DEV-NPU-HEALTH-ALARM" in causes(result)


def test_row28_vllm_kv_cache_start_failure(scanner: LogScanner) -> None:
    result = scanner.scan_text(body("vllm-10439-no-available-memory-cache-blocks.txt"), "log")
    assert result.hits[0].id == "SIG-SRV-VLLM-NO-KV-CACHE-MEMORY"


def test_row27_kernel_lines_while_rebooting_are_not_a_crash(scanner: LogScanner) -> None:
    dmesg = body("realwujing-800I-dmesg-drv_pcie-device-abnormal.txt")
    assert scanner.scan_text(dmesg, "d").hits[0].id == "SIG-KDRV-DEVICE-ABNORMAL"  # alone: the device
    # The same lines with the kernel's own shutdown line after them (as a reboot prints it).
    result = scanner.scan_text(dmesg + "[  457.012345] reboot: Restarting system\n", "d")
    assert causes(result) == ["SIG-KERN-HOST-REBOOTING"]
    assert "SIG-KDRV-DEVICE-ABNORMAL" in secondary(result)
    # A reboot line alone is no finding.
    assert not scanner.scan_text("[  457.012345] reboot: Restarting system\n", "d").found


def test_soft_lockup_is_the_named_drivers(scanner: LogScanner) -> None:
    text = body("kernel-commit-kvm-soft-lockup-rip-in-kvm-module.txt")
    result = scanner.scan_text(text, "d")
    assert causes(result) == ["SIG-KERN-LOCKUP-IN-OTHER-MODULE"] and "[kvm]" in result.hits[0].first_text
    ascend = text.replace("kvm_set_pfn_dirty+0x30/0x50 [kvm]", "devdrv_manager_ioctl+0x30/0x50 [drv_devmng]")
    result = scanner.scan_text(ascend, "d")
    assert causes(result) == ["SIG-KERN-LOCKUP-IN-ASCEND-MODULE"]


def test_annotation_header_is_not_an_occurrence(scanner: LogScanner) -> None:
    text = "# source: somewhere\n# what: quotes error code is 507033\n# ---\nnothing here\n"
    assert not scanner.scan_text(text, "x").found
    assert scanner.scan_text("# a shell comment: error code is 507033\n", "x").found  # not a header


def test_cli_prints_and_writes_incidents(tmp_path: Path) -> None:
    from ascend_doctor.cli import main

    notes = tmp_path / "notes.md"
    notes.write_text(notes_file(), encoding="utf-8")
    runner = make_runner()
    text = runner.invoke(main, ["diagnose", str(notes)])
    assert text.exit_code == 1
    assert "Incident 4" in text.output and "SIG-SRV-MINDIE-DAEMON-KILLED" in text.output
    out = runner.invoke(main, ["diagnose", str(notes), "--format", "json"])
    data = json.loads(out.output)
    assert [i["primary"] for i in data["incidents"]][2] == "SIG-SRV-MINDIE-DAEMON-KILLED"
