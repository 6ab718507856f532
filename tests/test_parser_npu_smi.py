"""Tests for the ``npu-smi info`` table parser and the ``npu-smi info -t ...`` key/value parser.

Every input is a real capture copied from the shared corpus into ``tests/samples/`` (source
header kept), or a real capture altered in a stated way (cut short, indented, a health word
swapped). Golden files ``*.expected.json`` hold the full parse of each sample; regenerate them
with ``ASCEND_DOCTOR_UPDATE_GOLDEN=1 pytest tests/test_parser_npu_smi.py`` and review the diff.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_doctor.parsers.npu_smi import (
    HEALTH_ALARM,
    HEALTH_CRITICAL,
    HEALTH_OK,
    HEALTH_UNKNOWN,
    HEALTH_WARNING,
    LAYOUT_CHIP_DEVICE,
    LAYOUT_CHIP_PHY_ID,
    LAYOUT_NPU_ID_COLUMN,
    LAYOUT_STANDARD,
    NpuSmiInfo,
    NpuSmiParseError,
    normalize_health,
    parse_all_npu_smi_tables,
    parse_npu_smi_info,
    parse_npu_smi_keyvalue,
    parse_npu_smi_keyvalue_blocks,
)

SAMPLES = Path(__file__).parent / "samples"
INFO_DIR = SAMPLES / "npu-smi-info"
OTHER_DIR = SAMPLES / "npu-smi-other"
INFO_FILES = sorted(INFO_DIR.glob("*.txt"))
OTHER_FILES = sorted(OTHER_DIR.glob("*.txt"))
# npu-smi-other samples that are not "Key : value" output (used as negative inputs).
NOT_KEYVALUE = {
    "arthurchiao-npu-smi-info-help.txt",
    "hami-website-310P3-template-info-and-vnpu-list-22.0.4.txt",
}
UPDATE_GOLDEN = os.environ.get("ASCEND_DOCTOR_UPDATE_GOLDEN") == "1"


def strip_header(text: str) -> str:
    """Drop the corpus ``# source`` / ``# what`` / ``# ---`` header."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("# ---"):
            return "\n".join(lines[index + 1 :])
    return text


def body(name: str, folder: Path = INFO_DIR) -> str:
    return strip_header((folder / name).read_text(encoding="utf-8"))


def info(name: str) -> NpuSmiInfo:
    return parse_npu_smi_info(body(name))


def either_parses_or_rejects(text: str) -> None:
    try:
        result = parse_npu_smi_info(text)
    except NpuSmiParseError as err:
        assert str(err).startswith("could not parse npu-smi output: ")
        return
    assert result.devices


# --------------------------------------------------------------------------- every sample


def test_samples_present() -> None:
    assert len(INFO_FILES) >= 30
    for path in INFO_FILES + OTHER_FILES:
        assert path.read_text(encoding="utf-8").startswith("# source:"), path.name


@pytest.mark.parametrize("path", INFO_FILES, ids=lambda p: p.name)
def test_every_sample_parses_sanely(path: Path) -> None:
    result = parse_npu_smi_info(strip_header(path.read_text(encoding="utf-8")))
    assert result.devices
    assert result.layout in (LAYOUT_STANDARD, LAYOUT_CHIP_DEVICE, LAYOUT_CHIP_PHY_ID, LAYOUT_NPU_ID_COLUMN)
    for dev in result.devices:
        assert dev.npu_id >= 0 and dev.chip_id >= 0
        assert dev.name and " " not in dev.name
        assert dev.health_status in (HEALTH_OK, HEALTH_WARNING, HEALTH_ALARM, HEALTH_CRITICAL, HEALTH_UNKNOWN)
        assert dev.temp_c is not None and 0 < dev.temp_c < 120
        assert dev.power_w is None or 0 < dev.power_w < 1000
        assert dev.aicore_pct is not None and 0 <= dev.aicore_pct <= 100
        assert dev.capacity_mb is not None and dev.capacity_mb > 1000
        assert dev.in_use_mb is not None and 0 <= dev.in_use_mb <= dev.capacity_mb
        assert dev.bus_id is None or ":" in dev.bus_id
    for proc in result.processes:
        assert proc.pid > 0
        assert proc.npu_id in result.npu_ids
    assert set(result.idle_npus) <= set(result.npu_ids)
    if result.processes or result.idle_npus:
        assert result.process_table_present
    json.dumps(result.to_dict())  # JSON-friendly


