"""The second field review's `matrix lookup` and memory-planner (`plan`) rows, one test per row.

Rows of advice_review_2_matrix.md: 18, 19, 20 (+ the data of 2 and 5), 1 (data), 24 for `matrix lookup`;
3, 6, 21, 22 for `plan`. Each asserts verdicts, exit codes and JSON fields, not sentences.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import pytest
from click.testing import Result

from ascend_doctor.cli import main
from ascend_doctor.matrix.select import load_matrix
from ascend_doctor.model import plan as P
from ascend_doctor.model.families import find_family

from .clirunner import make_runner

GIB = 1024 ** 3
OTHER_PRODUCT_HDKS = {"25.7.RC1", "25.1.RC1", "25.6.RC1"}  # Atlas 350 / 950 SuperPoD / 850


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    monkeypatch.setenv("COLUMNS", "160")


def run(*args: str) -> Result:
    return make_runner().invoke(main, list(args))


def lookup(*args: str) -> Dict[str, Any]:
    result = run("matrix", "lookup", *args, "--format", "json")
    assert result.exit_code == 0, result.output[-2000:]
    data: Dict[str, Any] = json.loads(result.stdout)
    return data


def result_for(data: Dict[str, Any], subject_start: str) -> Dict[str, Any]:
    found = [r for r in data["results"] if r["subject"].startswith(subject_start)]
    assert found, [r["subject"] for r in data["results"]]
    return found[0]


def answers(result: Dict[str, Any], component: str) -> List[Dict[str, Any]]:
    return [a for a in result["answers"] if a["component"] == component]


def facts(result: Dict[str, Any]) -> Dict[str, str]:
    return {f["name"]: f["value"] for f in result["facts"]}


def plan_json(*args: str) -> tuple[int, Dict[str, Any]]:
    result = run("plan", *args, "--format", "json")
    assert result.exit_code in (0, 1), result.output[-2000:]
    data: Dict[str, Any] = json.loads(result.stdout)
    return result.exit_code, data


# -- matrix lookup ------------------------------------------------------------------------------

def test_row18_chip_a3_narrows_firmware_to_the_family() -> None:
    driver = result_for(lookup("--driver", "25.0.rc1.1", "--chip", "A3"), "driver")
    firmware = {a["version"] for a in answers(driver, "firmware")}
    assert "7.7.0.1.231" not in firmware  # the A2/310P number
    every_text = json.dumps(driver["answers"])
    assert "Ascend-hdk-910b-npu-firmware" not in every_text and "910b/310p column" not in every_text
    shown = facts(driver)
    assert shown["firmware"].startswith("unknown for A3")
    assert shown["A3 firmware package"] == "Atlas-A3-hdk-npu-firmware_{firmware}.run"


def test_row18_chip_a2_keeps_its_own_firmware() -> None:
    driver = result_for(lookup("--driver", "25.0.rc1.1", "--chip", "910B3"), "driver")
    assert "7.7.0.1.231" in {a["version"] for a in answers(driver, "firmware")}
    assert facts(driver)["A2 firmware package"].startswith("Ascend-hdk-910b-npu-firmware_")


def test_row19_other_products_hdk_lines_are_not_recommended() -> None:
    cann = result_for(lookup("--cann", "9.1.0"), "CANN")
    drivers = {a["version"]: a["verdict"] for a in answers(cann, "driver")}
    assert not OTHER_PRODUCT_HDKS & set(drivers), drivers
    assert drivers.get("26.1.0") == "recommended"
    other = facts(cann)["other products (Atlas 350/850/950)"]
    assert other.startswith("not applicable to A2/A3/300I Duo")
    assert all(hdk in other for hdk in OTHER_PRODUCT_HDKS)


def test_row19_the_950_family_keeps_its_product_lines() -> None:
    cann = result_for(lookup("--cann", "9.1.0", "--chip", "950DT"), "CANN")
    assert {a["version"] for a in answers(cann, "driver")} >= OTHER_PRODUCT_HDKS


def test_row20_910a_is_an_fp16_chip_without_mindie() -> None:
    chip = result_for(lookup("--chip", "910A"), "chip")
    fp16 = next(a for a in answers(chip, "dtype") if a["version"] == "fp16")
    assert fp16["verdict"] == "compatible" and any(s.startswith("https://") for s in fp16["sources"])
    mindie = answers(chip, "mindie")[0]
    assert mindie["version"] == "unsupported" and mindie["verdict"] == "incompatible"
    assert any("mindie_instg_000" in s for s in mindie["sources"])  # the MindIE hardware table
    assert answers(chip, "vllm-ascend")[0]["verdict"] == "incompatible"


def test_row20_a3_mindie_supported_with_its_images() -> None:
    chip = result_for(lookup("--chip", "A3"), "chip")
    mindie = answers(chip, "mindie")[0]
    assert mindie["version"] == "supported" and mindie["verdict"] == "compatible"
    assert any("MindIE-Motor/issues/473" in s for s in mindie["sources"])
    images = [v for k, v in facts(chip).items() if k.startswith("MindIE image")]
    assert images and all("-800I-A3-" in image for image in images)


def test_row2_row5_engine_support_data_for_the_resolver() -> None:
    m = load_matrix()
    assert m.family("910").engines["mindie"].support == "unsupported"
    assert m.family("A3").engines["mindie"].support == "supported"
    assert m.family("A2").engines["mindie"].support == "supported"
    assert m.family("310P").engines["mindie"].support == "supported"
    assert m.family("910").dtypes["fp16"].supported is True


def test_row1_mindie_builds_are_torch_2_1_abi0_and_2_6_abi1() -> None:
    mindie = result_for(lookup("--mindie", "2.2.RC1"), "MindIE")
    torch = {a["version"]: a["verdict"] for a in answers(mindie, "torch")}
    assert torch == {"2.1.0 (abi0)": "recommended", "2.6.0 (abi1)": "recommended"}
    npu = {a["version"]: a["verdict"] for a in answers(mindie, "torch_npu")}
    assert npu["2.1.0.post17 (abi0)"] == "recommended" and npu["2.6.0.post3 (abi1)"] == "recommended"
    assert npu["2.8.0 (torch 2.8.0)"] == "incompatible"  # the PTA line-up is not MindIE's torch list
    packages = {a["version"] for a in answers(mindie, "mindie-package")}
    assert packages == {"Ascend-mindie_2.2.RC1_linux-{arch}_abi0.run", "Ascend-mindie_2.2.RC1_linux-{arch}_abi1.run"}


def test_row1_row23_mindie_3_0_0_is_torch_2_9_0_on_python_3_11() -> None:
    mindie = result_for(lookup("--mindie", "3.0.0"), "MindIE")
    torch = {a["version"]: a for a in answers(mindie, "torch")}
    assert set(torch) == {"2.9.0"} and torch["2.9.0"]["verdict"] == "recommended"
    assert any("mindie/download" in s for s in torch["2.9.0"]["sources"])  # MindIE's page, not a vLLM row
    assert "3.11" in {a["version"] for a in answers(mindie, "python")}


def test_row1_mindie_build_data_per_release() -> None:
    rows = {row.version: row for row in load_matrix().mindie_rows}
    for version in ("2.1.RC1", "2.2.RC1", "2.3.0"):
        builds = {b.abi: b for b in rows[version].builds}
        assert builds[0].torch == "2.1.0" and builds[1].torch == "2.6.0", version
        assert builds[0].package_name(version, "aarch64") == f"Ascend-mindie_{version}_linux-aarch64_abi0.run"
        assert all(b.source for b in builds.values())
        assert set(rows[version].torch) == {b.torch for b in builds.values()}
    assert {b.torch_npu for b in rows["2.3.0"].builds} == {"2.1.0.post17", "2.6.0.post5"}
    (build,) = rows["3.0.0"].builds
    assert (build.torch, build.python, build.abi) == ("2.9.0", "3.11", None)
    assert any("mindie/download" in s for s in build.source)


def test_row24_chip_310p3_lists_the_recorded_mindie_images() -> None:
    chip = result_for(lookup("--chip", "310P3"), "chip")
    shown = facts(chip)
    recorded = {i.mindie: i.image for i in load_matrix().mindie_images if i.family == "310P"}
    assert {"2.1.RC1", "2.2.RC1", "2.3.0"} <= set(recorded)
    for release, image in recorded.items():
        assert shown[f"MindIE image ({release})"] == image
        assert "-300I-Duo-" in image


# -- plan ---------------------------------------------------------------------------------------

def test_row3_fp8_plan_on_910b_is_not_loadable() -> None:
    code, data = plan_json("--model", "DeepSeek-R1", "--precision", "fp8", "--chip", "910B3", "--cards", "16")
    assert code == 1
    assert data["plan"]["per_card"]["verdict"] == "not-loadable" and data["loadable"] is False
    assert data["fits"] is False
    routes = {r["precision"]: r for r in data["routes"]}
    assert set(routes) == {"bf16", "w8a8"}  # never fp16 on a BF16-capable chip
    assert routes["w8a8"]["cards"] == data["smallest_cards"]["fp8"] == 16  # W8A8 is the size of FP8
    assert routes["bf16"]["cards"] == 32


def test_row3_fp8_on_310p_routes_to_fp16_or_w8a8() -> None:
    code, data = plan_json("--model", "DeepSeek-R1-Distill-Qwen-7B", "--precision", "fp8", "--chip", "310P3")
    assert code == 1 and data["loadable"] is False
    assert {r["precision"] for r in data["routes"]} == {"fp16", "w8a8"}


def test_row6_mla_kv_bound_search_tries_attention_dp() -> None:
    code, data = plan_json("--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B3", "--tp", "16",
                           "--max-seq-len", "32768", "--batch", "64")
    assert code == 1 and data["plan"]["per_card"]["verdict"] == "fits-fewer-sequences"
    assert data["smallest_cards"]["w8a8"] == 32
    assert data["smallest_layouts"]["w8a8"] == {"cards": 32, "tp": 4, "dp": 8, "ep": 32, "moe_tp": 1}
    assert data["advice"] == ["attention-dp", "int8-kv-cache"]


def test_row6_review_arithmetic_fits_on_32_cards() -> None:
    code, data = plan_json("--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B3",
                           "--max-seq-len", "32768", "--batch", "64")
    assert code == 0 and data["fits"] is True
    assert data["plan"]["layout"] == {"cards": 32, "tp": 4, "dp": 8, "ep": 32, "moe_tp": 1}
    card = data["plan"]["per_card"]
    assert card["weights_bytes"] / GIB == pytest.approx(23.5, abs=0.1)  # 17.8/4 + 609.0/32
    assert card["kv_cache_bytes"] / GIB == pytest.approx(17.2, abs=0.1)  # 8 seqs x 32768 x 68.6 KiB
    used = card["weights_bytes"] + card["kv_cache_bytes"] + card["reserve_bytes"]
    assert used / GIB == pytest.approx(50.1, abs=0.2)


def test_row21_w4a8_on_310p_has_no_documented_route() -> None:
    _, data = plan_json("--model", "DeepSeek-R1-Distill-Qwen-7B", "--chip", "310P3")
    assert data["no_documented_route"] == ["w4a8"]
    assert "w4a8" not in data["not_loadable"]  # unknown, not incompatible
    _, a3 = plan_json("--model", "DeepSeek-R1", "--chip", "A3")
    assert a3["no_documented_route"] == []


def test_row22_w4a8_keeps_attention_and_shared_layers_at_8_bit() -> None:
    family = find_family("DeepSeek-R1")
    assert family is not None
    weights = P.weights_from_arch(family.arch(), P.PRECISIONS["w4a8"])
    assert weights.non_expert_bytes / GIB == pytest.approx(17.8, abs=0.1)
    assert weights.total_bytes / GIB == pytest.approx(322.0, abs=0.5)
    code, data = plan_json("--model", "DeepSeek-R1", "--precision", "w4a8", "--chip", "910B3", "--cards", "8")
    assert code == 0 and data["plan"]["per_card"]["verdict"] == "fits"
    assert data["plan"]["model_weights_bytes"] / GIB == pytest.approx(322.0, abs=0.5)
    assert any(P.W4A8_LAYOUT_SOURCES[0] in note for note in data["notes"])  # the assumption is stated


def test_row22_dense_w4a8_stays_all_int4() -> None:
    family = find_family("DeepSeek-R1-Distill-Qwen-7B")
    assert family is not None
    arch = family.arch()
    w4 = P.weights_from_arch(arch, P.PRECISIONS["w4a8"]).total_bytes
    w8 = P.weights_from_arch(arch, P.PRECISIONS["w8a8"]).total_bytes
    assert w4 < w8
