"""Every real sample in tests/samples/dmesg-and-logs/ is diagnosed with the right cause.

The table below was checked by hand against each sample (and the issue it comes from): the
``primary`` signature must come first, the ``also`` signatures must be found too. A sample added
to the folder without a row here fails with a message saying so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, FrozenSet, Optional, Tuple

import pytest

from ascend_doctor.logscan.scanner import LogScanner, ScanResult

SAMPLES = Path(__file__).resolve().parent / "samples" / "dmesg-and-logs"
FILES = sorted(p.name for p in SAMPLES.iterdir() if p.is_file())

# file -> (primary signature or None for "nothing known here", other signatures that must be found)
EXPECTED: Dict[str, Tuple[Optional[str], FrozenSet[str]]] = {
    "ascend-pytorch-49-310P-EI9999-sdma-507013.txt":
        ("SIG-DEV-SDMA-SMMU-TERMINATE", frozenset({"SIG-RT-507013", "SIG-RT-EI9999", "SIG-PTA-ERR00100"})),
    "ascend-pytorch-94-atb-LinearOperation-ERR99999.txt":
        ("SIG-OP-ATB-CREATE-FAILED", frozenset({"SIG-PTA-ERR99999"})),
    "ascend-pytorch-doc-hccl-timeout-EI0002-507048.txt":
        ("SIG-HCCL-HEARTBEAT-LOST", frozenset({"SIG-HCCL-EI0002", "SIG-RT-507048"})),
    "ascend-samples-16-atlas200-EP-507033-host-dmesg-devmm-davinci_intf.txt":
        # no E30006 in it: the device is busy or absent before an OPP mismatch (issue 22, review row 26)
        ("SIG-RT-507033-DEVICE-UNAVAILABLE", frozenset({"SIG-RT-507033", "SIG-RT-507007"})),
    "blog-310P3-plog-500002-devmm-remote-map.txt":
        ("SIG-RT-MODEL-LOAD-FAILED", frozenset({"SIG-DRV-DEVMM-REMOTE-MAP"})),
    "blog-310P3-plog-507011-aicore-EZ9999.txt":
        ("SIG-OP-AICORE-MTE-OUT-OF-RANGE", frozenset({"SIG-OP-AICORE-ERROR", "SIG-RT-EZ9999"})),
    "blog-800IA2-driver-firmware-install-log.txt": (None, frozenset()),
    "cann-doc-device-klogd-devmm-tsdrv-aiv-ctrl-c.txt":
        ("SIG-DEV-DEVMM-HOST-PAGE-FAULT", frozenset({"SIG-DEV-DEVMM-VM-FAULT"})),
    "cann-doc-device-slog-grep-vm-fault.txt": ("SIG-DEV-DEVMM-VM-FAULT", frozenset()),
    "fastchat-2843-2023-107002-EE1001-context-empty.txt": ("SIG-RT-107002", frozenset({"SIG-RT-EE1001"})),
    "gpustack-2898-mindie-server-log-404-loop.txt": ("SIG-SRV-MINDIE-V1-MODELS-404", frozenset()),
    "hami-ascend-device-plugin-66-vnpu-dcmi-8255.txt": ("SIG-CTR-DCMI-8255", frozenset()),
    "issue-mirror-hccl-EI0006-socket-timeout-allreduce.txt":
        ("SIG-HCCL-EI0006", frozenset({"SIG-HCCL-TRANSPORT-INIT", "SIG-PTA-ERR01100"})),
    "lkml-2022-aer-corrected-uncorrected-pciehp-link-down.txt":
        ("SIG-DEV-PCIE-AER-UNCORRECTED", frozenset({"SIG-DEV-PCIE-LINK-DOWN", "SIG-DEV-PCIE-AER-CORRECTED"})),
    "llamacpp-18133-cann-EZ9903-ascend910-not-implemented.txt": ("SIG-OP-EZ9903-NOT-IMPLEMENTED", frozenset()),
    "longllovers-910A-driver24.1.0-DKMS-firmware7.5.0.2.220-uninstall-install-upgradetool.txt":
        ("SIG-DRV-INSTALL-REBOOT-NEEDED", frozenset()),
    "notes-910-driver23.0.rc1-firmware6.3-install-log.txt": (None, frozenset()),
    "pypto-doc-507018-aicpu-device-log.txt": ("SIG-OP-AICPU-KFC-FUNC-NULL", frozenset({"SIG-RT-507018"})),
    "vllm-ascend-116-910B-stars-sdma-EI9999-507001.txt":
        ("SIG-DEV-SDMA-ERROR", frozenset({"SIG-RT-507001", "SIG-RT-EH9999", "SIG-RT-EI9999"})),
    "vllm-ascend-1713-quant_description-keyerror.txt":
        ("SIG-MODEL-QUANT-DESCRIPTION-KEYERROR", frozenset({"SIG-ENV-RAY-DISK-FULL"})),
    "vllm-ascend-3479-310P-507013-EL0004-sdma-EH9999.txt":
        ("SIG-DRV-EL0004", frozenset({"SIG-DEV-SDMA-SMMU-TERMINATE", "SIG-RT-207001", "SIG-RT-507013",
                                      "SIG-RT-EH9999", "SIG-PTA-ERR00100"})),
    "vllm-ascend-4256-507011-E39999-aicpu-MoeDistributeDispatchV2.txt":
        ("SIG-OP-MOE-DISTRIBUTE-FAILED", frozenset({"SIG-OP-AICPU-EXCEPTION", "SIG-RT-507011", "SIG-RT-E39999",
                                                    "SIG-PTA-ERR00100", "SIG-PTA-ERR99999"})),
    "vllm-ascend-doc-npu-oom-runtimeerror.txt": ("SIG-OOM-NPU-OUT-OF-MEMORY", frozenset()),
    # Issue 8 item 7: kernel lines of the driver modules, build failures, MindIE start-up, other tools.
    "realwujing-800I-dmesg-drv_pcie-device-abnormal.txt":
        ("SIG-KDRV-DEVICE-ABNORMAL", frozenset({"SIG-KDRV-DEVDRV-MSG-FAILED"})),
    "field-note-container-dcmi-8020-uda-conflict.txt":
        ("SIG-CTR-DCMI-8020", frozenset({"SIG-KDRV-UDA-CONFLICT", "SIG-RT-507899", "SIG-RT-HAL-DEVICE-COUNT"})),
    "vllm-ascend-1383-310P3-EZ3002-TransData-unsupported.txt":
        ("SIG-OP-UNSUPPORTED-OPTYPE", frozenset({"SIG-PTA-ERR00100"})),
    "vllm-ascend-4454-EZ3002-Unsupported_Operator-format.txt":
        ("SIG-OP-UNSUPPORTED-OPTYPE", frozenset({"SIG-PTA-ERR00100"})),
    "vllm-ascend-37-310P-aclnnPromptFlashAttention-cannot-find-bin-bf16.txt":
        ("SIG-OP-KERNEL-BINARY-NOT-FOUND", frozenset({"SIG-OP-EZ1001", "SIG-PTA-ERR01100"})),
    "vllm-ascend-2720-310P3-atb-RopeOperation-setup-failed.txt": ("SIG-OP-ATB-SETUP-FAILED", frozenset()),
    "hiascend-forum-mindie-config-permission-endpoint-init.txt":
        ("SIG-SRV-MINDIE-FILE-PERMISSION", frozenset({"SIG-SRV-MINDIE-ENDPOINT-INIT"})),
    "hiascend-forum-mindie-shm-64MB-MIE04E120407.txt": ("SIG-SRV-MINDIE-SHM-TOO-SMALL", frozenset()),
    "gpustack-3113-mindieservice-daemon-libboundscheck-missing.txt": ("SIG-ENV-SHARED-LIB-MISSING", frozenset()),
    "mind-cluster-faq-npu-exporter-dcmi-8005-after-upgrade.txt": ("SIG-CTR-DCMI-8005", frozenset()),
    "mind-cluster-faq-npu-exporter-check-uid-or-mode.txt": ("SIG-CTR-NPU-EXPORTER-DRIVER-LIB", frozenset()),
    # Issue 22 item 4: failures with their own cause, and a soft lockup that is another driver's.
    "vllm-10439-no-available-memory-cache-blocks.txt": ("SIG-SRV-VLLM-NO-KV-CACHE-MEMORY", frozenset()),
    "mindie-doc-daemon-is-killing-exit-137.txt": ("SIG-SRV-MINDIE-DAEMON-KILLED", frozenset()),
    "kernel-commit-kvm-soft-lockup-rip-in-kvm-module.txt":
        ("SIG-KERN-LOCKUP-IN-OTHER-MODULE", frozenset({"SIG-KERN-SOFT-LOCKUP"})),
}


def body(name: str) -> str:
    """The sample without its `# source:` / `# what:` / `# ---` header: what a customer would send."""
    text = (SAMPLES / name).read_text(encoding="utf-8")
    head, sep, rest = text.partition("\n# ---\n")
    assert sep and head.startswith("# source:"), f"{name}: missing the source header"
    return rest


@pytest.fixture(scope="module")
def scanner() -> LogScanner:
    return LogScanner()


def check(result: ScanResult, name: str) -> None:
    primary, also = EXPECTED[name]
    ids = [hit.id for hit in result.hits]
    if primary is None:
        assert ids == [], f"{name}: expected no known signature, got {ids}"
        return
    assert ids, f"{name}: nothing found, expected {primary}"
    assert ids[0] == primary, f"{name}: expected {primary} first, got {ids}"
    missing = also - set(ids)
    assert not missing, f"{name}: also expected {sorted(missing)}, got {ids}"


def test_every_sample_has_an_expectation() -> None:
    missing = [name for name in FILES if name not in EXPECTED]
    assert not missing, ("add a hand-checked row to EXPECTED in tests/test_logscan_corpus.py for: "
                         + ", ".join(missing))
    stale = [name for name in EXPECTED if name not in FILES]
    assert not stale, f"EXPECTED names files that are not in {SAMPLES}: {stale}"


@pytest.mark.parametrize("name", FILES)
def test_sample_diagnosis(scanner: LogScanner, name: str) -> None:
    if name not in EXPECTED:
        pytest.fail(f"{name} has no expected diagnosis: add it to EXPECTED in tests/test_logscan_corpus.py")
    check(scanner.scan_text(body(name), name), name)


@pytest.mark.parametrize("name", FILES)
def test_sample_pasted_json_escaped(scanner: LogScanner, name: str) -> None:
    """A ticket that carries the log as one JSON string value (\\n and \\" escapes)."""
    if name not in EXPECTED:
        pytest.skip("no expectation (reported by test_sample_diagnosis)")
    pasted = json.dumps({"message": body(name)}, ensure_ascii=False)
    assert "\n" not in pasted
    check(scanner.scan_text(pasted + "\n", name), name)


@pytest.mark.parametrize("wrap", ["[rank0]: ", "deepseek-v3_2-exp  | ", "(VllmWorker rank=3 pid=123) ",
                                  "\x1b[31m"])
@pytest.mark.parametrize("name", FILES)
def test_sample_with_prefixes(scanner: LogScanner, name: str, wrap: str) -> None:
    if name not in EXPECTED:
        pytest.skip("no expectation (reported by test_sample_diagnosis)")
    lines = body(name).splitlines()
    suffix = "\x1b[0m" if wrap.startswith("\x1b") else ""
    wrapped = "\n".join(wrap + line + suffix for line in lines) + "\n"
    check(scanner.scan_text(wrapped, name), name)


# Run on the whole file, header included (as `ascend-doctor diagnose <corpus file>` does): the
# collector's `# source:` / `# what:` header never counts (issue 21, row 27: the HAMi header quotes the
# issue title, "... ret is -8005", which is not in the log), so the primary is the body's.
WITH_HEADER: Dict[str, str] = {}


@pytest.mark.parametrize("name", FILES)
def test_whole_file_with_header(scanner: LogScanner, name: str) -> None:
    if name not in EXPECTED:
        pytest.skip("no expectation (reported by test_sample_diagnosis)")
    result = scanner.scan_path(str(SAMPLES / name))
    primary = WITH_HEADER.get(name, EXPECTED[name][0])
    got = result.hits[0].id if result.hits else None
    assert got == primary, f"{name}: expected {primary} first, got {[h.id for h in result.hits]}"


def test_matched_line_is_shown_without_prefix(scanner: LogScanner) -> None:
    name = "vllm-ascend-4256-507011-E39999-aicpu-MoeDistributeDispatchV2.txt"
    result = scanner.scan_text(body(name), name)
    moe = result.hits[0]
    assert moe.first_text.startswith("Op execute failed. origin_op_name [MoeDistributeDispatchV2]")
    assert moe.first_line == 11  # line 14 of the file, after its 3 header lines


def test_line_numbers_count_physical_lines(scanner: LogScanner) -> None:
    name = "vllm-ascend-doc-npu-oom-runtimeerror.txt"
    text = "first\nsecond\n" + body(name)
    hit = scanner.scan_text(text, name).hits[0]
    assert hit.first_line == 3