@pytest.mark.parametrize("path", INFO_FILES, ids=lambda p: p.name)
def test_every_sample_matches_golden(path: Path) -> None:
    tables = parse_all_npu_smi_tables(strip_header(path.read_text(encoding="utf-8")))
    got: Dict[str, Any] = {"tables": [table.to_dict() for table in tables]}
    golden = path.with_suffix(".expected.json")
    if UPDATE_GOLDEN:
        golden.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if not golden.exists():
        pytest.skip(f"no {golden.name}: run with ASCEND_DOCTOR_UPDATE_GOLDEN=1 and review it")
    assert got == json.loads(golden.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", INFO_FILES, ids=lambda p: p.name)
def test_every_line_prefix_parses_or_rejects(path: Path) -> None:
    """A table cut anywhere (at a line or mid-line) never raises anything but NpuSmiParseError."""
    lines = strip_header(path.read_text(encoding="utf-8")).split("\n")
    for cut in range(len(lines) + 1):
        either_parses_or_rejects("\n".join(lines[:cut]))
        if cut < len(lines) and len(lines[cut]) > 10:
            either_parses_or_rejects("\n".join([*lines[:cut], lines[cut][: len(lines[cut]) // 2]]))


# --------------------------------------------------------------------------- layouts, by hand


def test_910b1_elided_by_author() -> None:
    result = info("arthurchiao-8x910B1-23.0.rc2-elided.txt")
    assert (result.version, result.driver_version) == ("23.0.rc2", "23.0.rc2")
    assert result.npu_ids == [0, 1, 7]
    assert [d.bus_id for d in result.devices] == ["0000:C1:00.0", "0000:01:00.0", "0000:42:00.0"]
    assert result.devices[2].hbm_used_mb == 4174 and result.devices[2].hbm_total_mb == 65536
    assert result.devices[0].power_w == 88.4 and result.devices[0].temp_c == 46
    assert not result.process_table_present
    assert any("left out" in w for w in result.warnings)


def test_300i_duo_single_card_npu_1792() -> None:
    result = info("ascend-pytorch-94-300IDuo-npu1792-24.1.rc2.txt")
    assert result.layout == LAYOUT_CHIP_DEVICE
    assert [(d.npu_id, d.chip_id, d.chip_phy_id) for d in result.devices] == [(1792, 0, 0), (1792, 1, 1)]
    assert all(d.power_w is None for d in result.devices)  # "NA"
    assert [d.memory_total_mb for d in result.devices] == [44280, 43693]
    assert result.devices[0].hbm_total_mb is None
    assert result.devices[0].capacity_mb == 44280 and result.devices[0].in_use_mb == 1821
    assert result.idle_npus == [1792] and result.processes == []
    assert result.npu_ids == [1792]


def test_310b4_narrow() -> None:
    dev = info("blog-310B4-23.0.rc3-narrow.txt").devices[0]
    assert (dev.name, dev.bus_id, dev.power_w) == ("310B4", None, 7.7)
    assert (dev.hugepages_used, dev.hugepages_total) == (15, 15)
    assert (dev.memory_used_mb, dev.memory_total_mb) == (2166, 3513)


def test_310p3_npu_24_power_na() -> None:
    result = info("blog-310P3-23.0.0-npu24.txt")
    dev = result.devices[0]
    assert (dev.npu_id, dev.chip_id, dev.chip_phy_id, dev.name) == (24, 0, 0, "310P3")
    assert dev.power_w is None and dev.memory_total_mb == 21527
    assert result.idle_npus == [24]


def test_800i_a2_910b4_idle() -> None:
    result = info("blog-800IA2-8x910B4-25.0.rc1.1.txt")
    assert result.version == "25.0.rc1.1"
    assert result.npu_ids == list(range(8))
    assert {d.name for d in result.devices} == {"910B4"}
    assert {d.hbm_total_mb for d in result.devices} == {32768}
    assert result.devices[7].hbm_used_mb == 2653
    assert result.idle_npus == list(range(8)) and result.process_table_present


def test_21x_without_hugepages_ddr_and_hbm() -> None:
    result = info("br-ai-ns-ascend-utils-atlas800-3010-2x910A-21.0.2-no-hugepages.txt")
    assert result.version == "21.0.2"
    assert result.npu_ids == [1, 4]
    dev = result.devices[0]
    assert dev.name == "910A" and dev.hugepages_total is None
    assert (dev.memory_used_mb, dev.memory_total_mb, dev.hbm_used_mb, dev.hbm_total_mb) == (1809, 15079, 0, 32768)
    assert dev.capacity_mb == 32768 and dev.in_use_mb == 0  # HBM wins over DDR


def test_mindie_processes_without_version_banner() -> None:
    result = info("fixture-2x910B4-mindie_llm_back-process-no-version-row.txt")
    assert result.version is None and result.driver_version is None
    assert result.devices[0].hbm_used_mb == 26838  # "26838/ 32768"
    procs = [(p.npu_id, p.chip_id, p.pid, p.name, p.memory_mb, p.container_pid) for p in result.processes]
    assert procs == [(0, 0, 1406630, "mindie_llm_back", 21835, None), (0, 0, 60575, "python", 2122, None)]
    assert result.idle_npus == [1]


def test_950pr_npu_id_column_and_empty_process_names() -> None:
    result = info("fixture-7x950PR-25.7.rc1-npu-id-column-empty-procnames.txt")
    assert result.layout == LAYOUT_NPU_ID_COLUMN and result.version == "25.7.rc1"
    assert result.npu_ids == list(range(7))
    assert {d.name for d in result.devices} == {"Ascend950PR"}
    assert {d.hbm_total_mb for d in result.devices} == {131072}
    assert result.devices[5].hbm_used_mb == 10569 and result.devices[6].bus_id == "0000:F1:00.0"
    assert all(d.chip_id == 0 and d.chip_phy_id is None for d in result.devices)
    assert [(p.npu_id, p.chip_id, p.pid, p.name, p.memory_mb) for p in result.processes] == [
        (0, None, 846718, "", 332),
        (1, None, 2430352, "", 544),
    ]
    assert result.idle_npus == [2]


def test_950dt_bus_na_and_container_pid_column() -> None:
    result = info("fixture-8x950DT-idle-no-version-row-container-pid-col.txt")
    assert result.layout == LAYOUT_NPU_ID_COLUMN and result.version is None
    assert all(d.bus_id is None for d in result.devices)
    assert result.devices[3].power_w == 395.1 and result.devices[0].hbm_total_mb == 98304
    assert result.idle_npus == list(range(8)) and result.processes == []


def test_26_0_wide_layout_container_pid_and_empty_name() -> None:
    result = info("fixture-910B2-26.0.rc1-container-pid-mapping-empty-name.txt")
    assert result.version == "26.0.rc1" and result.layout == LAYOUT_STANDARD
    dev = result.devices[0]
    assert (dev.power_w, dev.aicore_pct, dev.hbm_used_mb, dev.hbm_total_mb) == (424.0, 100.0, 38711, 65536)
    (proc,) = result.processes
    assert (proc.npu_id, proc.chip_id, proc.pid, proc.container_pid, proc.name, proc.memory_mb) == (
        0, 0, 1504884, 412309, "", 35358,
    )
    assert result.idle_npus == [1]


def test_a3_container_sees_npu4_phy_ids_8_and_9() -> None:
    result = info("fixture-A3-25.5.1-container-sees-only-npu4-phy8-9.txt")
    assert result.layout == LAYOUT_CHIP_PHY_ID
    assert [(d.npu_id, d.chip_id, d.chip_phy_id) for d in result.devices] == [(4, 0, 8), (4, 1, 9)]
    assert [d.power_w for d in result.devices] == [170.7, None]  # die 1 prints "-"
    assert [d.hbm_used_mb for d in result.devices] == [51255, 45292]
    assert {d.name for d in result.devices} == {"Ascend910"}


def test_a3_26_0_processes_with_container_pid_na() -> None:
    result = info("fixture-A3-26.0.rc1-VLLMWorker_PP-container-pid-NA.txt")
    assert [(d.npu_id, d.chip_id, d.chip_phy_id) for d in result.devices] == [
        (0, 0, 0), (0, 1, 1), (5, 0, 10), (5, 1, 11),
    ]
    assert result.devices[1].aicore_pct == 60
    assert [(p.npu_id, p.chip_id, p.pid, p.container_pid, p.name) for p in result.processes] == [
        (0, 0, 1774110, None, "VLLMWorker_PP"),
        (0, 1, 1777209, None, "VLLMWorker_PP"),
    ]
    assert result.idle_npus == [5]


def test_950dt_flagged_sample_warning_health() -> None:
    result = info("fixture-Ascend950DT-25.6.rc1.b218-npu-id-column-FLAGGED.txt")
    assert result.version == "25.6.rc1.b218"
    assert result.npu_ids == [0, 1, 7]
    dev = result.devices[2]
    assert (dev.health, dev.health_status, dev.aicore_pct, dev.hbm_used_mb) == ("Warning", HEALTH_WARNING, 42, 91000)


def test_several_processes_per_chip() -> None:
    result = info("gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt")
    assert result.version == "25.0.rc1.2"
    assert [(p.npu_id, p.pid, p.name) for p in result.processes] == [
        (0, 6513, "rayWorkerDict"), (0, 33776, "VLLMWorker_TP"), (1, 33777, "VLLMWorker_TP"),
    ]
    assert [d.aicore_pct for d in result.devices] == [6, 11]
    assert len(result.processes_on(0)) == 2


def test_hami_vnpu_first_table_and_all_tables() -> None:
    text = body("hami-website-310P3-VM-22.0.4-host-and-vnpu-310Pvir01-02-04.txt")
    first = parse_npu_smi_info(text)
    assert [d.name for d in first.devices] == ["310P3"]
    assert first.devices[0].npu_id == 7 and first.devices[0].bus_id == "0000:00:07.0"
    assert any("parse_all_npu_smi_tables" in w for w in first.warnings)
    tables = parse_all_npu_smi_tables(text)
    assert [t.devices[0].name for t in tables] == ["310P3", "310Pvir01", "310Pvir02", "310Pvir04"]
    assert [t.devices[0].memory_total_mb for t in tables] == [21527, 2690, 5381, 10763]
    assert [t.version for t in tables] == ["22.0.4", "22.0.4", None, None]  # fragments have no banner
    assert all(t.layout == LAYOUT_CHIP_DEVICE for t in tables)


def test_tool_version_differs_from_driver_version() -> None:
    result = info("mindcluster-doc-8x910-training-processes-23.0.rc3-vs-rc2.3.txt")
    assert (result.version, result.driver_version) == ("23.0.rc3", "23.0.rc2.3")
    dev = result.devices[0]
    assert dev.name == "xxx" and (dev.hugepages_used, dev.hugepages_total) == (1123, 1123)
    assert (dev.memory_used_mb, dev.memory_total_mb, dev.hbm_used_mb, dev.hbm_total_mb) == (4565, 15137, 30710, 32768)
    assert [p.pid for p in result.processes] == [139667, 139577, 139446, 139372, 139258, 139163, 139126, 139090]
    assert [p.npu_id for p in result.processes] == list(range(8))
    modelzoo = info("modelzoo-310P3-tool22.0.0-driver22.0.2.txt")
    assert (modelzoo.version, modelzoo.driver_version) == ("22.0.0", "22.0.2")
    assert modelzoo.devices[0].hugepages_used == 1236


def test_oldest_310_narrow_no_hugepages() -> None:
    result = info("mindxsdk-200DK-310-21.0.3.1-narrow-no-hugepages.txt")
    dev = result.devices[0]
    assert result.version == "21.0.3.1"
    assert (dev.name, dev.chip_phy_id, dev.bus_id, dev.hugepages_total) == ("310", 0, None, None)
    assert (dev.memory_used_mb, dev.memory_total_mb) == (5324, 8192)


def test_beta_build_version_and_no_process_table() -> None:
    result = info("ms-swift-8x910B3-24.1.rc1.b030-noproc-table.txt")
    assert (result.version, result.driver_version) == ("24.1.rc1.b030", "24.1.rc1.b030")
    assert len(result.devices) == 8 and not result.process_table_present
    assert result.warnings == []


def test_redacted_bus_id_kept_as_printed() -> None:
    dev = info("notes-800IA2-910B4-64G-redacted-busid-25.0.rc1.1.txt").devices[0]
    assert (dev.bus_id, dev.hbm_total_mb, dev.aicore_pct) == ("xxxx:xx:xx.x", 65536, 5)


def test_legacy_910b_is_ddr_plus_hbm() -> None:
    dev = info("openeuler-gmem-910B-legacy-22.0.4.1.txt").devices[0]
    assert (dev.name, dev.temp_c, dev.memory_total_mb, dev.hbm_total_mb) == ("910B", 82, 15039, 32768)
    pro = info("vllm-ascend-1047-8x910ProB-ddr-and-hbm-24.1.0.txt").devices
    assert [d.memory_total_mb for d in pro] == [13553, 15665, 15665, 15567, 13553, 15665, 15665, 15567]
    assert [d.hbm_used_mb for d in pro] == [18, 8, 5, 4, 10, 14, 3, 2]


def test_output_cut_after_first_idle_line() -> None:
    result = info("triton-ascend-1x910B4-26.0.rc1-wide.txt")
    assert result.idle_npus == [0] and result.devices[0].hbm_total_mb == 32768
    assert any("closing border" in w for w in result.warnings)


def test_sparse_ids_in_k8s_pod() -> None:
    assert info("vllm-ascend-2557-4x910B4-k8s-sparse-ids-24.1.rc3.txt").npu_ids == [0, 3, 4, 7]


def test_single_process_container() -> None:
    result = info("vllm-ascend-2498-1x910B3-process-24.1.rc2.txt")
    assert [(p.pid, p.name, p.memory_mb) for p in result.processes] == [(6277, "python", 56485)]
    assert result.devices[0].hbm_used_mb == 59784


def test_a3_sixteen_dies() -> None:
    result = info("vllm-ascend-4480-A3-16die-24.1.rc3.7.txt")
    assert result.version == "24.1.rc3.7"
    assert len(result.devices) == 16 and result.npu_ids == list(range(8))
    assert [d.chip_phy_id for d in result.devices] == list(range(16))
    assert [d.chip_id for d in result.devices] == [0, 1] * 8
    assert all((d.power_w is None) == (d.chip_id == 1) for d in result.devices)


def test_300i_duo_sparse_ids_and_empty_process_names() -> None:
    result = info("vllm-ascend-6063-4x300IDuo-8chips-odd-ids-25.3.rc1.txt")
    assert result.npu_ids == [0, 96, 32768, 32896]
    assert [d.chip_phy_id for d in result.devices] == list(range(8))
    assert result.devices[0].hugepages_used == 16885
    assert (result.devices[0].memory_used_mb, result.devices[0].memory_total_mb) == (35552, 44278)
    assert [(p.npu_id, p.chip_id, p.pid, p.name, p.memory_mb) for p in result.processes] == [
        (0, 0, 326429, "", 33842), (0, 0, 326430, "", 108), (0, 1, 326430, "", 34086),
    ]
    assert result.idle_npus == [96, 32768, 32896]


def test_one_pid_on_sixteen_npus() -> None:
    result = info("vllm-ascend-mooncake-16x910B2C-vm-x86-processes-24.1.rc2.txt")
    assert len(result.devices) == 16
    assert {p.pid for p in result.processes} == {265997}
    assert [p.npu_id for p in result.processes] == list(range(16))
    assert [d.npu_id for d in result.devices if d.aicore_pct == 100] == [0, 1, 4, 6, 7, 9, 13]


def test_910b2_and_910b3_hbm() -> None:
    assert {d.hbm_total_mb for d in info("vllm-ascend-6509-8x910B2-25.5.0.txt").devices} == {65536}
    assert {d.name for d in info("vllm-ascend-198-8x910B3-23.0.7.txt").devices} == {"910B3"}


# --------------------------------------------------------------------------- variations of real samples


@pytest.mark.parametrize(
    "printed,normalized",
    [("Alarm", HEALTH_ALARM), ("Critical", HEALTH_CRITICAL), ("UNKNOWN", HEALTH_UNKNOWN), ("Warning", HEALTH_WARNING)],
)
def test_health_values(printed: str, normalized: str) -> None:
    text = body("vllm-ascend-2557-4x910B4-k8s-sparse-ids-24.1.rc3.txt")
    row = "| 3     910B4               | OK            |"
    assert row in text
    text = text.replace(row, f"| 3     910B4               | {printed:<13} |")
    devices = parse_npu_smi_info(text).devices
    assert devices[1].health == printed and devices[1].health_status == normalized
    assert devices[0].health_status == HEALTH_OK


def test_normalize_health() -> None:
    assert normalize_health(" ok ") == HEALTH_OK
    assert normalize_health("") == HEALTH_UNKNOWN
    assert normalize_health("NA") == HEALTH_UNKNOWN


def test_markdown_indent_crlf_and_prose_around_table() -> None:
    text = body("gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt")
    reference = parse_npu_smi_info(text)
    indented = "```\n[node-1]\n" + "\n".join("    " + line for line in text.split("\n")) + "\n```\n$ echo done"
    assert parse_npu_smi_info(indented) == reference
    assert parse_npu_smi_info(text.replace("\n", "\r\n")) == reference


def test_extra_padding_inside_cells() -> None:
    text = body("vllm-ascend-2498-1x910B3-process-24.1.rc2.txt")
    padded = text.replace("|", "  |  ").replace(" / ", "   /   ").replace("/ ", " /  ")
    result = parse_npu_smi_info(padded)
    assert result.devices == parse_npu_smi_info(text).devices
    assert result.processes[0].memory_mb == 56485


def test_table_cut_after_first_row_of_an_npu() -> None:
    lines = body("vllm-ascend-2557-4x910B4-k8s-sparse-ids-24.1.rc3.txt").split("\n")
    cut = next(i for i, line in enumerate(lines) if line.startswith("| 4     910B4"))
    result = parse_npu_smi_info("\n".join(lines[: cut + 1]))
    assert result.npu_ids == [0, 3]
    assert "table truncated after NPU 4" in result.warnings


def test_row_cut_mid_line_ends_the_table() -> None:
    lines = body("vllm-ascend-2557-4x910B4-k8s-sparse-ids-24.1.rc3.txt").split("\n")
    cut = next(i for i, line in enumerate(lines) if line.startswith("| 0                         | 0000:01"))
    result = parse_npu_smi_info("\n".join([*lines[:cut], lines[cut][:50]]))
    assert result.npu_ids == [0, 3]
    assert any("cut off" in w for w in result.warnings)


def test_process_name_with_pipe_is_kept_whole() -> None:
    text = body("vllm-ascend-2498-1x910B3-process-24.1.rc2.txt")
    text = text.replace("| python                   |", "| py|thon                  |")
    assert parse_npu_smi_info(text).processes[0].name == "py|thon"


def test_unreadable_process_row_is_a_warning_not_an_error() -> None:
    text = body("vllm-ascend-2498-1x910B3-process-24.1.rc2.txt").replace("| 6277          |", "| pid?          |")
    result = parse_npu_smi_info(text)
    assert result.processes == [] and len(result.devices) == 1
    assert any("process row" in w for w in result.warnings)


# --------------------------------------------------------------------------- rejection


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\n",
        "bash: npu-smi: command not found",
        "DrvMngGetConsoleLogLevel failed. (ret=4)\ndcmi module initialize failed. ret is -8005",
        "lorem ipsum dolor sit amet\n| not | a | table |\n",
        "\x00\x01\x02\xff\xfe binary \x7f\n\x1b[31m\x00",
    ],
)
def test_garbage_is_rejected(text: str) -> None:
    with pytest.raises(NpuSmiParseError) as err:
        parse_npu_smi_info(text)
    assert str(err.value).startswith("could not parse npu-smi output: ")


def test_error_names_the_first_offending_line() -> None:
    text = "$ npu-smi info\n| not | a | table |\n"
    with pytest.raises(NpuSmiParseError) as err:
        parse_npu_smi_info(text)
    assert err.value.line_no == 2 and err.value.line == "| not | a | table |"
    assert "unexpected line 2: '| not | a | table |'" in str(err.value)


def test_empty_text_error() -> None:
    with pytest.raises(NpuSmiParseError, match="empty"):
        parse_npu_smi_info("")


def test_half_table_banner_and_header_only() -> None:
    lines = body("vllm-ascend-198-8x910B3-23.0.7.txt").split("\n")
    with pytest.raises(NpuSmiParseError, match="no device rows"):
        parse_npu_smi_info("\n".join(lines[:8]))


def test_corrupted_device_row_names_its_line() -> None:
    lines = body("vllm-ascend-198-8x910B3-23.0.7.txt").split("\n")
    bad = next(i for i, line in enumerate(lines) if line.startswith("| 2     910B3"))
    lines[bad] = lines[bad].replace("96.5", "hot!")
    with pytest.raises(NpuSmiParseError) as err:
        parse_npu_smi_info("\n".join(lines))
    assert err.value.line_no == bad + 1 and "Power(W)" in str(err.value)


def test_unknown_layout_is_rejected() -> None:
    text = body("vllm-ascend-198-8x910B3-23.0.7.txt").replace("Power(W)    Temp(C)", "Fan(rpm)    Load(%)")
    with pytest.raises(NpuSmiParseError, match="unknown layout"):
        parse_npu_smi_info(text)


@pytest.mark.parametrize("path", OTHER_FILES, ids=lambda p: p.name)
def test_other_npu_smi_outputs_are_not_info_tables(path: Path) -> None:
    with pytest.raises(NpuSmiParseError):
        parse_npu_smi_info(strip_header(path.read_text(encoding="utf-8")))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_arbitrary_text_parses_or_raises_parse_error(text: str) -> None:
    either_parses_or_rejects(text)


_TABLE_ALPHABET = st.sampled_from(list("|+-= /.0123456789OKNAabcdHealthChipNPU\n") + ["Bus-Id", "Name", "Process id"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_TABLE_ALPHABET, max_size=200).map("".join))
def test_table_like_junk_parses_or_raises_parse_error(text: str) -> None:
    either_parses_or_rejects(text)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([p.name for p in INFO_FILES]),
    st.lists(st.tuples(st.integers(0, 100), st.sampled_from(["drop", "dup", "junk", "swap"])), max_size=4),
)
def test_mutated_real_samples_parse_or_raise_parse_error(name: str, edits: List[Any]) -> None:
    lines = body(name).split("\n")
    for position, action in edits:
        if not lines:
            break
        at = position % len(lines)
        if action == "drop":
            del lines[at]
        elif action == "dup":
            lines.insert(at, lines[at])
        elif action == "junk":
            lines.insert(at, "| ?? | 12 / | x |")
        else:
            lines[at], lines[-1] = lines[-1], lines[at]
    either_parses_or_rejects("\n".join(lines))
    with contextlib.suppress(NpuSmiParseError):
        parse_all_npu_smi_tables("\n".join(lines))


def test_linear_time_on_large_and_hostile_input() -> None:
    lines = body("vllm-ascend-198-8x910B3-23.0.7.txt").split("\n")
    block = lines[6:9]  # two device rows + border
    big = "\n".join(lines[:6] + block * 5000)
    start = time.perf_counter()
    assert len(parse_npu_smi_info(big).devices) == 5000
    hostile = [
        "|" * 200000,
        "| 0 910B | OK | " + "0 / " * 100000 + "|",
        "+" + "-" * 500000,
        "| npu-smi " + "9" * 100000 + " Version: " + "1" * 100000 + " |",
        "." * 300000,
    ]
    for text in hostile:
        with pytest.raises(NpuSmiParseError):
            parse_npu_smi_info(text)
    assert time.perf_counter() - start < 5


def test_huge_numbers_are_rejected_not_crashed() -> None:
    text = body("vllm-ascend-2498-1x910B3-process-24.1.rc2.txt").replace("| 0     910B3", "| " + "9" * 5000 + " 910B3")
    with pytest.raises(NpuSmiParseError, match="NPU id"):
        parse_npu_smi_info(text)


# --------------------------------------------------------------------------- key : value outputs

KEYVALUE_FILES = [p for p in OTHER_FILES if p.name not in NOT_KEYVALUE]


@pytest.mark.parametrize("path", KEYVALUE_FILES, ids=lambda p: p.name)
def test_every_keyvalue_sample_parses(path: Path) -> None:
    text = strip_header(path.read_text(encoding="utf-8"))
    values = parse_npu_smi_keyvalue(text)
    assert values
    for key, value in values.items():
        assert key and key == key.strip() and value == value.strip()
        assert not key.startswith(("$", "/", "(", "["))
    assert parse_npu_smi_keyvalue_blocks(text)


@pytest.mark.parametrize("name", sorted(NOT_KEYVALUE))
def test_non_keyvalue_outputs_are_rejected(name: str) -> None:
    with pytest.raises(NpuSmiParseError):
        parse_npu_smi_keyvalue(body(name, OTHER_DIR))


def kv(name: str) -> Dict[str, str]:
    return parse_npu_smi_keyvalue(body(name, OTHER_DIR))


def test_keyvalue_board() -> None:
    board = kv("mindcluster-doc-board-910-d801.txt")
    assert board["Software Version"] == "23.0.5"
    assert board["Firmware Version"] == "7.1.0.7.220"
    assert board["PCI Device ID"] == "0xD801"
    assert board["Class ID"] == "NA"
    assert board["PCIe Bus Info"] == "0000:61:00.0"
    chip = kv("mindcluster-doc-chip-board-910.txt")
    assert chip["VDie ID"] == "42C711D4 20B03704 4A10C8D4 14CC040A D2102003"
    assert chip["Chip Name"] == "xxx"


def test_keyvalue_usages_and_health() -> None:
    usages = kv("mindcluster-doc-usages-health-910.txt")
    assert usages["DDR Capacity(MB)"] == "13553" and usages["HBM Capacity(MB)"] == "32768"
    assert usages["Health Status"] == "OK" and usages["Error Code"] == "NA"
    new = kv("telegraf-fixture-usages-910B-25.5.1.txt")
    assert new["NPU Utilization(%)"] == "0" and new["Aicube Usage Rate(%)"] == "0"
    assert new["HBM Capacity(MB)"] == "65536"


def test_keyvalue_common_first_value_wins_and_blocks_keep_the_mcu() -> None:
    common = kv("mindcluster-doc-common-910.txt")
    assert (common["Aicore Count"], common["NPU Real-time Power(W)"]) == ("30", "71.7")
    text = body("arthurchiao-usages-common-910B1.txt", OTHER_DIR)
    merged = parse_npu_smi_keyvalue(text)
    assert merged["NPU ID"] == "0" and merged["Temperature(C)"] == "46"
    blocks = parse_npu_smi_keyvalue_blocks(text)
    assert blocks[-1] == {"Chip Name": "mcu", "Temperature(C)": "38"}
    assert {"Aicore Count": "24"}.items() <= blocks[-2].items()


def test_keyvalue_info_l_blocks() -> None:
    blocks = parse_npu_smi_keyvalue_blocks(body("blog-800IA2-info-l-8x910B4.txt", OTHER_DIR))
    assert blocks[0] == {"Total Count": "8"}
    assert [b["NPU ID"] for b in blocks[1:]] == [str(i) for i in range(8)]


def test_keyvalue_temp_power_and_mcu_upgrade() -> None:
    temp = kv("telegraf-fixture-temp-power-910B-25.5.1.txt")
    assert temp["NPU Temperature (C)"] == "39" and temp["NPU Real-time Power(W)"] == "103.5"
    upgrade = kv("blog-800IA2-upgrade-mcu-910B4.txt")
    assert upgrade["Version"] == "23.3.13"  # first value; the later "25.50.10" is in the blocks
    assert "[WARNING]" not in upgrade
    blocks = parse_npu_smi_keyvalue_blocks(body("blog-800IA2-upgrade-mcu-910B4.txt", OTHER_DIR))
    versions = [b["Version"] for b in blocks if "Version" in b]
    assert versions[-1] == "25.50.10"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_keyvalue_arbitrary_text(text: str) -> None:
    with contextlib.suppress(NpuSmiParseError):
        parse_npu_smi_keyvalue(text)
